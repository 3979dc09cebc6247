#include "analysis/restart_proof.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <set>

#include "store/store.h"
#include "util/base_name.h"
#include "util/error.h"

namespace rcf::analysis {

// ---------------------------------------------------------------------------------------------
// Facts.

double MetricsFact::get(const std::string& name, const std::string& field) const {
  auto it = values.find(name + "." + field);
  return it == values.end() ? 0 : it->second;
}

bool MetricsFact::has(const std::string& name) const {
  auto it = values.lower_bound(name + ".");
  return it != values.end() && it->first.rfind(name + ".", 0) == 0;
}

std::optional<double> RunFigures::startup_ms() const {
  if (!compile_ms) return std::nullopt;
  return compile_ms->value + (load_ms ? load_ms->value : 0);
}

std::string duration_text(double ms) {
  if (ms <= 0) return "0s";
  if (ms < 1000) return fmt::format("{:.0f}ms", ms);
  if (ms < 60000) return fmt::format("{:.1f}s", ms / 1000);
  auto total = static_cast<int64_t>(std::floor(ms / 1000));
  int64_t h = total / 3600, m = total % 3600 / 60, s = total % 60;
  if (h > 0) return fmt::format("{}h{:02d}m{:02d}s", h, m, s);
  return fmt::format("{}m{:02d}s", m, s);
}

namespace {

const char* lines_word(int64_t n) {
  return n == 1 ? "line" : "lines";
}

std::string where_of(const std::string& source, int64_t line) {
  return fmt::format("{}:{}", source, line);
}

std::string metrics_where(const MetricsFact& m) {
  return m.step ? fmt::format("{} (last report, step {})", m.source, *m.step)
                : fmt::format("{} (last report)", m.source);
}

std::string join(const std::vector<std::string>& parts, const char* sep) {
  std::string out;
  for (const auto& p : parts) out += (out.empty() ? "" : sep) + p;
  return out;
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
  auto names = [](const std::set<std::string>& s) {
    return join(std::vector<std::string>(s.begin(), s.end()), ", ");
  };
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
  return join(parts, "; ");
}

}  // namespace

RunFigures derive_run_figures(const RunRestartFacts& f) {
  RunFigures r;
  std::set<size_t> loads = jax_loads(f);
  size_t jax_load_count = loads.size();
  size_t dynamo_hits = 0;
  for (size_t i = 0; i < f.compiles.size(); ++i)
    if (f.compiles[i].kind.rfind("dynamo", 0) == 0 && f.compiles[i].cache == "hit") {
      loads.insert(i);
      ++dynamo_hits;
    }
  for (size_t i = 0; i < f.compiles.size(); ++i) {
    if (loads.count(i)) continue;
    const CompileFact& c = f.compiles[i];
    r.builds.push_back({c.program_key, c.site, c.step, c.compile_ms, c.graph_inputs, c.jax_function,
                        where_of(c.source, c.line)});
  }
  const bool compile_log = !f.debug_logs.empty() || !f.compiles.empty();
  const int64_t jax_misses = count_events(f, "miss"), jax_hits = count_events(f, "hit");
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
                           join({sources.begin(), sources.end()}, ", "))};
  } else if (compile_log) {
    r.programs_built = Figure{static_cast<double>(r.builds.size()),
                              build_evidence(f, jax_load_count, dynamo_hits)};
  }

  // Metrics: lifetime totals of the last report; an absent name is zero.
  if (f.metrics) {
    const MetricsFact& m = *f.metrics;
    const char* compile_metric =
        !m.has("CompileTime") && m.has("XrtCompile") ? "XrtCompile" : "CompileTime";
    double samples = m.get(compile_metric, "TotalSamples");
    std::string where = metrics_where(m);
    Figure metric_count{
        samples, fmt::format("{} TotalSamples {:.0f} in {}", compile_metric, samples, where)};
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
    r.programs_loaded = Figure{m.get("PersistentCacheHit", "Value"),
                               fmt::format("PersistentCacheHit in {}", where)};
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

  // JAX persistent-cache lines.
  if (!f.jax_cache.empty()) {
    std::set<std::string> sources;
    for (const auto& e : f.jax_cache) sources.insert(e.source);
    std::string in = join({sources.begin(), sources.end()}, ", ");
    auto add = [](std::optional<Figure>& fig, double n, const std::string& evidence) {
      if (!fig) fig = Figure{0, ""};
      fig->value += n;
      fig->evidence += (fig->evidence.empty() ? "" : "; ") + evidence;
    };
    add(r.programs_loaded, jax_hits,
        fmt::format("{} `Persistent compilation cache hit` {} in {}", jax_hits,
                    lines_word(jax_hits), in));
    add(r.cache_misses, jax_misses,
        fmt::format("{} `PERSISTENT COMPILATION CACHE MISS` {} in {}", jax_misses,
                    lines_word(jax_misses), in));
    int64_t writes = count_events(f, "write");
    r.cache_writes = Figure{static_cast<double>(writes),
                            fmt::format("{} `Writing ... to persistent compilation cache` {} in {}",
                                        writes, lines_word(writes), in)};
    r.activity += static_cast<int64_t>(f.jax_cache.size());
  }
  if (dynamo_hits > 0 && !f.metrics && f.jax_cache.empty())
    r.programs_loaded = Figure{static_cast<double>(dynamo_hits),
                               "Dynamo compiles whose FX graph cache outcome is hit"};

  // Times from the compile records when no metrics report gives them.
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
  if (f.timing && f.timing->first_step_ms)
    r.first_step_ms =
        Figure{*f.timing->first_step_ms,
               fmt::format("wall time of step {} in {}", f.timing->first_step, f.timing->source)};
  r.activity +=
      f.xla_executions + (f.timing ? f.timing->steps : 0) + static_cast<int64_t>(f.compiles.size());
  return r;
}

const char* restart_verdict_name(RestartVerdict verdict) {
  switch (verdict) {
    case RestartVerdict::kProven:
      return "proven";
    case RestartVerdict::kCacheWrittenNotRead:
      return "not_proven_cache_unread";
    case RestartVerdict::kPartial:
      return "partial";
    case RestartVerdict::kInsufficientEvidence:
      return "insufficient_evidence";
  }
  return "insufficient_evidence";
}

const char* rebuild_kind_name(RebuildKind kind) {
  switch (kind) {
    case RebuildKind::kSameProgram:
      return "same_program";
    case RebuildKind::kKeyChanged:
      return "key_changed";
    case RebuildKind::kNewSite:
      return "new_site";
  }
  return "same_program";
}

namespace {

bool uses_jax(const RunRestartFacts& f) {
  return std::find(f.formats.begin(), f.formats.end(), "jax_log") != f.formats.end();
}
bool uses_torch_xla(const RunRestartFacts& f) {
  for (const char* fmt_name : {"pt_xla_debug", "xla_metrics", "xla_saved_graph", "hlo_text"})
    if (std::find(f.formats.begin(), f.formats.end(), fmt_name) != f.formats.end()) return true;
  return false;
}
bool uses_dynamo(const RunRestartFacts& f) {
  for (const char* fmt_name : {"torch_trace", "dynamo_text"})
    if (std::find(f.formats.begin(), f.formats.end(), fmt_name) != f.formats.end()) return true;
  return false;
}

constexpr const char* kEnableTorchXlaCompiles =
    "torch_xla: PT_XLA_DEBUG_LEVEL=1 (one Compilation Analysis block per real compile; level 2 "
    "also logs every execution) and XLA_METRICS_FILE=<file> (CompileTime, PersistentCacheHit / "
    "Miss / DeserializeFailure and PersistentCacheLoad per step)";
constexpr const char* kEnableJax =
    "JAX: jax_log_compiles=True (JAX_LOG_COMPILES=1) for compile records and persistent-cache "
    "hits, jax_explain_cache_misses=True (JAX_EXPLAIN_CACHE_MISSES=1) for cache misses and writes";
constexpr const char* kEnableDynamo =
    "torch.compile: TORCH_TRACE=<dir> (compilation_metrics with durations and FX graph cache "
    "hits/misses)";
constexpr const char* kEnableTimes =
    "times: XLA_METRICS_FILE (CompileTime and PersistentCacheLoad accumulators) or step timings "
    "(a CSV/JSONL of step wall times, or rcf ingest --step-pattern on the training log)";

void add_compile_advice(const RunRestartFacts& cold, const RunRestartFacts& warm,
                        std::vector<std::string>& out) {
  bool jax = uses_jax(cold) || uses_jax(warm);
  bool xla = uses_torch_xla(cold) || uses_torch_xla(warm);
  bool dynamo = uses_dynamo(cold) || uses_dynamo(warm);
  if (xla || (!jax && !dynamo)) out.push_back(kEnableTorchXlaCompiles);
  if (jax || (!xla && !dynamo)) out.push_back(kEnableJax);
  if (dynamo) out.push_back(kEnableDynamo);
}

std::string percent_change(double from, double to) {
  if (from <= 0) return "";
  double pct = (to - from) / from * 100;
  if (std::abs(pct) < 9.95) return fmt::format(" ({}{:.1f}%)", pct >= 0 ? "+" : "", pct);
  return fmt::format(" ({}{:.0f}%)", pct >= 0 ? "+" : "", pct);
}

std::string figure_pair(const std::optional<Figure>& cold, const std::optional<Figure>& warm,
                        bool duration) {
  auto text = [&](const std::optional<Figure>& f) {
    if (!f) return std::string("?");
    return duration ? duration_text(f->value) : fmt::format("{:.0f}", f->value);
  };
  return text(cold) + " -> " + text(warm);
}

void add_finding(std::vector<Finding>& out, const char* what, const std::optional<Figure>& cold,
                 const std::optional<Figure>& warm, bool duration) {
  if (!cold && !warm) return;
  Finding f;
  f.what = what;
  f.text = figure_pair(cold, warm, duration);
  if (duration && cold && warm) f.text += percent_change(cold->value, warm->value);
  f.cold_evidence = cold ? cold->evidence : "not in the logs";
  f.warm_evidence = warm ? warm->evidence : "not in the logs";
  out.push_back(std::move(f));
}

// JAX: what the cache lines say about a function that the warm run compiled again.
// The last persistent-cache line of each kind per function of a run.
struct FunctionCacheLines {
  const JaxCacheFact *write = nullptr, *skip = nullptr, *miss = nullptr;
};
using CacheLinesByFunction = std::map<std::string, FunctionCacheLines>;

CacheLinesByFunction cache_lines_by_function(const RunRestartFacts& f) {
  CacheLinesByFunction out;
  for (const auto& e : f.jax_cache) {
    FunctionCacheLines& l = out[e.function];
    if (e.event == "write") l.write = &e;
    if (e.event == "skip") l.skip = &e;
    if (e.event == "miss") l.miss = &e;
  }
  return out;
}

FunctionCacheLines lines_of(const CacheLinesByFunction& index, const std::string& function) {
  auto it = index.find(function);
  return it == index.end() ? FunctionCacheLines{} : it->second;
}

std::string jax_rebuild_why(const RunRestartFacts& cold, const RunRestartFacts& warm,
                            const CacheLinesByFunction& cold_lines,
                            const CacheLinesByFunction& warm_lines, const std::string& function) {
  FunctionCacheLines c = lines_of(cold_lines, function), w = lines_of(warm_lines, function);
  const JaxCacheFact *cold_write = c.write, *cold_skip = c.skip, *warm_miss = w.miss,
                     *warm_skip = w.skip;
  if (cold_skip && !cold_write)
    return fmt::format(
        "the cold run did not write it to the persistent cache ({}{}): below "
        "jax_persistent_cache_min_compile_time_secs or another write condition, so every run "
        "compiles it",
        cold_skip->seconds ? fmt::format("compile took {:.2f}s, ", *cold_skip->seconds) : "",
        where_of(cold_skip->source, cold_skip->line));
  if (cold_write && warm_miss && !cold_write->key.empty() && cold_write->key == warm_miss->key)
    return fmt::format(
        "the cold run wrote key '{}' ({}) but the warm lookup missed it ({}): the entry is gone "
        "(cache directory cleared or evicted, or another jax_compilation_cache_dir)",
        cold_write->key, where_of(cold_write->source, cold_write->line),
        where_of(warm_miss->source, warm_miss->line));
  if (cold_write && warm_miss && !warm_miss->key.empty() && cold_write->key != warm_miss->key)
    return fmt::format(
        "the persistent-cache key changed: cold wrote '{}', warm looked up '{}' ({}): the "
        "compile options, jax/jaxlib version or XLA flags differ",
        cold_write->key, warm_miss->key, where_of(warm_miss->source, warm_miss->line));
  if (warm_skip && !cold_write)
    return "not written by either run (see the `Not writing persistent cache entry` lines)";
  if (cold.jax_cache.empty() && warm.jax_cache.empty())
    return "no persistent-cache lines in either run: the cache is off (jax_compilation_cache_dir "
           "unset) or its lines were not logged (jax_explain_cache_misses)";
  return "the cold run built the same program and the warm run compiled it again";
}

std::string xla_same_program_why(const RunFigures& warm) {
  if (warm.deserialize_failures && warm.deserialize_failures->value > 0)
    return fmt::format(
        "the cold run built the same graph; the warm run found its cache entry but could not "
        "deserialize it (PersistentCacheDeserializeFailure {:.0f}) and compiled again",
        warm.deserialize_failures->value);
  if (warm.cache_misses && warm.cache_misses->value > 0)
    return fmt::format(
        "the cold run built the same graph; the warm lookup missed (PersistentCacheMiss {:.0f}): "
        "no entry on disk (another XLA_PERSISTENT_CACHE_PATH, a read-only or crashed cold run, "
        "or a cleared cache)",
        warm.cache_misses->value);
  if (warm.cache_misses)  // counters printed, none about the persistent cache
    return "the cold run built the same graph; no persistent-cache counter in the warm run: the "
           "cache is not enabled (torch_xla.runtime.initialize_cache or "
           "XLA_PERSISTENT_CACHE_PATH)";
  return "the cold run built the same graph and the warm run compiled it again";
}

std::vector<RebuiltProgram> classify_rebuilds(const RunRestartFacts& cold,
                                              const RunRestartFacts& warm, const RunFigures& c,
                                              const RunFigures& w) {
  std::set<std::string> cold_keys;
  std::map<std::string, std::vector<const ProgramBuild*>> cold_by_site;
  for (const auto& b : c.builds) {
    cold_keys.insert(b.program_key);
    cold_by_site[b.site].push_back(&b);
  }
  std::set<std::string> warm_keys;
  for (const auto& b : w.builds) warm_keys.insert(b.program_key);
  const CacheLinesByFunction cold_lines = cache_lines_by_function(cold),
                             warm_lines = cache_lines_by_function(warm);
  std::vector<RebuiltProgram> out;
  for (const auto& b : w.builds) {
    RebuiltProgram r;
    r.build = b;
    bool jax = !b.jax_function.empty();
    if (cold_keys.count(b.program_key)) {
      r.kind = RebuildKind::kSameProgram;
      r.why = jax ? jax_rebuild_why(cold, warm, cold_lines, warm_lines, b.jax_function)
                  : xla_same_program_why(w);
    } else if (auto it = cold_by_site.find(b.site); it != cold_by_site.end()) {
      r.kind = RebuildKind::kKeyChanged;
      // The cold program it replaces: the one at the same step whose key the warm run did not
      // build, else the last one at the site.
      const ProgramBuild* prev = it->second.back();
      for (size_t i = 0; b.step && i < it->second.size(); ++i)
        if (const ProgramBuild* p = it->second[i];
            p->step && *p->step == *b.step && !warm_keys.count(p->program_key)) {
          prev = p;
          break;
        }
      r.cold_program_key = prev->program_key;
      r.why =
          fmt::format("graph key changed at this site: the cold run built {}{}, the warm run {}",
                      prev->program_key, prev->step ? fmt::format(" (step {})", *prev->step) : "",
                      b.program_key);
      if (prev->graph_inputs && b.graph_inputs && *prev->graph_inputs != *b.graph_inputs)
        r.why += fmt::format(
            "; graph inputs {} -> {}: the set of inputs changed (an optional "
            "batch key, a new buffer)",
            *prev->graph_inputs, *b.graph_inputs);
      else if (prev->graph_inputs && b.graph_inputs)
        r.why += fmt::format(
            "; same number of graph inputs ({}): a changed shape, dtype or baked-in constant, "
            "which the two programs' HLO decides (XLA_SAVE_TENSORS_FMT=hlo or --xla_dump_to)",
            *b.graph_inputs);
      else if (jax)
        r.why += ": the argument signature or the traced code changed";
    } else {
      r.kind = RebuildKind::kNewSite;
      r.why = "the cold run built no program at this site: a code path it did not reach";
    }
    out.push_back(std::move(r));
  }
  return out;
}

// A rebuild that no cache could have avoided: the cold run chose not to write the entry (JAX's
// minimum compile time). It does not count against the proof.
bool uncacheable(const CacheLinesByFunction& cold_lines, const RebuiltProgram& r) {
  if (r.kind != RebuildKind::kSameProgram || r.build.jax_function.empty()) return false;
  FunctionCacheLines l = lines_of(cold_lines, r.build.jax_function);
  return l.skip && !l.write;
}

}  // namespace

RestartProof decide_restart(const RunRestartFacts& cold, const RunRestartFacts& warm) {
  RestartProof p;
  p.cold = derive_run_figures(cold);
  p.warm = derive_run_figures(warm);
  const RunFigures& c = p.cold;
  const RunFigures& w = p.warm;

  add_finding(p.findings, "programs built", c.programs_built, w.programs_built, false);
  add_finding(p.findings, "programs loaded from the persistent cache", c.programs_loaded,
              w.programs_loaded, false);
  if ((c.cache_misses && c.cache_misses->value > 0) ||
      (w.cache_misses && w.cache_misses->value > 0))
    add_finding(p.findings, "persistent-cache misses", c.cache_misses, w.cache_misses, false);
  if ((c.deserialize_failures && c.deserialize_failures->value > 0) ||
      (w.deserialize_failures && w.deserialize_failures->value > 0))
    add_finding(p.findings, "persistent-cache deserialize failures", c.deserialize_failures,
                w.deserialize_failures, false);
  if (c.cache_writes || w.cache_writes)
    add_finding(p.findings, "persistent-cache writes", c.cache_writes, w.cache_writes, false);
  add_finding(p.findings, "compile time", c.compile_ms, w.compile_ms, true);
  if ((c.load_ms && c.load_ms->value > 0) || (w.load_ms && w.load_ms->value > 0))
    add_finding(p.findings, "cache-load time", c.load_ms, w.load_ms, true);
  add_finding(p.findings, "first step", c.first_step_ms, w.first_step_ms, true);
  for (const auto& n : c.notes) p.findings.push_back({"cold run", n, "", ""});
  for (const auto& n : w.notes) p.findings.push_back({"warm run", n, "", ""});

  auto insufficient = [&](std::string why) {
    p.verdict = RestartVerdict::kInsufficientEvidence;
    p.headline = "insufficient evidence: " + why;
  };
  if (!c.programs_built || !w.programs_built) {
    const char* which = !c.programs_built && !w.programs_built ? "neither run's"
                        : !c.programs_built                    ? "the cold run's"
                                                               : "the warm run's";
    insufficient(fmt::format(
        "{} logs show which programs were compiled; without that no restart can be proven{}", which,
        c.first_step_ms && w.first_step_ms
            ? fmt::format(" (the first step went {} -> {}, which a faster data pipeline or "
                          "smaller batch explains as well)",
                          duration_text(c.first_step_ms->value),
                          duration_text(w.first_step_ms->value))
            : ""));
    add_compile_advice(cold, warm, p.to_enable);
    return p;
  }
  const double cb = c.programs_built->value, wb = w.programs_built->value;
  p.rebuilt = classify_rebuilds(cold, warm, c, w);
  if (cb == 0) {
    insufficient(
        "the cold run built no program, so there is nothing to compare: it was not cold (the "
        "cache directory already held its programs) or its compiles were not logged; run the "
        "cold run with an empty cache directory");
    return p;
  }
  if (wb == 0 && w.activity == 0) {
    insufficient(
        "the warm run shows no compile and also no execution, step or cache line: it may have "
        "stopped before its first step");
    p.to_enable.push_back(
        "torch_xla: PT_XLA_DEBUG_LEVEL=2 (every execution is logged, cache hits included) or "
        "step timings, to show that the warm run ran");
    return p;
  }

  int64_t uncacheable_rebuilds = 0;
  const CacheLinesByFunction cold_lines = cache_lines_by_function(cold);
  for (const auto& r : p.rebuilt) uncacheable_rebuilds += uncacheable(cold_lines, r);
  const double counted = wb - static_cast<double>(uncacheable_rebuilds);
  const bool almost_none = counted <= cb * kAlmostNoProgramsShare;
  std::string built_text = fmt::format("{:.0f} -> {:.0f} programs built", cb, wb);
  if (uncacheable_rebuilds)
    built_text += fmt::format(" ({} not cacheable: the cold run did not write {})",
                              uncacheable_rebuilds, uncacheable_rebuilds == 1 ? "it" : "them");
  std::string hits_text = w.programs_loaded
                              ? fmt::format("{:.0f} persistent-cache {}", w.programs_loaded->value,
                                            w.programs_loaded->value == 1 ? "hit" : "hits")
                              : std::string("persistent-cache hits not in the logs");

  // Time: startup (compile + cache load) when both runs give it, else the first step.
  std::optional<double> cold_ms, warm_ms;
  std::string time_text;
  if (c.startup_ms() && w.startup_ms() && *c.startup_ms() > 0) {
    cold_ms = c.startup_ms();
    warm_ms = w.startup_ms();
    bool loads = w.load_ms && w.load_ms->value > 0;
    time_text = fmt::format("{} {} -> {}", loads ? "compile + cache-load time" : "compile time",
                            duration_text(*cold_ms), duration_text(*warm_ms));
    if (loads)
      time_text += fmt::format(" (warm: {} compiling, {} loading)",
                               duration_text(w.compile_ms->value), duration_text(w.load_ms->value));
  } else if (c.first_step_ms && w.first_step_ms && c.first_step_ms->value > 0) {
    cold_ms = c.first_step_ms->value;
    warm_ms = w.first_step_ms->value;
    time_text =
        fmt::format("first step {} -> {}", duration_text(*cold_ms), duration_text(*warm_ms));
  }

  if (almost_none) {
    if (!cold_ms) {
      insufficient(fmt::format(
          "{} and {}, but neither a compile time nor a first-step time is in both runs' logs to "
          "show that the restart got faster",
          built_text, hits_text));
      p.to_enable.push_back(kEnableTimes);
      return p;
    }
    if (*warm_ms <= *cold_ms * kTimeDroppedShare) {
      p.verdict = RestartVerdict::kProven;
      p.headline = fmt::format("proven: the warm run reused the compiled programs: {}; {}; {}",
                               time_text, built_text, hits_text);
      return p;
    }
    p.verdict = RestartVerdict::kPartial;
    p.headline = fmt::format(
        "partial: the warm run rebuilt almost nothing ({}; {}) but did not start faster: {}{}",
        built_text, hits_text, time_text,
        w.load_ms && w.load_ms->value > 0
            ? "; loading from the cache costs about as much as compiling (a slow or remote cache "
              "directory?)"
            : "");
    return p;
  }

  int64_t same = 0, changed = 0, fresh = 0;
  for (const auto& r : p.rebuilt) {
    same += r.kind == RebuildKind::kSameProgram;
    changed += r.kind == RebuildKind::kKeyChanged;
    fresh += r.kind == RebuildKind::kNewSite;
  }
  const bool nothing_loaded = !w.programs_loaded || w.programs_loaded->value == 0;
  if (same > 0 && same * 2 >= static_cast<int64_t>(p.rebuilt.size()) && nothing_loaded) {
    p.verdict = RestartVerdict::kCacheWrittenNotRead;
    bool written = (c.cache_misses && c.cache_misses->value > 0) ||
                   (c.cache_writes && c.cache_writes->value > 0);
    std::string head =
        written ? "not proven: cache written but not read" : "not proven: the cache was not read";
    p.headline = fmt::format(
        "{}: the warm run rebuilt {} of the cold run's {:.0f} programs with the same keys; {}; "
        "{}",
        head, same, cb, hits_text,
        time_text.empty() ? std::string("no time figure in the logs") : time_text);
    if (w.deserialize_failures && w.deserialize_failures->value > 0)
      p.headline += fmt::format(
          "; {:.0f} entries were found but failed to deserialize (PersistentCacheDeserialize"
          "Failure): the executable-cache load path is broken in this stack (pytorch/xla#9094)",
          w.deserialize_failures->value);
    if (written)
      p.findings.insert(
          p.findings.begin(),
          {"cache written",
           c.cache_writes && c.cache_writes->value > 0
               ? fmt::format("the cold run wrote {:.0f} entries", c.cache_writes->value)
               : fmt::format("the cold run missed {:.0f} times and wrote an entry after each "
                             "miss (torch_xla writes unless the cache is read-only)",
                             c.cache_misses->value),
           c.cache_writes && c.cache_writes->value > 0 ? c.cache_writes->evidence
                                                       : c.cache_misses->evidence,
           ""});
    else
      p.to_enable.push_back(
          "persistent-cache counters (XLA_METRICS_FILE for torch_xla, jax_explain_cache_misses "
          "for JAX) to show whether the cold run wrote the cache");
    return p;
  }

  p.verdict = RestartVerdict::kPartial;
  std::vector<std::string> kinds;
  if (changed) kinds.push_back(fmt::format("{} with a changed graph key", changed));
  if (same) kinds.push_back(fmt::format("{} same program not loaded", same));
  if (fresh) kinds.push_back(fmt::format("{} at a site the cold run never compiled", fresh));
  p.headline = fmt::format("partial: {}; {}: {}{}", built_text, hits_text, join(kinds, ", "),
                           time_text.empty() ? "" : "; " + time_text);
  if (same == 0 && fresh == 0 && nothing_loaded && changed >= cb * 0.5)
    p.findings.insert(
        p.findings.begin(),
        {"graph keys",
         "every rebuilt program has a new key at a site the cold run compiled: the compile "
         "environment changed between the runs (torch / torch_xla / libtpu version, XLA_FLAGS, "
         "LIBTPU_INIT_ARGS, XLA_HLO_DEBUG / XLA_IR_DEBUG all enter the graph hash)",
         "", ""});
  return p;
}

// ---------------------------------------------------------------------------------------------
// Database side.

namespace {

struct RunRow {
  int64_t run_id;
  std::string lane, run;
};

std::vector<RunRow> runs_named(store::Database& db, const std::string& lane,
                               const std::string& run) {
  auto st = db.prepare(
      "SELECT run_id, lane, run FROM run_table WHERE run = ?1 AND (?2 = '' OR lane = ?2) "
      "ORDER BY lane");
  st.bind(1, run).bind(2, lane);
  std::vector<RunRow> rows;
  while (st.step()) rows.push_back({st.int64(0), st.str(1), st.str(2)});
  return rows;
}

std::string runs_of_lane(store::Database& db, const std::string& lane) {
  auto st = db.prepare("SELECT run FROM run_table WHERE lane = ? ORDER BY run");
  st.bind(1, lane);
  std::vector<std::string> names;
  while (st.step()) names.push_back("'" + st.str(0) + "'");
  return join(names, ", ");
}

}  // namespace

RestartRuns resolve_restart_runs(store::Database& db, const std::string& lane,
                                 const std::string& cold_run, const std::string& warm_run) {
  if (!lane.empty()) {
    auto st = db.prepare("SELECT count(*) FROM run_table WHERE lane = ?");
    st.bind(1, lane);
    if (!st.step() || st.int64(0) == 0) {
      auto lanes = db.prepare("SELECT DISTINCT lane FROM run_table ORDER BY lane");
      std::vector<std::string> names;
      while (lanes.step()) names.push_back("'" + lanes.str(0) + "'");
      throw Error(fmt::format("no lane named '{}' in {} (lanes: {})", lane, db.path(),
                              names.empty() ? "none" : join(names, ", ")));
    }
  }
  auto find = [&](const std::string& label, const char* role) {
    auto rows = runs_named(db, lane, label);
    if (rows.empty())
      throw Error(
          lane.empty()
              ? fmt::format("no run named '{}' in {} (the --{} run)", label, db.path(), role)
              : fmt::format("lane '{}' has no run named '{}' (the --{} run; its runs: {})", lane,
                            label, role, runs_of_lane(db, lane)));
    if (rows.size() > 1) {
      std::vector<std::string> lanes;
      for (const auto& r : rows) lanes.push_back("'" + r.lane + "'");
      throw Error(fmt::format("run '{}' exists in lanes {}: choose one with --lane", label,
                              join(lanes, ", ")));
    }
    return rows.front();
  };
  RunRow cold = find(cold_run, "cold");
  RunRow warm = find(warm_run, "warm");
  if (cold.lane != warm.lane)
    throw Error(fmt::format(
        "the cold run '{}' is in lane '{}' and the warm run '{}' in lane '{}': a restart proof "
        "compares two runs of the same lane",
        cold.run, cold.lane, warm.run, warm.lane));
  if (cold.run_id == warm.run_id)
    throw Error(fmt::format("--cold and --warm name the same run ('{}' of lane '{}')", cold.run,
                            cold.lane));
  return {cold.run_id, warm.run_id, cold.lane};
}

RunRestartFacts load_restart_facts(store::Database& db, int64_t run_id) {
  RunRestartFacts f;
  f.run_id = run_id;
  auto run = db.prepare("SELECT lane, run FROM run_table WHERE run_id = ?");
  run.bind(1, run_id);
  if (!run.step()) throw Error(fmt::format("no run with id {} in {}", run_id, db.path()));
  f.lane = run.str(0);
  f.run = run.str(1);

  std::map<int64_t, std::string> source_name;
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
    m.source = join(metric_sources, ", ");
    m.step = last_step;
    auto values = db.prepare(fmt::format(
        "SELECT m.source_id, n.text, m.field, m.value FROM metric_sample m "
        "JOIN strings n ON n.string_id = m.name_sid WHERE m.run_id = ? AND n.text IN "
        "('CompileTime', 'XrtCompile', 'UncachedCompile', 'CachedCompile', 'PersistentCacheHit', "
        "'PersistentCacheMiss', 'PersistentCacheDeserializeFailure', 'PersistentCacheLoad', "
        "'MarkStep') AND {} ORDER BY m.source_id, m.report_index, m.line",
        store::kMetricFieldsTerm));
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
  return f;
}

}  // namespace rcf::analysis
