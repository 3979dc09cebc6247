// sort_tail: sorts a range whose beginning is already sorted, holding aside only what follows it.
// std::inplace_merge would do the merge, but asks for a buffer as large as the whole range (a
// watched run's arrays, re-sorted at every batch after a few elements were added, are tens of MB).
#pragma once

#include <algorithm>
#include <iterator>
#include <utility>
#include <vector>

namespace rcf::util {

// Sorts [first, last) by `less`, [first, sorted_end) being sorted already: the elements after
// sorted_end are sorted in a buffer of their own, then merged in from the back. Not stable.
template <typename It, typename Less>
void sort_tail(It first, It sorted_end, It last, Less less) {
  using T = typename std::iterator_traits<It>::value_type;
  if (sorted_end == last) return;
  std::vector<T> tail(std::make_move_iterator(sorted_end), std::make_move_iterator(last));
  std::sort(tail.begin(), tail.end(), less);
  It head_end = sorted_end;  // the sorted elements not yet placed are [first, head_end)
  It out = last;
  for (auto t = tail.end(); t != tail.begin();) {
    if (head_end != first && less(*(t - 1), *(head_end - 1)))
      *--out = std::move(*--head_end);
    else
      *--out = std::move(*--t);
  }
}

}  // namespace rcf::util
