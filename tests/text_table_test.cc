#include "util/text_table.h"

#include <gtest/gtest.h>

#include <string>
#include <unordered_map>
#include <vector>

namespace rcf::util {
namespace text_table_test {

TEST(TextTable, NumbersTextsInTheOrderFirstSeen) {
  TextTable t;
  EXPECT_EQ(t.ordinal("0/1"), 1u);
  EXPECT_EQ(t.ordinal("0/2"), 2u);
  EXPECT_EQ(t.ordinal("0/1"), 1u);
  EXPECT_EQ(t.ordinal(""), 3u);  // the empty text is a text like any other
  EXPECT_EQ(t.ordinal(""), 3u);
  EXPECT_EQ(t.size(), 3u);
}

TEST(TextTable, TextsThatDifferOnlyInLengthOrLastByteAreDistinct) {
  TextTable t;
  EXPECT_EQ(t.ordinal("abc"), 1u);
  EXPECT_EQ(t.ordinal("ab"), 2u);
  EXPECT_EQ(t.ordinal("abd"), 3u);
  EXPECT_EQ(t.ordinal(std::string("ab\0c", 4)), 4u);  // bytes, not C strings
  EXPECT_EQ(t.ordinal(std::string("ab\0c", 4)), 4u);
}

// A table made by_ordinal gives each number's text back (the empty text too), through growth,
// in a copy, and after clear() numbers anew.
TEST(TextTable, TextByOrdinalThroughGrowthCopyAndClear) {
  TextTable t(true);
  std::vector<std::string> texts;
  for (int i = 0; i < 5000; ++i) texts.push_back(i % 97 == 0 ? "" : "site_" + std::to_string(i));
  for (const auto& text : texts) t.ordinal(text);
  ASSERT_EQ(t.size(), 4949u);  // 4948 sites and the empty text, seen 52 times
  EXPECT_EQ(t.text(1), "");
  EXPECT_EQ(t.text(2), "site_1");
  EXPECT_EQ(t.text(t.size()), "site_4999");
  TextTable copy = t;
  for (uint32_t n = 1; n <= t.size(); ++n) ASSERT_EQ(copy.ordinal(t.text(n)), n);
  EXPECT_EQ(copy.size(), t.size());
  t.clear();
  EXPECT_EQ(t.ordinal("again"), 1u);
  EXPECT_EQ(t.text(1), "again");
  EXPECT_EQ(copy.text(2), "site_1");
}

// Through many growths of the table and the arena, every text keeps its number: checked against
// a std::unordered_map on 200,000 texts, each seen three times in a shuffled order.
TEST(TextTable, AgreesWithAMapThroughGrowth) {
  TextTable t;
  std::unordered_map<std::string, uint32_t> expected;
  uint64_t x = 12345;
  for (int i = 0; i < 600000; ++i) {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    std::string text = "rank" + std::to_string((x >> 33) % 200000) + ":0/1";
    uint32_t got = t.ordinal(text);
    auto [it, inserted] = expected.emplace(text, static_cast<uint32_t>(expected.size() + 1));
    ASSERT_EQ(got, it->second) << text << (inserted ? " (new)" : " (seen)");
  }
  EXPECT_EQ(t.size(), expected.size());
}

// reserve() on an empty table, and on one holding texts (which it rehashes), keeps every number.
TEST(TextTable, ReserveKeepsTheNumbers) {
  TextTable empty;
  empty.reserve(100000);
  EXPECT_EQ(empty.size(), 0u);
  EXPECT_EQ(empty.ordinal("a"), 1u);
  EXPECT_EQ(empty.ordinal("b"), 2u);
  EXPECT_EQ(empty.ordinal("a"), 1u);

  TextTable t;
  for (int i = 0; i < 5000; ++i) t.ordinal("key." + std::to_string(i));
  t.reserve(200000);
  for (int i = 4999; i >= 0; --i)
    ASSERT_EQ(t.ordinal("key." + std::to_string(i)), static_cast<uint32_t>(i + 1)) << i;
  EXPECT_EQ(t.ordinal("key.new"), 5001u);
  t.reserve(10);  // smaller than what it holds: nothing changes
  EXPECT_EQ(t.ordinal("key.0"), 1u);
  EXPECT_EQ(t.size(), 5001u);
}

TEST(TextTable, ClearForgetsEveryText) {
  TextTable t;
  for (int i = 0; i < 10000; ++i) t.ordinal("name." + std::to_string(i));
  t.clear();
  EXPECT_EQ(t.size(), 0u);
  EXPECT_EQ(t.ordinal("name.9999"), 1u);
  EXPECT_EQ(t.ordinal("name.0"), 2u);
}

}  // namespace text_table_test
}  // namespace rcf::util
