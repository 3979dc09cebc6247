#include "analysis/merged_compile.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace rcf::analysis {
namespace merged_compile_test {

// find_merged_from finds what find_merged finds (a compile by its key, or none) from any starting
// place: before, at or after the compile, past the end, with keys present and absent.
TEST(FindMerged, FromAnyPlaceFindsWhatTheWholeSearchFinds) {
  util::LargeVector<Merged> merged;
  for (int frame = 0; frame < 300; ++frame)
    for (int compile = 0; compile < 3; compile += (frame % 7 == 0 ? 2 : 1)) {
      store::DynamoKey key;
      key.source_id = 1 + frame / 100;
      key.frame_id = frame;
      key.frame_compile_id = compile;
      merged.emplace_back(key);
    }
  ASSERT_TRUE(std::is_sorted(merged.begin(), merged.end(),
                             [](const Merged& a, const Merged& b) { return a.key < b.key; }));
  int found = 0;
  for (int frame = -1; frame <= 301; frame += 3)
    for (int compile = 0; compile < 3; ++compile) {
      store::DynamoKey key;
      key.source_id = 1 + std::max(frame, 0) / 100;
      key.frame_id = frame;
      key.frame_compile_id = compile;
      const Merged* whole = find_merged(merged, key);
      found += whole != nullptr;
      for (size_t from : {size_t{0}, size_t{1}, merged.size() / 3, merged.size() / 2,
                          merged.size() - 1, merged.size(), merged.size() + 5}) {
        ASSERT_EQ(find_merged_from(merged, key, from), whole)
            << "frame " << frame << " compile " << compile << " from " << from;
      }
    }
  EXPECT_GT(found, 200);
}

}  // namespace merged_compile_test
}  // namespace rcf::analysis
