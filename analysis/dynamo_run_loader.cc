#include "analysis/dynamo_run_loader.h"

#include <algorithm>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "analysis/same_process_sources.h"
#include "util/base_name.h"
#include "util/batch_worker.h"
#include "util/json_depth.h"

namespace rcf::analysis {

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

namespace {

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

// Reads the Dynamo records of one run into a RunInputs, one named loader per table, from the
// rows store::DynamoRowReader hands over (in row order: no sort, no joins); texts and labels are
// read through the memos here, so that a text repeated over a run is read and held once.
class DynamoRunLoader {
 public:
  // A text log of the same process as a TORCH_TRACE log (`same_process`) is read under the
  // trace's keys. `after`: only the rows above these marks are read, into an `in` that holds what
  // an earlier loader read (its texts, breaks and caches; its sources are read again); else every
  // row, into an empty `in`.
  DynamoRunLoader(store::Database& db, int64_t run_id, bool only_run, RunInputs& in,
                  SameProcessSources same_process, const DynamoRows::RowMarks* after = nullptr)
      : in_(in), same_process_(std::move(same_process)), rows_(db, run_id, only_run, after) {
    in_.merged_sources = same_process_.aliases();
    load_sources();
    if (!after) read_all_texts_if_few();
  }

  // Up to where this loader reads each table.
  const DynamoRows::RowMarks& marks() const { return rows_.marks(); }

  // The compiles' own records, then the compiles known only by reference, each handed to
  // `intake` as it is read. References are listed once per block that names them, and most name a
  // compile whose own record is in the log: only the first record of a compile without one is
  // taken, so that the work follows the number of compiles, not of log lines.
  void load_compiles(CompileIntake& intake) {
    intake.merger = DynamoCompileMerger(rows_.compile_rows());
    load_own_compiles(intake);
    load_referenced_compiles(intake);
  }

  // The same, into an `intake` that holds the records an earlier loader read (the rows above its
  // marks are read here). False when a compile's own record comes after a reference to it was
  // taken: a read of the whole run takes the own records first and would not have taken that
  // reference, so `intake` no longer merges what such a read would (the caller reads anew).
  bool add_compiles(CompileIntake& intake) {
    bool as_whole = true;
    rows_.each_own_compile([this, &intake, &as_whole](const DynamoRows::CompileRow& row) {
      const CompileRecord r = compile_record(row);
      if (intake.merger.only_referenced(r.key)) as_whole = false;
      intake.take(r);
    });
    load_referenced_compiles(intake);
    return as_whole;
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
      ReasonRecord r = reason_record(row);
      if (!in_.merged_sources.empty()) {
        reason_from_alias.push_back(same_process_.is_alias(r.key.source_id));
        same_process_.apply(&r.key);
      }
      reasons_out.add(std::move(r));
    });
    reasons_out.finish();
    if (held) drop_repeated_reasons(in_, reason_from_alias);
  }

  // Each guard failure as a record, in row order, its text classified as load_reasons does; for
  // a run without text logs read as the same process as a trace (whose reasons are held and
  // thinned by load_reasons).
  void each_reason(const std::function<void(ReasonRecord&&)>& visit) {
    if (rows_.guard_failure_rows() >= kReasonsForAThread) in_.classified.start_background();
    rows_.each_guard_failure(
        [this, &visit](const DynamoRows::GuardFailureRow& row) { visit(reason_record(row)); });
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
  // Fewer reasons than this are classified on the reading thread (a thread costs more).
  static constexpr size_t kReasonsForAThread = 1024;

  // A guard failure's record, its text classified when it explains a compile; its key as stored.
  ReasonRecord reason_record(const DynamoRows::GuardFailureRow& row) {
    ReasonRecord r;
    r.line = row.line;
    r.key = dynamo_key_of(row.key, r.line);
    r.key.line_if_no_id = 0;  // resolved by attribute_dynamo_run
    r.entry_index = row.entry_index;
    r.old_compile_id = std::string(row.old_compile_id);
    r.reason_sid = row.reason_sid;
    r.reason = text_of(r.reason_sid);
    r.origin = label(row.origin);
    if (explains_compile(r.origin)) in_.classified.add(*r.reason_sid, r.reason);
    return r;
  }

  void load_sources() {
    in_.source_names.clear();
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

}  // namespace

// Loads the Dynamo records of `run_id`: the compile records through `intake`, merged into
// `merged` before the guard failures are read (they are attached to it as they are read), the rest
// into `in` (empty).
void load_run(store::Database& db, int64_t run_id, bool only_run, SameProcessSources same_process,
              RunInputs& in, CompileIntake& intake, std::optional<MergedCompiles>& merged) {
  DynamoRunLoader loader(db, run_id, only_run, in, std::move(same_process));
  loader.load_compiles(intake);
  merged = intake.merger.finish();
  loader.load_reasons(*merged);
  loader.load_breaks();
  loader.load_caches();
}

DynamoRecordsRead DynamoRecordsRead::fork() const {
  DynamoRecordsRead copy;
  copy.inputs = inputs.fork();
  copy.intake.merger = intake.merger.fork();
  copy.intake.step_facts = intake.step_facts;
  copy.intake.records = intake.records;
  copy.forked_from = this;
  copy.marks = marks;
  copy.started = started;
  return copy;
}

bool read_on(store::Database& db, int64_t run_id, bool only_run, DynamoRecordsRead& read) {
  const bool first = !read.started;
  DynamoRunLoader loader(db, run_id, only_run, read.inputs, SameProcessSources(),
                         first ? nullptr : &read.marks);
  if (first) {
    loader.load_compiles(read.intake);
  } else if (!loader.add_compiles(read.intake)) {
    return false;
  }
  loader.each_reason([&read](ReasonRecord&& r) { read.reasons.push_back(std::move(r)); });
  loader.load_breaks();
  loader.load_caches();
  read.marks = loader.marks();
  read.started = true;
  return true;
}

}  // namespace rcf::analysis
