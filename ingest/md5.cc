#include "ingest/md5.h"

#include <cstring>

#include "ingest/little_endian.h"

namespace rcf::ingest {
namespace {

inline uint32_t rotate_left(uint32_t x, int bits) {
  return (x << bits) | (x >> (32 - bits));
}

// Round functions in the forms with the shortest dependency chains (RFC 1321 section 3.4 gives
// the textbook ones; these are equivalent).
inline uint32_t fn_f(uint32_t x, uint32_t y, uint32_t z) {
  return z ^ (x & (y ^ z));
}
inline uint32_t fn_h(uint32_t x, uint32_t y, uint32_t z) {
  return x ^ y ^ z;
}
inline uint32_t fn_i(uint32_t x, uint32_t y, uint32_t z) {
  return y ^ (x | ~z);
}

}  // namespace

#define RCF_MD5_STEP(fn, a, b, c, d, word, constant, shift) \
  a += fn(b, c, d) + (word) + (constant);                   \
  a = rotate_left(a, shift) + b;
// Round 2 with G = (x & z) | (y & ~z) split into two disjoint terms that are added separately, so
// the term that does not depend on the previous step's result can be computed early.
#define RCF_MD5_STEP_G(a, b, c, d, word, constant, shift) \
  a += (word) + (constant) + (~(d) & (c));                \
  a += (b) & (d);                                         \
  a = rotate_left(a, shift) + b;

void Md5::compress(const uint8_t* blocks, size_t block_count) {
  uint32_t a = state_[0], b = state_[1], c = state_[2], d = state_[3];
  for (size_t block = 0; block < block_count; ++block, blocks += 64) {
    uint32_t x[16];
    for (int i = 0; i < 16; ++i) x[i] = load_le32(blocks + 4 * i);
    const uint32_t a0 = a, b0 = b, c0 = c, d0 = d;

    RCF_MD5_STEP(fn_f, a, b, c, d, x[0], 0xd76aa478, 7)
    RCF_MD5_STEP(fn_f, d, a, b, c, x[1], 0xe8c7b756, 12)
    RCF_MD5_STEP(fn_f, c, d, a, b, x[2], 0x242070db, 17)
    RCF_MD5_STEP(fn_f, b, c, d, a, x[3], 0xc1bdceee, 22)
    RCF_MD5_STEP(fn_f, a, b, c, d, x[4], 0xf57c0faf, 7)
    RCF_MD5_STEP(fn_f, d, a, b, c, x[5], 0x4787c62a, 12)
    RCF_MD5_STEP(fn_f, c, d, a, b, x[6], 0xa8304613, 17)
    RCF_MD5_STEP(fn_f, b, c, d, a, x[7], 0xfd469501, 22)
    RCF_MD5_STEP(fn_f, a, b, c, d, x[8], 0x698098d8, 7)
    RCF_MD5_STEP(fn_f, d, a, b, c, x[9], 0x8b44f7af, 12)
    RCF_MD5_STEP(fn_f, c, d, a, b, x[10], 0xffff5bb1, 17)
    RCF_MD5_STEP(fn_f, b, c, d, a, x[11], 0x895cd7be, 22)
    RCF_MD5_STEP(fn_f, a, b, c, d, x[12], 0x6b901122, 7)
    RCF_MD5_STEP(fn_f, d, a, b, c, x[13], 0xfd987193, 12)
    RCF_MD5_STEP(fn_f, c, d, a, b, x[14], 0xa679438e, 17)
    RCF_MD5_STEP(fn_f, b, c, d, a, x[15], 0x49b40821, 22)

    RCF_MD5_STEP_G(a, b, c, d, x[1], 0xf61e2562, 5)
    RCF_MD5_STEP_G(d, a, b, c, x[6], 0xc040b340, 9)
    RCF_MD5_STEP_G(c, d, a, b, x[11], 0x265e5a51, 14)
    RCF_MD5_STEP_G(b, c, d, a, x[0], 0xe9b6c7aa, 20)
    RCF_MD5_STEP_G(a, b, c, d, x[5], 0xd62f105d, 5)
    RCF_MD5_STEP_G(d, a, b, c, x[10], 0x02441453, 9)
    RCF_MD5_STEP_G(c, d, a, b, x[15], 0xd8a1e681, 14)
    RCF_MD5_STEP_G(b, c, d, a, x[4], 0xe7d3fbc8, 20)
    RCF_MD5_STEP_G(a, b, c, d, x[9], 0x21e1cde6, 5)
    RCF_MD5_STEP_G(d, a, b, c, x[14], 0xc33707d6, 9)
    RCF_MD5_STEP_G(c, d, a, b, x[3], 0xf4d50d87, 14)
    RCF_MD5_STEP_G(b, c, d, a, x[8], 0x455a14ed, 20)
    RCF_MD5_STEP_G(a, b, c, d, x[13], 0xa9e3e905, 5)
    RCF_MD5_STEP_G(d, a, b, c, x[2], 0xfcefa3f8, 9)
    RCF_MD5_STEP_G(c, d, a, b, x[7], 0x676f02d9, 14)
    RCF_MD5_STEP_G(b, c, d, a, x[12], 0x8d2a4c8a, 20)

    RCF_MD5_STEP(fn_h, a, b, c, d, x[5], 0xfffa3942, 4)
    RCF_MD5_STEP(fn_h, d, a, b, c, x[8], 0x8771f681, 11)
    RCF_MD5_STEP(fn_h, c, d, a, b, x[11], 0x6d9d6122, 16)
    RCF_MD5_STEP(fn_h, b, c, d, a, x[14], 0xfde5380c, 23)
    RCF_MD5_STEP(fn_h, a, b, c, d, x[1], 0xa4beea44, 4)
    RCF_MD5_STEP(fn_h, d, a, b, c, x[4], 0x4bdecfa9, 11)
    RCF_MD5_STEP(fn_h, c, d, a, b, x[7], 0xf6bb4b60, 16)
    RCF_MD5_STEP(fn_h, b, c, d, a, x[10], 0xbebfbc70, 23)
    RCF_MD5_STEP(fn_h, a, b, c, d, x[13], 0x289b7ec6, 4)
    RCF_MD5_STEP(fn_h, d, a, b, c, x[0], 0xeaa127fa, 11)
    RCF_MD5_STEP(fn_h, c, d, a, b, x[3], 0xd4ef3085, 16)
    RCF_MD5_STEP(fn_h, b, c, d, a, x[6], 0x04881d05, 23)
    RCF_MD5_STEP(fn_h, a, b, c, d, x[9], 0xd9d4d039, 4)
    RCF_MD5_STEP(fn_h, d, a, b, c, x[12], 0xe6db99e5, 11)
    RCF_MD5_STEP(fn_h, c, d, a, b, x[15], 0x1fa27cf8, 16)
    RCF_MD5_STEP(fn_h, b, c, d, a, x[2], 0xc4ac5665, 23)

    RCF_MD5_STEP(fn_i, a, b, c, d, x[0], 0xf4292244, 6)
    RCF_MD5_STEP(fn_i, d, a, b, c, x[7], 0x432aff97, 10)
    RCF_MD5_STEP(fn_i, c, d, a, b, x[14], 0xab9423a7, 15)
    RCF_MD5_STEP(fn_i, b, c, d, a, x[5], 0xfc93a039, 21)
    RCF_MD5_STEP(fn_i, a, b, c, d, x[12], 0x655b59c3, 6)
    RCF_MD5_STEP(fn_i, d, a, b, c, x[3], 0x8f0ccc92, 10)
    RCF_MD5_STEP(fn_i, c, d, a, b, x[10], 0xffeff47d, 15)
    RCF_MD5_STEP(fn_i, b, c, d, a, x[1], 0x85845dd1, 21)
    RCF_MD5_STEP(fn_i, a, b, c, d, x[8], 0x6fa87e4f, 6)
    RCF_MD5_STEP(fn_i, d, a, b, c, x[15], 0xfe2ce6e0, 10)
    RCF_MD5_STEP(fn_i, c, d, a, b, x[6], 0xa3014314, 15)
    RCF_MD5_STEP(fn_i, b, c, d, a, x[13], 0x4e0811a1, 21)
    RCF_MD5_STEP(fn_i, a, b, c, d, x[4], 0xf7537e82, 6)
    RCF_MD5_STEP(fn_i, d, a, b, c, x[11], 0xbd3af235, 10)
    RCF_MD5_STEP(fn_i, c, d, a, b, x[2], 0x2ad7d2bb, 15)
    RCF_MD5_STEP(fn_i, b, c, d, a, x[9], 0xeb86d391, 21)

    a += a0;
    b += b0;
    c += c0;
    d += d0;
  }
  state_[0] = a;
  state_[1] = b;
  state_[2] = c;
  state_[3] = d;
}

#undef RCF_MD5_STEP
#undef RCF_MD5_STEP_G

void Md5::reset() {
  state_[0] = 0x67452301;
  state_[1] = 0xefcdab89;
  state_[2] = 0x98badcfe;
  state_[3] = 0x10325476;
  total_bytes_ = 0;
  buffered_ = 0;
}

void Md5::update(const void* data, size_t size) {
  const uint8_t* in = static_cast<const uint8_t*>(data);
  total_bytes_ += size;
  if (buffered_ > 0) {
    size_t take = 64 - buffered_;
    if (size < take) {  // common case for short pieces: just buffer
      std::memcpy(buffer_ + buffered_, in, size);
      buffered_ += size;
      return;
    }
    std::memcpy(buffer_ + buffered_, in, take);
    compress(buffer_, 1);
    in += take;
    size -= take;
    buffered_ = 0;
  }
  if (size >= 64) {
    size_t blocks = size / 64;
    compress(in, blocks);
    in += blocks * 64;
    size -= blocks * 64;
  }
  if (size > 0) {
    std::memcpy(buffer_, in, size);
    buffered_ = size;
  }
}

Md5Digest Md5::finish() {
  const uint64_t bit_length = total_bytes_ * 8;
  // Padding: one 0x80 byte, zeros up to 56 mod 64, then the 64-bit little-endian bit length.
  uint8_t tail[128] = {0};
  std::memcpy(tail, buffer_, buffered_);
  tail[buffered_] = 0x80;
  size_t tail_size = buffered_ < 56 ? 64 : 128;
  for (int i = 0; i < 8; ++i) tail[tail_size - 8 + i] = uint8_t(bit_length >> (8 * i));
  compress(tail, tail_size / 64);
  Md5Digest digest;
  for (int i = 0; i < 4; ++i) store_le32(digest.data() + 4 * i, state_[i]);
  reset();
  return digest;
}

Md5Digest Md5::digest(std::string_view data) {
  Md5 md5;
  md5.update(data);
  return md5.finish();
}

std::string Md5::to_hex(const Md5Digest& digest) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out(32, '0');
  for (size_t i = 0; i < 16; ++i) {
    out[2 * i] = kHex[digest[i] >> 4];
    out[2 * i + 1] = kHex[digest[i] & 15];
  }
  return out;
}

bool Md5::parse_hex(std::string_view hex, Md5Digest* digest) {
  if (hex.size() != 32) return false;
  auto nibble = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  };
  for (size_t i = 0; i < 16; ++i) {
    int hi = nibble(hex[2 * i]), lo = nibble(hex[2 * i + 1]);
    if (hi < 0 || lo < 0) return false;
    (*digest)[i] = uint8_t(hi << 4 | lo);
  }
  return true;
}

}  // namespace rcf::ingest
