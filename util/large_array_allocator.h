// LargeArrayAllocator: an allocator for the few arrays that hold one record per compile or per
// guard failure of a run (hundreds of MB at a million compiles). Arrays of 2 MiB and more are
// mapped directly and marked for transparent huge pages (madvise), so that filling them costs one
// page fault per 2 MiB instead of one per 4 KiB: on the benchmark machine, faulting in the
// analysis's memory 4 KiB at a time took a tenth of its time. Smaller arrays, and systems that
// refuse the mapping or the advice, get ordinary memory; the advice is only a hint.
#pragma once

#include <sys/mman.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <new>
#include <vector>

namespace rcf::util {

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
    // Huge pages back only 2 MiB-aligned ranges: map 2 MiB more, then unmap the ends.
    size_t size = rounded(bytes);
    void* p =
        mmap(nullptr, size + kHugePage, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) throw std::bad_alloc();
    char* start = static_cast<char*>(p);
    char* aligned = reinterpret_cast<char*>((reinterpret_cast<uintptr_t>(start) + kHugePage - 1) &
                                            ~uintptr_t(kHugePage - 1));
    if (aligned > start) munmap(start, aligned - start);
    if (char* end = start + size + kHugePage; end > aligned + size)
      munmap(aligned + size, end - (aligned + size));
#ifdef MADV_HUGEPAGE
    madvise(aligned, size, MADV_HUGEPAGE);
#endif
    return reinterpret_cast<T*>(aligned);
  }
  void deallocate(T* p, size_t n) {
    size_t bytes = n * sizeof(T);
    if (bytes < kHugePage) {
      std::allocator<T>().deallocate(p, n);
    } else {
      munmap(p, rounded(bytes));
    }
  }
  static constexpr size_t max_size() {
    return (size_t{1} << 47) / sizeof(T);
  }

  template <typename U>
  bool operator==(const LargeArrayAllocator<U>&) const {
    return true;  // stateless: any instance frees what another allocated
  }

 private:
  static size_t rounded(size_t bytes) {
    return (bytes + kHugePage - 1) & ~(kHugePage - 1);
  }
};

// A vector for per-compile and per-reason records.
template <typename T>
using LargeVector = std::vector<T, LargeArrayAllocator<T>>;

}  // namespace rcf::util
