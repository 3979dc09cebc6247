// DistinctTextCounter: counts the distinct texts among many added one at a time, exactly. Each
// text is copied into an arena of fixed blocks (a string grown by doubling held up to half again
// its bytes while it grew: 12 MB of a dense log's 4 MB of program keys) and its hash, with where it
// is, appended to an array; count() sorts the
// array once and compares bytes only between texts of equal hash. Adding is two sequential
// writes, where inserting into a hash table (util/text_table.h) is a random access into a table
// of twice as many slots: at a million distinct program keys that random access was most of the
// cost of rolling a run up. For texts that are counted and never looked up.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "util/large_array_allocator.h"
#include "util/sort_tail.h"
#include "util/text_arena.h"

namespace rcf::util {

// `Hash` maps a std::string_view to 64 bits (a test gives one that collides).
template <typename Hash = std::hash<std::string_view>>
class BasicDistinctTextCounter {
 public:
  BasicDistinctTextCounter() = default;
  BasicDistinctTextCounter(BasicDistinctTextCounter&&) noexcept = default;
  BasicDistinctTextCounter& operator=(BasicDistinctTextCounter&&) noexcept = default;
  // A copy holds its own texts (the entries point into the copy's arena), in the same order.
  // Its room is the original's (pages not written cost nothing: util/large_array_allocator.h), so
  // that adding to the copy does not move the entries at once.
  BasicDistinctTextCounter(const BasicDistinctTextCounter& other) : sorted_(other.sorted_) {
    entries_.reserve(other.entries_.capacity());
    for (const Entry& e : other.entries_) {
      const size_t bytes = sizeof(uint32_t) + text_at(e.text).size();
      char* copy = arena_.allocate(bytes);
      std::memcpy(copy, e.text, bytes);
      entries_.push_back({e.hash, copy});
    }
  }
  BasicDistinctTextCounter& operator=(const BasicDistinctTextCounter& other) {
    if (this != &other) *this = BasicDistinctTextCounter(other);
    return *this;
  }

  void reserve(size_t texts) { entries_.reserve(texts); }

  void add(std::string_view text) {
    auto length = static_cast<uint32_t>(std::min<size_t>(text.size(), UINT32_MAX));
    char* copy = arena_.allocate(sizeof(length) + length);
    std::memcpy(copy, &length, sizeof(length));
    std::memcpy(copy + sizeof(length), text.data(), length);
    entries_.push_back({static_cast<uint64_t>(Hash()(text)), copy});
  }

  // How many texts were added.
  size_t added() const { return entries_.size(); }

  // How many distinct texts were added (texts longer than 4 GiB are compared by their first
  // 4 GiB). Sorts what was added; adding more afterwards is allowed, and the next count sorts
  // only those and merges them in (a watched run is counted again after every batch).
  size_t count() {
    auto by_hash = [](const Entry& a, const Entry& b) { return a.hash < b.hash; };
    if (sorted_ == 0)
      std::sort(entries_.begin(), entries_.end(), by_hash);
    else
      sort_tail(entries_.begin(), entries_.begin() + static_cast<std::ptrdiff_t>(sorted_),
                entries_.end(), by_hash);
    sorted_ = entries_.size();
    size_t distinct = 0;
    std::vector<std::string_view> same_hash;
    for (size_t i = 0; i < entries_.size();) {
      size_t end = i + 1;
      while (end < entries_.size() && entries_[end].hash == entries_[i].hash) ++end;
      if (end - i == 1) {
        ++distinct;
      } else {  // equal hashes: mostly equal texts; counted exactly
        same_hash.clear();
        for (size_t j = i; j < end; ++j) same_hash.push_back(text_at(entries_[j].text));
        std::sort(same_hash.begin(), same_hash.end());
        distinct += static_cast<size_t>(std::unique(same_hash.begin(), same_hash.end()) -
                                        same_hash.begin());
      }
      i = end;
    }
    return distinct;
  }

 private:
  struct Entry {
    uint64_t hash;
    const char* text;  // in arena_: a 32-bit length, then the text
  };

  static std::string_view text_at(const char* at) {
    uint32_t length = 0;
    std::memcpy(&length, at, sizeof(length));
    return std::string_view(at + sizeof(length), length);
  }

  LargeVector<Entry> entries_;
  size_t sorted_ = 0;  // entries_[0, sorted_) are sorted by hash (the last count's)
  TextArena arena_;    // the texts, for as long as the counter lives
};

using DistinctTextCounter = BasicDistinctTextCounter<>;

}  // namespace rcf::util
