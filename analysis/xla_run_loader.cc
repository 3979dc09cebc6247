#include "analysis/xla_run_loader.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "analysis/op_attribute_diff.h"
#include "analysis/program_loader.h"
#include "analysis/xla_same_process.h"
#include "store/xla_row_reader.h"
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
// its source, plus one); memory follows the number of programs. One source (the usual level-2
// run): its counts are stored in segment order, so one pass in store order sees each program's
// steps in order and counts the distinct ones without sorting. Several sources share step numbers
// (ranks): the store takes their union. Sources in `copies` repeat another source's output
// (analysis/xla_same_process.h) and are not read.
void load_execution_spans(store::Database& db, int64_t run_id, const std::set<int64_t>& copies,
                          std::map<std::string, ExecutionSpan>& out) {
  struct Program {
    ExecutionSpan span;
    int64_t last_step = -1;
  };
  std::map<int64_t, Program*> by_group;  // points into `programs`, which outlives it
  std::map<std::string, Program> programs;
  std::set<int64_t> sources;
  store::for_each_execute_group(db, run_id, [&](const store::ExecuteGroupRow& g) {
    if (copies.count(g.source_id)) return;
    by_group[g.group_id] = &programs[std::string(g.graph_hash)];
    sources.insert(g.source_id);
  });
  if (sources.size() > 1) {
    store::for_each_execution_span(db, run_id, copies, [&](const store::ExecutionSpanRow& s) {
      out[std::string(s.graph_hash)] = {s.executions, s.steps, s.first_step, s.last_step};
    });
    return;
  }
  store::for_each_execution_count(db, run_id, [&](const store::ExecutionCountRow& c) {
    auto it = by_group.find(c.group_id);
    if (it == by_group.end()) return;
    Program& p = *it->second;
    p.span.executions += c.executions;
    if (c.step == p.last_step) return;
    p.span.first_step = p.span.steps == 0 ? c.step : std::min(p.span.first_step, c.step);
    p.span.last_step = std::max(p.span.last_step, c.step);
    ++p.span.steps;
    p.last_step = c.step;
  });
  for (auto& [hash, p] : programs) out[hash] = p.span;
}

std::string source_line(const std::vector<std::pair<int64_t, std::string>>& source_names,
                        int64_t source_id, int64_t line) {
  for (const auto& [id, name] : source_names)
    if (id == source_id) return fmt::format("{}:{}", name, line);
  return fmt::format("source {}:{}", source_id, line);
}

// `Compiling IR graph hash` records of torch_xla VLOG output, as compile blocks without frames.
// A GetTensor read (`Trying to get the value of N tensor(s)`: user code read a tensor's value)
// makes torch_xla build and run the graph of that value at once: the next graph of the same
// thread, compiled or executed, is the read's. One compiled for a read is a graph cut mid-step by
// a host sync (cause class tensor_value_access, docs/causes.md).
void load_vlog_compiles(store::Database& db, int64_t run_id, std::vector<XlaBlockRecord>& out) {
  // (source, thread) -> the GetTensor read not yet answered: its line and tensor count. The
  // row's texts live only until the next row, so only numbers are kept.
  struct Read {
    int64_t line = 0;
    std::optional<int64_t> tensors;
  };
  std::map<std::pair<int64_t, int64_t>, Read> pending_read;
  store::for_each_xla_vlog_graph_row(db, run_id, [&](const store::XlaVlogGraphRow& row) {
    const std::pair<int64_t, int64_t> thread{row.source_id, row.thread.value_or(-1)};
    if (row.kind == "get_tensor") {
      pending_read[thread] = {row.line, row.count};
      return;
    }
    auto read = pending_read.find(thread);
    std::optional<Read> for_read;
    if (read != pending_read.end()) {
      for_read = read->second;
      pending_read.erase(read);
    }
    if (row.kind != "compile") return;
    XlaBlockRecord r;
    r.source_id = row.source_id;
    r.line = row.line;
    r.kind = "compile";
    r.origin = "vlog";
    r.cause_class = "unknown";
    if (for_read) {
      r.cause_class = "tensor_value_access";
      r.value_read_line = for_read->line;
      r.value_read_tensors = for_read->tensors;
    }
    r.graph_hash = row.graph_hash;
    r.device = row.device;
    r.compile_ms = row.compile_ms;
    out.push_back(std::move(r));
  });
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
  for (store::SourcePathRow& row : store::source_paths_of_run(db, run_id))
    out[row.source_id] = {std::move(row.path), row.file_rank};
  return out;
}

// Steps per source (precedence in analysis/xla_compiles.h). The importer gives every compile
// block the step boundaries of its source before it (steplog markers, step-end executions); here
// only the totals per source are needed, as the store counts them.
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

StepCounts load_step_counts(store::Database& db, int64_t run_id, const store::RunTables& tables) {
  StepCounts c;
  if (tables.step_marker) c.markers = store::steplog_markers_per_source(db, run_id);
  if (tables.xla_execution) c.step_ends = store::step_end_executions_per_source(db, run_id);
  if (tables.xla_execution_group) c.executing = store::executing_sources(db, run_id);
  return c;
}

// The Compilation Analysis blocks in log order, each with its step.
void load_compile_blocks(store::Database& db, int64_t run_id, const StepCounts& steps,
                         std::vector<XlaBlockRecord>& out) {
  store::for_each_xla_compile_block(db, run_id, [&](const store::XlaCompileBlockRow& b) {
    XlaBlockRecord r;
    r.source_id = b.source_id;
    r.line = b.line;
    r.kind = "compile";
    r.cause = b.cause;
    r.cause_class = b.cause_class;
    r.graph_name = b.graph_name;
    r.graph_hash = b.graph_hash;
    r.inputs = b.inputs;
    r.outputs = b.outputs;
    r.frames = parse_frames(b.frames_json);
    // A marker opens the sync of step N; its step-end graph is N.
    if (steps.markers.count(r.source_id))
      r.step = b.step_end && b.markers_before >= 1 ? b.markers_before : b.markers_before + 1;
    else if (steps.executing.count(r.source_id))
      r.step = b.step_ends_before + 1;
    if (r.step) r.syncs_before = *r.step - 1;
    out.push_back(std::move(r));
  });
}

// JAX compile records and tracing cache misses, in log order.
void load_jax_records(store::Database& db, int64_t run_id, const store::RunTables& tables,
                      XlaRunInputs& in) {
  if (tables.jax_compile)
    store::for_each_jax_compile(db, run_id, [&](const store::JaxCompileRow& j) {
      in.jax_compiles.push_back({j.source_id,
                                 j.line,
                                 std::string(j.function),
                                 std::string(j.phase),
                                 std::string(j.signature),
                                 j.seconds,
                                 {}});
    });
  if (tables.jax_cache_miss)
    store::for_each_jax_cache_miss(db, run_id, [&](const store::JaxCacheMissRow& m) {
      in.jax_misses.push_back({m.source_id,
                               m.line,
                               std::string(m.function),
                               std::string(m.cause_class),
                               std::string(m.detail),
                               {}});
    });
}

// What compile blocks link to: saved graphs and HLO modules.
void load_link_targets(store::Database& db, int64_t run_id, const store::RunTables& tables,
                       XlaRunInputs& in) {
  if (tables.saved_graph)
    store::for_each_saved_graph(db, run_id, [&](const store::SavedGraphRow& g) {
      in.saved_graphs.push_back({g.source_id, g.line, std::string(g.graph_hash)});
    });
  if (tables.grab_graphs_frame)
    store::for_each_grab_graphs_frame(db, run_id, [&](const store::GrabGraphsFrameRow& g) {
      in.grab_frames.push_back(
          {g.source_id, g.line, g.graphs, g.unique, parse_frames(g.frames_json)});
    });
  if (tables.hlo_module)
    store::for_each_hlo_module(db, run_id, [&](const store::HloModuleRow& m) {
      in.hlo_modules.push_back({m.hlo_module_id, std::string(m.module_name), std::string(m.stage),
                                std::string(m.graph_hash), m.module_id});
    });
}

// Without metrics reports, the profiler's `CompileTime too frequent: N counts` still counts N
// compiles (docs/pt_xla_debug.md, "pt-xla-profiler"): the largest such count of the run.
std::optional<CountedCompiles> profiler_compile_count(
    store::Database& db, int64_t run_id,
    const std::vector<std::pair<int64_t, std::string>>& names) {
  std::optional<store::ProfilerNoteRow> note = store::largest_compile_time_note(db, run_id);
  if (!note) return std::nullopt;
  return CountedCompiles{note->count, fmt::format("pt-xla-profiler CompileTime too frequent at {}",
                                                  source_line(names, note->source_id, note->line))};
}

// The CompileTime timer (convergence), the aten::_local_scalar_dense counter (host syncs) and the
// compile count, in one pass over the run's metric samples.
void load_metric_samples(store::Database& db, int64_t run_id,
                         const std::vector<std::pair<int64_t, std::string>>& source_names,
                         const store::RunTables& tables, XlaRunInputs& in) {
  HostSyncCounts& syncs = in.host_syncs;
  CompileCounter counter(source_names);
  if (tables.metric_sample)
    store::for_each_xla_metric_sample(db, run_id, [&](const store::XlaMetricSampleRow& m) {
      counter.add(m.name, m.field, m.source_id, m.line, m.value);
      if (m.name == "UncachedCompile") return;
      if (m.name == "CompileTime") {
        if (!m.step) return;
        if (m.field == "TotalSamples")
          in.compile_time_steps.push_back({*m.step, m.value, std::nullopt});
        else if (m.field == "Accumulator" && !in.compile_time_steps.empty() &&
                 in.compile_time_steps.back().step == *m.step)
          in.compile_time_steps.back().accumulator_ns = m.value;
      } else if (m.field == "Value") {
        if (m.step) syncs.scalar_dense_by_step[*m.step] = m.value;
        if (m.value > syncs.scalar_dense_max) {
          syncs.scalar_dense_max = m.value;
          syncs.scalar_dense_where = source_line(source_names, m.source_id, m.line);
        }
      }
    });
  in.counted = counter.result();
  if (!in.counted && tables.xla_profiler_note)
    in.counted = profiler_compile_count(db, run_id, source_names);
}

// The profiler's `TransferFromDeviceTime too frequent` notes and the level-2 Execution blocks of
// sync fragments: what names and counts a fragment's read (analysis/value_read_evidence.h).
void load_value_read_evidence(store::Database& db, int64_t run_id, const store::RunTables& tables,
                              XlaRunInputs& in) {
  if (tables.xla_profiler_note)
    store::for_each_transfer_note(db, run_id, [&](const store::TransferNoteRow& n) {
      in.host_syncs.transfer_notes.push_back(
          {n.source_id, n.line, std::string(n.metric), n.count, n.steps});
    });
  if (tables.xla_execution_group)
    store::for_each_value_read_execution(db, run_id, [&](const store::ValueReadExecutionRow& e) {
      in.value_read_executions.push_back(
          {e.source_id, e.first_line, std::string(e.graph_hash), parse_frames(e.frames_json)});
    });
}

void load_step_times(store::Database& db, int64_t run_id, std::vector<StepTimeRecord>& out) {
  store::for_each_step_duration(db, run_id, [&](const store::StepDurationRow& t) {
    out.push_back({t.step, t.wall_ms, t.compile_ms});
  });
}

}  // namespace

XlaRunInputs load_xla_run(store::Database& db, int64_t run_id,
                          const std::vector<std::pair<int64_t, std::string>>& source_names,
                          const store::RunTables& tables) {
  XlaRunInputs in;
  in.source_names = source_names;
  const StepCounts steps = load_step_counts(db, run_id, tables);
  in.steps_seen = steps.most();
  if (tables.xla_block) load_compile_blocks(db, run_id, steps, in.blocks);
  // VLOG compiles stand in for Compilation Analysis blocks only where there are none: with both
  // switched on, each compile would be counted twice.
  if (in.blocks.empty() && tables.xla_vlog) load_vlog_compiles(db, run_id, in.blocks);
  // Without blocks no source is a copy, and the sources' names are not read.
  if (!in.blocks.empty())
    in.copied_sources = find_copied_xla_sources(in.blocks, load_source_names(db, run_id));
  drop_aliased_blocks(in.blocks, in.copied_sources);
  std::set<int64_t> copies;
  for (const SourceAlias& a : in.copied_sources) copies.insert(a.source_id);
  load_jax_records(db, run_id, tables, in);
  load_link_targets(db, run_id, tables, in);
  load_metric_samples(db, run_id, source_names, tables, in);
  load_value_read_evidence(db, run_id, tables, in);
  if (tables.step_timing) load_step_times(db, run_id, in.step_times);
  if (tables.hlo_module) in.hlo_programs = load_hlo_programs(db, run_id);
  in.describe_op_attributes = store_op_attribute_describer(db);
  // Without execute groups no execution count has a program to count for.
  if (tables.xla_execution_group) load_execution_spans(db, run_id, copies, in.executions_by_hash);
  return in;
}

}  // namespace rcf::analysis
