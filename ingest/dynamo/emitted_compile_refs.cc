#include "ingest/dynamo/emitted_compile_refs.h"

namespace rcf::ingest {
namespace {

constexpr int kInitialBits = 12;

// Appends `value + offset` in `bits` bits to `packed`; false when it does not fit.
bool put(uint64_t& packed, int64_t value, int64_t offset, int bits) {
  int64_t v = value + offset;
  if (v < 0 || v >= (int64_t{1} << bits)) return false;
  packed = (packed << bits) | static_cast<uint64_t>(v);
  return true;
}

}  // namespace

size_t EmittedCompileRefs::Table::slot_of(uint64_t packed) const {
  // Fibonacci hashing: the top bits of the product spread neighbouring refs (F/0, F/1...).
  return static_cast<size_t>((packed * 0x9E3779B97F4A7C15ull) >> (64 - bits_));
}

bool EmittedCompileRefs::Table::contains(uint64_t packed) const {
  if (slots_.empty()) return false;
  const size_t mask = slots_.size() - 1;
  for (size_t i = slot_of(packed);; i = (i + 1) & mask) {
    if (slots_[i] == packed) return true;
    if (slots_[i] == 0) return false;
  }
}

void EmittedCompileRefs::Table::add(uint64_t packed) {
  if ((size_ + 1) * 2 > slots_.size()) {
    util::LargeVector<uint64_t> old;
    old.swap(slots_);
    bits_ = old.empty() ? kInitialBits : bits_ + 1;
    slots_.assign(size_t{1} << bits_, 0);
    size_ = 0;
    for (uint64_t p : old)
      if (p != 0) add(p);
  }
  const size_t mask = slots_.size() - 1;
  size_t i = slot_of(packed);
  while (slots_[i] != 0) i = (i + 1) & mask;
  slots_[i] = packed;
  ++size_;
}

void EmittedCompileRefs::Table::clear() {
  slots_ = {};
  bits_ = 0;
  size_ = 0;
}

std::optional<uint64_t> EmittedCompileRefs::pack(const CompileRef& ref) {
  if (!ref.id.known()) return std::nullopt;
  // 10 + 6 + 12 + 20 + 12 + 4 = 64 bits. A known id has frame >= 0 or compiled_autograd >= 0,
  // so one of the two offset fields is nonzero and so is the packed value.
  uint64_t packed = 0;
  if (!put(packed, ref.rank, 1, 10) || !put(packed, ref.epoch, 0, 6) ||
      !put(packed, ref.id.compiled_autograd, 1, 12) || !put(packed, ref.id.frame, 1, 20) ||
      !put(packed, ref.id.compile, 1, 12) || !put(packed, ref.id.attempt, 0, 4))
    return std::nullopt;
  return packed;
}

bool EmittedCompileRefs::insert(const CompileRef& ref) {
  std::optional<uint64_t> packed = pack(ref);
  if (!packed) return true;
  if (newer_.contains(*packed)) return false;
  const bool seen = older_.contains(*packed);
  if (newer_.size() == kGenerationEntries) {
    std::swap(newer_, older_);
    newer_.clear();
  }
  newer_.add(*packed);  // a ref seen in the older generation is kept for another one
  return !seen;
}

}  // namespace rcf::ingest
