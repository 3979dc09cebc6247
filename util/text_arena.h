// TextArena: append-only storage for many texts, in blocks that never move, so that the address
// of a text stays valid until the arena is destroyed (moving the arena keeps it valid).
// Growing one std::string instead copies everything held at each doubling and faults its pages
// in again: at a few hundred thousand texts that was a third of the time spent storing them.
// The blocks grow from 64 KiB to 2 MiB: a small run's few texts took two 2 MiB blocks, each
// mapped, advised and zeroed whole (docs/performance.md, "Small logs"). They come from
// LargeArrayAllocator (transparent huge pages where the system allows).
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
  // than a quarter of the largest block gets a block of its own.
  char* allocate(size_t size);

  // A copy of `text`. An empty text gets a non-null address.
  std::string_view copy(std::string_view text);

 private:
  static constexpr size_t kFirstBlockBytes = size_t{64} << 10;
  static constexpr size_t kBlockBytes = size_t{2} << 20;
  struct Block {
    char* data;
    size_t size;
  };
  void release() noexcept;

  std::vector<Block> blocks_;  // owned; freed by release()
  char* next_ = nullptr;       // the free part of the block filled now
  size_t left_ = 0;            // its size
  size_t last_block_ = 0;      // the size of that block (0: none yet)
};

}  // namespace rcf::util
