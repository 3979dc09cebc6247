#include "analysis/run_analysis.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <tuple>

#include "analysis/dynamo_attribution.h"
#include "analysis/rank_divergence.h"
#include "analysis/run_rollup.h"
#include "analysis/same_process_sources.h"
#include "analysis/step_curve.h"
#include "analysis/step_evidence_loader.h"
#include "analysis/training_steps.h"
#include "analysis/xla_compiles.h"
#include "analysis/xla_run_loader.h"
#include "store/compile_result_writer.h"
#include "store/derived_results_writer.h"
#include "store/dynamo_row_reader.h"
#include "store/execute_time_query.h"
#include "store/run_tables.h"
#include "store/string_interner.h"
#include "util/base_name.h"
#include "util/batch_worker.h"
#include "util/json_depth.h"

namespace rcf::analysis {
namespace {

// The raw Dynamo rows of a run, as the store reads them.
using DynamoRows = store::DynamoRowReader;

// The key of a raw row at `line`: a record of an era without compile ids is told apart by its
// line. The ids are 32-bit in the logs (analysis/attributed_compile.h).
DynamoKey dynamo_key_of(const DynamoRows::Key& raw, int64_t line) {
  DynamoKey k;
  k.source_id = static_cast<int32_t>(raw.source_id);
  k.rank = static_cast<int32_t>(raw.rank);
  k.epoch = static_cast<int32_t>(raw.epoch);
  k.ca_id = static_cast<int32_t>(raw.ca_id);
  k.frame_id = static_cast<int32_t>(raw.frame_id);
  k.frame_compile_id = static_cast<int32_t>(raw.frame_compile_id);
  if (k.frame_id < 0 && k.ca_id < 0) k.line_if_no_id = line;
  return k;
}

// Appends records to a run's array on a second thread, a batch at a time: filling a large array
// faults its pages in and copies every record into them, which then overlaps SQLite's stepping of
// the next rows on the caller's thread. The array must not be touched until finish().
template <typename Record>
class RecordAppender : public util::BatchFeeder<Record> {
 public:
  explicit RecordAppender(util::LargeVector<Record>& to)
      : util::BatchFeeder<Record>(
            [&to](std::vector<Record>& batch) {
              for (Record& r : batch) to.push_back(std::move(r));
            },
            /*batch_items=*/2048, /*max_queued=*/4, nullptr, false, util::kInlineBatches) {}
};

// The frames of a graph break's user_stack JSON (written by store/ingest_writer.cc, outermost
// first) appended to in.break_frames, their texts held once in in.labels. A stack that is not
// such a list adds no frame: the break then matches by its innermost location alone.
void read_break_stack(std::string_view stack_json, RunInputs& in, BreakRecord& b) {
  nlohmann::json stack = util::parse_json_bounded(stack_json);
  if (!stack.is_array()) return;
  b.frames_begin = static_cast<uint32_t>(in.break_frames.size());
  for (const nlohmann::json& frame : stack) {
    if (!frame.is_object()) continue;
    BreakFrame f;
    if (auto it = frame.find("file"); it != frame.end() && it->is_string())
      f.file = in.label(it->get_ref<const std::string&>());
    if (auto it = frame.find("function"); it != frame.end() && it->is_string())
      f.function = in.label(it->get_ref<const std::string&>());
    if (auto it = frame.find("line"); it != frame.end() && it->is_number_integer())
      f.line = it->get<int64_t>();
    in.break_frames.push_back(f);
  }
  b.frames_end = static_cast<uint32_t>(in.break_frames.size());
}

// Drops the reasons that a text log of the same process as a TORCH_TRACE log gave for compiles
// the trace explains itself: the structured reasons come first, the text adds what it alone has.
void drop_repeated_reasons(RunInputs& in, const std::vector<bool>& from_alias) {
  std::set<DynamoKey> explained;
  for (size_t i = 0; i < in.reasons.size(); ++i)
    if (!from_alias[i] && explains_compile(in.reasons[i].origin))
      explained.insert(in.reasons[i].key);
  size_t kept = 0;
  for (size_t i = 0; i < in.reasons.size(); ++i) {
    if (from_alias[i] && explained.count(in.reasons[i].key)) continue;
    if (kept != i) in.reasons[kept] = std::move(in.reasons[i]);
    ++kept;
  }
  in.reasons.resize(kept);
}

// The first line of each Dynamo log's records and whether a compile has a start time, from the
// records (analysis/step_evidence_loader.h). In two parts: each compile record's facts are taken
// as it is read (the records are not held), the graph breaks' and aliases' once the whole run is.
class DynamoStepFactsBuilder {
 public:
  void add_compile(const CompileRecord& c) {
    see(c.key, c.line, c.kind == "referenced");
    facts_.start_times = facts_.start_times || c.start_us.has_value();
  }
  DynamoStepFacts finish(const RunInputs& in) && {
    for (const BreakRecord& b : in.breaks) see(b.key, b.line, false);
    for (const SourceAlias& a : in.merged_sources) facts_.aliased.push_back(a.source_id);
    return std::move(facts_);
  }

 private:
  void see(const DynamoKey& key, int64_t line, bool reference) {
    for (auto* lines : {&facts_.first_line, &facts_.run_first_line}) {
      // The run's first compile is 0/0 (a later reason naming it is not where it happened); logs
      // of eras without compile ids cannot say, and their first record is taken for it.
      bool first =
          !reference &&
          ((key.epoch == 0 && key.frame_id == 0 && key.frame_compile_id == 0) || key.frame_id < 0);
      if (lines == &facts_.run_first_line && !first) continue;
      // Looked up before inserting: an emplace builds (and frees) a node for every record.
      if (auto it = lines->find(key.source_id); it != lines->end())
        it->second = std::min(it->second, line);
      else
        lines->emplace(key.source_id, line);
    }
  }

  DynamoStepFacts facts_;
};

// Where the loader hands each compile record of a run as it is read: merged into the run's
// compiles and seen by the step facts, then dropped (a run's records were the largest part of its
// memory when they were held until merged).
struct CompileIntake {
  DynamoCompileMerger merger;
  DynamoStepFactsBuilder step_facts;
  size_t records = 0;
  void take(const CompileRecord& r) {
    step_facts.add_compile(r);
    merger.add(r);
    ++records;
  }
};

// Reads the Dynamo records of one run into a RunInputs, one named loader per table, from the
// rows store::DynamoRowReader hands over (in row order: no sort, no joins); texts and labels are
// read through the memos here, so that a text repeated over a run is read and held once.
class DynamoRunLoader {
 public:
  DynamoRunLoader(store::Database& db, int64_t run_id, bool only_run, RunInputs& in)
      : in_(in),
        // A text log of the same process as a TORCH_TRACE log is read under the trace's keys.
        same_process_(SameProcessSources::find(db, run_id)),
        rows_(db, run_id, only_run) {
    in_.merged_sources = same_process_.aliases();
    load_sources();
    read_all_texts_if_few();
  }

  // The compiles' own records, then the compiles known only by reference, each handed to
  // `intake` as it is read. References are listed once per block that names them, and most name a
  // compile whose own record is in the log: only the first record of a compile without one is
  // taken, so that the work follows the number of compiles, not of log lines.
  void load_compiles(CompileIntake& intake) {
    intake.merger = DynamoCompileMerger(rows_.compile_rows());
    load_own_compiles(intake);
    load_referenced_compiles(intake);
  }

  // Guard failures in row order: attribute_dynamo_run orders the reasons of each compile itself.
  // Each is attached to its compile in `merged` as it is read (on a second thread, a batch at a
  // time), so that no ReasonRecord is held; except in a run with a text log read as the same
  // process as a TORCH_TRACE log, whose repeated reasons are dropped once all are read: there they
  // go to RunInputs::reasons.
  void load_reasons(MergedCompiles& merged) {
    const bool held = !in_.merged_sources.empty();
    if (held) in_.reasons.reserve(rows_.guard_failure_rows());
    // Each reason text is classified on a thread of its own, from here until the attribution
    // needs it: the attributing thread has no time to spare, and this one is busy with SQLite.
    in_.classified.start_background();
    util::BatchFeeder<ReasonRecord> reasons_out(
        [this, held, &merged](std::vector<ReasonRecord>& batch) {
          for (ReasonRecord& r : batch)
            if (held)
              in_.reasons.push_back(std::move(r));
            else
              merged.add_reason(r);
        },
        /*batch_items=*/2048, /*max_queued=*/4, nullptr, false, util::kInlineBatches);
    std::vector<bool> reason_from_alias;  // filled only when the run has an alias
    rows_.each_guard_failure([&](const DynamoRows::GuardFailureRow& row) {
      ReasonRecord r;
      r.line = row.line;
      r.key = dynamo_key_of(row.key, r.line);
      if (!in_.merged_sources.empty()) {
        reason_from_alias.push_back(same_process_.is_alias(r.key.source_id));
        same_process_.apply(&r.key);
      }
      r.key.line_if_no_id = 0;  // resolved by attribute_dynamo_run
      r.entry_index = row.entry_index;
      r.old_compile_id = std::string(row.old_compile_id);
      r.reason_sid = row.reason_sid;
      r.reason = text_of(r.reason_sid);
      r.origin = label(row.origin);
      if (explains_compile(r.origin)) in_.classified.add(*r.reason_sid, r.reason);
      reasons_out.add(std::move(r));
    });
    reasons_out.finish();
    if (held) drop_repeated_reasons(in_, reason_from_alias);
  }

  // Graph breaks in log order (GraphBreakIndex prefers the first): row order is log order unless
  // sources were ingested out of order.
  void load_breaks() {
    in_.breaks.reserve(rows_.graph_break_rows());
    RecordAppender<BreakRecord> breaks_out(in_.breaks);
    rows_.each_graph_break([this, &breaks_out](const DynamoRows::GraphBreakRow& row) {
      BreakRecord b;
      b.line = row.line;
      b.key = key_at(row.key, b.line);
      b.user_file = text_of(row.user_file_sid);
      b.user_function = text_of(row.user_function_sid);
      b.gb_type = text_of(row.gb_type_sid);
      b.reason = text_of(row.reason_sid);
      b.user_line = row.user_line.value_or(-1);
      b.sync_signature = row.sync_signature;
      b.origin = label(row.origin);
      if (row.user_stack) read_break_stack(*row.user_stack, in_, b);
      breaks_out.add(std::move(b));
    });
    breaks_out.finish();
    auto log_order = [](const BreakRecord& x, const BreakRecord& y) {
      return std::tie(x.key.source_id, x.line) < std::tie(y.key.source_id, y.line);
    };
    if (!std::is_sorted(in_.breaks.begin(), in_.breaks.end(), log_order))
      std::stable_sort(in_.breaks.begin(), in_.breaks.end(), log_order);
  }

  void load_caches() {
    rows_.each_cache_outcome([this](const DynamoRows::CacheOutcomeRow& row) {
      CacheRecord c;
      c.key = key_at(row.key, 0);
      c.cache = label(row.cache);
      c.state = label(row.state);
      in_.caches.push_back(c);
    });
  }

 private:
  void load_sources() {
    for (const DynamoRows::SourceRow& s : rows_.sources()) {
      in_.source_names.emplace_back(s.source_id, base_name(s.path));
      file_rank_[s.source_id] = s.file_rank;
    }
  }

  // Texts by string id, each read once: function names, files and reasons repeat over a run.
  // Looked up one at a time, a text costs a search of the strings table (0.4-0.5 s for the
  // 637 000 texts of a 1 M-compile run); when the store holds at most about two texts per row of
  // the run that names one (a store of this run, or of a few), the table is read whole in one
  // scan instead (0.07 s), its ids indexing an array. Memory then follows the run's rows either
  // way, and a run without Dynamo rows reads no text.
  void read_all_texts_if_few() {
    const std::optional<int64_t> max_sid = rows_.max_string_id();
    const size_t naming_rows =
        rows_.compile_rows() + rows_.guard_failure_rows() + rows_.graph_break_rows();
    const auto most_texts = 2 * static_cast<int64_t>(naming_rows) + 4096;
    if (naming_rows > 0 && max_sid && *max_sid >= 0 && *max_sid <= most_texts) {
      all_texts_ = true;
      in_.texts.use_dense_ids(*max_sid + 1);
      in_.classified.use_dense_ids(*max_sid + 1);
      rows_.each_string([this](int64_t sid, std::string_view text) { in_.texts.add(sid, text); });
    }
  }

  // Taken on a second thread, a batch at a time: merging a record (a lookup of its compile, and
  // for a new compile a page of the array faulted in now and then) then overlaps SQLite's stepping
  // of the next rows on this one. `intake` is not touched here until the thread has finished.
  void load_own_compiles(CompileIntake& intake) {
    util::BatchFeeder<CompileRecord> out(
        [&intake](std::vector<CompileRecord>& batch) {
          for (const CompileRecord& r : batch) intake.take(r);
        },
        /*batch_items=*/2048, /*max_queued=*/4, nullptr, false, util::kInlineBatches);
    rows_.each_own_compile(
        [this, &out](const DynamoRows::CompileRow& row) { out.add(compile_record(row)); });
    out.finish();
  }

  // The first record (lowest raw id) of each compile known only by reference, in the same scan
  // as the references: a reference to a compile already taken (with a record of its own, or by an
  // earlier reference) is skipped by its key before its other columns are read, and a point
  // lookup per record kept (182 000 at a million compiles) cost more than the scan.
  void load_referenced_compiles(CompileIntake& intake) {
    rows_.each_referenced_compile(
        [this, &intake](const DynamoRows::Key& key, int64_t line) {
          return !intake.merger.contains(key_at(key, line));
        },
        [this, &intake](const DynamoRows::CompileRow& row) { intake.take(compile_record(row)); });
  }

  CompileRecord compile_record(const DynamoRows::CompileRow& row) {
    CompileRecord r;
    r.line = row.line;
    r.key = key_at(row.key, r.line);
    r.kind = label(row.kind);
    r.attempt = row.attempt;
    r.co_name = text_of(row.co_name_sid);
    r.co_filename = text_of(row.co_filename_sid);
    r.co_firstlineno = row.co_firstlineno;
    r.start_us = row.start_us;
    r.duration_ms = row.duration_ms;
    r.cache_size = row.cache_size;
    r.accumulated_cache_size = row.accumulated_cache_size;
    r.has_guarded_code = row.has_guarded_code;
    r.fail_type = text_of(row.fail_type_sid);
    r.recompile_reason = text_of(row.recompile_reason_sid);
    r.display_rank = r.key.rank >= 0 ? r.key.rank : file_rank_[r.key.source_id].value_or(-1);
    return r;
  }

  // The row's key, read under the trace's key when its source is the same process as a trace.
  DynamoKey key_at(const DynamoRows::Key& raw, int64_t line) const {
    DynamoKey key = dynamo_key_of(raw, line);
    same_process_.apply(&key);
    return key;
  }

  // Labels (kinds, origins) through a memo of the last one: consecutive rows mostly repeat it.
  // The view is into in_.labels (set nodes stay put).
  std::string_view label(std::string_view text) {
    if (text != last_label_) last_label_ = in_.label(text);
    return last_label_;
  }

  std::string_view text_of(std::optional<int64_t> sid) {
    if (!sid) return {};
    if (std::optional<std::string_view> known = in_.texts.find(*sid)) return *known;
    if (all_texts_) return {};  // an id without a text, read as empty
    return in_.texts.add(*sid, rows_.string_text(*sid));
  }

  RunInputs& in_;
  const SameProcessSources same_process_;
  DynamoRows rows_;
  std::map<int64_t, std::optional<int64_t>> file_rank_;
  bool all_texts_ = false;
  std::string_view last_label_;
};

// Loads the Dynamo records of `run_id`: the compile records through `intake`, merged into
// `merged` before the guard failures are read (they are attached to it as they are read), the rest
// into `in` (empty).
void load_run(store::Database& db, int64_t run_id, bool only_run, RunInputs& in,
              CompileIntake& intake, std::optional<MergedCompiles>& merged) {
  DynamoRunLoader loader(db, run_id, only_run, in);
  loader.load_compiles(intake);
  merged = intake.merger.finish();
  loader.load_reasons(*merged);
  loader.load_breaks();
  loader.load_caches();
}

// The run's convergence facts as its run_convergence row: without a curve, its steps are NULL.
store::RunConvergenceRow run_convergence_row(const RunRollup& r) {
  const ConvergenceSummary& c = r.convergence;
  const bool curve = c.state != SettleState::kNoData;
  auto opt = [curve](int64_t v) { return curve ? std::optional<int64_t>(v) : std::nullopt; };
  store::RunConvergenceRow row;
  row.state = settle_state_name(c.state);
  row.first_step = opt(c.first_step);
  row.last_step = opt(c.last_step);
  row.settle_step = opt(c.settle_step);
  row.programs_at_settle = opt(c.programs_at_settle);
  row.final_programs = opt(c.final_programs);
  row.new_after_growth_step = opt(c.new_after_growth_step);
  row.growth_step = c.growth_step;
  row.compiles = r.compiles;
  row.programs = r.programs;
  row.recompiles = r.recompiles;
  row.compile_ms = r.compile_ms;
  row.wall_ms = r.wall_ms;
  row.execute_ms = r.execute_ms;
  row.compile_share = r.compile_share;
  return row;
}

// Writes the run's cause groups as the builder hands them over (each group's detail is taken),
// then its convergence facts.
void write_rollup(store::Database& db, store::StringInterner& strings, int64_t run_id,
                  RollupBuilder&& rollup) {
  store::CauseGroupWriter groups(db, strings, run_id);
  const RunRollup r =
      std::move(rollup).finish([&groups](CauseGroup&& g) { groups.write(std::move(g)); });
  groups.finish();
  store::write_run_convergence(db, run_id, run_convergence_row(r));
}

// What the run's steps count and what decided it (analysis/training_steps.h), on its facts row.
void record_step_axis(store::Database& db, int64_t run_id, const StepAxis& axis) {
  store::write_step_axis(db, run_id, {axis.axis, axis.basis, axis.detail});
}

// The torch_xla compiles take their training steps where the run's evidence decides them (they
// came with the index of their sync); the curve then runs to the last training step.
void place_xla_steps(const TrainingSteps& steps, XlaRunInputs& in) {
  if (!steps.decided()) return;
  for (auto& b : in.blocks) b.step = steps.step_of(b.source_id, b.line, b.syncs_before, {});
  for (auto& c : in.jax_compiles) c.step = steps.step_of(c.source_id, c.line, {}, {});
  for (auto& m : in.jax_misses) m.step = steps.step_of(m.source_id, m.line, {}, {});
  in.steps_seen = steps.last_step().value_or(0);
}

std::map<int64_t, double> wall_ms_by_step(const XlaRunInputs& in) {
  std::map<int64_t, double> out;
  for (const auto& t : in.step_times)
    if (t.wall_ms) out[t.step] = *t.wall_ms;
  return out;
}

// Where a Dynamo compile shows first in a log whose progress lines place it: its own record, or a
// graph break traced under its id before it (with TORCH_LOGS=recompiles a first compile has no
// record of its own), also in a text log read as the same process as a TORCH_TRACE log (the
// compile then carries the trace's key, and that log's records are read from the store). A
// compile that only a later record names is placed before every line: in the first step
// (docs/training_steps.md). Built only when progress lines decide the steps, and only from the
// logs that have them: memory follows their graph breaks.
class DynamoStepLines {
 public:
  DynamoStepLines(store::Database& db, int64_t run_id, const TrainingSteps& steps,
                  const RunInputs& in) {
    sources_ = steps.line_sources();
    const std::vector<int64_t>& sources = sources_;
    if (sources.empty()) return;
    auto aliased = [&in](int64_t source) {
      return std::any_of(in.merged_sources.begin(), in.merged_sources.end(),
                         [source](const SourceAlias& a) { return a.source_id == source; });
    };
    for (const BreakRecord& b : in.breaks)
      if (std::binary_search(sources.begin(), sources.end(), int64_t{b.key.source_id}))
        first_seen_.push_back({b.key, {b.key.source_id, b.line}});
    // A `referenced` row is where a later record names a compile, not where it happened.
    for (int64_t source : sources) {
      if (!aliased(source)) continue;
      for (DynamoRows::KeyedLines rows :
           {DynamoRows::KeyedLines::kGraphBreaks, DynamoRows::KeyedLines::kOwnCompiles})
        read(db, run_id, rows, source, in.merged_sources, first_seen_);
      read(db, run_id, DynamoRows::KeyedLines::kReferencedCompiles, source, in.merged_sources,
           named_later_);
    }
    keep_first(first_seen_);
    keep_first(named_later_);
  }
  // (source, line) to place `c` at.
  std::pair<int64_t, int64_t> place_of(const AttributedCompile& c) const {
    // A recompile header is printed as the compile starts, before any break traced in it.
    if (c.evidence_kind == "recompile_block" &&
        std::binary_search(sources_.begin(), sources_.end(), int64_t{c.key.source_id}))
      return {c.key.source_id, c.line};
    const int64_t own = c.evidence_kind == "referenced" ? 0 : c.line;
    if (const auto* p = find(first_seen_, c.key)) {
      const auto [source, line] = *p;
      return source == c.key.source_id ? std::make_pair(source, std::min(line, own)) : *p;
    }
    // A fragment no record of its own shows ran in the call whose graph break made it.
    if (c.split_from)
      if (const auto* p = find(first_seen_, *c.split_from)) return *p;
    if (const auto* p = find(named_later_, c.key)) {
      // Only a later reason names it. The run's first compile (0/0) is in the first step; any
      // other compile happened somewhere before that reason, and the log cannot say where.
      if (is_run_first(c.key)) return {p->first, 0};
      return kUnplaced;
    }
    return {c.key.source_id, own};
  }
  // Where place_of puts a compile the logs cannot place in a step.
  static constexpr std::pair<int64_t, int64_t> kUnplaced{-1, -1};

 private:
  using Place = std::pair<int64_t, int64_t>;                // (source, line)
  using Places = std::vector<std::pair<DynamoKey, Place>>;  // sorted by key, one per key

  static bool is_run_first(const DynamoKey& k) {
    return k.epoch == 0 && k.frame_id == 0 && k.frame_compile_id == 0 && k.ca_id < 0;
  }
  static void read(store::Database& db, int64_t run_id, DynamoRows::KeyedLines rows, int64_t source,
                   const std::vector<SourceAlias>& aliases, Places& places) {
    auto place = [&](const DynamoRows::Key& raw, int64_t line) {
      DynamoKey key = dynamo_key_of(raw, line);
      for (const SourceAlias& a : aliases)
        if (a.source_id == key.source_id) key.source_id = a.to_source_id, key.rank = a.to_rank;
      places.push_back({key, {source, line}});
    };
    DynamoRows::each_keyed_line(db, run_id, source, rows, place);
  }

  // Sorted by key, the smallest line of each key kept.
  static void keep_first(Places& places) {
    std::sort(places.begin(), places.end(), [](const auto& a, const auto& b) {
      return a.first != b.first ? a.first < b.first : a.second.second < b.second.second;
    });
    places.erase(std::unique(places.begin(), places.end(),
                             [](const auto& a, const auto& b) { return a.first == b.first; }),
                 places.end());
  }
  static const Place* find(const Places& places, const DynamoKey& key) {
    auto it = std::lower_bound(places.begin(), places.end(), key,
                               [](const auto& p, const DynamoKey& k) { return p.first < k; });
    return it != places.end() && it->first == key ? &it->second : nullptr;
  }
  std::vector<int64_t> sources_;  // the logs with progress lines, sorted
  Places first_seen_, named_later_;
};

// Says which logs of the run were read as one process (the merged_sources view).
void record_merged_sources(store::Database& db, int64_t run_id,
                           const std::vector<SourceAlias>& dynamo_merged,
                           const std::vector<SourceAlias>& xla_copies) {
  std::vector<store::SourceMergeRow> merges;
  for (const auto* merged : {&dynamo_merged, &xla_copies})
    for (const SourceAlias& a : *merged)
      merges.push_back({a.source_id, a.to_source_id, a.evidence});
  store::write_source_merges(db, run_id, merges);
}
}  // namespace

namespace {

// Adds the time since its last lap (or its creation) to a phase of AnalysisTimings.
class PhaseClock {
 public:
  void lap(double& phase) {
    auto now = std::chrono::steady_clock::now();
    phase += std::chrono::duration<double>(now - last_).count();
    last_ = now;
  }

 private:
  std::chrono::steady_clock::time_point last_ = std::chrono::steady_clock::now();
};

// The run's step axis, saying how many compiles it could not place and what would place them.
// Compiles the trace's clock leaves between steps (docs/training_steps.md, "The trace's clock").
std::string unclocked_detail(int64_t n) {
  const bool one = n == 1;
  return fmt::format(
      "; {} compile{} not placed in a step: the TORCH_TRACE clock puts {} between compiles of "
      "different steps or after the last placed one, and the console's lines carry no times; a "
      "time that opens each progress line, or the line-time sidecar of a console rcf capture "
      "kept (docs/capture.md), would place {}",
      n, one ? " is" : "s are", one ? "it" : "them", one ? "it" : "them");
}

// Gives each attributed Dynamo compile its step and adds it to the run's Dynamo curve, counting
// the compiles that get none: no log line to place them (unplaced), or a trace clock that puts
// them between steps (unclocked). Lifetime: one run's analysis.
struct DynamoStepPlacer {
  const TrainingSteps& steps;
  const DynamoStepLines& lines;
  StepCurve& curve;
  int64_t unplaced = 0, unclocked = 0;

  void place(AttributedCompile& c) {
    const auto [source, line] = lines.place_of(c);
    if (source == DynamoStepLines::kUnplaced.first) {
      ++unplaced;
      return;
    }
    if (!steps.decided()) return;
    c.step = steps.step_of(source, line, {}, c.start_us);
    if (c.step)
      curve.add(*c.step, c.compile_ms);
    else if (c.start_us)
      ++unclocked;
  }
};

StepAxis axis_of(const TrainingSteps& steps, int64_t unplaced_compiles,
                 int64_t unclocked_compiles) {
  StepAxis axis = steps.axis();
  if (axis.basis == "trace_clock" && unclocked_compiles > 0)
    axis.detail += unclocked_detail(unclocked_compiles);
  if (!steps.decided() || unplaced_compiles <= 0) return axis;
  const bool one = unplaced_compiles == 1;
  axis.detail += fmt::format(
      "; {} compile{} not placed in a step: only a later recompile reason names {} "
      "(TORCH_LOGS=recompiles does not log a first compile), so the log cannot say in which "
      "step {} happened; a record of every compile in the console's order (or timestamps on "
      "both sides) would place {}",
      unplaced_compiles, one ? " is" : "s are", one ? "it" : "them", one ? "it" : "they",
      one ? "it" : "them");
  return axis;
}

// The run's results once its compiles are written: the curve with the Dynamo side's steps
// (`curve` is the one `rollup` reads, replaced in place), the rollup with the sites' string ids
// the writer interned, the counted compiles, the step axis and the rank divergence.
void write_run_results(store::Database& db, store::StringInterner& strings, int64_t run_id,
                       const store::CompileResultWriter& writer, RollupBuilder&& rollup,
                       std::vector<ConvergencePoint>& curve, StepCurve& dynamo_curve,
                       const TrainingSteps& steps, const std::map<int64_t, double>& wall_ms,
                       const std::optional<store::CountedCompiles>& counted,
                       const DynamoStepPlacer& placer) {
  for (uint32_t n = 1; n <= writer.site_numbers(); ++n)
    rollup.set_site_sid(n, writer.site_sid_of(n));
  if (!dynamo_curve.empty()) {
    curve = merge_curves(curve, dynamo_curve.finish(steps.last_step().value_or(0), wall_ms));
    rollup.replace_curve(curve);
  }
  store::write_convergence_points(db, run_id, curve);
  write_rollup(db, strings, run_id, std::move(rollup));
  if (counted) store::write_counted_compiles(db, run_id, *counted);
  record_step_axis(db, run_id, axis_of(steps, placer.unplaced, placer.unclocked));
  write_rank_divergence(db, run_id);  // reads the compiles written
}

}  // namespace

void analyze_runs(store::Database& db, const std::vector<int64_t>& run_ids,
                  AnalysisTimings* timings, store::AnalysisMemos* memos, bool read_every_table) {
  store::StringInterner strings(db);
  AnalysisTimings unused;
  AnalysisTimings& t = timings ? *timings : unused;
  PhaseClock clock;
  auto lap = [&clock](double& phase) { clock.lap(phase); };
  for (int64_t run_id : run_ids) {
    // The XLA side first: its convergence curve prices the recompiles of the rollup. Dynamo
    // compiles are then written as they are attributed (never all held), and the XLA compiles
    // follow them in ordinal order.
    const bool only_run = store::only_run_in_store(db, run_id);
    // Each compile record is merged as it is read and never held, and the merge is finished
    // before the run's reasons are read, each then attached to its compile as it is read: at a
    // million compiles the records were the largest part of the run's memory
    // (docs/performance.md).
    RunInputs dynamo;
    CompileIntake intake;
    std::optional<MergedCompiles> merged;
    load_run(db, run_id, only_run, dynamo, intake, merged);
    const size_t dynamo_records = intake.records;
    lap(t.load_dynamo_s);
    // The raw tables the run has rows in: the loaders skip the queries of the others.
    const store::RunTables tables =
        read_every_table ? store::RunTables{} : store::run_tables(db, run_id);
    const TrainingSteps steps = TrainingSteps::decide(
        load_step_evidence(db, run_id, std::move(intake.step_facts).finish(dynamo), tables));
    XlaRunInputs xla_inputs = load_xla_run(db, run_id, dynamo.source_names, tables);
    record_merged_sources(db, run_id, dynamo.merged_sources, xla_inputs.copied_sources);
    place_xla_steps(steps, xla_inputs);
    const std::map<int64_t, double> wall_ms = wall_ms_by_step(xla_inputs);
    XlaRunResult xla = analyze_xla_run(std::move(xla_inputs), 1);
    std::vector<ConvergencePoint> curve = std::move(xla.convergence);  // + the Dynamo side's
    StepCurve dynamo_curve;
    const DynamoStepLines dynamo_lines(db, run_id, steps, dynamo);
    RollupBuilder rollup(curve,
                         tables.metric_sample ? store::last_execute_ms(db, run_id) : std::nullopt,
                         kDefaultGrowthStep, dynamo_records + xla.compiles.size());
    // The run's previous analysis is deleted on the writer thread, while the first compiles
    // are prepared here (nothing reads the derived tables in between). The rollup is built here,
    // as each compile is handed to the writer: at a million compiles the writer's inserts are
    // the longer task (the rollup on the writer thread made attributing 0.3 s longer), and the
    // sites' string ids, which the writer interns, are told to the rollup once it is done.
    store::CompileRowMemo* memo = memos ? &memos->of(run_id) : nullptr;
    const bool keep_compiles = memo && memo->known;
    store::CompileResultWriter writer(
        db, strings, run_id,
        [&db, run_id, only_run, keep_compiles] {
          store::clear_derived_results(db, run_id, only_run, keep_compiles);
        },
        memo);
    lap(t.xla_s);
    bool first = true;
    DynamoStepPlacer placer{steps, dynamo_lines, dynamo_curve};
    int64_t dynamo_compiles =
        attribute_dynamo_run(dynamo, std::move(*merged), [&](AttributedCompile&& c) {
          if (first) lap(t.prepare_s), first = false;
          placer.place(c);
          rollup.add(c);
          writer.write(std::move(c));
        });
    if (first) lap(t.prepare_s);
    dynamo = RunInputs{};  // release the Dynamo records before the XLA side is written
    for (auto& c : xla.compiles) {
      c.ordinal += dynamo_compiles;
      rollup.add(c);
      writer.write(std::move(c));
    }
    lap(t.attribute_s);
    writer.finish();  // the database is the caller's again
    write_run_results(db, strings, run_id, writer, std::move(rollup), curve, dynamo_curve, steps,
                      wall_ms, xla.counted, placer);
    lap(t.finish_s);
  }
}

}  // namespace rcf::analysis
