#include "analysis/step_evidence_loader.h"

#include <fmt/format.h>

#include <set>
#include <string>
#include <utility>

#include "analysis/xla_run_loader.h"

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
  for (const char* sql :
       {"SELECT source_id, min(line) FROM xla_block WHERE run_id = ? AND kind = 'compile' "
        "GROUP BY source_id",
        "SELECT source_id, min(line) FROM jax_compile WHERE run_id = ? GROUP BY source_id"}) {
    auto rows = db.prepare(sql);
    rows.bind(1, run_id);
    while (rows.step()) {
      note_first_line(ev, rows.int64(0), rows.int64(1));
      note_min(ev.run_first_compile, rows.int64(0), rows.int64(1));  // every compile is logged
    }
  }
  for (const auto& [source, line] : dynamo.first_line) note_first_line(ev, source, line);
  for (const auto& [source, line] : dynamo.run_first_line)
    note_min(ev.run_first_compile, source, line);
  // A graph break is traced inside a compile: with TORCH_LOGS=recompiles the first compiles
  // have no record of their own, and a break may be their first sign.
  for (int64_t source : dynamo.aliased)
    for (const char* table : {"dynamo_compile_raw", "graph_break"}) {
      auto rows = db.prepare(
          fmt::format("SELECT min(line) FROM {} WHERE run_id = ? AND source_id = ?", table));
      rows.bind(1, run_id).bind(2, source);
      if (rows.step() && rows.opt_int64(0)) note_first_line(ev, source, rows.int64(0));
      auto first = db.prepare(fmt::format(
          "SELECT min(line) FROM {} WHERE run_id = ? AND source_id = ? AND ((epoch = 0 AND "
          "frame_id = 0 AND frame_compile_id = 0) OR frame_id < 0){}",
          table, std::string_view(table) == "graph_break" ? "" : " AND kind != 'referenced'"));
      first.bind(1, run_id).bind(2, source);
      if (first.step() && first.opt_int64(0))
        note_min(ev.run_first_compile, source, first.int64(0));
    }
  ev.compiles_have_start_times = dynamo.start_times;
  auto metrics =
      db.prepare("SELECT 1 FROM step_marker WHERE run_id = ? AND origin = 'metrics_file' LIMIT 1");
  metrics.bind(1, run_id);
  ev.metrics_blocks = metrics.step();
}

// The clock offset (local minus UTC) most compiles of the run were logged with, when a TORCH_TRACE
// log shows it (ingest/reading/wall_time.h): zone-less times printed on the same machine are read
// with it.
std::optional<int64_t> writer_clock_offset(store::Database& db, int64_t run_id) {
  auto st = db.prepare(
      "SELECT clock_offset_s FROM dynamo_compile_raw WHERE run_id = ? AND clock_offset_s IS NOT "
      "NULL GROUP BY clock_offset_s ORDER BY count(*) DESC, clock_offset_s LIMIT 1");
  st.bind(1, run_id);
  if (st.step()) return st.int64(0);
  return std::nullopt;
}

// Progress lines: in a compile source they place its compiles; elsewhere (a console of their
// own) the largest series of a source counts the steps, like a step-timing file, with the time
// each line opened with (the end of its step) where it is known in UTC.
void load_step_lines(store::Database& db, int64_t run_id, StepEvidence& ev) {
  // Rows in store order, a row standing for a series of lines (store/step_marker_series.h): a
  // training log holds a progress line every few lines, and the series are ordered by line where
  // they are built; the few shapes are named apart.
  auto names = db.prepare(
      "SELECT string_id, text FROM strings WHERE string_id IN (SELECT DISTINCT shape_sid FROM "
      "step_marker WHERE run_id = ? AND origin = 'step_line')");
  names.bind(1, run_id);
  while (names.step()) ev.shape_names.emplace(names.int64(0), names.str(1));
  auto rows = db.prepare(
      "SELECT source_id, line, step, shape_sid, time_s, time_zoned, repeats, line_stride, "
      "step_stride FROM step_marker "
      "WHERE run_id = ? AND origin = 'step_line' AND step IS NOT NULL");
  rows.bind(1, run_id);
  // Asked for only by a zone-less time: the query scans every compile row of the run (0.2 s at
  // a million compiles).
  std::optional<std::optional<int64_t>> writer_offset;
  // step -> (the first line printing it, its end time in UTC)
  using Times = std::map<int64_t, std::pair<int64_t, std::optional<double>>>;
  std::map<std::pair<int64_t, int64_t>, Times> elsewhere;  // (source, shape) -> steps
  while (rows.step()) {
    StepLineRow r{rows.int64(0), rows.int64(1), rows.int64(2), rows.opt_int64(3).value_or(-1),
                  rows.int64(6), rows.int64(7), rows.int64(8)};
    if (ev.first_compile.count(r.source_id)) {
      ev.lines.push_back(r);  // expanded where the series is built
      continue;
    }
    std::optional<double> time = rows.opt_real(4);
    if (time && !rows.int64(5)) {
      if (!writer_offset) writer_offset = writer_clock_offset(db, run_id);
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
  }
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
  auto rows =
      db.prepare("SELECT source_id, line, step, timestamp_s FROM step_timing WHERE run_id = ?");
  rows.bind(1, run_id);
  while (rows.step()) {
    int64_t source = rows.int64(0);
    if (ev.first_compile.count(source))
      ev.lines.push_back({source, rows.int64(1), rows.int64(2), 0});
    else
      ev.timed.push_back({rows.int64(2), rows.opt_real(3)});
  }
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
  auto markers =
      db.prepare("SELECT source_id, line FROM step_marker WHERE run_id = ? AND origin = 'steplog'");
  markers.bind(1, run_id);
  while (markers.step()) {
    marked.insert(markers.int64(0));
    syncs.add({markers.int64(0), markers.int64(1), 0});
  }
  auto ends = db.prepare(
      "SELECT e.source_id, e.first_line, e.last_line, e.executions, g.frames_sid, f.text "
      "FROM xla_execution e JOIN xla_execution_group g ON g.group_id = e.group_id "
      "LEFT JOIN strings f ON f.string_id = g.frames_sid "
      "WHERE e.run_id = ? AND g.kind = 'execute' AND g.cause_class IN "
      "('step_end', 'parallel_loader_step_end', 'profiler_step_end')");
  ends.bind(1, run_id);
  while (ends.step()) {
    int64_t source = ends.int64(0);
    if (marked.count(source)) continue;
    int64_t site = ends.opt_int64(4).value_or(0);
    syncs.add({source, ends.int64(1), site});
    if (ends.int64(3) >= 2) syncs.add({source, ends.int64(2), site});
    if (site != 0 && !ev.site_names.count(site)) {
      auto user = innermost_user_frame(parse_frames(ends.text(5)));
      ev.site_names[site] =
          user ? user->file + ":" + std::to_string(user->line) + " (" + user->function + ")"
               : "an unnamed site";
    }
  }
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
