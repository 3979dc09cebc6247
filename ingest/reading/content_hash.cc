#include "ingest/reading/content_hash.h"

#include <fmt/format.h>

#include <cstring>

namespace rcf::ingest {
namespace {

constexpr uint64_t kPrime1 = 0x9E3779B185EBCA87ull;
constexpr uint64_t kPrime2 = 0xC2B2AE3D27D4EB4Full;
constexpr uint64_t kPrime3 = 0x165667B19E3779F9ull;
constexpr uint64_t kPrime4 = 0x85EBCA77C2B2AE63ull;
constexpr uint64_t kPrime5 = 0x27D4EB2F165667C5ull;

inline uint64_t rotl(uint64_t x, int r) {
  return (x << r) | (x >> (64 - r));
}

// Little-endian loads, as XXH64 defines them (the build targets are little-endian).
inline uint64_t load64(const unsigned char* p) {
  uint64_t v;
  std::memcpy(&v, p, 8);
  return v;
}
inline uint32_t load32(const unsigned char* p) {
  uint32_t v;
  std::memcpy(&v, p, 4);
  return v;
}

inline uint64_t mix_round(uint64_t acc, uint64_t input) {
  acc += input * kPrime2;
  return rotl(acc, 31) * kPrime1;
}

inline uint64_t merge_round(uint64_t acc, uint64_t lane) {
  acc ^= mix_round(0, lane);
  return acc * kPrime1 + kPrime4;
}

}  // namespace

void ContentHash::stripe(const unsigned char* p) {
  lanes_[0] = mix_round(lanes_[0], load64(p));
  lanes_[1] = mix_round(lanes_[1], load64(p + 8));
  lanes_[2] = mix_round(lanes_[2], load64(p + 16));
  lanes_[3] = mix_round(lanes_[3], load64(p + 24));
}

void ContentHash::update(const char* data, size_t size) {
  const auto* p = reinterpret_cast<const unsigned char*>(data);
  total_ += size;
  if (pending_size_ + size < 32) {
    std::memcpy(pending_ + pending_size_, p, size);
    pending_size_ += size;
    return;
  }
  if (pending_size_ > 0) {
    size_t fill = 32 - pending_size_;
    std::memcpy(pending_ + pending_size_, p, fill);
    stripe(pending_);
    p += fill;
    size -= fill;
    pending_size_ = 0;
  }
  for (; size >= 32; p += 32, size -= 32) stripe(p);
  std::memcpy(pending_, p, size);
  pending_size_ = size;
}

uint64_t ContentHash::digest() const {
  uint64_t h;
  if (total_ >= 32) {
    h = rotl(lanes_[0], 1) + rotl(lanes_[1], 7) + rotl(lanes_[2], 12) + rotl(lanes_[3], 18);
    for (uint64_t lane : lanes_) h = merge_round(h, lane);
  } else {
    h = kPrime5;  // seed 0
  }
  h += total_;
  const unsigned char* p = pending_;
  size_t left = pending_size_;
  for (; left >= 8; p += 8, left -= 8)
    h = rotl(h ^ mix_round(0, load64(p)), 27) * kPrime1 + kPrime4;
  if (left >= 4) {
    h = rotl(h ^ (uint64_t{load32(p)} * kPrime1), 23) * kPrime2 + kPrime3;
    p += 4;
    left -= 4;
  }
  for (; left > 0; ++p, --left) h = rotl(h ^ (*p * kPrime5), 11) * kPrime1;
  h ^= h >> 33;
  h *= kPrime2;
  h ^= h >> 29;
  h *= kPrime3;
  h ^= h >> 32;
  return h;
}

std::string ContentHash::text() const {
  return fmt::format("{:016x}-{}", digest(), total_);
}

}  // namespace rcf::ingest
