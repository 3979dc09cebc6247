// util::sort_tail: a range whose beginning is sorted comes out as std::sort leaves it, whatever
// the tail holds (nothing, elements all before or all after the beginning's, interleaved, equal);
// util::sort_nearly_sorted: so does a range with a few elements out of order anywhere, and one
// with many (which std::sort takes).
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

// A few elements into many (a watched run's new compiles into its kept order): the same result,
// with each one's place found by a binary search: about tail x log2(head) comparisons, not one
// per element of the head.
TEST(SortTail, AFewIntoManyCompareOnlyTheFew) {
  std::mt19937 rng(5);
  for (int round = 0; round < 200; ++round) {
    std::uniform_int_distribution<int> head_size(500, 2000), tail_size(0, 30), value(0, 3000);
    std::vector<int> head(static_cast<size_t>(head_size(rng)));
    std::vector<int> tail(static_cast<size_t>(tail_size(rng)));
    for (int& x : head) x = value(rng);
    for (int& x : tail) x = value(rng);
    expect_sorted(head, tail);
    std::sort(head.begin(), head.end());
    std::vector<int> v = head;
    v.insert(v.end(), tail.begin(), tail.end());
    size_t comparisons = 0;
    sort_tail(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(head.size()), v.end(),
              [&comparisons](int a, int b) {
                ++comparisons;
                return a < b;
              });
    EXPECT_TRUE(std::is_sorted(v.begin(), v.end()));
    EXPECT_LE(comparisons, tail.size() * 12 + tail.size() * 5 + 16) << head.size();
  }
}

TEST(SortTail, MovesElementsThatOwnMemory) {
  std::vector<std::string> v = {"apple", "melon", "pear", "fig", "zucchini", "banana"};
  sort_tail(v.begin(), v.begin() + 3, v.end(), std::less<std::string>());
  EXPECT_EQ(v, (std::vector<std::string>{"apple", "banana", "fig", "melon", "pear", "zucchini"}));
}

// A sorted range of `n` distinct values with `moved` of them taken out and put back elsewhere,
// at random: sort_nearly_sorted leaves what std::sort leaves.
void expect_nearly_sorted(std::mt19937& rng, int n, int moved) {
  std::vector<int> v(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) v[static_cast<size_t>(i)] = 3 * i;
  for (int k = 0; k < moved && n > 1; ++k) {
    std::uniform_int_distribution<int> at(0, n - 1);
    const int from = at(rng), to = at(rng);
    const int x = v[static_cast<size_t>(from)];
    v.erase(v.begin() + from);
    v.insert(v.begin() + to, x);
  }
  std::vector<int> expected = v;
  std::sort(expected.begin(), expected.end());
  sort_nearly_sorted(v.begin(), v.end(), std::less<int>());
  EXPECT_EQ(v, expected) << n << " values, " << moved << " moved";
}

TEST(SortNearlySorted, FewOrManyOutOfOrderAnywhere) {
  std::mt19937 rng(11);
  for (int n : {0, 1, 2, 3, 17, 200, 1000})
    for (int moved : {0, 1, 2, 5, 20, 400}) expect_nearly_sorted(rng, n, moved);
  // The greatest value first: every other element is below it, too many to hold aside.
  std::vector<int> v = {99, 1, 2, 3, 4, 5, 6, 7, 8, 9};
  sort_nearly_sorted(v.begin(), v.end(), std::less<int>());
  EXPECT_EQ(v, (std::vector<int>{1, 2, 3, 4, 5, 6, 7, 8, 9, 99}));
  std::vector<std::string> words = {"apple",  "banana", "fig",  "zucchini", "melon", "pear",
                                    "quince", "raisin", "sloe", "tomato",   "ugli",  "date"};
  sort_nearly_sorted(words.begin(), words.end(), std::less<std::string>());
  EXPECT_TRUE(std::is_sorted(words.begin(), words.end()));
  EXPECT_EQ(words.size(), 12u);
  EXPECT_EQ(words.front(), "apple");
  EXPECT_EQ(words.back(), "zucchini");
}

}  // namespace sort_tail_test
}  // namespace rcf::util
