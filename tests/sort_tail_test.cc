// util::sort_tail: a range whose beginning is sorted comes out as std::sort leaves it, whatever
// the tail holds (nothing, elements all before or all after the beginning's, interleaved, equal).
#include "util/sort_tail.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

namespace rcf::util {
namespace sort_tail_test {

// `head` sorted, then `tail` as given: sorted by sort_tail equals sorted by std::sort.
void expect_sorted(std::vector<int> head, const std::vector<int>& tail) {
  std::sort(head.begin(), head.end());
  std::vector<int> v = head;
  v.insert(v.end(), tail.begin(), tail.end());
  std::vector<int> expected = v;
  std::sort(expected.begin(), expected.end());
  sort_tail(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(head.size()), v.end(),
            std::less<int>());
  EXPECT_EQ(v, expected);
}

TEST(SortTail, EdgeCases) {
  expect_sorted({}, {});
  expect_sorted({1, 2, 3}, {});
  expect_sorted({}, {3, 1, 2});
  expect_sorted({5, 6, 7}, {3, 1, 2});  // the tail all before the head
  expect_sorted({1, 2, 3}, {9, 7, 8});  // all after
  expect_sorted({1, 3, 5, 7}, {6, 2, 4, 4, 0, 8});
  expect_sorted({2, 2, 2}, {2, 1, 3, 2});
}

TEST(SortTail, RandomHeadsAndTails) {
  std::mt19937 rng(7);
  for (int round = 0; round < 300; ++round) {
    std::uniform_int_distribution<int> size(0, 60), value(0, 40);
    std::vector<int> head(static_cast<size_t>(size(rng))), tail(static_cast<size_t>(size(rng)));
    for (int& x : head) x = value(rng);
    for (int& x : tail) x = value(rng);
    expect_sorted(head, tail);
  }
}

TEST(SortTail, MovesElementsThatOwnMemory) {
  std::vector<std::string> v = {"apple", "melon", "pear", "fig", "zucchini", "banana"};
  sort_tail(v.begin(), v.begin() + 3, v.end(), std::less<std::string>());
  EXPECT_EQ(v, (std::vector<std::string>{"apple", "banana", "fig", "melon", "pear", "zucchini"}));
}

}  // namespace sort_tail_test
}  // namespace rcf::util
