#include "util/text_arena.h"

#include <algorithm>
#include <cstring>
#include <utility>

#include "util/large_array_allocator.h"

namespace rcf::util {

TextArena::~TextArena() {
  release();
}

TextArena::TextArena(TextArena&& other) noexcept
    : blocks_(std::exchange(other.blocks_, {})),
      next_(std::exchange(other.next_, nullptr)),
      left_(std::exchange(other.left_, 0)),
      last_block_(std::exchange(other.last_block_, 0)) {}

TextArena& TextArena::operator=(TextArena&& other) noexcept {
  if (this != &other) {
    release();
    blocks_ = std::exchange(other.blocks_, {});
    next_ = std::exchange(other.next_, nullptr);
    left_ = std::exchange(other.left_, 0);
    last_block_ = std::exchange(other.last_block_, 0);
  }
  return *this;
}

void TextArena::release() noexcept {
  for (const Block& b : blocks_) LargeArrayAllocator<char>().deallocate(b.data, b.size);
  blocks_.clear();
  next_ = nullptr;
  left_ = 0;
  last_block_ = 0;
}

char* TextArena::allocate(size_t size) {
  blocks_.reserve(blocks_.size() + 1);  // so that a block allocated below is always kept
  if (size > kBlockBytes / 4) {
    Block own{LargeArrayAllocator<char>().allocate(size), size};
    blocks_.push_back(own);
    return own.data;
  }
  if (left_ < size || next_ == nullptr) {
    // Each block twice the last, up to kBlockBytes; the rest of the last one is left unused.
    size_t bytes = last_block_ == 0 ? kFirstBlockBytes : std::min(kBlockBytes, 2 * last_block_);
    while (bytes < size) bytes *= 2;
    blocks_.push_back({LargeArrayAllocator<char>().allocate(bytes), bytes});
    next_ = blocks_.back().data;
    left_ = bytes;
    last_block_ = bytes;
  }
  char* at = next_;
  next_ += size;
  left_ -= size;
  return at;
}

std::string_view TextArena::copy(std::string_view text) {
  static constexpr char kEmpty[] = "";
  if (text.empty()) return std::string_view(kEmpty, 0);
  char* at = allocate(text.size());
  std::memcpy(at, text.data(), text.size());
  return std::string_view(at, text.size());
}

}  // namespace rcf::util
