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

}  // namespace large_array_allocator_test
}  // namespace rcf::util
