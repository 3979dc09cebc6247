#include "analysis/run_analysis.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <tuple>

#include "analysis/compile_writer.h"
#include "analysis/dynamo_attribution.h"
#include "analysis/rank_divergence.h"
#include "analysis/run_rollup.h"
#include "analysis/same_process_sources.h"
#include "analysis/step_curve.h"
#include "analysis/step_evidence_loader.h"
#include "analysis/training_steps.h"
#include "analysis/xla_compiles.h"
#include "analysis/xla_run_loader.h"
#include "store/batch_insert.h"
#include "store/store.h"
#include "store/string_interner.h"
#include "util/base_name.h"
#include "util/batch_worker.h"
#include "util/json_depth.h"

namespace rcf::analysis {
namespace {

// Columns shared by every raw table: rank, epoch, frame_id, frame_compile_id, ca_id, source_id.
constexpr const char* kKeyColumns = "source_id, rank, epoch, ca_id, frame_id, frame_compile_id";

DynamoKey read_key(const store::Statement& st, int first, int64_t line) {
  DynamoKey k;
  k.source_id = st.int64(first);
  k.rank = st.int64(first + 1);
  k.epoch = st.int64(first + 2);
  k.ca_id = st.int64(first + 3);
  k.frame_id = st.int64(first + 4);
  k.frame_compile_id = st.int64(first + 5);
  if (k.frame_id < 0 && k.ca_id < 0) k.line_if_no_id = line;
  return k;
}

// The rows of `run_id` in `table`. The rows of a run are written together, so they are read as a
// range scan of the run's rowids, where a search through the run_id index would look each row up
// in the table; unless the range is mostly other runs' rows (a run ingested again after others),
// then through the index. `where` is the WHERE clause, `rows` at least the run's row count (for
// reserving memory). When the run is the store's only one, every row is its own: the range is
// the table's, from two rowid seeks, where counting the run's rows reads its whole index.
struct RunRows {
  std::string where;
  size_t rows = 0;
};
RunRows run_rows(store::Database& db, const char* table, int64_t run_id, bool only_run) {
  if (only_run) {
    auto range = db.prepare(
        fmt::format("SELECT (SELECT min(rowid) FROM {0}), (SELECT max(rowid) FROM {0})", table));
    if (!range.step() || !range.opt_int64(0)) return {"0", 0};
    int64_t first = range.int64(0), last = range.int64(1);
    return {fmt::format("rowid BETWEEN {} AND {}", first, last),
            static_cast<size_t>(last - first + 1)};
  }
  auto range = db.prepare(
      fmt::format("SELECT min(rowid), max(rowid), count(*) FROM {} WHERE run_id=?", table));
  range.bind(1, run_id);
  if (!range.step() || !range.opt_int64(0)) return {fmt::format("run_id = {}", run_id), 0};
  int64_t first = range.int64(0), last = range.int64(1), rows = range.int64(2);
  if (rows * 2 < last - first + 1)
    return {fmt::format("run_id = {}", run_id), static_cast<size_t>(rows)};
  return {fmt::format("rowid BETWEEN {} AND {} AND +run_id = {}", first, last, run_id),
          static_cast<size_t>(rows)};
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
            /*batch_items=*/2048, /*max_queued=*/4) {}
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

// Whether `run_id` is the store's only run: then every row of every table is its own.
bool only_run_in_store(store::Database& db, int64_t run_id) {
  auto runs = db.prepare("SELECT count(*), min(run_id) FROM run_table");
  return runs.step() && runs.int64(0) == 1 && runs.int64(1) == run_id;
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

// Reads the Dynamo records of one run into a RunInputs, one named loader per table. The
// loaders scan in row order (no sort, no joins); texts and labels are read through the memos
// here, so that a text repeated over a run is read and held once.
class DynamoRunLoader {
 public:
  DynamoRunLoader(store::Database& db, int64_t run_id, bool only_run, RunInputs& in)
      : db_(db),
        run_id_(run_id),
        in_(in),
        // A text log of the same process as a TORCH_TRACE log is read under the trace's keys.
        same_process_(SameProcessSources::find(db, run_id)),
        text_query_(db.prepare("SELECT text FROM strings WHERE string_id=?")) {
    in_.merged_sources = same_process_.aliases();
    load_sources();
    compile_rows_ = run_rows(db_, "dynamo_compile_raw", run_id_, only_run);
    reason_rows_ = run_rows(db_, "guard_failure", run_id_, only_run);
    break_rows_ = run_rows(db_, "graph_break", run_id_, only_run);
    read_all_texts_if_few();
  }

  // The compiles' own records, then the compiles known only by reference, each handed to
  // `intake` as it is read. References are listed once per block that names them, and most name a
  // compile whose own record is in the log: only the first record of a compile without one is
  // taken, so that the work follows the number of compiles, not of log lines.
  void load_compiles(CompileIntake& intake) {
    intake.merger = DynamoCompileMerger(compile_rows_.rows);
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
    if (held) in_.reasons.reserve(reason_rows_.rows);
    auto reasons = db_.prepare(std::string("SELECT ") + kKeyColumns +
                               ", line, entry_index, old_compile_id, reason_sid, origin "
                               "FROM guard_failure WHERE " +
                               reason_rows_.where);
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
        /*batch_items=*/2048, /*max_queued=*/4);
    std::vector<bool> reason_from_alias;  // filled only when the run has an alias
    while (reasons.step()) {
      ReasonRecord r;
      r.line = reasons.int64(6);
      r.key = read_key(reasons, 0, r.line);
      if (!in_.merged_sources.empty()) {
        reason_from_alias.push_back(same_process_.is_alias(r.key.source_id));
        same_process_.apply(&r.key);
      }
      r.key.line_if_no_id = 0;  // resolved by attribute_dynamo_run
      r.entry_index = reasons.int64(7);
      r.old_compile_id = reasons.str(8);
      r.reason_sid = reasons.int64(9);
      r.reason = text_of(r.reason_sid);
      r.origin = label(reasons.text(10));
      if (explains_compile(r.origin)) in_.classified.add(*r.reason_sid, r.reason);
      reasons_out.add(std::move(r));
    }
    reasons_out.finish();
    if (held) drop_repeated_reasons(in_, reason_from_alias);
  }

  // Graph breaks in log order (GraphBreakIndex prefers the first): row order is log order unless
  // sources were ingested out of order.
  void load_breaks() {
    in_.breaks.reserve(break_rows_.rows);
    auto breaks =
        db_.prepare(std::string("SELECT ") + kKeyColumns +
                    ", line, user_file_sid, user_function_sid, gb_type_sid, reason_sid, "
                    "user_line, sync_signature, origin, user_stack FROM graph_break WHERE " +
                    break_rows_.where);
    RecordAppender<BreakRecord> breaks_out(in_.breaks);
    while (breaks.step()) {
      BreakRecord b;
      b.line = breaks.int64(6);
      b.key = key_at(breaks, 0);
      b.user_file = text_of(breaks.opt_int64(7));
      b.user_function = text_of(breaks.opt_int64(8));
      b.gb_type = text_of(breaks.opt_int64(9));
      b.reason = text_of(breaks.opt_int64(10));
      b.user_line = breaks.opt_int64(11).value_or(-1);
      b.sync_signature = breaks.int64(12) != 0;
      b.origin = label(breaks.text(13));
      if (!breaks.is_null(14)) read_break_stack(breaks.text(14), in_, b);
      breaks_out.add(std::move(b));
    }
    breaks_out.finish();
    auto log_order = [](const BreakRecord& x, const BreakRecord& y) {
      return std::tie(x.key.source_id, x.line) < std::tie(y.key.source_id, y.line);
    };
    if (!std::is_sorted(in_.breaks.begin(), in_.breaks.end(), log_order))
      std::stable_sort(in_.breaks.begin(), in_.breaks.end(), log_order);
  }

  void load_caches() {
    auto caches = db_.prepare(std::string("SELECT ") + kKeyColumns +
                              ", cache, state FROM cache_outcome WHERE run_id=?");
    caches.bind(1, run_id_);
    while (caches.step()) {
      CacheRecord c;
      c.key = key_at(caches, 0);
      c.cache = label(caches.text(6));
      c.state = label(caches.text(7));
      in_.caches.push_back(c);
    }
  }

 private:
  static constexpr const char* kCompileColumns =
      ", line, attempt, kind, co_name_sid, co_filename_sid, co_firstlineno, start_us, "
      "duration_ms, cache_size, accumulated_cache_size, has_guarded_code, fail_type_sid, "
      "recompile_reason_sid FROM dynamo_compile_raw WHERE ";

  void load_sources() {
    auto sources = db_.prepare("SELECT source_id, path, file_rank FROM source WHERE run_id=?");
    sources.bind(1, run_id_);
    while (sources.step()) {
      in_.source_names.emplace_back(sources.int64(0), base_name(sources.str(1)));
      file_rank_[sources.int64(0)] = sources.opt_int64(2);
    }
  }

  // Texts by string id, each read once: function names, files and reasons repeat over a run.
  // Looked up one at a time, a text costs a search of the strings table (0.4-0.5 s for the
  // 637 000 texts of a 1 M-compile run); when the store holds at most about two texts per row of
  // the run that names one (a store of this run, or of a few), the table is read whole in one
  // scan instead (0.07 s), its ids indexing an array. Memory then follows the run's rows either
  // way, and a run without Dynamo rows reads no text.
  void read_all_texts_if_few() {
    auto max_id = db_.prepare("SELECT max(string_id) FROM strings");
    std::optional<int64_t> max_sid = max_id.step() ? max_id.opt_int64(0) : std::nullopt;
    const size_t naming_rows = compile_rows_.rows + reason_rows_.rows + break_rows_.rows;
    const auto most_texts = 2 * static_cast<int64_t>(naming_rows) + 4096;
    if (naming_rows > 0 && max_sid && *max_sid >= 0 && *max_sid <= most_texts) {
      all_texts_ = true;
      in_.texts.use_dense_ids(*max_sid + 1);
      in_.classified.use_dense_ids(*max_sid + 1);
      auto every = db_.prepare("SELECT string_id, text FROM strings");
      while (every.step()) in_.texts.add(every.int64(0), every.text(1));
    }
  }

  // Taken on a second thread, a batch at a time: merging a record (a lookup of its compile, and
  // for a new compile a page of the array faulted in now and then) then overlaps SQLite's stepping
  // of the next rows on this one. `intake` is not touched here until the thread has finished.
  void load_own_compiles(CompileIntake& intake) {
    auto own =
        db_.prepare(std::string("SELECT ") + kKeyColumns + kCompileColumns + compile_rows_.where +
                    " AND kind NOT IN ('runtime', 'backward', 'referenced')");
    util::BatchFeeder<CompileRecord> out(
        [&intake](std::vector<CompileRecord>& batch) {
          for (const CompileRecord& r : batch) intake.take(r);
        },
        /*batch_items=*/2048, /*max_queued=*/4);
    while (own.step()) out.add(read_compile(own));
    out.finish();
  }

  // The first record (lowest raw id) of each compile known only by reference, in the same scan
  // as the references: a reference to a compile already taken (with a record of its own, or by an
  // earlier reference) is skipped by its key before its other columns are read, and a point
  // lookup per record kept (182 000 at a million compiles) cost more than the scan.
  void load_referenced_compiles(CompileIntake& intake) {
    auto refs = db_.prepare(std::string("SELECT ") + kKeyColumns + kCompileColumns +
                            compile_rows_.where + " AND kind = 'referenced' ORDER BY raw_id");
    while (refs.step()) {
      DynamoKey key = key_at(refs, refs.int64(6));
      if (!intake.merger.contains(key)) intake.take(read_compile(refs));
    }
  }

  CompileRecord read_compile(store::Statement& st) {
    CompileRecord r;
    r.line = st.int64(6);
    r.key = key_at(st, r.line);
    r.kind = label(st.text(8));
    r.attempt = st.int64(7);
    r.co_name = text_of(st.opt_int64(9));
    r.co_filename = text_of(st.opt_int64(10));
    r.co_firstlineno = st.opt_int64(11);
    r.start_us = st.opt_int64(12);
    r.duration_ms = st.opt_real(13);
    r.cache_size = st.opt_int64(14);
    r.accumulated_cache_size = st.opt_int64(15);
    r.has_guarded_code = st.opt_int64(16);
    r.fail_type = text_of(st.opt_int64(17));
    r.recompile_reason = text_of(st.opt_int64(18));
    r.display_rank = r.key.rank >= 0 ? r.key.rank : file_rank_[r.key.source_id].value_or(-1);
    return r;
  }

  DynamoKey key_at(const store::Statement& st, int64_t line) const {
    DynamoKey key = read_key(st, 0, line);
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
    text_query_.bind(1, *sid);
    std::string_view text =
        in_.texts.add(*sid, text_query_.step() ? text_query_.text(0) : std::string_view());
    text_query_.reset();
    return text;
  }

  store::Database& db_;
  const int64_t run_id_;
  RunInputs& in_;
  const SameProcessSources same_process_;
  store::Statement text_query_;
  std::map<int64_t, std::optional<int64_t>> file_rank_;
  RunRows compile_rows_, reason_rows_, break_rows_;
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

void write_convergence(store::Database& db, int64_t run_id,
                       const std::vector<ConvergencePoint>& convergence) {
  auto insert_point = db.prepare(
      "INSERT INTO convergence_point(run_id, step, programs_cached, compiles_in_step, compile_ms, "
      "wall_ms) VALUES (?,?,?,?,?,?)");
  for (const auto& p : convergence) {
    insert_point.bind(1, run_id)
        .bind(2, p.step)
        .bind(3, p.programs_cached)
        .bind(4, p.compiles_in_step)
        .bind(5, p.compile_ms)
        .bind(6, p.wall_ms);
    insert_point.run();
  }
}

// Writes the run's cause groups as the builder hands them over, then its convergence facts.
void write_rollup(store::Database& db, store::StringInterner& strings, int64_t run_id,
                  RollupBuilder&& rollup) {
  // 32 rows per statement (hundreds of thousands of groups at a million compiles); a group's
  // detail is taken, the other texts are ids or copied.
  store::BatchInsert groups(
      db, "cause_group",
      {"run_id", "site_sid", "cause", "recompiles", "compile_ms_lost", "compile_ms_basis",
       "first_step", "last_step", "detail", "subject_sid", "remedy_variant", "rank"},
      nullptr, 32);
  const RunRollup r = std::move(rollup).finish([&](CauseGroup&& g) {
    groups.val(run_id)
        .val(g.site_sid != 0 ? g.site_sid : strings.id(g.site))
        .val(g.cause)
        .val(g.recompiles)
        .val(g.compile_ms_lost)
        .val(g.compile_ms_basis)
        .val(g.first_step)
        .val(g.last_step);
    if (g.detail.empty())
      groups.null();
    else
      groups.val(std::move(g.detail));
    groups.val(strings.id_or_null(g.subject)).val(g.remedy_variant).val(g.rank);
  });
  groups.flush();

  const ConvergenceSummary& c = r.convergence;
  bool curve = c.state != SettleState::kNoData;
  auto opt = [curve](int64_t v) { return curve ? std::optional<int64_t>(v) : std::nullopt; };
  auto insert_run = db.prepare(
      "INSERT INTO run_convergence(run_id, state, first_step, last_step, settle_step, "
      "programs_at_settle, final_programs, new_after_growth_step, growth_step, compiles, programs, "
      "recompiles, compile_ms, wall_ms, execute_ms, compile_share) "
      "VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)");
  insert_run.bind(1, run_id)
      .bind(2, settle_state_name(c.state))
      .bind(3, opt(c.first_step))
      .bind(4, opt(c.last_step))
      .bind(5, opt(c.settle_step))
      .bind(6, opt(c.programs_at_settle))
      .bind(7, opt(c.final_programs))
      .bind(8, opt(c.new_after_growth_step))
      .bind(9, c.growth_step)
      .bind(10, r.compiles)
      .bind(11, r.programs)
      .bind(12, r.recompiles)
      .bind(13, r.compile_ms)
      .bind(14, r.wall_ms)
      .bind(15, r.execute_ms)
      .bind(16, r.compile_share);
  insert_run.run();
}

// The compile count a metrics report gives (docs/xla_formats.md), next to the run's facts.
void write_counted_compiles(store::Database& db, int64_t run_id, const CountedCompiles& counted) {
  auto st = db.prepare(
      "UPDATE run_convergence SET counted_compiles = ?, counted_by = ? WHERE run_id = ?");
  st.bind(1, counted.count).bind(2, counted.counted_by).bind(3, run_id);
  st.run();
}

// What the run's steps count and what decided it (analysis/training_steps.h), on its facts row.
void write_step_axis(store::Database& db, int64_t run_id, const StepAxis& axis) {
  auto st = db.prepare(
      "UPDATE run_convergence SET step_axis = ?, step_basis = ?, step_detail = ? WHERE run_id = ?");
  st.bind(1, axis.axis).bind(2, axis.basis).bind(3, axis.detail).bind(4, run_id);
  st.run();
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
      for (const char* rows :
           {"graph_break WHERE", "dynamo_compile_raw WHERE kind <> 'referenced' AND"})
        read(db, run_id, rows, source, in.merged_sources, first_seen_);
      read(db, run_id, "dynamo_compile_raw WHERE kind = 'referenced' AND", source,
           in.merged_sources, named_later_);
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
  static void read(store::Database& db, int64_t run_id, const char* rows, int64_t source,
                   const std::vector<SourceAlias>& aliases, Places& places) {
    auto st = db.prepare(
        fmt::format("SELECT {}, line FROM {} run_id = ? AND source_id = ?", kKeyColumns, rows));
    st.bind(1, run_id).bind(2, source);
    while (st.step()) {
      const int64_t line = st.int64(6);
      DynamoKey key = read_key(st, 0, line);
      for (const SourceAlias& a : aliases)
        if (a.source_id == key.source_id) key.source_id = a.to_source_id, key.rank = a.to_rank;
      places.push_back({key, {source, line}});
    }
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

// ExecuteTime accumulator of the run's last metrics report, in milliseconds.
std::optional<double> load_execute_ms(store::Database& db, int64_t run_id) {
  // The IN term repeats the WHERE of the metric_fields index (store/store.h), so it is used.
  auto st = db.prepare(fmt::format(
      "SELECT value FROM metric_sample m JOIN strings n ON n.string_id = m.name_sid WHERE "
      "run_id=? AND n.text='ExecuteTime' AND {} AND field='Accumulator' ORDER BY source_id DESC, "
      "line DESC LIMIT 1",
      store::kMetricFieldsTerm));
  st.bind(1, run_id);
  if (st.step()) return st.real(0) / 1e6;
  return std::nullopt;
}

// Says which logs of the run were read as one process (the merged_sources view).
void record_merged_sources(store::Database& db, int64_t run_id,
                           const std::vector<SourceAlias>& dynamo_merged,
                           const std::vector<SourceAlias>& xla_copies) {
  auto clear = db.prepare("DELETE FROM source_merge WHERE run_id=?");
  clear.bind(1, run_id);
  clear.run();
  auto insert = db.prepare(
      "INSERT INTO source_merge(run_id, source_id, same_process_as, evidence) VALUES (?,?,?,?)");
  for (const auto* merged : {&dynamo_merged, &xla_copies})
    for (const SourceAlias& a : *merged) {
      insert.bind(1, run_id).bind(2, int64_t{a.source_id}).bind(3, int64_t{a.to_source_id});
      insert.bind(4, a.evidence);
      insert.run();
    }
}

// Deletes the derived rows of `run_id`. When the run is the store's only one (a store of one
// run, analysed again by each `rcf ingest` of more of its logs), the two large tables are emptied
// whole, which SQLite does by dropping their pages instead of deleting a million rows one by one
// from each table and index.
void clear_analysis(store::Database& db, int64_t run_id, bool only_run) {
  std::vector<const char*> deletes;
  if (only_run) {
    db.exec("DELETE FROM attribution");
    db.exec("DELETE FROM compile_event");
  } else {
    deletes = {
        "DELETE FROM attribution WHERE compile_row IN (SELECT compile_row FROM compile_event "
        "WHERE run_id=?)",
        "DELETE FROM compile_event WHERE run_id=?"};
  }
  for (const char* sql :
       {"DELETE FROM convergence_point WHERE run_id=?",
        "DELETE FROM run_convergence WHERE run_id=?", "DELETE FROM cause_group WHERE run_id=?"})
    deletes.push_back(sql);
  for (const char* sql : deletes) {
    auto st = db.prepare(sql);
    st.bind(1, run_id);
    st.run();
  }
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
StepAxis axis_of(const TrainingSteps& steps, int64_t unplaced_compiles) {
  StepAxis axis = steps.axis();
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

}  // namespace

void analyze_runs(store::Database& db, const std::vector<int64_t>& run_ids,
                  AnalysisTimings* timings) {
  store::StringInterner strings(db);
  AnalysisTimings unused;
  AnalysisTimings& t = timings ? *timings : unused;
  PhaseClock clock;
  auto lap = [&clock](double& phase) { clock.lap(phase); };
  for (int64_t run_id : run_ids) {
    // The XLA side first: its convergence curve prices the recompiles of the rollup. Dynamo
    // compiles are then written as they are attributed (never all held), and the XLA compiles
    // follow them in ordinal order.
    const bool only_run = only_run_in_store(db, run_id);
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
    const TrainingSteps steps = TrainingSteps::decide(
        load_step_evidence(db, run_id, std::move(intake.step_facts).finish(dynamo)));
    XlaRunInputs xla_inputs = load_xla_run(db, run_id, dynamo.source_names);
    record_merged_sources(db, run_id, dynamo.merged_sources, xla_inputs.copied_sources);
    place_xla_steps(steps, xla_inputs);
    const std::map<int64_t, double> wall_ms = wall_ms_by_step(xla_inputs);
    XlaRunResult xla = analyze_xla_run(std::move(xla_inputs), 1);
    std::vector<ConvergencePoint> curve = std::move(xla.convergence);  // + the Dynamo side's
    StepCurve dynamo_curve;
    const DynamoStepLines dynamo_lines(db, run_id, steps, dynamo);
    RollupBuilder rollup(curve, load_execute_ms(db, run_id), kDefaultGrowthStep,
                         dynamo_records + xla.compiles.size());
    // The run's previous analysis is deleted on the writer thread, while the first compiles
    // are prepared here (nothing reads the derived tables in between). The rollup is built here,
    // as each compile is handed to the writer: at a million compiles the writer's inserts are
    // the longer task (the rollup on the writer thread made attributing 0.3 s longer), and the
    // sites' string ids, which the writer interns, are told to the rollup once it is done.
    CompileWriter writer(db, strings, run_id,
                         [&db, run_id, only_run] { clear_analysis(db, run_id, only_run); });
    lap(t.xla_s);
    bool first = true;
    int64_t unplaced_compiles = 0;
    int64_t dynamo_compiles =
        attribute_dynamo_run(dynamo, std::move(*merged), [&](AttributedCompile&& c) {
          if (first) lap(t.prepare_s), first = false;
          const auto [source, line] = dynamo_lines.place_of(c);
          const bool placed = source != DynamoStepLines::kUnplaced.first;
          if (!placed) ++unplaced_compiles;
          if (placed && steps.decided() && (c.step = steps.step_of(source, line, {}, c.start_us)))
            dynamo_curve.add(*c.step, c.compile_ms);
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
    for (uint32_t n = 1; n <= writer.site_numbers(); ++n)
      rollup.set_site_sid(n, writer.site_sid_of(n));
    if (!dynamo_curve.empty()) {
      curve = merge_curves(curve, dynamo_curve.finish(steps.last_step().value_or(0), wall_ms));
      rollup.replace_curve(curve);
    }
    write_convergence(db, run_id, curve);
    write_rollup(db, strings, run_id, std::move(rollup));
    if (xla.counted) write_counted_compiles(db, run_id, *xla.counted);
    write_step_axis(db, run_id, axis_of(steps, unplaced_compiles));
    write_rank_divergence(db, run_id);  // reads the compiles written above
    lap(t.finish_s);
  }
}

}  // namespace rcf::analysis
