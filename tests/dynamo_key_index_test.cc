// DynamoKeyIndex: where the compile merger finds a record's compile among those merged so far.
// Every key added is found at its position, keys differing in one field are distinct, and more
// keys than expected make it grow without losing any.
#include "analysis/dynamo_key_index.h"

#include <gtest/gtest.h>

#include <map>
#include <vector>

namespace rcf::analysis {
namespace dynamo_key_index_test {

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

// Keys held the way the merger holds them: in an array, the index storing positions.
struct HeldKeys {
  std::vector<DynamoKey> keys;
  DynamoKeyIndex index{4};
  const DynamoKey& at(uint32_t i) const { return keys[i]; }
  std::optional<uint32_t> find(const DynamoKey& k) const {
    return index.find(k, [this](uint32_t i) -> const DynamoKey& { return at(i); });
  }
  // Adds `k` unless held; returns whether it was new.
  bool add(const DynamoKey& k) {
    if (find(k)) return false;
    keys.push_back(k);
    index.add(k, static_cast<uint32_t>(keys.size() - 1),
              [this](uint32_t i) -> const DynamoKey& { return at(i); });
    return true;
  }
};

TEST(DynamoKeyIndex, FindsEveryKeyAtItsPositionAndGrowsPastItsExpectedSize) {
  HeldKeys held;
  std::map<DynamoKey, uint32_t> reference;
  for (int32_t source = 1; source <= 3; ++source)
    for (int32_t frame = 0; frame < 40; ++frame)
      for (int32_t compile = 0; compile < 9; ++compile) {
        DynamoKey k = key(source, frame % 2, frame, compile);
        bool is_new = reference.emplace(k, static_cast<uint32_t>(reference.size())).second;
        EXPECT_EQ(held.add(k), is_new);
      }
  ASSERT_EQ(reference.size(), 3u * 40 * 9);
  EXPECT_EQ(held.index.size(), reference.size());
  for (const auto& [k, position] : reference) {
    std::optional<uint32_t> found = held.find(k);
    ASSERT_TRUE(found);
    EXPECT_EQ(*found, position);
    EXPECT_FALSE(held.add(k));
  }
  EXPECT_FALSE(held.find(key(4, 0, 0, 0)));
}

TEST(DynamoKeyIndex, KeysDifferingInOneFieldAreDistinct) {
  HeldKeys held;
  DynamoKey base = key(1, 0, 2, 3);
  EXPECT_TRUE(held.add(base));
  DynamoKey k = base;
  k.rank = 1;
  EXPECT_TRUE(held.add(k));
  k = base;
  k.ca_id = 0;
  EXPECT_TRUE(held.add(k));
  k = base;
  k.line_if_no_id = 17;
  EXPECT_TRUE(held.add(k));
  k = base;
  k.epoch = 1;
  EXPECT_TRUE(held.add(k));
  EXPECT_FALSE(held.add(base));
  EXPECT_EQ(held.find(base), 0u);
  EXPECT_EQ(held.find(k), 4u);
}

}  // namespace dynamo_key_index_test
}  // namespace rcf::analysis
