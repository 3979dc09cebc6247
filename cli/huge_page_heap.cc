// The rcf process's heap on transparent huge pages from its first allocation on. A small log's
// ingest faulted in about 330 pages of heap, and a first touch of a 4 KiB page costs 11-15 us on
// the project VM, a fifth of the run; 2 MiB at once cost about 0.2 ms (docs/performance.md,
// "Small logs"). Set up from the executable's pre-initialisers, before any static constructor
// allocates; with another allocator, or where the kernel refuses, the heap stays as it was.
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define RCF_OTHER_ALLOCATOR 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define RCF_OTHER_ALLOCATOR 1
#endif

#if defined(__GLIBC__) && !defined(RCF_OTHER_ALLOCATOR)
namespace {

constexpr uintptr_t kHugePage = uintptr_t{2} << 20;
// The first allocations (malloc's own, then libstdc++'s) go below the first huge page; touched
// before the advice, they would keep their 2 MiB from ever being a huge page.
constexpr uintptr_t kHeadroom = uintptr_t{64} << 10;
constexpr size_t kHeapBytes = size_t{6} << 20;

uintptr_t huge_page_below(uintptr_t address) {
  return address & ~(kHugePage - 1);
}

// Moves the program break so that the heap's first huge page starts kHeadroom after the heap,
// makes glibc's malloc grow the heap by kHeapBytes at once and hands that back to it, and marks
// the whole 2 MiB pages of it for huge pages. glibc maps an allocation of kHeapBytes, and
// freeing that raises its mmap threshold to the size, as it would once rcf freed its first
// buffer that large: the next one comes from the heap.
void heap_on_huge_pages(int, char**, char**) {
  const auto start = reinterpret_cast<uintptr_t>(sbrk(0));
  if (start == uintptr_t(-1)) return;
  const uintptr_t first = huge_page_below(start + kHeadroom + kHugePage - 1);
  const uintptr_t base = first - kHeadroom;
  if (base != start && sbrk(static_cast<intptr_t>(base - start)) == reinterpret_cast<void*>(-1))
    return;
  void* mapped = malloc(kHeapBytes);
  __asm__ volatile("" : : "r"(mapped) : "memory");  // neither call may be left out
  free(mapped);
  const size_t size = kHeapBytes - 2 * kHeadroom;
  void* block = malloc(size);
  __asm__ volatile("" : : "r"(block) : "memory");
  const auto at = reinterpret_cast<uintptr_t>(block);
  const auto brk_end = reinterpret_cast<uintptr_t>(sbrk(0));
  free(block);
  // The page of malloc's header after the block is touched: its 2 MiB is left out.
  const uintptr_t end = huge_page_below(at + size);
  if (block == nullptr || at < base || at + size > brk_end || end <= first) return;
  madvise(reinterpret_cast<void*>(first), end - first, MADV_HUGEPAGE);
}

}  // namespace

// Runs before every constructor, libstdc++'s included, when nothing has allocated yet.
__attribute__((section(".preinit_array"),
               used)) static void (*const rcf_heap_preinit)(int, char**,
                                                            char**) = heap_on_huge_pages;
#endif
