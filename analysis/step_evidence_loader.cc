#include "analysis/step_evidence_loader.h"

#include <set>
#include <string>
#include <utility>

#include "analysis/xla_run_loader.h"
#include "store/step_row_reader.h"

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
                          StepEvidence& ev) {
  for (const auto& [source, line] : store::first_xla_and_jax_compile_lines(db, run_id)) {
    note_first_line(ev, source, line);
    note_min(ev.run_first_compile, source, line);  // every compile is logged
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
  ev.metrics_blocks = store::has_metrics_file_markers(db, run_id);
}

// Progress lines: in a compile source they place its compiles; elsewhere (a console of their
// own) the largest series of a source counts the steps, like a step-timing file, with the time
// each line opened with (the end of its step) where it is known in UTC.
void load_step_lines(store::Database& db, int64_t run_id, StepEvidence& ev) {
  // Rows in store order, a row standing for a series of lines (store/step_marker_series.h): a
  // training log holds a progress line every few lines, and the series are ordered by line where
  // they are built; the few shapes are named apart.
  ev.shape_names = store::step_line_shape_names(db, run_id);
  // Zone-less times printed on the machine that wrote the run's TORCH_TRACE log are read with its
  // clock offset (ingest/reading/wall_time.h). Asked for only by such a time: the store scans
  // every compile row of the run for it.
  std::optional<std::optional<int64_t>> writer_offset;
  // step -> (the first line printing it, its end time in UTC)
  using Times = std::map<int64_t, std::pair<int64_t, std::optional<double>>>;
  std::map<std::pair<int64_t, int64_t>, Times> elsewhere;  // (source, shape) -> steps
  store::for_each_step_line_marker(db, run_id, [&](const store::StepLineMarkerRow& m) {
    StepLineRow r{m.source_id, m.line,        m.step,       m.shape_sid.value_or(-1),
                  m.repeats,   m.line_stride, m.step_stride};
    if (ev.first_compile.count(r.source_id)) {
      ev.lines.push_back(r);  // expanded where the series is built
      return;
    }
    std::optional<double> time = m.time_s;
    ev.step_times_on_arrival = ev.step_times_on_arrival || (time && m.time_on_arrival);
    if (time && !m.time_zoned) {
      if (!writer_offset) writer_offset = store::most_common_clock_offset(db, run_id);
      const std::optional<int64_t> offset = *writer_offset;
      ev.step_times_without_zone = ev.step_times_without_zone || !offset;
      if (offset) ev.step_times_offset_s = offset;
      time = offset ? std::optional<double>(*time - static_cast<double>(*offset)) : std::nullopt;
    }
    Times& steps = elsewhere[{r.source_id, r.shape}];
    for (int64_t i = 0; i < r.repeats; ++i, r.line += r.line_stride, r.step += r.step_stride) {
      auto [it, fresh] = steps.try_emplace(r.step, r.line, time);
      if (!fresh && r.line < it->second.first) it->second = {r.line, time};
    }
  });
  std::map<int64_t, const Times*> largest;
  for (const auto& [key, steps] : elsewhere) {
    auto& best = largest[key.first];
    if (!best || steps.size() > best->size()) best = &steps;
  }
  for (const auto& [source, steps] : largest)
    if (steps->size() >= 2)
      for (const auto& [step, printed] : *steps) ev.timed.push_back({step, printed.second});
}

// Step-timing rows: a --step-pattern match in a compile source is a progress line; any other
// row is a timed step.
void load_step_timings(store::Database& db, int64_t run_id, StepEvidence& ev) {
  store::for_each_step_timing(db, run_id, [&](const store::StepTimingRow& t) {
    if (ev.first_compile.count(t.source_id))
      ev.lines.push_back({t.source_id, t.line, t.step, 0});
    else
      ev.timed.push_back({t.step, t.timestamp_s});
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
void load_syncs(store::Database& db, int64_t run_id, StepEvidence& ev) {
  std::set<int64_t> marked;
  SyncChunks syncs;
  store::for_each_steplog_marker(db, run_id, [&](int64_t source, int64_t line) {
    marked.insert(source);
    syncs.add({source, line, 0});
  });
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

StepEvidence load_step_evidence(store::Database& db, int64_t run_id,
                                const DynamoStepFacts& dynamo) {
  StepEvidence ev;
  load_compile_sources(db, run_id, dynamo, ev);
  load_step_lines(db, run_id, ev);
  load_step_timings(db, run_id, ev);
  load_syncs(db, run_id, ev);
  return ev;
}

}  // namespace rcf::analysis
