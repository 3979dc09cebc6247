// TextArena: append-only storage for many texts, in blocks of 2 MiB that never move, so that the
// address of a text stays valid until the arena is destroyed (moving the arena keeps it valid).
// Growing one std::string instead copies everything held at each doubling and faults its pages
// in again: at a few hundred thousand texts that was a third of the time spent storing them.
// The blocks come from LargeArrayAllocator (transparent huge pages where the system allows).
#pragma once

#include <cstddef>
#include <string_view>
#include <vector>

namespace rcf::util {

class TextArena {
 public:
  TextArena() = default;
  ~TextArena();
  TextArena(TextArena&& other) noexcept;
  TextArena& operator=(TextArena&& other) noexcept;

  // Room for `size` bytes, uninitialised, valid until the arena is destroyed; a request larger
  // than a quarter block gets a block of its own.
  char* allocate(size_t size);

  // A copy of `text`. An empty text gets a non-null address.
  std::string_view copy(std::string_view text);

 private:
  static constexpr size_t kBlockBytes = size_t{2} << 20;
  struct Block {
    char* data;
    size_t size;
  };
  void release() noexcept;

  std::vector<Block> blocks_;        // owned; freed by release()
  size_t block_used_ = kBlockBytes;  // bytes used of blocks_.back() (full: none yet)
};

}  // namespace rcf::util
