// LargeArrayAllocator: an allocator for the few arrays that hold one record per compile or per
// guard failure of a run (hundreds of MB at a million compiles). Arrays of 2 MiB and more are
// mapped directly and marked for transparent huge pages (madvise), so that filling them costs one
// page fault per 2 MiB instead of one per 4 KiB: on the benchmark machine, faulting in the
// analysis's memory 4 KiB at a time took a tenth of its time. Smaller arrays, and systems that
// refuse the mapping or the advice, get ordinary memory; the advice is only a hint.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <new>
#include <vector>

namespace rcf::util {

// A 2 MiB-aligned mapping of `size` bytes (a multiple of 2 MiB) marked for huge pages, or a kept
// one (keep_freed_large_arrays); nullptr when the system refuses.
void* map_large_array(size_t size);
// Gives back what map_large_array returned (`size` as asked for), or keeps it for the next.
void unmap_large_array(void* p, size_t size);
// Keeps up to `bytes` of the large arrays freed from now on mapped, for the next arrays to reuse
// (0, the default: each is unmapped at once). A process that builds the same arrays again and
// again (`rcf watch`, an analysis per batch) otherwise has the kernel zero every page of them
// each time: 70-80 MB a batch at 100 000 compiles, a tenth of the watch's CPU. The memory kept
// counts in the resident size until it is reused; 0 unmaps what is kept.
void keep_freed_large_arrays(size_t bytes);
// How many bytes of freed arrays are kept now.
size_t kept_large_array_bytes();

template <typename T>
struct LargeArrayAllocator {
  using value_type = T;
  static constexpr size_t kHugePage = size_t{2} << 20;

  LargeArrayAllocator() = default;
  template <typename U>
  LargeArrayAllocator(const LargeArrayAllocator<U>&) {}

  T* allocate(size_t n) {
    if (n > max_size()) throw std::bad_array_new_length();
    size_t bytes = n * sizeof(T);
    if (bytes < kHugePage) return std::allocator<T>().allocate(n);
    void* p = map_large_array(rounded(bytes));
    if (p == nullptr) throw std::bad_alloc();
    return static_cast<T*>(p);
  }
  void deallocate(T* p, size_t n) {
    size_t bytes = n * sizeof(T);
    if (bytes < kHugePage) {
      std::allocator<T>().deallocate(p, n);
    } else {
      unmap_large_array(p, rounded(bytes));
    }
  }
  static constexpr size_t max_size() { return (size_t{1} << 47) / sizeof(T); }

  template <typename U>
  bool operator==(const LargeArrayAllocator<U>&) const {
    return true;  // stateless: any instance frees what another allocated
  }

 private:
  static size_t rounded(size_t bytes) { return (bytes + kHugePage - 1) & ~(kHugePage - 1); }
};

// A vector for per-compile and per-reason records.
template <typename T>
using LargeVector = std::vector<T, LargeArrayAllocator<T>>;

}  // namespace rcf::util
