#include "analysis/step_evidence_loader.h"

#include <algorithm>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "analysis/xla_run_loader.h"
#include "ingest/compile_id.h"
#include "store/step_row_reader.h"
#include "util/large_array_allocator.h"

namespace rcf::analysis {
namespace {

void note_min(std::map<int64_t, int64_t>& lines, int64_t source, int64_t line) {
  auto [it, fresh] = lines.emplace(source, line);
  if (!fresh) it->second = std::min(it->second, line);
}

void note_first_line(StepEvidence& ev, int64_t source, int64_t line) {
  note_min(ev.first_compile, source, line);
}

// The first compile line of every source that holds compiles (torch_xla, Dynamo, JAX).
void load_compile_sources(store::Database& db, int64_t run_id, const DynamoStepFacts& dynamo,
                          const store::RunTables& tables, StepEvidence& ev) {
  if (tables.xla_block || tables.jax_compile) {
    for (const auto& [source, line] : store::first_xla_and_jax_compile_lines(db, run_id)) {
      note_first_line(ev, source, line);
      note_min(ev.run_first_compile, source, line);  // every compile is logged
    }
  }
  for (const auto& [source, line] : dynamo.first_line) note_first_line(ev, source, line);
  for (const auto& [source, line] : dynamo.run_first_line)
    note_min(ev.run_first_compile, source, line);
  // A graph break is traced inside a compile: with TORCH_LOGS=recompiles the first compiles
  // have no record of their own, and a break may be their first sign.
  for (int64_t source : dynamo.aliased) {
    const store::DynamoRecordLines lines = store::dynamo_record_lines(db, run_id, source);
    if (lines.first_record) note_first_line(ev, source, *lines.first_record);
    if (lines.first_compile_record)
      note_min(ev.run_first_compile, source, *lines.first_compile_record);
  }
  ev.compiles_have_start_times = dynamo.start_times;
  ev.metrics_blocks = tables.step_marker && store::has_metrics_file_markers(db, run_id);
}

// A step printed at a line, with its end time in UTC when known.
struct PrintedStep {
  int64_t step = 0, line = 0;
  std::optional<double> time;
};
// A sorted array, not a map: a console of a long run with a time on every line holds millions of
// steps, and a watched run's every batch loads them again (a node each was a third of its CPU at
// 1.7 M).
using Times = util::LargeVector<PrintedStep>;

// `steps` sorted by step, each step once, at its first line.
void by_step(Times& steps) {
  auto less = [](const PrintedStep& a, const PrintedStep& b) {
    return a.step != b.step ? a.step < b.step : a.line < b.line;
  };
  if (!std::is_sorted(steps.begin(), steps.end(), less))
    std::sort(steps.begin(), steps.end(), less);
  steps.erase(
      std::unique(steps.begin(), steps.end(),
                  [](const PrintedStep& a, const PrintedStep& b) { return a.step == b.step; }),
      steps.end());
}

// The progress lines of one shape in a source without compiles. Lines without a time stay the
// series rows they are stored as (a console of a long run is a few rows for millions of steps);
// once a line has a time, every line is listed with its time (a step's time is its first line's).
class ShapeSteps {
 public:
  void add(const StepLineRow& row, std::optional<double> time) {
    if (time) {
      for (int64_t i = 0; i < row.repeats; ++i)
        printed_.push_back({row.step + i * row.step_stride, row.line + i * row.line_stride, time});
    } else if (untimed_.empty() || !extend(untimed_.back(), row)) {
      untimed_.push_back(row);
    }
  }
  // Called once, after the last add: distinct() and give_to() then read what it settled.
  void settle() {
    if (printed_.empty()) {
      StepRuns steps;
      for (const StepLineRow& r : untimed_) steps.add(r.step, r.step_stride, r.repeats);
      distinct_ = steps.distinct().count;
      return;
    }
    for (StepLineRow& r : untimed_)
      for (int64_t i = 0; i < r.repeats; ++i, r.line += r.line_stride, r.step += r.step_stride)
        printed_.push_back({r.step, r.line, std::nullopt});
    untimed_ = {};
    by_step(printed_);
    distinct_ = static_cast<int64_t>(printed_.size());
  }
  int64_t distinct() const { return distinct_; }
  bool timed() const { return !printed_.empty(); }
  void give_to(TimedSteps& timed) const {
    for (const StepLineRow& r : untimed_) timed.steps.add(r.step, r.step_stride, r.repeats);
    for (const PrintedStep& p : printed_) timed.add(p.step, p.time);
  }

 private:
  // `last` extended by `row` when row's lines go on with last's strides (one row each: lines
  // whose times cannot be used, a million in a long console, become one run, as a series does).
  static bool extend(StepLineRow& last, const StepLineRow& row) {
    const int64_t line_stride = last.repeats > 1 ? last.line_stride : row.line - last.line;
    const int64_t step_stride = last.repeats > 1 ? last.step_stride : row.step - last.step;
    if (line_stride <= 0 || row.line != last.line + last.repeats * line_stride ||
        row.step != last.step + last.repeats * step_stride)
      return false;
    if (row.repeats > 1 && (row.line_stride != line_stride || row.step_stride != step_stride))
      return false;
    last.line_stride = line_stride;
    last.step_stride = step_stride;
    last.repeats += row.repeats;
    return true;
  }

  std::vector<StepLineRow> untimed_;  // runs of lines, extended where they go on
  Times printed_;
  int64_t distinct_ = 0;
};

// The compile a console line names (` [F/C]` after its location), in the run's one TORCH_TRACE log.
std::optional<int64_t> named_compile_start(store::Database& db, int64_t run_id, int64_t trace,
                                           std::string_view text) {
  const size_t open = text.rfind(" [");
  if (open == std::string_view::npos || text.back() != ']') return std::nullopt;
  auto id = ingest::CompileId::parse(text.substr(open + 2, text.size() - open - 3));
  if (!id || id->frame < 0 || id->compiled_autograd >= 0) return std::nullopt;
  return store::dynamo_compile_start_us(db, run_id, trace, id->frame, id->compile);
}

// The trace's clock against a console's order (docs/training_steps.md): only for one console of
// progress lines with no times, no progress lines in the compiles' own logs, and one TORCH_TRACE
// log (one process's clock). Its series' rows and the lines compiles caused in it are kept.
void load_console(store::Database& db, int64_t run_id,
                  const std::map<int64_t, std::pair<int64_t, const ShapeSteps*>>& largest,
                  StepEvidence& ev) {
  std::vector<StepLineRow> rows = std::move(ev.console_lines);
  ev.console_lines.clear();
  if (largest.size() != 1 || !ev.lines.empty() || !ev.compiles_have_start_times) return;
  const auto& [console, best] = *largest.begin();
  if (best.second->timed()) return;
  const std::map<int64_t, int64_t> starts = store::first_dynamo_compile_starts(db, run_id);
  if (starts.size() != 1) return;
  const auto [trace, first_start] = *starts.begin();
  for (const StepLineRow& r : rows)
    if (r.source_id == console && r.shape == best.first) ev.console_lines.push_back(r);
  ev.first_compile_start_us = first_start;
  for (store::CompileLineRow& c : store::compile_lines(db, run_id))
    if (c.source_id == console)
      ev.console_compiles.push_back(
          {c.line, c.text, named_compile_start(db, run_id, trace, c.text)});
}

// Progress lines: in a compile source they place its compiles; elsewhere (a console of their
// own) the largest series of a source counts the steps, like a step-timing file, with the time
// each line opened with (the end of its step) where it is known in UTC.
void load_step_lines(store::Database& db, int64_t run_id, const store::RunTables& tables,
                     const KeptStepLines* kept, StepEvidence& ev) {
  // Without step_marker rows there is nothing to read, and no console for load_console.
  if (!tables.step_marker) return;
  // Rows in any order (those a watch keeps come last), a row standing for a series of lines
  // (store/step_marker_series.h): a training log holds a progress line every few lines, and the
  // series are ordered by line where they are built; the few shapes are named apart.
  std::set<int64_t> shapes;
  // Zone-less times printed on the machine that wrote the run's TORCH_TRACE log are read with its
  // clock offset (ingest/reading/wall_time.h). Asked for only by such a time: the store scans
  // every compile row of the run for it.
  std::optional<std::optional<int64_t>> writer_offset;
  std::map<std::pair<int64_t, int64_t>, ShapeSteps> elsewhere;  // (source, shape) -> steps
  auto each = [&](const KeptStepLines::Visit& visit) {
    if (kept)
      kept->for_each(db, run_id, visit);
    else
      store::for_each_step_line_marker(db, run_id, visit);
  };
  // The last row's source and shape: rows come a source at a time (a console's lines by the
  // million), so each looks up the same ones as the row before.
  std::pair<int64_t, int64_t> last_key{-1, -1};
  bool last_in_compile_source = false;
  ShapeSteps* last_steps = nullptr;
  each([&](const store::StepLineMarkerRow& m) {
    StepLineRow r{m.source_id, m.line,        m.step,       m.shape_sid.value_or(-1),
                  m.repeats,   m.line_stride, m.step_stride};
    if (std::make_pair(r.source_id, r.shape) != last_key) {
      last_key = {r.source_id, r.shape};
      if (m.shape_sid) shapes.insert(*m.shape_sid);
      last_in_compile_source = ev.first_compile.count(r.source_id) > 0;
      last_steps = last_in_compile_source ? nullptr : &elsewhere[last_key];
    }
    if (last_in_compile_source) {
      ev.lines.push_back(r);  // expanded where the series is built
      return;
    }
    if (!m.time_s) ev.console_lines.push_back(r);  // kept for one console, load_console
    std::optional<double> time = m.time_s;
    ev.step_times_on_arrival = ev.step_times_on_arrival || (time && m.time_on_arrival);
    if (time && !m.time_zoned) {
      if (!writer_offset) writer_offset = store::most_common_clock_offset(db, run_id);
      const std::optional<int64_t> offset = *writer_offset;
      ev.step_times_without_zone = ev.step_times_without_zone || !offset;
      if (offset) ev.step_times_offset_s = offset;
      time = offset ? std::optional<double>(*time - static_cast<double>(*offset)) : std::nullopt;
    }
    last_steps->add(r, time);
  });
  ev.shape_names = store::step_line_shape_names(db, shapes);
  std::map<int64_t, std::pair<int64_t, const ShapeSteps*>> largest;  // source -> (shape, steps)
  for (auto& [key, steps] : elsewhere) {
    steps.settle();
    auto& best = largest[key.first];
    if (!best.second || steps.distinct() > best.second->distinct()) best = {key.second, &steps};
  }
  for (const auto& [source, best] : largest)
    if (best.second->distinct() >= 2) best.second->give_to(ev.timed);
  load_console(db, run_id, largest, ev);
}

// Step-timing rows: a --step-pattern match in a compile source is a progress line; any other
// row is a timed step.
void load_step_timings(store::Database& db, int64_t run_id, const store::RunTables& tables,
                       StepEvidence& ev) {
  if (!tables.step_timing) return;
  store::for_each_step_timing(db, run_id, [&](const store::StepTimingRow& t) {
    if (ev.first_compile.count(t.source_id))
      ev.lines.push_back({t.source_id, t.line, t.step, 0});
    else
      ev.timed.add(t.step, t.timestamp_s);
  });
}

// The syncs of a run, gathered in fixed-size chunks and then copied into one exactly sized array,
// each chunk freed once copied: at 771,000 syncs (a 1 GB PT_XLA_DEBUG log) a doubling vector and
// its shrink_to_fit copy held 25 + 18.5 MB at once, the analysis's peak.
class SyncChunks {
 public:
  void add(const SyncRow& s) {
    if (chunks_.empty() || chunks_.back().size() == kChunk) chunks_.emplace_back().reserve(kChunk);
    chunks_.back().push_back(s);
    ++size_;
  }
  void move_to(std::vector<SyncRow>& out) {
    out.reserve(out.size() + size_);
    for (std::vector<SyncRow>& chunk : chunks_) {
      out.insert(out.end(), chunk.begin(), chunk.end());
      chunk = {};
    }
    chunks_.clear();
    size_ = 0;
  }

 private:
  static constexpr size_t kChunk = 1 << 16;
  std::vector<std::vector<SyncRow>> chunks_;
  size_t size_ = 0;
};

// Step-end syncs: XLA_EMIT_STEPLOG markers where a source has them, else its step-end
// Execution blocks, whose printed frames tell the syncs' sites apart.
void load_syncs(store::Database& db, int64_t run_id, const store::RunTables& tables,
                StepEvidence& ev) {
  std::set<int64_t> marked;
  SyncChunks syncs;
  if (tables.step_marker)
    store::for_each_steplog_marker(db, run_id, [&](int64_t source, int64_t line) {
      marked.insert(source);
      syncs.add({source, line, 0});
    });
  if (tables.xla_execution)
    store::for_each_step_end_execution(db, run_id, [&](const store::StepEndExecutionRow& e) {
      if (marked.count(e.source_id)) return;
      int64_t site = e.frames_sid.value_or(0);
      syncs.add({e.source_id, e.first_line, site});
      if (e.executions >= 2) syncs.add({e.source_id, e.last_line, site});
      if (site != 0 && !ev.site_names.count(site)) {
        auto user = innermost_user_frame(parse_frames(e.frames_json));
        ev.site_names[site] =
            user ? user->file + ":" + std::to_string(user->line) + " (" + user->function + ")"
                 : "an unnamed site";
      }
    });
  syncs.move_to(ev.syncs);
}

}  // namespace

StepEvidence load_step_evidence(store::Database& db, int64_t run_id, const DynamoStepFacts& dynamo,
                                const store::RunTables& tables, const KeptStepLines* kept) {
  StepEvidence ev;
  load_compile_sources(db, run_id, dynamo, tables, ev);
  load_step_lines(db, run_id, tables, kept, ev);
  load_step_timings(db, run_id, tables, ev);
  load_syncs(db, run_id, tables, ev);
  return ev;
}

}  // namespace rcf::analysis
