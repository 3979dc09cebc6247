#include "tests/support/memory_source.h"

#include <algorithm>
#include <cstring>

namespace rcf::testing {

int64_t MemorySource::read(char* buf, size_t n) {
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
    size_t cap = std::min(take, max_chunk_);
    take = std::uniform_int_distribution<size_t>(1, cap)(rng_);
  }
  std::memcpy(buf, data_.data() + pos_, take);
  pos_ += take;
  return static_cast<int64_t>(take);
}

}  // namespace rcf::testing
