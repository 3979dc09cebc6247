// TextArena: append-only storage for many texts, in blocks that never move, so that the address
// of a text stays valid until the arena is destroyed (moving the arena keeps it valid).
// Growing one std::string instead copies everything held at each doubling and faults its pages
// in again: at a few hundred thousand texts that was a third of the time spent storing them.
// The blocks grow from 64 KiB to 2 MiB: a small run's few texts took two 2 MiB blocks, each
// mapped, advised and zeroed whole (docs/performance.md, "Small logs"). They come from
// LargeArrayAllocator (transparent huge pages where the system allows).
#pragma once

#include <cstddef>
#include <memory>
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

  // An arena that holds this one's blocks too, so that every text allocated so far stays valid
  // as long as either lives; each allocates anew in blocks of its own (this one may go on
  // filling the block it fills now: the share never reads past what was allocated before).
  // Copying the texts themselves was most of the copy of a checkpoint's program keys.
  TextArena share() const;

 private:
  static constexpr size_t kFirstBlockBytes = size_t{64} << 10;
  static constexpr size_t kBlockBytes = size_t{2} << 20;
  // A block, freed when the last arena that holds it is destroyed.
  using Block = std::shared_ptr<char>;
  void release() noexcept;

  std::vector<Block> blocks_;
  char* next_ = nullptr;   // the free part of the block filled now
  size_t left_ = 0;        // its size
  size_t last_block_ = 0;  // the size of that block (0: none yet)
};

}  // namespace rcf::util
