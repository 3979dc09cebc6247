#include "analysis/restart_figures.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <map>
#include <set>

namespace rcf::analysis {

std::optional<double> RunFigures::startup_ms() const {
  if (!compile_ms) return std::nullopt;
  return compile_ms->value + (load_ms ? load_ms->value : 0);
}

namespace {

const char* lines_word(int64_t n) {
  return n == 1 ? "line" : "lines";
}

std::string metrics_where(const MetricsFact& m) {
  return m.step ? fmt::format("{} (last report, step {})", m.source, *m.step)
                : fmt::format("{} (last report)", m.source);
}

// JAX prints `Finished XLA compilation` for persistent-cache loads too: a hit line pairs with the
// next finish record of its function (or, in logs without finish records, with the `Compiling`
// record before it). Returns the indices of compiles that are loads.
std::set<size_t> jax_loads(const RunRestartFacts& f) {
  // Compile records per (source, function), in line order.
  std::map<std::pair<int64_t, std::string>, std::vector<size_t>> records;
  for (size_t i = 0; i < f.compiles.size(); ++i)
    if (f.compiles[i].kind == "jax")
      records[{f.compiles[i].source_id, f.compiles[i].jax_function}].push_back(i);
  for (auto& [key, v] : records)
    std::sort(v.begin(), v.end(),
              [&](size_t a, size_t b) { return f.compiles[a].line < f.compiles[b].line; });
  std::set<size_t> loads;
  for (const auto& hit : f.jax_cache) {
    if (hit.event != "hit") continue;
    auto it = records.find({hit.source_id, hit.function});
    if (it == records.end()) continue;
    std::optional<size_t> best;
    for (size_t i : it->second)  // the first finish record after the hit
      if (f.compiles[i].jax_finish_record && f.compiles[i].line > hit.line && !loads.count(i)) {
        best = i;
        break;
      }
    if (!best)
      for (size_t i : it->second)  // else the last `Compiling` record before it
        if (!f.compiles[i].jax_finish_record && f.compiles[i].line < hit.line && !loads.count(i))
          best = i;
    if (best) loads.insert(*best);
  }
  return loads;
}

int64_t count_events(const RunRestartFacts& f, const char* event) {
  return std::count_if(f.jax_cache.begin(), f.jax_cache.end(),
                       [&](const JaxCacheFact& e) { return e.event == event; });
}

// "15 PT_XLA_DEBUG Compilation Analysis blocks in pt_xla_debug.log" and the like.
std::string build_evidence(const RunRestartFacts& f, size_t jax_load_count, size_t dynamo_hits) {
  std::vector<std::string> parts;
  int64_t xla = 0, jax = 0, dynamo = 0;
  std::set<std::string> xla_sources, jax_sources, dynamo_sources;
  for (const auto& c : f.compiles) {
    if (c.kind == "xla") ++xla, xla_sources.insert(c.source);
    if (c.kind == "jax") ++jax, jax_sources.insert(c.source);
    if (c.kind.rfind("dynamo", 0) == 0) ++dynamo, dynamo_sources.insert(c.source);
  }
  auto names = [](const std::set<std::string>& s) { return fmt::format("{}", fmt::join(s, ", ")); };
  if (!f.debug_logs.empty() || xla > 0) {
    std::set<std::string> logs(f.debug_logs.begin(), f.debug_logs.end());
    logs.insert(xla_sources.begin(), xla_sources.end());
    parts.push_back(
        xla == 0 ? fmt::format("no PT_XLA_DEBUG Compilation Analysis block in {}{}", names(logs),
                               f.xla_executions > 0
                                   ? fmt::format(" ({} executions logged)", f.xla_executions)
                                   : "")
                 : fmt::format("{} PT_XLA_DEBUG Compilation Analysis {} in {}", xla,
                               xla == 1 ? "block" : "blocks", names(logs)));
  }
  if (jax > 0)
    parts.push_back(fmt::format(
        "{} JAX compile {} in {}{}", jax, jax == 1 ? "record" : "records", names(jax_sources),
        jax_load_count ? fmt::format(", {} of them persistent-cache loads (a hit line before "
                                     "the record)",
                                     jax_load_count)
                       : ""));
  if (dynamo > 0)
    parts.push_back(fmt::format(
        "{} Dynamo {} in {}{}", dynamo, dynamo == 1 ? "compile" : "compiles", names(dynamo_sources),
        dynamo_hits ? fmt::format(", {} of them FX-graph cache hits", dynamo_hits) : ""));
  return fmt::format("{}", fmt::join(parts, "; "));
}

// The compiles that are persistent-cache loads: JAX records paired with a hit line, and Dynamo
// compiles whose FX graph cache outcome is hit.
struct CacheLoads {
  std::set<size_t> compiles;  // indices into RunRestartFacts::compiles
  size_t jax = 0, dynamo = 0;
};

CacheLoads find_cache_loads(const RunRestartFacts& f) {
  CacheLoads loads;
  loads.compiles = jax_loads(f);
  loads.jax = loads.compiles.size();
  for (size_t i = 0; i < f.compiles.size(); ++i)
    if (f.compiles[i].kind.rfind("dynamo", 0) == 0 && f.compiles[i].cache == "hit") {
      loads.compiles.insert(i);
      ++loads.dynamo;
    }
  return loads;
}

// The programs built (every compile that is not a load) and their count, from the compile log,
// else from JAX cache misses.
void derive_builds(const RunRestartFacts& f, const CacheLoads& cache_loads, RunFigures& r) {
  const std::set<size_t>& loads = cache_loads.compiles;
  for (size_t i = 0; i < f.compiles.size(); ++i) {
    if (loads.count(i)) continue;
    const CompileFact& c = f.compiles[i];
    r.builds.push_back({c.program_key, c.site, c.step, c.compile_ms, c.graph_inputs, c.jax_function,
                        where_of(c.source, c.line)});
  }
  const bool compile_log = !f.debug_logs.empty() || !f.compiles.empty();
  const int64_t jax_misses = count_events(f, "miss");
  if (!compile_log && jax_misses > 0) {
    // Without jax_log_compiles a persistent-cache miss is the only trace of a compile.
    std::set<std::string> sources;
    for (const auto& e : f.jax_cache) {
      if (e.event != "miss") continue;
      r.builds.push_back({e.key.empty() ? e.function : e.key, e.function, std::nullopt,
                          std::nullopt, std::nullopt, e.function, where_of(e.source, e.line)});
      sources.insert(e.source);
    }
    r.programs_built =
        Figure{static_cast<double>(jax_misses),
               fmt::format("{} PERSISTENT COMPILATION CACHE MISS {} in {} (no compile records: a "
                           "miss is a compile)",
                           jax_misses, lines_word(jax_misses),
                           fmt::format("{}", fmt::join(sources, ", ")))};
  } else if (compile_log) {
    r.programs_built = Figure{static_cast<double>(r.builds.size()),
                              build_evidence(f, cache_loads.jax, cache_loads.dynamo)};
  }
}

// Figures from the last metrics report: lifetime totals; an absent name is zero.
void derive_metrics_figures(const MetricsFact& m, RunFigures& r) {
  const char* compile_metric =
      !m.has("CompileTime") && m.has("XrtCompile") ? "XrtCompile" : "CompileTime";
  double samples = m.get(compile_metric, "TotalSamples");
  std::string where = metrics_where(m);
  Figure metric_count{samples,
                      fmt::format("{} TotalSamples {:.0f} in {}", compile_metric, samples, where)};
  if (!r.programs_built) {
    r.programs_built = metric_count;
  } else if (samples != r.programs_built->value) {
    r.notes.push_back(fmt::format(
        "the compile log shows {:.0f} compiles, {} {:.0f}: the larger count is used{}",
        r.programs_built->value, compile_metric, samples,
        samples > r.programs_built->value
            ? " (compiles on threads without Python frames print no Compilation Analysis "
              "block)"
            : ""));
    if (samples > r.programs_built->value) {
      r.programs_built->value = samples;
      r.programs_built->evidence += "; " + metric_count.evidence;
    }
  } else {
    r.programs_built->evidence += "; " + metric_count.evidence;
  }
  r.compile_ms =
      Figure{m.get(compile_metric, "Accumulator") / 1e6,
             m.has(compile_metric) ? fmt::format("{} Accumulator in {}", compile_metric, where)
                                   : fmt::format("no {} sample in {}", compile_metric, where)};
  r.programs_loaded =
      Figure{m.get("PersistentCacheHit", "Value"), fmt::format("PersistentCacheHit in {}", where)};
  r.cache_misses = Figure{m.get("PersistentCacheMiss", "Value"),
                          fmt::format("PersistentCacheMiss in {}", where)};
  r.deserialize_failures = Figure{m.get("PersistentCacheDeserializeFailure", "Value"),
                                  fmt::format("PersistentCacheDeserializeFailure in {}", where)};
  r.load_ms = Figure{m.get("PersistentCacheLoad", "Accumulator") / 1e6,
                     m.has("PersistentCacheLoad")
                         ? fmt::format("PersistentCacheLoad Accumulator ({:.0f} samples) in {}",
                                       m.get("PersistentCacheLoad", "TotalSamples"), where)
                         : fmt::format("no PersistentCacheLoad sample in {}", where)};
  r.activity += static_cast<int64_t>(m.get("MarkStep", "Value"));
}

// Figures from the JAX persistent-cache lines, added to those of the metrics.
void derive_jax_cache_figures(const RunRestartFacts& f, RunFigures& r) {
  const int64_t jax_misses = count_events(f, "miss"), jax_hits = count_events(f, "hit");
  std::set<std::string> sources;
  for (const auto& e : f.jax_cache) sources.insert(e.source);
  std::string in = fmt::format("{}", fmt::join(sources, ", "));
  auto add = [](std::optional<Figure>& fig, double n, const std::string& evidence) {
    if (!fig) fig = Figure{0, ""};
    fig->value += n;
    fig->evidence += (fig->evidence.empty() ? "" : "; ") + evidence;
  };
  add(r.programs_loaded, jax_hits,
      fmt::format("{} `Persistent compilation cache hit` {} in {}", jax_hits, lines_word(jax_hits),
                  in));
  add(r.cache_misses, jax_misses,
      fmt::format("{} `PERSISTENT COMPILATION CACHE MISS` {} in {}", jax_misses,
                  lines_word(jax_misses), in));
  int64_t writes = count_events(f, "write");
  r.cache_writes = Figure{static_cast<double>(writes),
                          fmt::format("{} `Writing ... to persistent compilation cache` {} in {}",
                                      writes, lines_word(writes), in)};
  r.activity += static_cast<int64_t>(f.jax_cache.size());
}

// Times from the compile records (and step timings) when no metrics report gives them.
void derive_times(const RunRestartFacts& f, const std::set<size_t>& loads, RunFigures& r) {
  if (!r.compile_ms) {
    double sum = 0;
    size_t timed = 0;
    for (const auto& b : r.builds)
      if (b.compile_ms) sum += *b.compile_ms, ++timed;
    if (!r.builds.empty() && timed == r.builds.size())
      r.compile_ms = Figure{sum, fmt::format("sum of the compile times of the {} built {} in the "
                                             "compile records",
                                             timed, timed == 1 ? "program" : "programs")};
    else if (f.timing && f.timing->compile_ms)
      r.compile_ms = Figure{*f.timing->compile_ms,
                            fmt::format("sum of the compile column of {}", f.timing->source)};
    else if (r.programs_built && r.programs_built->value == 0 && r.builds.empty())
      r.compile_ms = Figure{0, "no program built"};
    else if (timed > 0)
      r.notes.push_back(
          fmt::format("only {} of {} built programs have a compile time", timed, r.builds.size()));
  }
  if (!r.load_ms) {
    double sum = 0;
    size_t timed = 0;
    for (size_t i : loads)
      if (f.compiles[i].compile_ms) sum += *f.compiles[i].compile_ms, ++timed;
    if (!loads.empty() && timed == loads.size())
      r.load_ms = Figure{sum, fmt::format("sum of the times of the {} cache-loaded {} in the "
                                          "compile records",
                                          timed, timed == 1 ? "program" : "programs")};
    else if (r.programs_loaded && r.programs_loaded->value == 0)
      r.load_ms = Figure{0, "no program loaded from the cache"};
  }
}

}  // namespace

RunFigures derive_run_figures(const RunRestartFacts& f) {
  RunFigures r;
  const CacheLoads loads = find_cache_loads(f);
  derive_builds(f, loads, r);
  if (f.metrics) derive_metrics_figures(*f.metrics, r);
  if (!f.jax_cache.empty()) derive_jax_cache_figures(f, r);
  if (loads.dynamo > 0 && !f.metrics && f.jax_cache.empty())
    r.programs_loaded = Figure{static_cast<double>(loads.dynamo),
                               "Dynamo compiles whose FX graph cache outcome is hit"};
  derive_times(f, loads.compiles, r);
  if (f.timing && f.timing->first_step_ms)
    r.first_step_ms =
        Figure{*f.timing->first_step_ms,
               fmt::format("wall time of step {} in {}", f.timing->first_step, f.timing->source)};
  r.activity +=
      f.xla_executions + (f.timing ? f.timing->steps : 0) + static_cast<int64_t>(f.compiles.size());
  return r;
}

std::string where_of(const std::string& source, int64_t line) {
  return fmt::format("{}:{}", source, line);
}

}  // namespace rcf::analysis
