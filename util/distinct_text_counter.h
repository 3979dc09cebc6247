// DistinctTextCounter: counts the distinct texts among many added one at a time, exactly. Each
// text is appended to an arena and its hash, with where it is, to an array; count() sorts the
// array once and compares bytes only between texts of equal hash. Adding is two sequential
// writes, where inserting into a hash table (util/text_table.h) is a random access into a table
// of twice as many slots: at a million distinct program keys that random access was most of the
// cost of rolling a run up. For texts that are counted and never looked up.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "util/large_array_allocator.h"

namespace rcf::util {

// `Hash` maps a std::string_view to 64 bits (a test gives one that collides).
template <typename Hash = std::hash<std::string_view>>
class BasicDistinctTextCounter {
 public:
  void reserve(size_t texts) { entries_.reserve(texts); }

  void add(std::string_view text) {
    entries_.push_back({static_cast<uint64_t>(Hash()(text)), arena_.size()});
    auto length = static_cast<uint32_t>(std::min<size_t>(text.size(), UINT32_MAX));
    arena_.append(reinterpret_cast<const char*>(&length), sizeof(length));
    arena_.append(text.data(), length);
  }

  // How many texts were added.
  size_t added() const { return entries_.size(); }

  // How many distinct texts were added (texts longer than 4 GiB are compared by their first
  // 4 GiB). Sorts what was added; adding more afterwards is allowed.
  size_t count() {
    std::sort(entries_.begin(), entries_.end(),
              [](const Entry& a, const Entry& b) { return a.hash < b.hash; });
    size_t distinct = 0;
    std::vector<std::string_view> same_hash;
    for (size_t i = 0; i < entries_.size();) {
      size_t end = i + 1;
      while (end < entries_.size() && entries_[end].hash == entries_[i].hash) ++end;
      if (end - i == 1) {
        ++distinct;
      } else {  // equal hashes: mostly equal texts; counted exactly
        same_hash.clear();
        for (size_t j = i; j < end; ++j) same_hash.push_back(text_at(entries_[j].offset));
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
    uint64_t offset;  // into arena_: a 32-bit length, then the text
  };

  std::string_view text_at(uint64_t offset) const {
    uint32_t length = 0;
    std::memcpy(&length, arena_.data() + offset, sizeof(length));
    return std::string_view(arena_.data() + offset + sizeof(length), length);
  }

  LargeVector<Entry> entries_;
  std::string arena_;
};

using DistinctTextCounter = BasicDistinctTextCounter<>;

}  // namespace rcf::util
