// DynamoKeySet: the set the run loader keeps the compiles known only by reference in. Every key
// is found again, keys differing in one field are distinct, and more keys than expected make it
// grow without losing any.
#include "analysis/dynamo_key_set.h"

#include <gtest/gtest.h>

#include <set>

namespace rcf::analysis {
namespace {

DynamoKey key(int32_t source, int32_t epoch, int32_t frame, int32_t compile, int64_t line = 0) {
  DynamoKey k;
  k.source_id = source;
  k.rank = 0;
  k.epoch = epoch;
  k.frame_id = frame;
  k.frame_compile_id = compile;
  k.line_if_no_id = line;
  return k;
}

TEST(DynamoKeySet, KeepsEveryKeyOnceAndGrowsPastItsExpectedSize) {
  DynamoKeySet set(/*expected_keys=*/4);
  std::set<DynamoKey> reference;
  for (int32_t source = 1; source <= 3; ++source)
    for (int32_t frame = 0; frame < 40; ++frame)
      for (int32_t compile = 0; compile < 9; ++compile) {
        DynamoKey k = key(source, frame % 2, frame, compile);
        EXPECT_EQ(set.insert(k), reference.insert(k).second);
      }
  ASSERT_EQ(reference.size(), 3u * 40 * 9);
  for (const DynamoKey& k : reference) EXPECT_FALSE(set.insert(k));
}

TEST(DynamoKeySet, KeysDifferingInOneFieldAreDistinct) {
  DynamoKeySet set(8);
  DynamoKey base = key(1, 0, 2, 3);
  EXPECT_TRUE(set.insert(base));
  DynamoKey k = base;
  k.rank = 1;
  EXPECT_TRUE(set.insert(k));
  k = base;
  k.ca_id = 0;
  EXPECT_TRUE(set.insert(k));
  k = base;
  k.line_if_no_id = 17;
  EXPECT_TRUE(set.insert(k));
  k = base;
  k.epoch = 1;
  EXPECT_TRUE(set.insert(k));
  EXPECT_FALSE(set.insert(base));
}

}  // namespace
}  // namespace rcf::analysis
