// The MD5 compression function (RFC 1321 section 3.4) written once, over V: a uint32_t for one
// message (ingest/reading/md5.cc) or a GCC vector of them, one message per lane
// (ingest/reading/md5_lanes.cc). Everything here is always inlined, so that it is compiled for the
// instruction set of the function that instantiates it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>

namespace rcf::ingest::md5_steps {

// RFC 1321 section 3.4: the sine constants, the rotations and the word each step reads.
inline constexpr uint32_t kSine[64] = {
    0xd76aa478, 0xe8c7b756, 0x242070db, 0xc1bdceee, 0xf57c0faf, 0x4787c62a, 0xa8304613, 0xfd469501,
    0x698098d8, 0x8b44f7af, 0xffff5bb1, 0x895cd7be, 0x6b901122, 0xfd987193, 0xa679438e, 0x49b40821,
    0xf61e2562, 0xc040b340, 0x265e5a51, 0xe9b6c7aa, 0xd62f105d, 0x02441453, 0xd8a1e681, 0xe7d3fbc8,
    0x21e1cde6, 0xc33707d6, 0xf4d50d87, 0x455a14ed, 0xa9e3e905, 0xfcefa3f8, 0x676f02d9, 0x8d2a4c8a,
    0xfffa3942, 0x8771f681, 0x6d9d6122, 0xfde5380c, 0xa4beea44, 0x4bdecfa9, 0xf6bb4b60, 0xbebfbc70,
    0x289b7ec6, 0xeaa127fa, 0xd4ef3085, 0x04881d05, 0xd9d4d039, 0xe6db99e5, 0x1fa27cf8, 0xc4ac5665,
    0xf4292244, 0x432aff97, 0xab9423a7, 0xfc93a039, 0x655b59c3, 0x8f0ccc92, 0xffeff47d, 0x85845dd1,
    0x6fa87e4f, 0xfe2ce6e0, 0xa3014314, 0x4e0811a1, 0xf7537e82, 0xbd3af235, 0x2ad7d2bb, 0xeb86d391,
};
inline constexpr int kRotation[64] = {7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22,
                                      5, 9,  14, 20, 5, 9,  14, 20, 5, 9,  14, 20, 5, 9,  14, 20,
                                      4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23,
                                      6, 10, 15, 21, 6, 10, 15, 21, 6, 10, 15, 21, 6, 10, 15, 21};
constexpr int word_of_step(int i) {
  return i < 16 ? i : i < 32 ? (1 + 5 * i) % 16 : i < 48 ? (5 + 3 * i) % 16 : (7 * i) % 16;
}
inline constexpr uint32_t kInitial[4] = {0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476};

// (In place: a function returning a wide vector by value draws -Wpsabi, though it is inlined.)
template <int kBits, typename V>
[[gnu::always_inline]] inline void rotate_left(V& x) {
  x = (x << kBits) | (x >> (32 - kBits));
}

// Step i of 64 on the working variables r, whose roles rotate by one each step.
template <int i, typename V>
[[gnu::always_inline]] inline void step(V (&r)[4], const V (&w)[16]) {
  V& a = r[(64 - i) % 4];
  const V b = r[(65 - i) % 4], c = r[(66 - i) % 4], d = r[(67 - i) % 4];
  if constexpr (i < 16) {
    a = a + (d ^ (b & (c ^ d))) + w[word_of_step(i)] + kSine[i];  // F, shortest chain
  } else if constexpr (i < 32) {
    // G = (b & d) | (c & ~d) as two disjoint terms added apart: the one without b, the previous
    // step's result, is computed early.
    a = a + w[word_of_step(i)] + kSine[i] + (~d & c);
    a += b & d;
  } else if constexpr (i < 48) {
    a = a + (b ^ c ^ d) + w[word_of_step(i)] + kSine[i];  // H
  } else {
    a = a + (c ^ (b | ~d)) + w[word_of_step(i)] + kSine[i];  // I
  }
  rotate_left<kRotation[i]>(a);
  a += b;
}

template <typename V, size_t... I>
[[gnu::always_inline]] inline void all_steps(V (&r)[4], const V (&w)[16],
                                             std::index_sequence<I...>) {
  (step<static_cast<int>(I)>(r, w), ...);
}

// One 64-byte block: `state` (a, b, c, d) advanced by the block whose 16 words are `w`.
template <typename V>
[[gnu::always_inline]] inline void compress_block(V (&state)[4], const V (&w)[16]) {
  V r[4] = {state[0], state[1], state[2], state[3]};
  all_steps(r, w, std::make_index_sequence<64>());
  for (int k = 0; k < 4; ++k) state[k] += r[k];
}

}  // namespace rcf::ingest::md5_steps
