// DistinctTextCounter: exact distinct counts, also when hashes collide.
#include "util/distinct_text_counter.h"

#include <gtest/gtest.h>

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

}  // namespace distinct_text_counter_test
}  // namespace rcf::util
