// Digests the values of a compile's rows as they would be bound to its inserts (the same calls as
// store/batch_insert.h takes), for CompileRowMemo: a value's type is part of its digest, so NULL,
// 0 and "" differ. Two 64-bit lanes with different multipliers make the 128-bit digest.
#pragma once

#include <cstdint>
#include <cstring>
#include <optional>
#include <string_view>

#include "store/compile_row_memo.h"

namespace rcf::store {

class CompileRowHasher {
 public:
  CompileRowHasher& null() { return word(0, kNull); }
  CompileRowHasher& val(int64_t v) { return word(static_cast<uint64_t>(v), kInt); }
  CompileRowHasher& val(int v) { return val(static_cast<int64_t>(v)); }
  CompileRowHasher& val(bool v) { return val(static_cast<int64_t>(v)); }
  CompileRowHasher& val(double v) {
    uint64_t bits = 0;
    std::memcpy(&bits, &v, sizeof bits);
    return word(bits, kReal);
  }
  CompileRowHasher& val_unowned(std::string_view v) {
    word(v.size(), kText);
    size_t i = 0;
    for (; i + 8 <= v.size(); i += 8) {
      uint64_t w = 0;
      std::memcpy(&w, v.data() + i, 8);
      word(w, kTextWord);
    }
    if (i < v.size()) {
      uint64_t w = 0;
      std::memcpy(&w, v.data() + i, v.size() - i);
      word(w, kTextWord);
    }
    return *this;
  }
  CompileRowHasher& val_unowned_or_null(std::string_view v) {
    return v.empty() ? null() : val_unowned(v);
  }
  template <typename T>
  CompileRowHasher& val(const std::optional<T>& v) {
    return v ? val(*v) : null();
  }

  // The digest of two rows' values, `first`'s then `second`'s.
  static CompileRowDigest combine(const CompileRowHasher& first, const CompileRowHasher& second) {
    return {mix(first.a_ ^ rotate(second.a_, 17)), mix(first.b_ + rotate(second.b_, 41))};
  }

 private:
  enum Tag : uint64_t { kNull = 1, kInt, kReal, kText, kTextWord };

  static uint64_t rotate(uint64_t x, int r) { return (x << r) | (x >> (64 - r)); }
  // The finaliser of SplitMix64: every input bit reaches every output bit.
  static uint64_t mix(uint64_t x) {
    x ^= x >> 30;
    x *= 0xBF58476D1CE4E5B9ull;
    x ^= x >> 27;
    x *= 0x94D049BB133111EBull;
    return x ^ (x >> 31);
  }
  CompileRowHasher& word(uint64_t w, uint64_t tag) {
    a_ = mix(a_ ^ (w * 0x9E3779B97F4A7C15ull) ^ tag);
    b_ = rotate(b_ + (w ^ (tag << 56)) * 0xC2B2AE3D27D4EB4Full, 31) * 0x165667B19E3779F9ull;
    return *this;
  }

  uint64_t a_ = 0x243F6A8885A308D3ull, b_ = 0x13198A2E03707344ull;
};

}  // namespace rcf::store
