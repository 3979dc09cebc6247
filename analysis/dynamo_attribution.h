// Dynamo attribution: merges the compile records of one run into canonical compiles and decides
// why each one happened. Pure functions over plain structs (the database side is in
// analysis/dynamo_run_loader.cc), so the rules are unit-testable on small inputs.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "analysis/attributed_compile.h"
#include "analysis/classified_reasons.h"
#include "analysis/same_process_sources.h"
#include "analysis/texts_by_id.h"
#include "util/compact_optional.h"
#include "util/large_array_allocator.h"

namespace rcf::analysis {

// The text fields of the records are views into RunInputs::texts or RunInputs::labels (or any
// storage outliving attribute_dynamo_run): a run repeats a few function names, files, kinds and
// reasons over a million compiles, and each is held once.
struct CompileRecord {  // one dynamo_compile_raw row
  DynamoKey key;
  int64_t attempt = 0;
  int64_t line = 0;
  int64_t display_rank = -1;  // envelope rank, else the rank in the file name, else -1
  std::string_view kind;      // forward, backward, runtime, recompile_block, referenced
  std::string_view co_name, co_filename;
  // Optional numbers without std::optional's flag and padding (a run may hold a million).
  util::CompactOptional<int64_t> co_firstlineno;
  util::CompactOptional<int64_t> start_us;
  util::CompactOptional<double> duration_ms;
  util::CompactOptional<int64_t> cache_size, accumulated_cache_size;
  util::CompactOptional<int64_t> has_guarded_code;
  // What the records reported themselves (the failure's message is in the store, not read here).
  std::string_view fail_type, recompile_reason;
};

struct ReasonRecord {  // one guard_failure row
  DynamoKey key;
  int64_t line = 0;
  int64_t entry_index = 0;
  std::string old_compile_id;
  std::string_view reason;
  util::CompactOptional<int64_t> reason_sid;  // strings.string_id of `reason`, when from the store
  std::string_view origin;
};

// One frame of a graph break's user stack: the frame the break happened in and each frame that
// called it inside the compiled region. A resume function is split from one of them (the
// outermost, or with nested resumption an inner one), at that frame's line.
struct BreakFrame {
  std::string_view file, function;
  int64_t line = -1;
};

struct BreakRecord {  // one graph_break row
  DynamoKey key;      // the compile being traced when it broke (frame_id -1 if unknown)
  int64_t line = 0;
  // Where it broke: the innermost user frame (or the `in user code at F:L` header).
  std::string_view user_file, user_function, gb_type, reason;
  int64_t user_line = -1;
  bool sync_signature = false;
  std::string_view origin;
  // Its user stack, when the log printed one: RunInputs::break_frames[frames_begin, frames_end).
  uint32_t frames_begin = 0, frames_end = 0;
};

struct CacheRecord {  // one cache_outcome row
  DynamoKey key;
  std::string_view cache, state;
};

struct RunInputs {
  // One record per row: hundreds of MB at a million compiles (see util/large_array_allocator.h).
  util::LargeVector<CompileRecord> compiles;
  util::LargeVector<ReasonRecord> reasons;
  util::LargeVector<BreakRecord> breaks;
  std::vector<BreakFrame> break_frames;  // the breaks' user stacks, outermost frame first
  std::vector<CacheRecord> caches;
  // Texts by string id, each stored once (views into it stay valid).
  TextsById texts;
  // The classifications of reason texts by reason_sid, when the loader made them (a reason not
  // found here is classified when attributing).
  ClassifiedReasons classified;
  // Short texts without a string id (kinds, origins), each stored once.
  std::set<std::string, std::less<>> labels;
  std::string_view label(std::string_view text) {
    auto it = labels.find(text);
    return it != labels.end() ? *it : *labels.emplace(text).first;
  }
  // source_id -> short name for evidence texts (file name without directories).
  std::vector<std::pair<int64_t, std::string>> source_names;
  // Text logs read as the same process as a TORCH_TRACE log (analysis/same_process_sources.h).
  std::vector<SourceAlias> merged_sources;

  // A copy whose records view this one's texts and classifications (TextsById::fork): for a
  // trial analysis that reads on from a copy of what a watch keeps
  // (analysis/dynamo_record_cache.h). This must outlive the fork and not change while it lives.
  RunInputs fork() const;
};

// The compile records of a run merged into one entry per compile (sorted by key, their sites
// numbered): the first step of attribute_dynamo_run. It keeps what attribution needs of the
// records, so the records themselves need not be held (at a million compiles they were the largest
// part of a run's memory): analysis/dynamo_run_loader.cc folds each into a DynamoCompileMerger as
// it is read. It views into the RunInputs' texts and labels, which must outlive it.
class MergedCompiles {
 public:
  MergedCompiles();
  ~MergedCompiles();
  MergedCompiles(MergedCompiles&&) noexcept;
  MergedCompiles& operator=(MergedCompiles&&) noexcept;

  // Attaches a guard failure to its compile (the loader's, in row order, as each is read: a
  // reason is then held in 56 bytes, not as a 120-byte ReasonRecord). Dropped when it explains no
  // compile or its compile is not here. Its text must be the text of its reason_sid in the
  // RunInputs' texts (its views, like the compiles', must outlive this). attribute_dynamo_run
  // attaches RunInputs::reasons after these.
  void add_reason(const ReasonRecord& reason);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  friend class DynamoCompileMerger;
  friend class DynamoAttributionRun;
};

// Merges compile records one at a time into MergedCompiles. The records of one compile must come
// in input order (a compile's best record is the first of its most informative kind, its reported
// texts the last non-empty ones); the compiles may interleave. Records of kind runtime or backward
// describe a compile made elsewhere and are skipped. Memory: about 110 bytes a compile (140 where
// the records carry times, as TORCH_TRACE's do), nothing a record. The texts the records view must
// outlive the MergedCompiles.
class DynamoCompileMerger {
 public:
  // `expected_records`: at least how many records add() will see, when known (memory is reserved
  // for them up front; pages never written are never faulted in), else 0.
  explicit DynamoCompileMerger(size_t expected_records = 0);
  ~DynamoCompileMerger();
  DynamoCompileMerger(DynamoCompileMerger&&) noexcept;
  DynamoCompileMerger& operator=(DynamoCompileMerger&&) noexcept;

  void add(const CompileRecord& record);
  // Whether a record of `key` was added (and not skipped).
  bool contains(const DynamoKey& key) const;
  // Whether `key` was added only from `referenced` records.
  bool only_referenced(const DynamoKey& key) const;
  // The compiles merged so far, sorted by key, their sites numbered. The merger is then empty.
  MergedCompiles finish();
  // A copy, to merge more records into without changing this one (the texts its compiles view
  // are not copied).
  DynamoCompileMerger fork() const;
  // The same, leaving the merger's compiles as they are (more records may be added): a copy of
  // them (analysis/dynamo_record_cache.h), with the guard failures `reason_at(0 .. reasons - 1)`
  // (in row order) attached as MergedCompiles::add_reason of each would attach them. The merger
  // keeps the compiles' key order and the reasons attached for the next one, so that a snapshot
  // sorts only the compiles added since the last and attaches only the reasons added since
  // (50 000 attached again at every batch of a watched run were a fifth of its CPU); every reason
  // is attached again when one that found no compile before would find it now, or when one has
  // no compile id (its compile depends on the compiles around it). The reasons offered before
  // must be offered again, unchanged, as the first ones.
  using ReasonAt = std::function<const ReasonRecord&(size_t)>;
  MergedCompiles snapshot(size_t reasons, const ReasonAt& reason_at);

 private:
  struct State;
  void attach_reasons(MergedCompiles& out, uint32_t compiles_before, size_t reasons,
                      const ReasonAt& reason_at);
  std::unique_ptr<State> state_;
};

// The records of `inputs.compiles`, in their order, through a DynamoCompileMerger.
MergedCompiles merge_dynamo_compiles(const RunInputs& inputs);

// Builds the canonical compiles of one run, ordered by ordinal, each with its attribution.
std::vector<AttributedCompile> attribute_dynamo_run(const RunInputs& inputs);
// The same, handing each compile to `emit` in ordinal order (ordinals from 1) instead of holding
// them; returns how many were emitted. `emit` may leave anything in the compile it is handed (it
// is reset before the next one): store::CompileResultWriter::write leaves an older compile
// there, whose strings' buffers are then refilled.
int64_t attribute_dynamo_run(const RunInputs& inputs,
                             const std::function<void(AttributedCompile&&)>& emit);
// The same, from the compiles of `inputs` merged beforehand (inputs.compiles is not read: it may
// have been released since).
int64_t attribute_dynamo_run(const RunInputs& inputs, MergedCompiles merged,
                             const std::function<void(AttributedCompile&&)>& emit);

// The compiles of one run ready to be attributed: their guard failures, cache outcomes and
// graph breaks attached and their attribution order decided (the first phases of
// attribute_dynamo_run), so that a caller can compare that order with an earlier analysis' before
// attributing (analysis/attribution_checkpoint.h). `inputs` must outlive it.
class DynamoAttributionRun {
 public:
  DynamoAttributionRun(const RunInputs& inputs, MergedCompiles merged);
  ~DynamoAttributionRun();
  DynamoAttributionRun(const DynamoAttributionRun&) = delete;
  DynamoAttributionRun& operator=(const DynamoAttributionRun&) = delete;

  // How many compiles, and the key of the one at `index` of the attribution order (its ordinal
  // is index + 1).
  size_t size() const;
  const DynamoKey& key_at(size_t index) const;
  // Whether the compiles come from several processes (their program keys then name the rank or
  // the log): a fact of the whole run that every compile's attribution reads.
  bool several_processes() const;
  // Attributes the compiles from `from` (an index of the order) on, handing each to `emit` in
  // ordinal order as attribute_dynamo_run does; returns how many were emitted. Called once.
  int64_t attribute(size_t from, const std::function<void(AttributedCompile&&)>& emit);

 private:
  struct State;
  std::unique_ptr<State> state_;
};

// Whether a guard failure of this origin explains a compile (a limit warning explains why a
// compile did NOT happen; a profiler table is a summary).
bool explains_compile(std::string_view origin);

// `torch_dynamo_resume_in_<fn>_at_<line>` (or 2023 `<resume in <fn>>`): the function and line of
// the graph break that created the resume frame; nullopt for other names.
struct ResumeName {
  std::string function;
  int64_t line = -1;
};
std::optional<ResumeName> parse_resume_name(std::string_view co_name);

}  // namespace rcf::analysis
