#include "util/text_arena.h"

#include <cstring>
#include <utility>

#include "util/large_array_allocator.h"

namespace rcf::util {

TextArena::~TextArena() {
  release();
}

TextArena::TextArena(TextArena&& other) noexcept
    : blocks_(std::exchange(other.blocks_, {})),
      block_used_(std::exchange(other.block_used_, kBlockBytes)) {}

TextArena& TextArena::operator=(TextArena&& other) noexcept {
  if (this != &other) {
    release();
    blocks_ = std::exchange(other.blocks_, {});
    block_used_ = std::exchange(other.block_used_, kBlockBytes);
  }
  return *this;
}

void TextArena::release() noexcept {
  for (const Block& b : blocks_) LargeArrayAllocator<char>().deallocate(b.data, b.size);
  blocks_.clear();
  block_used_ = kBlockBytes;
}

char* TextArena::allocate(size_t size) {
  blocks_.reserve(blocks_.size() + 1);  // so that a block allocated below is always kept
  if (size > kBlockBytes / 4) {
    // Placed before the current block, whose free space is still used.
    Block own{LargeArrayAllocator<char>().allocate(size), size};
    blocks_.insert(blocks_.empty() ? blocks_.end() : blocks_.end() - 1, own);
    return own.data;
  }
  if (blocks_.empty() || kBlockBytes - block_used_ < size) {
    blocks_.push_back({LargeArrayAllocator<char>().allocate(kBlockBytes), kBlockBytes});
    block_used_ = 0;
  }
  char* at = blocks_.back().data + block_used_;
  block_used_ += size;
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
