#include "util/large_array_allocator.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <numeric>

namespace rcf::util {
namespace large_array_allocator_test {

// Small arrays come from the ordinary heap, large ones are mapped on a 2 MiB boundary (so that
// transparent huge pages can back them); both hold what is written and are freed without error
// (ASan and UBSan builds check the frees).
TEST(LargeArrayAllocator, SmallAndLargeArraysHoldTheirElements) {
  for (size_t n : {size_t{1}, size_t{1000}, size_t{3} << 20}) {
    LargeVector<int64_t> v(n);
    std::iota(v.begin(), v.end(), 0);
    EXPECT_EQ(v.front(), 0);
    EXPECT_EQ(v.back(), static_cast<int64_t>(n) - 1);
    if (n * sizeof(int64_t) >= LargeArrayAllocator<int64_t>::kHugePage) {
      EXPECT_EQ(reinterpret_cast<uintptr_t>(v.data()) % LargeArrayAllocator<int64_t>::kHugePage,
                0u);
    }
  }
}

TEST(LargeArrayAllocator, GrowingAcrossTheThresholdKeepsTheElements) {
  LargeVector<uint32_t> v;
  for (uint32_t i = 0; i < (1u << 20); ++i) v.push_back(i * 7);  // 4 MiB: crosses 2 MiB
  for (uint32_t i = 0; i < (1u << 20); i += 4099) ASSERT_EQ(v[i], i * 7);
  v.shrink_to_fit();
  EXPECT_EQ(v.size(), 1u << 20);
  v = {};
  EXPECT_TRUE(v.empty());
}

// With freed arrays kept (rcf watch), the next large array reuses the smallest kept mapping that
// holds it, cut to its size, still on a 2 MiB boundary; one larger than every kept mapping gets a
// new one; once nothing may be kept, nothing is reused.
TEST(LargeArrayAllocator, KeptFreedArraysAreReusedByTheNextThatFits) {
  constexpr size_t kMiB = size_t{1} << 20;
  keep_freed_large_arrays(0);  // nothing kept from an earlier test in this process (a watch's)
  keep_freed_large_arrays(64 * kMiB);
  const void* six = nullptr;
  const void* two = nullptr;
  {
    LargeVector<char> a(6 * kMiB, 'a'), b(2 * kMiB, 'b');
    six = a.data();
    two = b.data();
  }
  {
    LargeVector<char> c(3 * kMiB + 5, 'c');  // 4 MiB: only the 6 MiB mapping holds it
    EXPECT_EQ(static_cast<const void*>(c.data()), six);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(c.data()) % (2 * kMiB), 0u);
    EXPECT_EQ(c.back(), 'c');
    LargeVector<char> d(2 * kMiB, 'd');  // the 2 MiB one
    EXPECT_EQ(static_cast<const void*>(d.data()), two);
    EXPECT_EQ(d.front(), 'd');
    LargeVector<char> e(8 * kMiB, 'e');  // none kept is that large (and c, d are in use)
    EXPECT_NE(static_cast<const void*>(e.data()), six);
    EXPECT_NE(static_cast<const void*>(e.data()), two);
    EXPECT_EQ(e[5 * kMiB], 'e');
  }
  keep_freed_large_arrays(0);  // gives back c's, d's and e's mappings
  LargeVector<int64_t> f(kMiB, 7);
  EXPECT_EQ(f.back(), 7);
}

}  // namespace large_array_allocator_test
}  // namespace rcf::util
