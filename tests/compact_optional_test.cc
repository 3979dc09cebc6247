#include "util/compact_optional.h"

#include <gtest/gtest.h>

#include <optional>

namespace rcf::util {
namespace compact_optional_test {

TEST(CompactOptional, HoldsWhatStdOptionalHoldsInHalfTheBytes) {
  EXPECT_EQ(sizeof(CompactOptional<int64_t>), sizeof(int64_t));
  EXPECT_EQ(sizeof(CompactOptional<double>), sizeof(double));
  EXPECT_LT(sizeof(CompactOptional<int64_t>), sizeof(std::optional<int64_t>));

  CompactOptional<int64_t> absent;
  EXPECT_FALSE(absent.has_value());
  EXPECT_FALSE(absent);
  EXPECT_EQ(absent.value_or(-1), -1);
  EXPECT_EQ(std::optional<int64_t>(absent), std::nullopt);

  for (int64_t v : {int64_t{0}, int64_t{-1}, int64_t{1} << 62, -(int64_t{1} << 62)}) {
    CompactOptional<int64_t> present = v;
    EXPECT_TRUE(present.has_value()) << v;
    EXPECT_EQ(*present, v);
    EXPECT_EQ(std::optional<int64_t>(present), v);
  }
  CompactOptional<int64_t> from_std = std::optional<int64_t>(0);
  EXPECT_TRUE(from_std);
  from_std = std::optional<int64_t>();
  EXPECT_FALSE(from_std);
  from_std = std::nullopt;
  EXPECT_FALSE(from_std);
}

TEST(CompactOptional, ADoubleIsAbsentAsNaNAndPresentOtherwise) {
  CompactOptional<double> absent;
  EXPECT_FALSE(absent);
  EXPECT_EQ(std::optional<double>(absent), std::nullopt);
  for (double v : {0.0, -0.0, 1.5, -1e300}) {
    CompactOptional<double> present = std::optional<double>(v);
    EXPECT_TRUE(present) << v;
    EXPECT_EQ(*present, v);
  }
}

}  // namespace compact_optional_test
}  // namespace rcf::util
