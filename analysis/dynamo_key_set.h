// DynamoKeySet: a set of Dynamo compile keys, open-addressed (linear probing, at most 3/4 full) in
// one array, sized up front for the keys expected (and doubled if more come). The loader remembers
// with it the compiles known only by reference that it has kept (analysis/run_analysis.cc): a
// node-based set allocated and freed a node per key, a tenth of the loading of a run of mostly
// referenced compiles.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>

#include "analysis/attributed_compile.h"
#include "util/large_array_allocator.h"

namespace rcf::analysis {

class DynamoKeySet {
 public:
  explicit DynamoKeySet(size_t expected_keys) {
    allocate(std::bit_ceil(expected_keys / 3 * 4 + 4));
  }

  // Adds `key`; false when it was already there.
  bool insert(const DynamoKey& key) {
    if ((size_ + 1) * 4 > slots_.size() * 3) grow();
    size_t i = find_slot(key);
    if (used_[i]) return false;
    used_[i] = 1;
    slots_[i] = key;
    ++size_;
    return true;
  }

 private:
  void allocate(size_t slots) {
    slots_.assign(slots, DynamoKey());
    used_.assign(slots, 0);
    mask_ = slots - 1;
  }

  // The slot holding `key`, else the empty slot where it would go.
  size_t find_slot(const DynamoKey& key) const {
    size_t i = hash(key) & mask_;
    while (used_[i] && !(slots_[i] == key)) i = (i + 1) & mask_;
    return i;
  }

  void grow() {
    util::LargeVector<DynamoKey> old_slots = std::move(slots_);
    util::LargeVector<uint8_t> old_used = std::move(used_);
    allocate(old_slots.size() * 2);
    for (size_t i = 0; i < old_slots.size(); ++i)
      if (old_used[i]) {
        size_t j = find_slot(old_slots[i]);
        used_[j] = 1;
        slots_[j] = old_slots[i];
      }
  }

  static size_t hash(const DynamoKey& k) {
    uint64_t h = static_cast<uint32_t>(k.source_id);
    for (int32_t v : {k.rank, k.epoch, k.ca_id, k.frame_id, k.frame_compile_id})
      h = (h ^ static_cast<uint32_t>(v)) * 0x9E3779B97F4A7C15ull;
    h ^= static_cast<uint64_t>(k.line_if_no_id);
    return static_cast<size_t>(h ^ (h >> 29));
  }

  util::LargeVector<DynamoKey> slots_;
  util::LargeVector<uint8_t> used_;
  size_t mask_ = 0;
  size_t size_ = 0;
};

}  // namespace rcf::analysis
