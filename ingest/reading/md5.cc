#include "ingest/reading/md5.h"

#include <cstring>

#include "ingest/reading/little_endian.h"
#include "ingest/reading/md5_steps.h"

namespace rcf::ingest {
void Md5::compress(const uint8_t* blocks, size_t block_count) {
  for (size_t block = 0; block < block_count; ++block, blocks += 64) {
    uint32_t x[16];
    for (int i = 0; i < 16; ++i) x[i] = load_le32(blocks + 4 * i);
    md5_steps::compress_block(state_, x);
  }
}

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

namespace {

// A hex digit's value, or 16: one load per digit, where three range checks per digit were a
// visible share of a TORCH_TRACE log's parsing (a checksum per payload; docs/performance.md).
struct HexDigits {
  uint8_t value[256];
  constexpr HexDigits() : value() {
    for (int c = 0; c < 256; ++c) value[c] = 16;
    for (int d = 0; d < 10; ++d) value['0' + d] = uint8_t(d);
    for (int d = 0; d < 6; ++d) value['a' + d] = value['A' + d] = uint8_t(10 + d);
  }
};
constexpr HexDigits kHexDigits;

}  // namespace

bool Md5::parse_hex(std::string_view hex, Md5Digest* digest) {
  if (hex.size() != 32) return false;
  unsigned invalid = 0;
  for (size_t i = 0; i < 16; ++i) {
    const unsigned hi = kHexDigits.value[static_cast<unsigned char>(hex[2 * i])];
    const unsigned lo = kHexDigits.value[static_cast<unsigned char>(hex[2 * i + 1])];
    invalid |= (hi | lo) & 16;
    (*digest)[i] = uint8_t(hi << 4 | (lo & 15));
  }
  return invalid == 0;
}

}  // namespace rcf::ingest
