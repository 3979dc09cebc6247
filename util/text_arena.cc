#include "util/text_arena.h"

#include <cstring>

namespace rcf::util {

char* TextArena::allocate(size_t size) {
  if (size > kBlockBytes / 4) {
    // Placed before the current block, whose free space is still used.
    auto own = std::make_unique_for_overwrite<char[]>(size);
    char* at = own.get();
    blocks_.insert(blocks_.empty() ? blocks_.end() : blocks_.end() - 1, std::move(own));
    return at;
  }
  if (blocks_.empty() || kBlockBytes - block_used_ < size) {
    blocks_.push_back(std::make_unique_for_overwrite<char[]>(kBlockBytes));
    block_used_ = 0;
  }
  char* at = blocks_.back().get() + block_used_;
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
