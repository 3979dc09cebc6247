// MD5 (RFC 1321), streaming. Used to verify TORCH_TRACE payload checksums (`has_payload`), so
// it is written for throughput: the payload bytes of a trace are hashed line by line as they
// stream past, without being buffered.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace rcf::ingest {

using Md5Digest = std::array<uint8_t, 16>;

class Md5 {
 public:
  Md5() { reset(); }

  // Starts a new message.
  void reset();
  // Appends bytes to the message. Cheap for small pieces (single bytes, short lines).
  void update(const void* data, size_t size);
  void update(std::string_view data) { update(data.data(), data.size()); }
  // Digest of everything appended since reset(). Leaves the object reset.
  Md5Digest finish();

  // One-shot helpers.
  static Md5Digest digest(std::string_view data);
  static std::string to_hex(const Md5Digest& digest);  // 32 lowercase hex digits
  // Parses 32 hex digits (either case); false when `hex` is anything else (`*digest` is then
  // overwritten with unspecified bytes).
  static bool parse_hex(std::string_view hex, Md5Digest* digest);

 private:
  // Runs the compression function over `block_count` consecutive 64-byte blocks.
  void compress(const uint8_t* blocks, size_t block_count);

  uint32_t state_[4];
  uint64_t total_bytes_;
  size_t buffered_;  // bytes waiting in buffer_ (always < 64 between calls)
  uint8_t buffer_[64];
};

}  // namespace rcf::ingest
