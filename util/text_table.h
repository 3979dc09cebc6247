// TextTable: numbers distinct texts 1, 2, 3... in the order they are first seen. For tables of
// many short texts (HLO instruction names, a run's program keys) where a node-based
// std::unordered_map<std::string, ...> costs an allocation, a node and a bucket per text: texts
// are appended to one arena and the table is open-addressed (linear probing, at most 3/4 full,
// 16 bytes a slot; texts up to 4 GiB in all), holding 32 bits of each text's hash so that a probe
// compares bytes only when those are equal.
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

class TextTable {
 public:
  // `by_ordinal`: text() is asked for (4 more bytes a text).
  explicit TextTable(bool by_ordinal = false) : slots_(kInitialSlots), by_ordinal_(by_ordinal) {}

  // The number of `text`, given the next one when it is new.
  uint32_t ordinal(std::string_view text) {
    if ((size_ + 1) * 4 > slots_.size() * 3) grow();
    // The low bits place the slot; mixing in the high ones keeps all 64 in play.
    uint64_t full = std::hash<std::string_view>()(text);
    uint32_t hash = static_cast<uint32_t>(full ^ (full >> 32));
    size_t mask = slots_.size() - 1;
    for (size_t i = hash & mask;; i = (i + 1) & mask) {
      Slot& s = slots_[i];
      if (s.ordinal == 0) {
        s = {hash, static_cast<uint32_t>(arena_.size()), static_cast<uint32_t>(text.size()),
             ++size_};
        if (by_ordinal_) starts_.push_back(static_cast<uint32_t>(arena_.size()));
        arena_.append(text);
        return s.ordinal;
      }
      if (s.hash == hash && s.length == text.size() &&
          std::memcmp(arena_.data() + s.offset, text.data(), text.size()) == 0)
        return s.ordinal;
    }
  }
  // Makes room for `texts` distinct texts in all, so that the table does not grow (rehashing
  // every text) until then.
  void reserve(size_t texts) {
    size_t slots = slots_.size();
    while (texts * 4 > slots * 3) slots *= 2;
    if (size_ == 0)
      slots_ = LargeVector<Slot>(slots);  // nothing to move: one allocation
    else
      while (slots_.size() < slots) grow();
  }
  // How many distinct texts were seen.
  uint32_t size() const { return size_; }
  // The text numbered `ordinal` (1..size()), valid until the next ordinal() or clear(); only for
  // a table made `by_ordinal`.
  std::string_view text(uint32_t ordinal) const {
    const uint32_t start = starts_[ordinal - 1];
    const uint32_t end = ordinal < size_ ? starts_[ordinal] : static_cast<uint32_t>(arena_.size());
    return std::string_view(arena_.data() + start, end - start);
  }

  // Forgets every text; keeps the slots unless they are much larger than what was used.
  void clear() {
    if (slots_.size() > 4 * kInitialSlots && size_ * 8 < slots_.size()) {
      slots_.assign(kInitialSlots, Slot());
    } else {
      std::fill(slots_.begin(), slots_.end(), Slot());
    }
    arena_.clear();
    starts_.clear();
    size_ = 0;
  }

 private:
  struct Slot {
    uint32_t hash = 0;
    uint32_t offset = 0;  // into arena_
    uint32_t length = 0;
    uint32_t ordinal = 0;  // 0: empty slot
  };
  static constexpr size_t kInitialSlots = 1024;

  void grow() {
    LargeVector<Slot> old(slots_.size() * 2);
    old.swap(slots_);
    size_t mask = slots_.size() - 1;
    for (const Slot& s : old) {
      if (s.ordinal == 0) continue;
      size_t i = s.hash & mask;
      while (slots_[i].ordinal != 0) i = (i + 1) & mask;
      slots_[i] = s;
    }
  }

  LargeVector<Slot> slots_;  // a power of two in size
  std::string arena_;        // the texts, one after another
  uint32_t size_ = 0;
  bool by_ordinal_ = false;
  std::vector<uint32_t> starts_;  // by ordinal - 1, where its text starts in arena_ (by_ordinal_)
};

}  // namespace rcf::util
