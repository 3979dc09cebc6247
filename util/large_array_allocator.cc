#include "util/large_array_allocator.h"

#include <sys/mman.h>

#include <algorithm>
#include <mutex>

namespace rcf::util {
namespace {

constexpr size_t kHugePage = LargeArrayAllocator<char>::kHugePage;

struct Mapping {
  char* start;
  size_t size;
};

// The freed mappings kept for reuse, oldest first, and the most they may hold; for the process's
// lifetime (arrays are freed on several threads).
struct FreedMappings {
  std::mutex lock;
  std::vector<Mapping> kept;
  size_t kept_bytes = 0;
  size_t budget = 0;
};

FreedMappings& freed() {
  static FreedMappings* mappings = new FreedMappings;  // never destroyed: freed after exit too
  return *mappings;
}

// A kept mapping of at least `size` bytes, cut to `size` (its tail given back); the smallest such.
char* reuse(FreedMappings& f, size_t size) {
  std::lock_guard<std::mutex> hold(f.lock);
  auto best = f.kept.end();
  for (auto it = f.kept.begin(); it != f.kept.end(); ++it)
    if (it->size >= size && (best == f.kept.end() || it->size < best->size)) best = it;
  if (best == f.kept.end()) return nullptr;
  Mapping m = *best;
  f.kept.erase(best);
  f.kept_bytes -= m.size;
  if (m.size > size) munmap(m.start + size, m.size - size);
  return m.start;
}

// Unmaps the oldest kept mappings until at most `bytes` are kept; `f.lock` is held.
void give_back_oldest(FreedMappings& f, size_t bytes) {
  while (f.kept_bytes > bytes) {
    munmap(f.kept.front().start, f.kept.front().size);
    f.kept_bytes -= f.kept.front().size;
    f.kept.erase(f.kept.begin());
  }
}

// Keeps a freed mapping when the budget allows, giving back the oldest kept ones to make room;
// false when it does not fit at all.
bool keep(FreedMappings& f, char* start, size_t size) {
  std::lock_guard<std::mutex> hold(f.lock);
  if (size > f.budget) return false;
  give_back_oldest(f, f.budget - size);
  f.kept.push_back({start, size});
  f.kept_bytes += size;
  return true;
}

}  // namespace

void* map_large_array(size_t size) {
  if (char* kept = reuse(freed(), size)) return kept;
  // Huge pages back only 2 MiB-aligned ranges: map 2 MiB more, then unmap the ends.
  void* p =
      mmap(nullptr, size + kHugePage, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) return nullptr;
  char* start = static_cast<char*>(p);
  char* aligned = reinterpret_cast<char*>((reinterpret_cast<uintptr_t>(start) + kHugePage - 1) &
                                          ~uintptr_t(kHugePage - 1));
  if (aligned > start) munmap(start, aligned - start);
  if (char* end = start + size + kHugePage; end > aligned + size)
    munmap(aligned + size, end - (aligned + size));
#ifdef MADV_HUGEPAGE
  madvise(aligned, size, MADV_HUGEPAGE);
#endif
  return aligned;
}

void unmap_large_array(void* p, size_t size) {
  if (!keep(freed(), static_cast<char*>(p), size)) munmap(p, size);
}

void keep_freed_large_arrays(size_t bytes) {
  FreedMappings& f = freed();
  std::lock_guard<std::mutex> hold(f.lock);
  f.budget = bytes;
  give_back_oldest(f, f.budget);
}

size_t kept_large_array_bytes() {
  FreedMappings& f = freed();
  std::lock_guard<std::mutex> hold(f.lock);
  return f.kept_bytes;
}

}  // namespace rcf::util
