// Digests the values of a compile's rows as they would be bound to its inserts (the same calls as
// store/batch_insert.h takes), for CompileRowMemo: a value's type is part of its digest, so NULL,
// 0 and "" differ. The values' 64-bit words go round-robin to four lanes, each a multiply-rotate
// chain of its own (XXH64's round), so that the processor works on four at once: a watched run's
// analysis digests every compile's rows after each batch (a tenth of the watch's time at 100 000
// compiles with one chain). Two different foldings of the lanes make the 128-bit digest.
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
    const CompileRowDigest f = first.fold(), s = second.fold();
    return {mix(f.a ^ rotate(s.a, 17)), mix(f.b + rotate(s.b, 41))};
  }

 private:
  enum Tag : uint64_t { kNull = 1, kInt, kReal, kText, kTextWord };
  static constexpr uint64_t kPrime1 = 0x9E3779B185EBCA87ull, kPrime2 = 0xC2B2AE3D27D4EB4Full,
                            kTagMul = 0x165667B19E3779F9ull;

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
    uint64_t& lane = lanes_[words_++ & 3];
    lane = rotate(lane + (w ^ tag * kTagMul) * kPrime2, 31) * kPrime1;
    return *this;
  }
  // Two 64-bit digests of the lanes and the number of words, each lane reaching both.
  CompileRowDigest fold() const {
    const uint64_t a =
        lanes_[0] ^ rotate(lanes_[1], 17) ^ rotate(lanes_[2], 31) ^ rotate(lanes_[3], 47) ^ words_;
    const uint64_t b = lanes_[0] * kPrime1 + lanes_[1] * kPrime2 + lanes_[2] * kTagMul +
                       rotate(lanes_[3], 29) + words_ * 0x27D4EB2F165667C5ull;
    return {mix(a), mix(b)};
  }

  uint64_t lanes_[4] = {0x243F6A8885A308D3ull, 0x13198A2E03707344ull, 0xA4093822299F31D0ull,
                        0x082EFA98EC4E6C89ull};
  uint64_t words_ = 0;
};

}  // namespace rcf::store
