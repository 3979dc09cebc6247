// The merged compiles of a Dynamo run, as analysis/dynamo_attribution.cc holds them while it
// attributes them: one Merged per compile (kept small: a run may hold millions) and the
// CompileTables that hold, once, what many compiles share or few have. Internal to the
// attribution (its header exposes MergedCompiles only), split out so that the reasons attached to
// the compiles (analysis/attached_reasons.h) can read them.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "analysis/attributed_compile.h"
#include "analysis/dynamo_attribution.h"
#include "util/compact_optional.h"
#include "util/large_array_allocator.h"
#include "util/shared_chunks.h"

namespace rcf::analysis {

// What a compile's records say of its code object: for each field, the first record's that gives
// it. Held once per distinct one in CompileTables (a run has a few sites, and up to a million
// compiles of them).
struct CodeObject {
  std::string_view co_name, co_filename;  // views into the RunInputs
  util::CompactOptional<int64_t> co_firstlineno;
};

// A compile's best record's start, duration and cache sizes: held aside, for the compiles whose
// best record has any (TORCH_TRACE compilation_metrics; text logs have none).
struct BestTimes {
  util::CompactOptional<int64_t> start_us;
  util::CompactOptional<double> duration_ms;
  util::CompactOptional<int64_t> cache_size, accumulated_cache_size;
};

// What a compile's records reported themselves, for the rare compiles whose records carry a
// recompile reason or a failure (held aside, not in every Merged).
struct ReportedByRecords {
  std::string_view recompile_reason;  // the last non-empty one of its records
  std::string_view fail_type;         // the last non-empty one of its records
  bool failed = false;  // a record with a fail_type installed no guarded code: the compile raised
};

// One canonical compile: the records of one DynamoKey merged. Held in a vector sorted by key, so
// kept small (104 bytes): what few compiles have, or many share, is in CompileTables, by index.
// Copied when merging, so that the records need not be held (they were the largest part of a
// run's memory while it was attributed). Its best record is its most informative one (the lowest
// kind_rank, the first of those in input order).
struct Merged {
  explicit Merged(const DynamoKey& k) : key(k) {}

  DynamoKey key;
  int64_t line = 0;           // the best record's
  int64_t display_rank = -1;  // the best record's
  int64_t attempt = 0;
  int64_t effective_line = 0;
  uint32_t code = 0;         // CompileTables::code
  uint32_t kind = 0;         // CompileTables::kind: the best record's
  uint32_t times = 0;        // CompileTables::times: the best record's, 0 when it has none
  uint32_t cache_state = 0;  // CompileTables::cache_state: fx_graph preferred over aotautograd
  uint32_t first_reason = 0, reasons = 0;  // range of its explaining reasons in the reason order
  uint32_t reported = 0;                   // CompileTables::reported, 0 when none
  uint32_t site_number = 0;                // SiteNumbers
  bool referenced_only = true;
  // A compile that no Dynamo frame made (AOT Inductor, torch.export): its compilation_metrics
  // name no compile id and no code object. It is compiled once, never a recompile of a frame
  // (docs/aot_compiles.md).
  bool frameless = false;
};
static_assert(sizeof(Merged) <= 104, "a run holds one per compile: keep it small");

// The values the merged compiles of a run index (Merged::code, kind, times, cache_state,
// reported). Code objects are told apart by where their texts are, as the sites are (SiteNumbers);
// kinds and cache states by their text.
class CompileTables {
 public:
  const CodeObject& code(const Merged& m) const { return codes_[m.code]; }
  const CodeObject& code_at(uint32_t code) const { return codes_[code]; }  // Merged::code
  std::string_view kind(const Merged& m) const { return kinds_[m.kind]; }
  const BestTimes& times(const Merged& m) const {
    static const BestTimes kNone;
    return m.times == 0 ? kNone : times_[m.times - 1];
  }
  std::string_view cache_state(const Merged& m) const {
    return m.cache_state == 0 ? std::string_view() : cache_states_[m.cache_state - 1];
  }
  const ReportedByRecords& reported(const Merged& m) const {
    static const ReportedByRecords kNothing;
    return m.reported == 0 ? kNothing : reported_[m.reported - 1];
  }

  // A copy without the index of code objects, which only the merger adds through.
  CompileTables copy_to_read() const {
    CompileTables copy;
    copy.codes_ = codes_;
    copy.kinds_ = kinds_;
    copy.cache_states_ = cache_states_;
    copy.times_ = times_;
    copy.reported_ = reported_;
    return copy;
  }

  // A copy to merge more records into, for a trial analysis that is dropped (a watch's preview):
  // it finds the code objects this one indexed in this one's index, which must outlive it
  // unchanged, and indexes only those it adds (copying the index of 100 000 code objects was a
  // fourteenth of a watch's CPU per recompile, docs/performance.md).
  CompileTables fork() const {
    CompileTables copy = copy_to_read();
    if (inherited_ids_) {  // a fork of a fork: its own index, whole
      copy.code_ids_ = *inherited_ids_;
      copy.code_ids_.insert(code_ids_.begin(), code_ids_.end());
    } else {
      copy.inherited_ids_ = &code_ids_;
    }
    return copy;
  }

  // Makes `r` the best record of `m`.
  void set_best(Merged& m, const CompileRecord& r) {
    m.line = r.line;
    m.display_rank = r.display_rank;
    m.kind = index_of(kinds_, r.kind);
    if (!r.start_us && !r.duration_ms && !r.cache_size && !r.accumulated_cache_size) {
      m.times = 0;
      return;
    }
    if (m.times == 0) {
      times_.push_back({});
      m.times = static_cast<uint32_t>(times_.size());
    }
    times_.mutate(m.times - 1) = {r.start_us, r.duration_ms, r.cache_size,
                                  r.accumulated_cache_size};
  }
  // Fills the fields of m's code object that its records have not given yet from record `r`.
  void add_code(Merged& m, const CompileRecord& r, bool first) {
    CodeObject code = first ? CodeObject{} : codes_[m.code];
    if (code.co_name.empty()) code.co_name = r.co_name;
    if (code.co_filename.empty()) code.co_filename = r.co_filename;
    if (!code.co_firstlineno) code.co_firstlineno = r.co_firstlineno;
    if (first || !(key_of(code) == key_of(codes_[m.code]))) m.code = code_index(code);
  }
  void set_cache_state(Merged& m, std::string_view state) {
    m.cache_state = index_of(cache_states_, state) + 1;
  }
  // The reported texts of `m`, added when it has none.
  ReportedByRecords& reported(Merged& m) {
    if (m.reported == 0) {
      reported_.push_back({});
      m.reported = static_cast<uint32_t>(reported_.size());
    }
    return reported_.mutate(m.reported - 1);
  }

 private:
  struct CodeKey {
    const char *name, *file;
    size_t name_size, file_size;
    int64_t line;
    bool has_line;
    bool operator==(const CodeKey&) const = default;
  };
  struct CodeKeyHash {
    size_t operator()(const CodeKey& k) const {
      uint64_t h = reinterpret_cast<uintptr_t>(k.file) * 0x9E3779B97F4A7C15ull;
      h ^= reinterpret_cast<uintptr_t>(k.name) + 0x632BE59BD9B4E019ull + (h << 6) + (h >> 2);
      h ^= static_cast<uint64_t>(k.line) * 0xC2B2AE3D27D4EB4Full + (h << 6) + (h >> 2);
      return static_cast<size_t>(h ^ (h >> 29) ^ k.file_size ^ (k.name_size << 17));
    }
  };
  static CodeKey key_of(const CodeObject& c) {
    return {c.co_name.data(),     c.co_filename.data(),          c.co_name.size(),
            c.co_filename.size(), c.co_firstlineno.value_or(-1), c.co_firstlineno.has_value()};
  }
  uint32_t code_index(const CodeObject& code) {
    const CodeKey key = key_of(code);
    if (inherited_ids_)
      if (auto it = inherited_ids_->find(key); it != inherited_ids_->end()) return it->second;
    auto [it, added] = code_ids_.try_emplace(key, static_cast<uint32_t>(codes_.size()));
    if (added) codes_.push_back(code);
    return it->second;
  }
  // The index of `text` in `texts` (by content), added when not there: a run has a few kinds and
  // cache states.
  static uint32_t index_of(std::vector<std::string_view>& texts, std::string_view text) {
    for (uint32_t i = 0; i < texts.size(); ++i)
      if (texts[i] == text) return i;
    texts.push_back(text);
    return static_cast<uint32_t>(texts.size() - 1);
  }

  // Shared with the copies to read (a watch's snapshot at every batch) until changed: a run of
  // 50 000 frames copied 50 000 code objects a batch. Code objects are only added.
  util::SharedChunks<CodeObject> codes_;
  using CodeIds = std::unordered_map<CodeKey, uint32_t, CodeKeyHash>;
  CodeIds code_ids_;
  const CodeIds* inherited_ids_ = nullptr;  // a fork's: its parent's index (fork())
  std::vector<std::string_view> kinds_, cache_states_;
  util::SharedChunks<BestTimes> times_;             // Merged::times - 1 indexes it
  util::SharedChunks<ReportedByRecords> reported_;  // Merged::reported - 1 indexes it
};

// The merged compile of `key`, nullptr if none; `merged` is sorted by key.
inline Merged* find_merged(util::LargeVector<Merged>& merged, const DynamoKey& key) {
  auto it = std::lower_bound(merged.begin(), merged.end(), key,
                             [](const Merged& m, const DynamoKey& k) { return m.key < k; });
  return it != merged.end() && it->key == key ? &*it : nullptr;
}

// The same, for keys asked for mostly in order: searched from position `from` on first, in steps
// that double (a guard failure's compile is mostly at or just after the last one's: 50 000 of
// them attached again at every batch of a watched run each searched the whole array).
inline Merged* find_merged_from(util::LargeVector<Merged>& merged, const DynamoKey& key,
                                size_t from) {
  if (from >= merged.size() || key < merged[from].key) return find_merged(merged, key);
  size_t lo = from, hi = from + 1, step = 1;
  while (hi < merged.size() && merged[hi].key < key) {
    lo = hi;
    step *= 2;
    hi = from + step;
  }
  // merged[lo].key <= key, and merged[hi].key >= key where hi is in the array.
  const auto end = merged.begin() + static_cast<ptrdiff_t>(std::min(hi + 1, merged.size()));
  auto it = std::lower_bound(merged.begin() + static_cast<ptrdiff_t>(lo), end, key,
                             [](const Merged& m, const DynamoKey& k) { return m.key < k; });
  return it != end && it->key == key ? &*it : nullptr;
}

}  // namespace rcf::analysis
