// ClassifiedReasons: the compact classifications of reason texts agree with
// classify_guard_reason, whether made inline or on the background thread.
#include "analysis/classified_reasons.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace rcf::analysis {
namespace classified_reasons_test {

const std::vector<std::string> kReasons = {
    "tensor 'L['x']' size mismatch at index 1. expected 2048, actual 2056",
    "tensor 'x' dtype mismatch. expected Float, actual Half",
    "L['self'].step == 3  # self.step += 1  # train.py:41 in forward",
    "len(L['batch']) == 4",
    "",
    "something no rule knows",
};

void expect_same(const ReasonClass& c, const GuardReason& g, const std::string& text) {
  EXPECT_EQ(c.cause, g.cause) << text;
  EXPECT_EQ(c.confidence, g.confidence) << text;
  EXPECT_EQ(c.subject, g.subject) << text;
  EXPECT_EQ(c.expected, g.expected) << text;
  EXPECT_EQ(c.actual, g.actual) << text;
  EXPECT_EQ(c.user_code, g.user_code) << text;
  EXPECT_EQ(c.detail, g.detail) << text;
  EXPECT_EQ(c.dim, g.dim) << text;
}

TEST(ClassifiedReasons, InlineAndBackgroundAgreeWithTheClassifier) {
  ClassifiedReasons inline_classes, background;
  inline_classes.use_dense_ids(4);  // ids 0..3 dense, the others in the map
  background.use_dense_ids(4);
  background.start_background();
  for (int round = 0; round < 3; ++round)  // repeats are classified once
    for (size_t i = 0; i < kReasons.size(); ++i) {
      inline_classes.add(static_cast<int64_t>(i) * 2, kReasons[i]);
      background.add(static_cast<int64_t>(i) * 2, kReasons[i]);
    }
  background.wait();
  background.wait();  // a second wait returns at once
  EXPECT_EQ(inline_classes.size(), kReasons.size());
  EXPECT_EQ(background.size(), kReasons.size());
  for (size_t i = 0; i < kReasons.size(); ++i) {
    GuardReason g = classify_guard_reason(kReasons[i]);
    for (const ClassifiedReasons* c : {&inline_classes, &background}) {
      auto found = c->find(static_cast<int64_t>(i) * 2);
      ASSERT_TRUE(found.has_value()) << kReasons[i];
      expect_same(*found, g, kReasons[i]);
    }
  }
  EXPECT_EQ(background.find(1), std::nullopt);
  EXPECT_EQ(background.find(1001), std::nullopt);
  EXPECT_EQ(classify_guard_reason(kReasons[0]).cause, "shape");  // the fixture means something
}

// Moving (or destroying) waits for the background thread first: the moved-to tables are whole.
TEST(ClassifiedReasons, MovingWaitsForTheBackgroundThread) {
  std::vector<std::string> texts;
  for (int i = 0; i < 5000; ++i)
    texts.push_back("tensor 'x' size mismatch at index 0. expected " + std::to_string(i) +
                    ", actual " + std::to_string(i + 1));
  ClassifiedReasons background;
  background.use_dense_ids(static_cast<int64_t>(texts.size()));
  background.start_background();
  for (size_t i = 0; i < texts.size(); ++i) background.add(static_cast<int64_t>(i), texts[i]);
  ClassifiedReasons moved = std::move(background);
  EXPECT_EQ(moved.size(), texts.size());
  auto last = moved.find(4999);
  ASSERT_TRUE(last.has_value());
  EXPECT_EQ(last->expected, "4999");
  EXPECT_EQ(last->actual, "5000");
}

}  // namespace classified_reasons_test
}  // namespace rcf::analysis
