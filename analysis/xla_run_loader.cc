#include "analysis/xla_run_loader.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "analysis/op_attribute_diff.h"
#include "analysis/program_loader.h"
#include "analysis/xla_same_process.h"
#include "store/store.h"
#include "util/json_depth.h"

namespace rcf::analysis {

std::vector<FrameRecord> parse_frames(std::string_view json_text) {
  std::vector<FrameRecord> frames;
  if (json_text.empty()) return frames;
  auto j = util::parse_json_bounded(json_text);
  if (!j.is_array()) return frames;
  for (const auto& f : j) {
    FrameRecord r;
    r.file = f.value("file", "");
    r.line = f.value("line", int64_t{0});
    r.function = f.value("function", "");
    frames.push_back(std::move(r));
  }
  return frames;
}

namespace {

// Executions per graph hash with the steps they fall in (step = step-end executions before it in
// its source, plus one: the segment's step_ends_before + 1); memory follows the number of
// programs. One source (the usual level-2 run): its counts are stored in segment order, so one
// pass in rowid order sees each program's steps in order and counts the distinct ones without
// sorting. Several sources share step numbers (ranks): SQL takes the union.
// Sources in `copies` repeat another source's output (analysis/xla_same_process.h) and are not
// read.
void load_execution_spans(store::Database& db, int64_t run_id, const std::set<int64_t>& copies,
                          std::map<std::string, ExecutionSpan>& out) {
  struct Program {
    ExecutionSpan span;
    int64_t last_step = -1;
  };
  std::map<int64_t, Program*> by_group;
  std::map<std::string, Program> programs;
  std::set<int64_t> sources;
  auto groups = db.prepare(
      "SELECT group_id, graph_hash, source_id FROM xla_execution_group WHERE run_id = ? AND "
      "kind = 'execute' AND graph_hash IS NOT NULL");
  groups.bind(1, run_id);
  while (groups.step()) {
    if (copies.count(groups.int64(2))) continue;
    by_group[groups.int64(0)] = &programs[groups.str(1)];
    sources.insert(groups.int64(2));
  }
  if (sources.size() > 1) {
    auto spans = db.prepare(
        fmt::format("SELECT g.graph_hash, sum(e.executions), count(DISTINCT e.step_ends_before), "
                    "min(e.step_ends_before) + 1, max(e.step_ends_before) + 1 FROM xla_execution e "
                    "JOIN xla_execution_group g ON g.group_id = e.group_id WHERE e.run_id = ? AND "
                    "g.kind = 'execute' AND g.graph_hash IS NOT NULL AND e.source_id NOT IN ({}) "
                    "GROUP BY g.graph_hash",
                    fmt::join(copies, ",")));
    spans.bind(1, run_id);
    while (spans.step())
      out[spans.str(0)] = {spans.int64(1), spans.int64(2), spans.int64(3), spans.int64(4)};
    return;
  }
  auto counts = db.prepare(
      "SELECT group_id, step_ends_before + 1, executions FROM xla_execution WHERE run_id = ? "
      "ORDER BY rowid");
  counts.bind(1, run_id);
  while (counts.step()) {
    auto it = by_group.find(counts.int64(0));
    if (it == by_group.end()) continue;
    Program& p = *it->second;
    int64_t step = counts.int64(1);
    p.span.executions += counts.int64(2);
    if (step == p.last_step) continue;
    p.span.first_step = p.span.steps == 0 ? step : std::min(p.span.first_step, step);
    p.span.last_step = std::max(p.span.last_step, step);
    ++p.span.steps;
    p.last_step = step;
  }
  for (auto& [hash, p] : programs) out[hash] = p.span;
}

std::string source_line(const std::vector<std::pair<int64_t, std::string>>& source_names,
                        int64_t source_id, int64_t line) {
  for (const auto& [id, name] : source_names)
    if (id == source_id) return fmt::format("{}:{}", name, line);
  return fmt::format("source {}:{}", source_id, line);
}

// `Compiling IR graph hash` records of torch_xla VLOG output, as compile blocks without frames.
void load_vlog_compiles(store::Database& db, int64_t run_id, std::vector<XlaBlockRecord>& out) {
  auto rows = db.prepare(
      "SELECT source_id, line, graph_hash, device, compile_ms FROM xla_vlog WHERE run_id = ? AND "
      "kind = 'compile' ORDER BY source_id, line");
  rows.bind(1, run_id);
  while (rows.step()) {
    XlaBlockRecord r;
    r.source_id = rows.int64(0);
    r.line = rows.int64(1);
    r.kind = "compile";
    r.origin = "vlog";
    r.cause_class = "unknown";
    r.graph_hash = rows.str(2);
    r.device = rows.str(3);
    r.compile_ms = rows.opt_real(4);
    out.push_back(std::move(r));
  }
}

// The run's compile count from its metrics reports (docs/xla_formats.md): per source, the last
// (cumulative) CompileTime TotalSamples, else the last UncachedCompile counter; over sources, the
// largest (the sources of one run may be reports of one process printed at different times).
class CompileCounter {
 public:
  explicit CompileCounter(const std::vector<std::pair<int64_t, std::string>>& names)
      : names_(names) {}

  // Rows in (source, line) order.
  void add(std::string_view name, std::string_view field, int64_t source, int64_t line,
           double value) {
    bool samples = name == "CompileTime" && field == "TotalSamples";
    bool uncached = name == "UncachedCompile" && field == "Value";
    if (!samples && !uncached) return;
    if (source != source_) close_source();
    source_ = source;
    Seen& seen = samples ? samples_ : uncached_;
    seen = {static_cast<int64_t>(value), line, true};
  }

  std::optional<CountedCompiles> result() {
    close_source();
    return best_;
  }

 private:
  struct Seen {
    int64_t value = 0;
    int64_t line = 0;
    bool any = false;
  };

  void close_source() {
    const Seen& s = samples_.any ? samples_ : uncached_;
    if (s.any && (!best_ || s.value > best_->count)) {
      best_ = CountedCompiles{
          s.value, fmt::format("metrics {} at {}",
                               samples_.any ? "CompileTime TotalSamples" : "UncachedCompile",
                               source_line(names_, source_, s.line))};
    }
    samples_ = uncached_ = {};
  }

  const std::vector<std::pair<int64_t, std::string>>& names_;
  int64_t source_ = -1;
  Seen samples_, uncached_;
  std::optional<CountedCompiles> best_;
};

// The paths and file ranks of the run's sources, which tell copies from ranks.
std::map<int64_t, XlaSourceName> load_source_names(store::Database& db, int64_t run_id) {
  std::map<int64_t, XlaSourceName> out;
  auto rows = db.prepare("SELECT source_id, path, file_rank FROM source WHERE run_id = ?");
  rows.bind(1, run_id);
  while (rows.step()) out[rows.int64(0)] = {rows.str(1), rows.opt_int64(2)};
  return out;
}

// The compile blocks of step-end graphs (docs/pt_xla_debug.md, cause classes).
constexpr const char* kStepEnd =
    "cause_class IN ('step_end', 'parallel_loader_step_end', 'profiler_step_end')";

// Steps per source (precedence in analysis/xla_compiles.h). The importer gives every compile
// block the step boundaries of its source before it (steplog markers, step-end executions); here
// only the totals per source are needed. Markers are one row each: one scan, no sort. Executions
// are counts per step segment (xla_execution): the step-end groups' counts are summed.
struct StepCounts {
  std::map<int64_t, int64_t> markers, step_ends;  // source -> count
  std::set<int64_t> executing;  // sources with Execution blocks (PT_XLA_DEBUG_LEVEL=2)

  int64_t most() const {
    int64_t n = 0;
    for (const auto* counts : {&markers, &step_ends})
      for (const auto& [source, count] : *counts) n = std::max(n, count);
    return n;
  }
};

StepCounts load_step_counts(store::Database& db, int64_t run_id) {
  StepCounts c;
  auto marker_rows =
      db.prepare("SELECT source_id FROM step_marker WHERE run_id = ? AND origin = 'steplog'");
  marker_rows.bind(1, run_id);
  while (marker_rows.step()) ++c.markers[marker_rows.int64(0)];
  auto end_rows = db.prepare(fmt::format(
      "SELECT source_id, executions FROM xla_execution WHERE run_id = ?1 AND group_id IN "
      "(SELECT group_id FROM xla_execution_group WHERE run_id = ?1 AND kind = 'execute' AND {})",
      kStepEnd));
  end_rows.bind(1, run_id);
  while (end_rows.step()) c.step_ends[end_rows.int64(0)] += end_rows.int64(1);
  auto exec_sources = db.prepare(
      "SELECT DISTINCT source_id FROM xla_execution_group WHERE run_id = ? AND kind = 'execute'");
  exec_sources.bind(1, run_id);
  while (exec_sources.step()) c.executing.insert(exec_sources.int64(0));
  return c;
}

// The Compilation Analysis blocks in log order, each with its step.
void load_compile_blocks(store::Database& db, int64_t run_id, const StepCounts& steps,
                         std::vector<XlaBlockRecord>& out) {
  auto blocks = db.prepare(fmt::format(
      "SELECT b.source_id, b.line, c.text, b.cause_class, n.text, b.graph_hash, b.inputs, "
      "b.outputs, f.text, b.markers_before, b.step_ends_before, b.{} FROM xla_block b "
      "LEFT JOIN strings c ON c.string_id = b.cause_sid "
      "LEFT JOIN strings n ON n.string_id = b.graph_name_sid "
      "LEFT JOIN strings f ON f.string_id = b.frames_sid "
      "WHERE b.run_id = ? AND b.kind = 'compile' ORDER BY b.source_id, b.line",
      kStepEnd));
  blocks.bind(1, run_id);
  while (blocks.step()) {
    XlaBlockRecord r;
    r.source_id = blocks.int64(0);
    r.line = blocks.int64(1);
    r.kind = "compile";
    r.cause = blocks.str(2);
    r.cause_class = blocks.str(3);
    r.graph_name = blocks.str(4);
    r.graph_hash = blocks.str(5);
    r.inputs = blocks.opt_int64(6);
    r.outputs = blocks.opt_int64(7);
    r.frames = parse_frames(blocks.text(8));
    int64_t markers_before = blocks.int64(9), ends_before = blocks.int64(10);
    bool step_end = blocks.int64(11) != 0;
    // A marker opens the sync of step N; its step-end graph is N.
    if (steps.markers.count(r.source_id))
      r.step = step_end && markers_before >= 1 ? markers_before : markers_before + 1;
    else if (steps.executing.count(r.source_id))
      r.step = ends_before + 1;
    if (r.step) r.syncs_before = *r.step - 1;
    out.push_back(std::move(r));
  }
}

// JAX compile records and tracing cache misses, in log order.
void load_jax_records(store::Database& db, int64_t run_id, XlaRunInputs& in) {
  auto jax = db.prepare(
      "SELECT source_id, line, f.text, phase, s.text, seconds FROM jax_compile j "
      "JOIN strings f ON f.string_id = j.function_sid "
      "LEFT JOIN strings s ON s.string_id = j.signature_sid WHERE run_id=? ORDER BY source_id, "
      "line");
  jax.bind(1, run_id);
  while (jax.step())
    in.jax_compiles.push_back(
        {jax.int64(0), jax.int64(1), jax.str(2), jax.str(3), jax.str(4), jax.opt_real(5), {}});
  auto misses = db.prepare(
      "SELECT source_id, line, f.text, cause_class, d.text FROM jax_cache_miss m "
      "LEFT JOIN strings f ON f.string_id = m.function_sid "
      "LEFT JOIN strings d ON d.string_id = m.detail_sid WHERE run_id=? ORDER BY source_id, line");
  misses.bind(1, run_id);
  while (misses.step())
    in.jax_misses.push_back(
        {misses.int64(0), misses.int64(1), misses.str(2), misses.str(3), misses.str(4), {}});
}

// What compile blocks link to: saved graphs and HLO modules.
void load_link_targets(store::Database& db, int64_t run_id, XlaRunInputs& in) {
  auto graphs = db.prepare(
      "SELECT source_id, line, graph_hash FROM saved_graph WHERE run_id=? AND graph_hash IS NOT "
      "NULL "
      "ORDER BY source_id, line");
  graphs.bind(1, run_id);
  while (graphs.step())
    in.saved_graphs.push_back({graphs.int64(0), graphs.int64(1), graphs.str(2)});
  auto modules = db.prepare(
      "SELECT hlo_module_id, n.text, stage, graph_hash, module_id FROM hlo_module h "
      "JOIN strings n ON n.string_id = h.module_name_sid WHERE run_id=? ORDER BY hlo_module_id");
  modules.bind(1, run_id);
  while (modules.step())
    in.hlo_modules.push_back(
        {modules.int64(0), modules.str(1), modules.str(2), modules.str(3), modules.opt_int64(4)});
}

// Without metrics reports, the profiler's `CompileTime too frequent: N counts` still counts N
// compiles (docs/pt_xla_debug.md, "pt-xla-profiler"): the largest such count of the run.
std::optional<CountedCompiles> profiler_compile_count(
    store::Database& db, int64_t run_id,
    const std::vector<std::pair<int64_t, std::string>>& names) {
  auto note = db.prepare(
      "SELECT source_id, line, count FROM xla_profiler_note WHERE run_id = ? AND kind = "
      "'too_frequent' AND metric = 'CompileTime' AND count IS NOT NULL ORDER BY count DESC, "
      "source_id, line LIMIT 1");
  note.bind(1, run_id);
  if (!note.step()) return std::nullopt;
  return CountedCompiles{note.int64(2),
                         fmt::format("pt-xla-profiler CompileTime too frequent at {}",
                                     source_line(names, note.int64(0), note.int64(1)))};
}

// The CompileTime timer (convergence), the aten::_local_scalar_dense counter (host syncs) and the
// compile count, in one pass over the run's metric samples.
void load_metric_samples(store::Database& db, int64_t run_id,
                         const std::vector<std::pair<int64_t, std::string>>& source_names,
                         XlaRunInputs& in) {
  auto metric_rows = db.prepare(fmt::format(
      "SELECT n.text, source_id, line, step, field, value FROM metric_sample m JOIN strings n ON "
      "n.string_id = m.name_sid WHERE run_id = ? AND n.text IN ('CompileTime', "
      "'aten::_local_scalar_dense', 'UncachedCompile') AND {} ORDER BY source_id, line",
      store::kMetricFieldsTerm));
  metric_rows.bind(1, run_id);
  HostSyncCounts& syncs = in.host_syncs;
  CompileCounter counter(source_names);
  while (metric_rows.step()) {
    std::optional<int64_t> step = metric_rows.opt_int64(3);
    std::string_view field = metric_rows.text(4);
    double value = metric_rows.real(5);
    counter.add(metric_rows.text(0), field, metric_rows.int64(1), metric_rows.int64(2), value);
    if (metric_rows.text(0) == "UncachedCompile") continue;
    if (metric_rows.text(0) == "CompileTime") {
      if (!step) continue;
      if (field == "TotalSamples")
        in.compile_time_steps.push_back({*step, value, std::nullopt});
      else if (field == "Accumulator" && !in.compile_time_steps.empty() &&
               in.compile_time_steps.back().step == *step)
        in.compile_time_steps.back().accumulator_ns = value;
    } else if (field == "Value") {
      if (step) syncs.scalar_dense_by_step[*step] = value;
      if (value > syncs.scalar_dense_max) {
        syncs.scalar_dense_max = value;
        syncs.scalar_dense_where =
            source_line(source_names, metric_rows.int64(1), metric_rows.int64(2));
      }
    }
  }
  in.counted = counter.result();
  if (!in.counted) in.counted = profiler_compile_count(db, run_id, source_names);
}

// The profiler's first `TransferFromDeviceTime too frequent` note, "" when none.
std::string load_transfer_warning(store::Database& db, int64_t run_id,
                                  const std::vector<std::pair<int64_t, std::string>>& names) {
  auto warning = db.prepare(
      "SELECT source_id, line FROM xla_profiler_note WHERE run_id = ? AND kind = 'too_frequent' "
      "AND metric = 'TransferFromDeviceTime' ORDER BY source_id, line LIMIT 1");
  warning.bind(1, run_id);
  if (!warning.step()) return "";
  return source_line(names, warning.int64(0), warning.int64(1));
}

void load_step_times(store::Database& db, int64_t run_id, std::vector<StepTimeRecord>& out) {
  auto step_times = db.prepare(
      "SELECT step, wall_ms, compile_ms FROM step_timing WHERE run_id=? ORDER BY source_id, line");
  step_times.bind(1, run_id);
  while (step_times.step())
    out.push_back({step_times.int64(0), step_times.opt_real(1), step_times.opt_real(2)});
}

}  // namespace

XlaRunInputs load_xla_run(store::Database& db, int64_t run_id,
                          const std::vector<std::pair<int64_t, std::string>>& source_names) {
  XlaRunInputs in;
  in.source_names = source_names;
  const StepCounts steps = load_step_counts(db, run_id);
  in.steps_seen = steps.most();
  load_compile_blocks(db, run_id, steps, in.blocks);
  // VLOG compiles stand in for Compilation Analysis blocks only where there are none: with both
  // switched on, each compile would be counted twice.
  if (in.blocks.empty()) load_vlog_compiles(db, run_id, in.blocks);
  in.copied_sources = find_copied_xla_sources(in.blocks, load_source_names(db, run_id));
  drop_aliased_blocks(in.blocks, in.copied_sources);
  std::set<int64_t> copies;
  for (const SourceAlias& a : in.copied_sources) copies.insert(a.source_id);
  load_jax_records(db, run_id, in);
  load_link_targets(db, run_id, in);
  load_metric_samples(db, run_id, source_names, in);
  in.host_syncs.transfer_warning = load_transfer_warning(db, run_id, source_names);
  load_step_times(db, run_id, in.step_times);
  in.hlo_programs = load_hlo_programs(db, run_id);
  in.describe_op_attributes = store_op_attribute_describer(db);
  load_execution_spans(db, run_id, copies, in.executions_by_hash);
  return in;
}

}  // namespace rcf::analysis
