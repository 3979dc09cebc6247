// DynamoKeyIndex: finds where a Dynamo compile key is among keys held elsewhere (the merged
// compiles of a run, which the loader's records are folded into as they are read:
// analysis/dynamo_attribution.cc). Open-addressed (linear probing, at most 3/4 full) in one array
// of 8-byte slots, each a position and 32 bits of its key's hash: a probe reads the held key only
// when those bits match, and the index costs 8 to 16 bytes a key where a node-based map cost about
// 60 and an allocation each.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <optional>

#include "analysis/attributed_compile.h"
#include "util/large_array_allocator.h"

namespace rcf::analysis {

class DynamoKeyIndex {
 public:
  // Sized for `expected_keys` (doubled if more come).
  explicit DynamoKeyIndex(size_t expected_keys = 0) {
    allocate(std::bit_ceil(expected_keys / 3 * 4 + 16));
  }

  // The position of `key`, nullopt when it was never added. `key_at(position)` is the key held at
  // a position added before.
  template <typename KeyAt>
  std::optional<uint32_t> find(const DynamoKey& key, const KeyAt& key_at) const {
    const uint64_t h = hash(key);
    for (size_t i = h & mask_; slots_[i] != 0; i = (i + 1) & mask_)
      if (tag_of(slots_[i]) == tag(h) && key_at(position_of(slots_[i])) == key)
        return position_of(slots_[i]);
    return std::nullopt;
  }

  // Records that `key` (not added before) is held at `position`.
  template <typename KeyAt>
  void add(const DynamoKey& key, uint32_t position, const KeyAt& key_at) {
    if ((size_ + 1) * 4 > slots_.size() * 3) grow(key_at);
    place(hash(key), position);
    ++size_;
  }

  size_t size() const { return size_; }

 private:
  // A slot: the hash's high 32 bits, then position + 1 (0: an empty slot).
  static uint32_t tag(uint64_t h) { return static_cast<uint32_t>(h >> 32); }
  static uint32_t tag_of(uint64_t slot) { return static_cast<uint32_t>(slot >> 32); }
  static uint32_t position_of(uint64_t slot) { return static_cast<uint32_t>(slot) - 1; }

  void allocate(size_t slots) {
    slots_.assign(slots, 0);
    mask_ = slots - 1;
  }

  void place(uint64_t h, uint32_t position) {
    size_t i = h & mask_;
    while (slots_[i] != 0) i = (i + 1) & mask_;
    slots_[i] = (uint64_t{tag(h)} << 32) | (uint64_t{position} + 1);
  }

  template <typename KeyAt>
  void grow(const KeyAt& key_at) {
    util::LargeVector<uint64_t> old = std::move(slots_);
    allocate(old.size() * 2);
    for (uint64_t slot : old)
      if (slot != 0) place(hash(key_at(position_of(slot))), position_of(slot));
  }

  static uint64_t hash(const DynamoKey& k) {
    uint64_t h = static_cast<uint32_t>(k.source_id);
    for (int32_t v : {k.rank, k.epoch, k.ca_id, k.frame_id, k.frame_compile_id})
      h = (h ^ static_cast<uint32_t>(v)) * 0x9E3779B97F4A7C15ull;
    h = (h ^ static_cast<uint64_t>(k.line_if_no_id)) * 0xC2B2AE3D27D4EB4Full;
    return h ^ (h >> 29);
  }

  util::LargeVector<uint64_t> slots_;
  size_t mask_ = 0;
  size_t size_ = 0;
};

}  // namespace rcf::analysis
