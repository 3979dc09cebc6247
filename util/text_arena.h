// TextArena: append-only storage for many texts, in blocks of 1 MiB that never move, so that the
// address of a text stays valid until the arena is destroyed (moving the arena keeps it valid).
// Growing one std::string instead copies everything held at each doubling and faults its pages
// in again: at a few hundred thousand texts that was a third of the time spent storing them.
#pragma once

#include <cstddef>
#include <memory>
#include <string_view>
#include <vector>

namespace rcf::util {

class TextArena {
 public:
  // Room for `size` bytes, uninitialised, valid until the arena is destroyed; a request larger
  // than a quarter block gets a block of its own.
  char* allocate(size_t size);

  // A copy of `text`. An empty text gets a non-null address.
  std::string_view copy(std::string_view text);

 private:
  static constexpr size_t kBlockBytes = size_t{1} << 20;
  std::vector<std::unique_ptr<char[]>> blocks_;
  size_t block_used_ = kBlockBytes;  // bytes used of blocks_.back() (full: none yet)
};

}  // namespace rcf::util
