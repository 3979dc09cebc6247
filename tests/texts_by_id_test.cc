// TextsById: texts by string id, dense or sparse, whose views stay valid as more are added.
#include "analysis/texts_by_id.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace rcf::analysis {
namespace texts_by_id_test {

TEST(TextsById, FindsWhatWasAddedDenseOrSparse) {
  TextsById texts;
  texts.use_dense_ids(10);
  EXPECT_EQ(texts.find(3), std::nullopt);
  std::string_view three = texts.add(3, "three");
  std::string_view empty = texts.add(4, "");
  std::string_view far = texts.add(1000000, "far");  // past the dense ids
  std::string_view negative = texts.add(-2, "negative");
  EXPECT_EQ(three, "three");
  EXPECT_EQ(texts.find(3), "three");
  ASSERT_TRUE(texts.find(4).has_value());  // an empty text is still a text
  EXPECT_EQ(*texts.find(4), "");
  EXPECT_EQ(empty, "");
  EXPECT_EQ(texts.find(1000000), "far");
  EXPECT_EQ(far, "far");
  EXPECT_EQ(texts.find(-2), "negative");
  EXPECT_EQ(negative, "negative");
  EXPECT_EQ(texts.find(5), std::nullopt);
  EXPECT_EQ(texts.find(999999), std::nullopt);
  EXPECT_EQ(texts.size(), 4u);
}

// Views handed out earlier stay valid while blocks fill up and long texts get their own.
TEST(TextsById, ViewsStayValidAsTextsAreAdded) {
  TextsById texts;
  std::vector<std::pair<std::string_view, std::string>> kept;
  for (int i = 0; i < 20000; ++i) {
    // Every 500th text is longer than a quarter block (a block of its own).
    std::string text = i % 500 == 0 ? std::string(300000 + i, static_cast<char>('a' + i % 26))
                                    : "text number " + std::to_string(i) + std::string(i % 97, 'x');
    kept.emplace_back(texts.add(i, text), text);
  }
  for (size_t i = 0; i < kept.size(); ++i) {
    ASSERT_EQ(kept[i].first, kept[i].second) << i;
    ASSERT_EQ(texts.find(static_cast<int64_t>(i)), kept[i].second) << i;
  }
  // Moving keeps the texts where they are.
  TextsById moved = std::move(texts);
  EXPECT_EQ(kept[1234].first, kept[1234].second);
  EXPECT_EQ(moved.find(1234), kept[1234].second);
}

}  // namespace texts_by_id_test
}  // namespace rcf::analysis
