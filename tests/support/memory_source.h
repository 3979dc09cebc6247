// Test helper: an in-memory ByteSource that returns deterministic random short reads (to stress
// every chunk boundary of the readers above it) and can fail at a given offset.
#pragma once

#include <cstdint>
#include <random>
#include <string>

#include "ingest/byte_source.h"

namespace rcf::testing {

class MemorySource : public ingest::ByteSource {
 public:
  // `max_chunk`: each read() returns between 1 and min(n, max_chunk) bytes, chosen by a PRNG
  // seeded with `seed` (0 = always return as much as asked). `fail_at` >= 0: once that many bytes
  // were returned, read() fails with error() "injected read error".
  explicit MemorySource(std::string data, size_t max_chunk = 0, uint32_t seed = 1,
                        int64_t fail_at = -1)
      : data_(std::move(data)), max_chunk_(max_chunk), rng_(seed), fail_at_(fail_at) {}

  int64_t read(char* buf, size_t n) override;
  const std::string& error() const override { return error_; }
  int64_t raw_bytes_read() const override { return static_cast<int64_t>(pos_); }
  int64_t raw_size() const override { return static_cast<int64_t>(data_.size()); }
  const char* encoding() const override { return "plain"; }

  int64_t reads() const { return reads_; }

 private:
  std::string data_;
  size_t max_chunk_;
  std::mt19937 rng_;
  int64_t fail_at_;
  size_t pos_ = 0;
  int64_t reads_ = 0;
  std::string error_;
};

}  // namespace rcf::testing
