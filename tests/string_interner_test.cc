// The string interner answers the same id for the same text whether the text is in its cache or
// only in the table, and its cache stays within its bound.
#include "store/string_interner.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "store/store.h"
#include "tests/support/db_dump.h"
#include "tests/support/temp_files.h"
#include "util/error.h"

namespace rcf::store {
namespace string_interner_test {

TEST(StringInterner, SameTextSameIdAcrossCacheDropsAndInterners) {
  testing::TempDir dir;
  auto db = open_store(dir.file("rcf.db"), OpenMode::kCreateOrWrite);
  std::vector<int64_t> first;
  {
    // 4 KiB of cache: about 40 entries of these texts, so 1000 texts drop it many times.
    StringInterner strings(*db, 4096);
    for (int i = 0; i < 1000; ++i)
      first.push_back(strings.id("frame /work/train.py:" + std::to_string(i)));
    EXPECT_EQ(strings.table_lookups(), 1000);
    for (int i = 0; i < 1000; ++i)
      EXPECT_EQ(strings.id("frame /work/train.py:" + std::to_string(i)), first[i]) << i;
    EXPECT_GT(strings.table_lookups(), 1000);  // the early texts had left the cache
    // A text repeated back to back is answered from the cache.
    int64_t lookups = strings.table_lookups();
    for (int i = 0; i < 100; ++i) strings.id("user mark_step");
    EXPECT_EQ(strings.table_lookups(), lookups + 1);
    EXPECT_FALSE(strings.id_or_null("").has_value());
  }
  StringInterner again(*db);
  for (int i = 0; i < 1000; i += 97)
    EXPECT_EQ(again.id("frame /work/train.py:" + std::to_string(i)), first[i]);
  EXPECT_EQ(testing::scalar(*db, "SELECT count(*) FROM strings WHERE text LIKE 'frame %'"), "1000");
  // A text larger than the whole cache is interned but not cached.
  StringInterner small(*db, 128);
  std::string big(1000, 'x');
  int64_t id = small.id(big);
  EXPECT_EQ(small.id(big), id);
  EXPECT_EQ(small.table_lookups(), 2);
}

// A lookup that fails (here: a new text in a read-only store) leaves the cache consistent: the
// texts looked up before and after it still get their own ids.
TEST(StringInterner, AFailedLookupLeavesTheCacheConsistent) {
  testing::TempDir dir;
  std::vector<int64_t> ids;
  {
    auto db = open_store(dir.file("rcf.db"), OpenMode::kCreateOrWrite);
    StringInterner strings(*db);
    for (const char* text : {"a", "b", "c"}) ids.push_back(strings.id(text));
  }
  auto db = open_store(dir.file("rcf.db"), OpenMode::kRead);
  StringInterner strings(*db);
  EXPECT_EQ(strings.id("b"), ids[1]);
  EXPECT_THROW(strings.id("new text"), rcf::Error);
  EXPECT_EQ(strings.id("c"), ids[2]);
  EXPECT_EQ(strings.id("a"), ids[0]);
  EXPECT_THROW(strings.id("new text"), rcf::Error);
  EXPECT_THROW(strings.id("another new text"), rcf::Error);
  EXPECT_EQ(strings.id("b"), ids[1]);
  EXPECT_EQ(strings.id("a"), ids[0]);
  EXPECT_EQ(strings.id("c"), ids[2]);
}

}  // namespace string_interner_test
}  // namespace rcf::store
