// Streaming XXH64 (seed 0) of a byte stream, for the content hash that makes re-ingesting the
// same file a no-op. Hand-written from the published algorithm rather than a new dependency; it
// runs at memory speed, where zlib's crc32 + adler32 cost about a second per GB on the ingest
// thread. Any split of the stream into update() calls gives the same digest.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace rcf::ingest {

class ContentHash {
 public:
  void update(const char* data, size_t size);
  uint64_t digest() const;  // XXH64 of everything passed to update() so far
  uint64_t size() const { return total_; }
  // The digest and the length as source.content_hash holds them: 16 hex digits, '-', the bytes.
  std::string text() const;

 private:
  void stripe(const unsigned char* p);  // one 32-byte stripe into the four lanes

  uint64_t lanes_[4] = {0x9E3779B185EBCA87ull + 0xC2B2AE3D27D4EB4Full, 0xC2B2AE3D27D4EB4Full, 0,
                        0 - 0x9E3779B185EBCA87ull};
  unsigned char pending_[32] = {};  // bytes not yet forming a whole stripe
  size_t pending_size_ = 0;
  uint64_t total_ = 0;
};

}  // namespace rcf::ingest
