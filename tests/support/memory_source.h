// An in-memory ByteSource for tests, fuzz targets and micro benchmarks. It can return reads of
// pseudo-random size (to stress every chunk boundary of the readers above it) and fail at a given
// offset. Header-only so that the fuzz build (which compiles only ingest/) can use it too.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

#include "ingest/reading/byte_source.h"

namespace rcf::testing {

class MemorySource : public ingest::ByteSource {
 public:
  // `max_chunk`: each read() returns between 1 and min(n, max_chunk) bytes, chosen by an
  // xorshift32 generator seeded with `seed` (deterministic and the same with every standard
  // library, so a kept fuzz input replays identically); 0 = always as much as asked.
  // `fail_at` >= 0: once that many bytes were returned, read() fails with error()
  // "injected read error".
  explicit MemorySource(std::string data, size_t max_chunk = 0, uint32_t seed = 1,
                        int64_t fail_at = -1)
      : owned_(std::move(data)),
        data_(owned_),
        max_chunk_(max_chunk),
        state_(seed | 1u),
        fail_at_(fail_at) {}
  // Reads `data` in place, without a copy: `data` must outlive the source.
  struct Borrow {};
  MemorySource(Borrow, std::string_view data, size_t max_chunk = 0, uint32_t seed = 1)
      : data_(data), max_chunk_(max_chunk), state_(seed | 1u), fail_at_(-1) {}
  MemorySource(const MemorySource&) = delete;  // data_ may point into owned_
  MemorySource& operator=(const MemorySource&) = delete;

  int64_t read(char* buf, size_t n) override {
    ++reads_;
    if (fail_at_ >= 0 && pos_ >= static_cast<size_t>(fail_at_)) {
      error_ = "injected read error";
      return -1;
    }
    size_t left = data_.size() - pos_;
    if (fail_at_ >= 0) left = std::min(left, static_cast<size_t>(fail_at_) - pos_);
    if (left == 0 || n == 0) return 0;
    size_t take = std::min(n, left);
    if (max_chunk_ > 0) {
      state_ ^= state_ << 13;
      state_ ^= state_ >> 17;
      state_ ^= state_ << 5;
      take = std::min(take, 1 + state_ % max_chunk_);
    }
    std::memcpy(buf, data_.data() + pos_, take);
    pos_ += take;
    return static_cast<int64_t>(take);
  }
  const std::string& error() const override { return error_; }
  int64_t raw_bytes_read() const override { return static_cast<int64_t>(pos_); }
  int64_t raw_size() const override { return static_cast<int64_t>(data_.size()); }
  const char* encoding() const override { return "plain"; }

  int64_t reads() const { return reads_; }

 private:
  std::string owned_;
  std::string_view data_;  // owned_, or the borrowed text
  size_t max_chunk_;
  uint32_t state_;
  int64_t fail_at_;
  size_t pos_ = 0;
  int64_t reads_ = 0;
  std::string error_;
};

}  // namespace rcf::testing
