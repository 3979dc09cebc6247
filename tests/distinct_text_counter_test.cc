// DistinctTextCounter: exact distinct counts, also when hashes collide.
#include "util/distinct_text_counter.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>

namespace rcf::util {
namespace distinct_text_counter_test {

TEST(DistinctTextCounter, CountsEachTextOnce) {
  DistinctTextCounter c;
  EXPECT_EQ(c.count(), 0u);
  for (const char* t : {"0/0", "0/1", "0/0", "", "rank1:0/0", "", "0/1"}) c.add(t);
  EXPECT_EQ(c.added(), 7u);
  EXPECT_EQ(c.count(), 4u);  // 0/0, 0/1, "", rank1:0/0
  c.add("0/2");              // adding after a count goes on counting
  c.add("0/0");
  EXPECT_EQ(c.count(), 5u);
}

// Every text hashes alike: the count then rests on comparing the texts themselves.
struct CollidingHash {
  uint64_t operator()(std::string_view) const { return 42; }
};

TEST(DistinctTextCounter, TextsOfEqualHashAreComparedByTheirBytes) {
  BasicDistinctTextCounter<CollidingHash> c;
  for (int i = 0; i < 1000; ++i) c.add("key" + std::to_string(i % 300));
  c.add(std::string("a\0b", 3));
  c.add(std::string("a\0c", 3));  // differ after an embedded NUL
  c.add("a");
  EXPECT_EQ(c.count(), 303u);
}

TEST(DistinctTextCounter, ManyTextsAgreeWithASet) {
  DistinctTextCounter c;
  c.reserve(100000);
  for (int i = 0; i < 100000; ++i) c.add(std::to_string((i * 7919) % 61331));
  EXPECT_EQ(c.count(), 61331u);
}

// A copy counts what the original had and goes on alone: its texts are its own (the original is
// gone before the copy counts), and counts after more texts merge them into the sorted ones.
TEST(DistinctTextCounter, ACopyCountsOnAloneAfterTheOriginalIsGone) {
  auto original = std::make_unique<DistinctTextCounter>();
  for (int i = 0; i < 5000; ++i) original->add("key" + std::to_string(i % 1000));
  EXPECT_EQ(original->count(), 1000u);
  for (int i = 0; i < 10; ++i) original->add("late" + std::to_string(i));  // not counted yet
  DistinctTextCounter copy(*original);
  original->add("only in the original");
  original.reset();
  EXPECT_EQ(copy.count(), 1010u);
  for (int i = 0; i < 3000; ++i) copy.add("key" + std::to_string(i));  // 2000 new
  EXPECT_EQ(copy.count(), 3010u);
  EXPECT_EQ(copy.added(), 8010u);
}

}  // namespace distinct_text_counter_test
}  // namespace rcf::util
