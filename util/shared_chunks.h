// SharedChunks<T>: an array whose copies share its elements until one of them changes them, a
// chunk at a time. For state copied whole at every batch of a watched run (a rollup's checkpoint,
// analysis/run_rollup.h) of which a batch changes a few elements: a copy costs a pointer per
// chunk of kChunk elements instead of a copy of each (50 000 strings allocated and freed at every
// batch were a tenth of a watched run's CPU). Not for use by two threads at once.
#pragma once

#include <array>
#include <cstddef>
#include <memory>
#include <utility>
#include <vector>

namespace rcf::util {

template <typename T>
class SharedChunks {
 public:
  static constexpr size_t kChunk = 64;

  size_t size() const { return size_; }
  const T& operator[](size_t i) const { return (*chunks_[i / kChunk])[i % kChunk]; }
  // The element to change: its chunk is copied first when another copy of the array shares it.
  T& mutate(size_t i) { return (*own(i / kChunk))[i % kChunk]; }
  // The element's value into `out`: moved when no other copy shares its chunk (the element is
  // then left valid but unspecified), else copied (into `out`'s room).
  void take_into(size_t i, T& out) {
    auto& chunk = chunks_[i / kChunk];
    if (chunk.use_count() == 1)
      out = std::move((*chunk)[i % kChunk]);
    else
      out = (*chunk)[i % kChunk];
  }
  void push_back(T value) {
    if (size_ % kChunk == 0) chunks_.push_back(std::make_shared<Chunk>());
    mutate(size_++) = std::move(value);
  }
  void reserve(size_t n) { chunks_.reserve((n + kChunk - 1) / kChunk); }

 private:
  using Chunk = std::array<T, kChunk>;
  std::shared_ptr<Chunk>& own(size_t chunk) {
    auto& c = chunks_[chunk];
    if (c.use_count() > 1) c = std::make_shared<Chunk>(*c);
    return c;
  }

  std::vector<std::shared_ptr<Chunk>> chunks_;
  size_t size_ = 0;
};

}  // namespace rcf::util
