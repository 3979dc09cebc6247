#include "ingest/reading/md5_lanes.h"

#include <cstdint>
#include <cstring>
#include <utility>

#include "ingest/reading/little_endian.h"
#include "ingest/reading/md5_steps.h"

namespace rcf::ingest {
namespace {

// One 64-byte block of every lane: state[k][lane] and words[j][lane] (block word j of a lane).
template <typename V, int kLanes>
[[gnu::always_inline]] inline void compress(uint32_t (&state)[4][kLanes],
                                            const uint32_t (&words)[16][kLanes]) {
  static_assert(sizeof(V) == kLanes * sizeof(uint32_t));
  V w[16], s[4];
  for (int j = 0; j < 16; ++j) std::memcpy(&w[j], words[j], sizeof(V));
  for (int k = 0; k < 4; ++k) std::memcpy(&s[k], state[k], sizeof(V));
  md5_steps::compress_block(s, w);
  for (int k = 0; k < 4; ++k) std::memcpy(state[k], &s[k], sizeof(V));
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
    for (int k = 0; k < 4; ++k) state[k][l] = md5_steps::kInitial[k];
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
