// EmittedCompileRefs: the compiles a Dynamo text source has already emitted a record for, so that
// an older compile named again by a later recompile block is not emitted again.
//
// Each recompile block re-lists the cache entries it rejected (up to the recompile limit, 8 by
// default): a log of a million recompiles names older compiles millions of times, and a
// `referenced` record per mention was most of the rows of dynamo_compile_raw. The analysis keeps
// only the first record of a compile known by reference (and none when the compile has a record
// of its own), so a repeat carries nothing new: the mention itself stays in guard_failure.
//
// Memory is bounded: refs are packed exactly into 64 bits (a ref whose fields do not fit is
// simply not remembered, and its mentions are all emitted) and held in two generations of an
// open-addressed table that grows to 2^21 slots (16 MiB). When the newer one is half full the
// older is dropped, so a ref is remembered for at least the next 2^20 distinct refs. Forgetting
// only costs a duplicate record, which the analysis merges.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>

#include "ingest/events.h"
#include "util/large_array_allocator.h"

namespace rcf::ingest {

class EmittedCompileRefs {
 public:
  // How many distinct refs each generation holds.
  static constexpr size_t kGenerationEntries = size_t{1} << 20;

  // Remembers `ref`; false when it was already remembered (its record was emitted before).
  bool insert(const CompileRef& ref);

 private:
  // An open-addressed set of nonzero packed refs, at most half full.
  class Table {
   public:
    bool contains(uint64_t packed) const;
    void add(uint64_t packed);  // `packed` must not be in the table
    size_t size() const { return size_; }
    void clear();

   private:
    size_t slot_of(uint64_t packed) const;
    util::LargeVector<uint64_t> slots_;  // 0: empty; a power of two in size, or empty
    int bits_ = 0;                       // log2 of slots_.size()
    size_t size_ = 0;
  };

  // Nonzero for a ref with a known id whose fields fit; nullopt otherwise.
  static std::optional<uint64_t> pack(const CompileRef& ref);

  Table newer_, older_;
};

}  // namespace rcf::ingest
