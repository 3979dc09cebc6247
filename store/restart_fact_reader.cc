#include "store/restart_fact_reader.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <set>

#include "store/store.h"
#include "util/base_name.h"
#include "util/error.h"

namespace rcf::store {

double MetricsFact::get(const std::string& name, const std::string& field) const {
  auto it = values.find(name + "." + field);
  return it == values.end() ? 0 : it->second;
}

bool MetricsFact::has(const std::string& name) const {
  auto it = values.lower_bound(name + ".");
  return it != values.end() && it->first.rfind(name + ".", 0) == 0;
}

int64_t run_count_of_lane(Database& db, const std::string& lane) {
  auto st = db.prepare("SELECT count(*) FROM run_table WHERE lane = ?");
  st.bind(1, lane);
  return st.step() ? st.int64(0) : 0;
}

std::vector<RunRef> runs_labelled(Database& db, const std::string& lane, const std::string& run) {
  auto st = db.prepare(
      "SELECT run_id, lane, run FROM run_table WHERE run = ?1 AND (?2 = '' OR lane = ?2) "
      "ORDER BY lane");
  st.bind(1, run).bind(2, lane);
  std::vector<RunRef> rows;
  while (st.step()) rows.push_back({st.int64(0), st.str(1), st.str(2)});
  return rows;
}

namespace {

// source_id -> file name (no directories) for evidence texts.
using SourceNames = std::map<int64_t, std::string>;

// The run's lane and name, its sources' names and formats, and its PT_XLA_DEBUG logs.
SourceNames read_run_and_sources(Database& db, int64_t run_id, RunRestartFacts& f) {
  f.run_id = run_id;
  auto run = db.prepare("SELECT lane, run FROM run_table WHERE run_id = ?");
  run.bind(1, run_id);
  if (!run.step()) throw Error(fmt::format("no run with id {} in {}", run_id, db.path()));
  f.lane = run.str(0);
  f.run = run.str(1);

  SourceNames source_name;
  std::set<std::string> formats;
  auto sources =
      db.prepare("SELECT source_id, path, format FROM source WHERE run_id = ? ORDER BY source_id");
  sources.bind(1, run_id);
  while (sources.step()) {
    source_name[sources.int64(0)] = base_name(sources.str(1));
    formats.insert(sources.str(2));
    if (sources.text(2) == "pt_xla_debug") f.debug_logs.push_back(base_name(sources.str(1)));
  }
  f.formats.assign(formats.begin(), formats.end());
  return source_name;
}

// The compile facts, in ordinal order, with their block input counts (torch_xla) and their JAX
// record kind and function. Also counts the executions a level-2 log logged.
void read_compile_facts(Database& db, int64_t run_id, SourceNames& source_name,
                        RunRestartFacts& f) {
  // Compile blocks' input counts, and the executions a level-2 log counted (per distinct block
  // and step segment, so this stays small however long the log is).
  std::map<std::pair<int64_t, int64_t>, int64_t> block_inputs;
  auto blocks = db.prepare(
      "SELECT source_id, line, inputs FROM xla_block WHERE run_id = ? AND kind = 'compile' AND "
      "inputs IS NOT NULL");
  blocks.bind(1, run_id);
  while (blocks.step()) block_inputs[{blocks.int64(0), blocks.int64(1)}] = blocks.int64(2);
  auto executions =
      db.prepare("SELECT coalesce(sum(executions), 0) FROM xla_execution WHERE run_id = ?");
  executions.bind(1, run_id);
  if (executions.step()) f.xla_executions = executions.int64(0);

  // JAX compile records by position: whether a compile row is a `Finished XLA compilation`
  // record, and its function (one scan; a join would rescan the table per compile).
  std::map<std::pair<int64_t, int64_t>, std::pair<bool, std::string>> jax_records;
  auto jax = db.prepare(
      "SELECT j.source_id, j.line, j.phase, fn.text FROM jax_compile j "
      "JOIN strings fn ON fn.string_id = j.function_sid "
      "WHERE j.run_id = ? AND j.phase IN ('compile', 'compiling')");
  jax.bind(1, run_id);
  while (jax.step())
    jax_records[{jax.int64(0), jax.int64(1)}] = {jax.text(2) == "compile", jax.str(3)};

  auto compiles = db.prepare(
      "SELECT c.source_id, c.line, site.text, c.program_key, c.kind, c.cache, c.step, "
      "c.compile_ms FROM compile_event c "
      "JOIN strings site ON site.string_id = c.site_sid "
      "WHERE c.run_id = ? ORDER BY c.ordinal");
  compiles.bind(1, run_id);
  while (compiles.step()) {
    CompileFact c;
    c.source_id = compiles.int64(0);
    c.line = compiles.int64(1);
    c.source = source_name[c.source_id];
    c.site = compiles.str(2);
    c.program_key = compiles.str(3);
    c.kind = compiles.str(4);
    c.cache = compiles.opt_str(5).value_or("");
    c.step = compiles.opt_int64(6);
    c.compile_ms = compiles.opt_real(7);
    if (c.kind == "jax") {
      c.jax_function = c.site;
      if (auto it = jax_records.find({c.source_id, c.line}); it != jax_records.end()) {
        c.jax_finish_record = it->second.first;
        c.jax_function = it->second.second;
      }
    }
    if (auto it = block_inputs.find({c.source_id, c.line}); it != block_inputs.end())
      c.graph_inputs = it->second;
    f.compiles.push_back(std::move(c));
  }
}

void read_jax_cache_facts(Database& db, int64_t run_id, SourceNames& source_name,
                          RunRestartFacts& f) {
  auto cache = db.prepare(
      "SELECT p.source_id, p.line, p.event, k.text, fn.text, p.seconds "
      "FROM jax_persistent_cache p "
      "LEFT JOIN strings k ON k.string_id = p.key_sid "
      "LEFT JOIN strings fn ON fn.string_id = p.function_sid "
      "WHERE p.run_id = ? ORDER BY p.source_id, p.line");
  cache.bind(1, run_id);
  while (cache.step()) {
    JaxCacheFact e;
    e.source_id = cache.int64(0);
    e.line = cache.int64(1);
    e.source = source_name[e.source_id];
    e.event = cache.str(2);
    e.key = cache.opt_str(3).value_or("");
    e.function = cache.opt_str(4).value_or("");
    e.seconds = cache.opt_real(5);
    f.jax_cache.push_back(std::move(e));
  }
}

void read_metrics_fact(Database& db, int64_t run_id, SourceNames& source_name, RunRestartFacts& f) {
  // Metrics: per source, the latest value of each name/field (reports are cumulative); across
  // sources (one file per process) the largest.
  auto last_report = db.prepare(
      "SELECT source_id, max(report_index), max(step) FROM metric_sample WHERE run_id = ? "
      "GROUP BY source_id ORDER BY source_id");
  last_report.bind(1, run_id);
  std::vector<std::string> metric_sources;
  std::optional<int64_t> last_step;
  while (last_report.step()) {
    metric_sources.push_back(source_name[last_report.int64(0)]);
    if (auto s = last_report.opt_int64(2)) last_step = std::max(last_step.value_or(*s), *s);
  }
  if (!metric_sources.empty()) {
    MetricsFact m;
    m.source = fmt::format("{}", fmt::join(metric_sources, ", "));
    m.step = last_step;
    auto values = db.prepare(fmt::format(
        "SELECT m.source_id, n.text, m.field, m.value FROM metric_sample m "
        "JOIN strings n ON n.string_id = m.name_sid WHERE m.run_id = ? AND n.text IN "
        "('CompileTime', 'XrtCompile', 'UncachedCompile', 'CachedCompile', 'PersistentCacheHit', "
        "'PersistentCacheMiss', 'PersistentCacheDeserializeFailure', 'PersistentCacheLoad', "
        "'MarkStep') AND {} ORDER BY m.source_id, m.report_index, m.line",
        kMetricFieldsTerm));
    values.bind(1, run_id);
    std::map<std::pair<int64_t, std::string>, double> latest;
    while (values.step())
      latest[{values.int64(0), values.str(1) + "." + values.str(2)}] = values.real(3);
    for (const auto& [key, value] : latest) {
      auto [it, inserted] = m.values.emplace(key.second, value);
      if (!inserted) it->second = std::max(it->second, value);
    }
    f.metrics = std::move(m);
  }
}

void read_step_timing_fact(Database& db, int64_t run_id, SourceNames& source_name,
                           RunRestartFacts& f) {
  auto timing = db.prepare(
      "SELECT step, wall_ms, compile_ms, source_id FROM step_timing WHERE run_id = ? "
      "ORDER BY step, source_id, line");
  timing.bind(1, run_id);
  std::optional<int64_t> prev_step;
  while (timing.step()) {
    int64_t step = timing.int64(0);
    if (prev_step && *prev_step == step) continue;  // the first source's row per step
    prev_step = step;
    if (!f.timing) {
      f.timing = StepTimingFact{};
      f.timing->source = source_name[timing.int64(3)];
      f.timing->first_step = step;
      f.timing->first_step_ms = timing.opt_real(1);
    }
    ++f.timing->steps;
    if (auto ms = timing.opt_real(2)) f.timing->compile_ms = f.timing->compile_ms.value_or(0) + *ms;
  }
}

}  // namespace

RunRestartFacts restart_facts_of_run(Database& db, int64_t run_id) {
  RunRestartFacts f;
  SourceNames source_name = read_run_and_sources(db, run_id, f);
  read_compile_facts(db, run_id, source_name, f);
  read_jax_cache_facts(db, run_id, source_name, f);
  read_metrics_fact(db, run_id, source_name, f);
  read_step_timing_fact(db, run_id, source_name, f);
  return f;
}

}  // namespace rcf::store
