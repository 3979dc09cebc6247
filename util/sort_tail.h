// sort_tail: sorts a range whose beginning is already sorted, holding aside only what follows it;
// sort_nearly_sorted: the same for a range mostly in order, wherever its few other elements are.
// std::inplace_merge would do the merge, but asks for a buffer as large as the whole range (a
// watched run's arrays, re-sorted at every batch after a few elements were added, are tens of MB).
#pragma once

#include <algorithm>
#include <iterator>
#include <utility>
#include <vector>

namespace rcf::util {

// Merges the sorted `tail` into [first, last), whose sorted elements are [first, head_end) and
// whose last tail.size() slots are free to take them: from the back, so that nothing is moved
// twice. A few elements into many: each one's place is found by a binary search and the elements
// after it are moved as a block, never compared (a comparison that fetches its element from
// anywhere in memory, once per element of a watched run's 100 000 compiles at every batch, was
// 5 % of the watch's CPU).
template <typename It, typename Buffer, typename Less>
void merge_in_from_back(It first, It head_end, It last, Buffer& tail, Less less) {
  It out = last;
  if (tail.size() * 16 < static_cast<size_t>(std::distance(first, head_end))) {
    for (auto t = tail.end(); t != tail.begin();) {
      --t;
      It at = std::upper_bound(first, head_end, *t, less);
      out = std::move_backward(at, head_end, out);
      head_end = at;
      *--out = std::move(*t);
    }
    return;
  }
  for (auto t = tail.end(); t != tail.begin();) {
    if (head_end != first && less(*(t - 1), *(head_end - 1)))
      *--out = std::move(*--head_end);
    else
      *--out = std::move(*--t);
  }
}

// Sorts [first, last) by `less`, [first, sorted_end) being sorted already: the elements after
// sorted_end are sorted in a buffer of their own, then merged in from the back. Not stable.
template <typename It, typename Less>
void sort_tail(It first, It sorted_end, It last, Less less) {
  using T = typename std::iterator_traits<It>::value_type;
  if (sorted_end == last) return;
  std::vector<T> tail(std::make_move_iterator(sorted_end), std::make_move_iterator(last));
  std::sort(tail.begin(), tail.end(), less);
  merge_in_from_back(first, sorted_end, last, tail, less);
}

// Sorts [first, last) by `less` (a strict total order) when most of it is in order already,
// wherever the elements out of order are: those below the greatest element before them are held
// aside, sorted, and merged in from the back, when they are at most an eighth of the range;
// otherwise std::sort. A watched run's compiles, ordered again at every batch, are in order but
// for the few whose records came since and the recompiles of early frames. Not stable.
template <typename It, typename Less>
void sort_nearly_sorted(It first, It last, Less less) {
  using T = typename std::iterator_traits<It>::value_type;
  const auto size = std::distance(first, last);
  if (size < 2) return;
  // Counted first, so that a range mostly out of order goes to std::sort untouched.
  std::ptrdiff_t out_of_order = 0;
  for (It it = std::next(first), top = first; it != last; ++it)
    if (less(*it, *top))
      ++out_of_order;
    else
      top = it;
  if (out_of_order == 0) return;
  if (out_of_order > size / 8) {
    std::sort(first, last, less);
    return;
  }
  std::vector<T> aside;
  aside.reserve(static_cast<size_t>(out_of_order));
  It kept = std::next(first);  // the elements in order are moved down to [first, kept)
  for (It it = std::next(first); it != last; ++it) {
    if (less(*it, *std::prev(kept))) {
      aside.push_back(std::move(*it));
    } else {
      if (kept != it) *kept = std::move(*it);
      ++kept;
    }
  }
  std::sort(aside.begin(), aside.end(), less);
  merge_in_from_back(first, kept, last, aside, less);
}

}  // namespace rcf::util
