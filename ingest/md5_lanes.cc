#include "ingest/md5_lanes.h"

#include <cstdint>
#include <cstring>
#include <utility>

#include "ingest/little_endian.h"

namespace rcf::ingest {
namespace {

// RFC 1321 section 3.4: the sine constants, the rotations and the word each step reads.
constexpr uint32_t kSine[64] = {
    0xd76aa478, 0xe8c7b756, 0x242070db, 0xc1bdceee, 0xf57c0faf, 0x4787c62a, 0xa8304613, 0xfd469501,
    0x698098d8, 0x8b44f7af, 0xffff5bb1, 0x895cd7be, 0x6b901122, 0xfd987193, 0xa679438e, 0x49b40821,
    0xf61e2562, 0xc040b340, 0x265e5a51, 0xe9b6c7aa, 0xd62f105d, 0x02441453, 0xd8a1e681, 0xe7d3fbc8,
    0x21e1cde6, 0xc33707d6, 0xf4d50d87, 0x455a14ed, 0xa9e3e905, 0xfcefa3f8, 0x676f02d9, 0x8d2a4c8a,
    0xfffa3942, 0x8771f681, 0x6d9d6122, 0xfde5380c, 0xa4beea44, 0x4bdecfa9, 0xf6bb4b60, 0xbebfbc70,
    0x289b7ec6, 0xeaa127fa, 0xd4ef3085, 0x04881d05, 0xd9d4d039, 0xe6db99e5, 0x1fa27cf8, 0xc4ac5665,
    0xf4292244, 0x432aff97, 0xab9423a7, 0xfc93a039, 0x655b59c3, 0x8f0ccc92, 0xffeff47d, 0x85845dd1,
    0x6fa87e4f, 0xfe2ce6e0, 0xa3014314, 0x4e0811a1, 0xf7537e82, 0xbd3af235, 0x2ad7d2bb, 0xeb86d391,
};
constexpr int kRotation[64] = {7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22,
                               5, 9,  14, 20, 5, 9,  14, 20, 5, 9,  14, 20, 5, 9,  14, 20,
                               4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23,
                               6, 10, 15, 21, 6, 10, 15, 21, 6, 10, 15, 21, 6, 10, 15, 21};
constexpr int word_of_step(int i) {
  return i < 16 ? i : i < 32 ? (1 + 5 * i) % 16 : i < 48 ? (5 + 3 * i) % 16 : (7 * i) % 16;
}
constexpr uint32_t kInitial[4] = {0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476};

// The compression steps over V, a uint32_t or a GCC vector of them (one lane per message). They
// are always inlined, so that they are compiled for the instruction set of the function that
// instantiates them (hash_*_lanes below).
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
  V f;
  if constexpr (i < 16)
    f = d ^ (b & (c ^ d));  // F, in the form with the shortest dependency chain
  else if constexpr (i < 32)
    f = c ^ (d & (b ^ c));  // G = (b & d) | (c & ~d)
  else if constexpr (i < 48)
    f = b ^ c ^ d;  // H
  else
    f = c ^ (b | ~d);                         // I
  a = a + f + w[word_of_step(i)] + kSine[i];  // (measured faster than adding f last)
  rotate_left<kRotation[i]>(a);
  a += b;
}

template <typename V, size_t... I>
[[gnu::always_inline]] inline void all_steps(V (&r)[4], const V (&w)[16],
                                             std::index_sequence<I...>) {
  (step<static_cast<int>(I)>(r, w), ...);
}

// One 64-byte block of every lane: state[k][lane] and words[j][lane] (block word j of a lane).
template <typename V, int kLanes>
[[gnu::always_inline]] inline void compress(uint32_t (&state)[4][kLanes],
                                            const uint32_t (&words)[16][kLanes]) {
  static_assert(sizeof(V) == kLanes * sizeof(uint32_t));
  V w[16], r[4], start[4];
  for (int j = 0; j < 16; ++j) std::memcpy(&w[j], words[j], sizeof(V));
  for (int k = 0; k < 4; ++k) {
    std::memcpy(&r[k], state[k], sizeof(V));
    start[k] = r[k];
  }
  all_steps(r, w, std::make_index_sequence<64>());
  for (int k = 0; k < 4; ++k) {
    r[k] += start[k];
    std::memcpy(state[k], &r[k], sizeof(V));
  }
}

// One message in a lane: its whole blocks are read where they are, its last bytes and the padding
// (one or two blocks) from `tail`.
struct LaneMessage {
  const uint8_t* data = nullptr;
  size_t whole_blocks = 0;
  size_t tail_blocks = 0;
  size_t next_block = 0;
  size_t index = 0;  // in the caller's messages
  uint8_t tail[128];

  void start(std::string_view message, size_t i) {
    data = reinterpret_cast<const uint8_t*>(message.data());
    whole_blocks = message.size() / 64;
    next_block = 0;
    index = i;
    size_t rest = message.size() % 64;
    tail_blocks = rest < 56 ? 1 : 2;
    std::memset(tail, 0, sizeof(tail));
    if (rest) std::memcpy(tail, data + whole_blocks * 64, rest);
    tail[rest] = 0x80;
    uint64_t bits = uint64_t(message.size()) * 8;
    uint8_t* length = tail + tail_blocks * 64 - 8;
    store_le32(length, uint32_t(bits));
    store_le32(length + 4, uint32_t(bits >> 32));
  }
  bool done() const { return next_block == whole_blocks + tail_blocks; }
  const uint8_t* block() const {
    return next_block < whole_blocks ? data + next_block * 64
                                     : tail + (next_block - whole_blocks) * 64;
  }
};

// The lane scheduler: every lane hashes a message; one that finishes takes the next. Lanes left
// without a message hash a zero block (wasted, but the others advance); the last message alone
// finishes on the scalar steps.
template <typename V, int kLanes>
[[gnu::always_inline]] inline void hash_lanes(const std::vector<std::string_view>& messages,
                                              std::vector<Md5Digest>& digests) {
  static const uint8_t kZeroBlock[64] = {};
  alignas(64) uint32_t state[4][kLanes];
  alignas(64) uint32_t words[16][kLanes];
  LaneMessage lane[kLanes];
  bool busy[kLanes] = {};
  size_t next = 0, busy_lanes = 0;
  auto take = [&](int l) {
    busy[l] = next < messages.size();
    if (!busy[l]) return;
    lane[l].start(messages[next], next);
    ++next;
    ++busy_lanes;
    for (int k = 0; k < 4; ++k) state[k][l] = kInitial[k];
  };
  auto finish = [&](int l) {
    Md5Digest& out = digests[lane[l].index];
    for (int k = 0; k < 4; ++k) store_le32(out.data() + 4 * k, state[k][l]);
    --busy_lanes;
  };
  for (int l = 0; l < kLanes; ++l) take(l);
  while (busy_lanes > 1 || (busy_lanes == 1 && next < messages.size())) {
    for (int l = 0; l < kLanes; ++l) {
      const uint8_t* block = busy[l] ? lane[l].block() : kZeroBlock;
      for (int j = 0; j < 16; ++j) words[j][l] = load_le32(block + 4 * j);
    }
    compress<V, kLanes>(state, words);
    for (int l = 0; l < kLanes; ++l) {
      if (!busy[l]) continue;
      ++lane[l].next_block;
      if (!lane[l].done()) continue;
      finish(l);
      take(l);
    }
  }
  for (int l = 0; l < kLanes; ++l) {
    if (!busy[l]) continue;
    uint32_t one_state[4][1] = {{state[0][l]}, {state[1][l]}, {state[2][l]}, {state[3][l]}};
    uint32_t one_words[16][1];
    for (; !lane[l].done(); ++lane[l].next_block) {
      for (int j = 0; j < 16; ++j) one_words[j][0] = load_le32(lane[l].block() + 4 * j);
      compress<uint32_t, 1>(one_state, one_words);
    }
    for (int k = 0; k < 4; ++k) state[k][l] = one_state[k][0];
    finish(l);
  }
}

#if defined(__x86_64__) && defined(__GNUC__)
using Lanes4 = uint32_t __attribute__((vector_size(16)));
using Lanes8 = uint32_t __attribute__((vector_size(32)));
using Lanes16 = uint32_t __attribute__((vector_size(64)));

void hash_sse2_lanes(const std::vector<std::string_view>& messages,
                     std::vector<Md5Digest>& digests) {
  hash_lanes<Lanes4, 4>(messages, digests);
}
[[gnu::target("avx2")]] void hash_avx2_lanes(const std::vector<std::string_view>& messages,
                                             std::vector<Md5Digest>& digests) {
  hash_lanes<Lanes8, 8>(messages, digests);
}
[[gnu::target("avx512f")]] void hash_avx512_lanes(const std::vector<std::string_view>& messages,
                                                  std::vector<Md5Digest>& digests) {
  hash_lanes<Lanes16, 16>(messages, digests);
}
#endif

Md5Lanes best_available() {
  static const Md5Lanes best = [] {
    for (Md5Lanes lanes : {Md5Lanes::kAvx512, Md5Lanes::kAvx2, Md5Lanes::kSse2})
      if (md5_lanes_available(lanes)) return lanes;
    return Md5Lanes::kScalar;
  }();
  return best;
}

}  // namespace

bool md5_lanes_available(Md5Lanes lanes) {
  switch (lanes) {
    case Md5Lanes::kBest:
    case Md5Lanes::kScalar:
      return true;
#if defined(__x86_64__) && defined(__GNUC__)
    case Md5Lanes::kSse2:
      return true;  // part of x86-64
    case Md5Lanes::kAvx2:
      return __builtin_cpu_supports("avx2");
    case Md5Lanes::kAvx512:
      return __builtin_cpu_supports("avx512f");
#else
    default:
      return false;
#endif
  }
  return false;
}

void md5_many(const std::vector<std::string_view>& messages, std::vector<Md5Digest>* digests,
              Md5Lanes lanes) {
  digests->resize(messages.size());
  if (lanes == Md5Lanes::kBest) lanes = best_available();
  switch (lanes) {
#if defined(__x86_64__) && defined(__GNUC__)
    case Md5Lanes::kSse2:
      return hash_sse2_lanes(messages, *digests);
    case Md5Lanes::kAvx2:
      return hash_avx2_lanes(messages, *digests);
    case Md5Lanes::kAvx512:
      return hash_avx512_lanes(messages, *digests);
#endif
    default:
      for (size_t i = 0; i < messages.size(); ++i) (*digests)[i] = Md5::digest(messages[i]);
  }
}

}  // namespace rcf::ingest
