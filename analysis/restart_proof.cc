#include "analysis/restart_proof.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>

#include "util/plausible.h"

namespace rcf::analysis {

std::string duration_text(double ms) {
  // Out of range (util/plausible.h) is never wrapped into an int: 1e300 ms once read "-30m-8s".
  if (std::isnan(ms)) return "unknown";
  if (ms <= 0) return "0s";
  if (ms > util::kMaxDurationMs) return "more than a year";
  if (ms < 1000) return fmt::format("{:.0f}ms", ms);
  if (ms < 60000) return fmt::format("{:.1f}s", ms / 1000);
  auto total = static_cast<int64_t>(std::floor(ms / 1000));
  int64_t h = total / 3600, m = total % 3600 / 60, s = total % 60;
  if (h > 0) return fmt::format("{}h{:02d}m{:02d}s", h, m, s);
  return fmt::format("{}m{:02d}s", m, s);
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

void insufficient(RestartProof& p, const std::string& why) {
  p.verdict = RestartVerdict::kInsufficientEvidence;
  p.headline = "insufficient evidence: " + why;
}

// Every figure of the two runs side by side, with the notes of each run.
void add_findings(const RunFigures& c, const RunFigures& w, std::vector<Finding>& findings) {
  add_finding(findings, "programs built", c.programs_built, w.programs_built, false);
  add_finding(findings, "programs loaded from the persistent cache", c.programs_loaded,
              w.programs_loaded, false);
  if ((c.cache_misses && c.cache_misses->value > 0) ||
      (w.cache_misses && w.cache_misses->value > 0))
    add_finding(findings, "persistent-cache misses", c.cache_misses, w.cache_misses, false);
  if ((c.deserialize_failures && c.deserialize_failures->value > 0) ||
      (w.deserialize_failures && w.deserialize_failures->value > 0))
    add_finding(findings, "persistent-cache deserialize failures", c.deserialize_failures,
                w.deserialize_failures, false);
  if (c.cache_writes || w.cache_writes)
    add_finding(findings, "persistent-cache writes", c.cache_writes, w.cache_writes, false);
  add_finding(findings, "compile time", c.compile_ms, w.compile_ms, true);
  if ((c.load_ms && c.load_ms->value > 0) || (w.load_ms && w.load_ms->value > 0))
    add_finding(findings, "cache-load time", c.load_ms, w.load_ms, true);
  add_finding(findings, "first step", c.first_step_ms, w.first_step_ms, true);
  for (const auto& n : c.notes) findings.push_back({"cold run", n, "", ""});
  for (const auto& n : w.notes) findings.push_back({"warm run", n, "", ""});
}

// Whether a run's logs lack the programs it built (then `p` says so and what to enable).
bool lacks_compile_evidence(const RunRestartFacts& cold, const RunRestartFacts& warm,
                            RestartProof& p) {
  const RunFigures& c = p.cold;
  const RunFigures& w = p.warm;
  if (c.programs_built && w.programs_built) return false;
  const char* which = !c.programs_built && !w.programs_built ? "neither run's"
                      : !c.programs_built                    ? "the cold run's"
                                                             : "the warm run's";
  insufficient(
      p, fmt::format(
             "{} logs show which programs were compiled; without that no restart can be proven{}",
             which,
             c.first_step_ms && w.first_step_ms
                 ? fmt::format(" (the first step went {} -> {}, which a faster data pipeline or "
                               "smaller batch explains as well)",
                               duration_text(c.first_step_ms->value),
                               duration_text(w.first_step_ms->value))
                 : ""));
  add_compile_advice(cold, warm, p.to_enable);
  return true;
}

// Whether the two runs cannot be compared: the cold run built nothing, or the warm run did not
// run at all.
bool lacks_comparison(RestartProof& p) {
  if (p.cold.programs_built->value == 0) {
    insufficient(
        p,
        "the cold run built no program, so there is nothing to compare: it was not cold (the "
        "cache directory already held its programs) or its compiles were not logged; run the "
        "cold run with an empty cache directory");
    return true;
  }
  if (p.warm.programs_built->value == 0 && p.warm.activity == 0) {
    insufficient(
        p,
        "the warm run shows no compile and also no execution, step or cache line: it may have "
        "stopped before its first step");
    p.to_enable.push_back(
        "torch_xla: PT_XLA_DEBUG_LEVEL=2 (every execution is logged, cache hits included) or "
        "step timings, to show that the warm run ran");
    return true;
  }
  return false;
}

// The parts of the headline: programs built, cache hits and the time compared.
struct HeadlineParts {
  std::string built_text, hits_text, time_text;
  std::optional<double> cold_ms, warm_ms;  // startup, else first step; absent in either run
};

HeadlineParts headline_parts(const RunFigures& c, const RunFigures& w,
                             int64_t uncacheable_rebuilds) {
  const double cb = c.programs_built->value, wb = w.programs_built->value;
  HeadlineParts h;
  h.built_text = fmt::format("{:.0f} -> {:.0f} programs built", cb, wb);
  if (uncacheable_rebuilds)
    h.built_text += fmt::format(" ({} not cacheable: the cold run did not write {})",
                                uncacheable_rebuilds, uncacheable_rebuilds == 1 ? "it" : "them");
  h.hits_text = w.programs_loaded
                    ? fmt::format("{:.0f} persistent-cache {}", w.programs_loaded->value,
                                  w.programs_loaded->value == 1 ? "hit" : "hits")
                    : std::string("persistent-cache hits not in the logs");
  // Time: startup (compile + cache load) when both runs give it, else the first step.
  if (c.startup_ms() && w.startup_ms() && *c.startup_ms() > 0) {
    h.cold_ms = c.startup_ms();
    h.warm_ms = w.startup_ms();
    bool loads = w.load_ms && w.load_ms->value > 0;
    h.time_text = fmt::format("{} {} -> {}", loads ? "compile + cache-load time" : "compile time",
                              duration_text(*h.cold_ms), duration_text(*h.warm_ms));
    if (loads)
      h.time_text +=
          fmt::format(" (warm: {} compiling, {} loading)", duration_text(w.compile_ms->value),
                      duration_text(w.load_ms->value));
  } else if (c.first_step_ms && w.first_step_ms && c.first_step_ms->value > 0) {
    h.cold_ms = c.first_step_ms->value;
    h.warm_ms = w.first_step_ms->value;
    h.time_text =
        fmt::format("first step {} -> {}", duration_text(*h.cold_ms), duration_text(*h.warm_ms));
  }
  return h;
}

// The verdict when the warm run rebuilt almost nothing: proven when it also started faster.
void decide_almost_none(const HeadlineParts& h, RestartProof& p) {
  const RunFigures& w = p.warm;
  if (!h.cold_ms) {
    insufficient(
        p,
        fmt::format(
            "{} and {}, but neither a compile time nor a first-step time is in both runs' logs to "
            "show that the restart got faster",
            h.built_text, h.hits_text));
    p.to_enable.push_back(kEnableTimes);
    return;
  }
  if (*h.warm_ms <= *h.cold_ms * kTimeDroppedShare) {
    p.verdict = RestartVerdict::kProven;
    p.headline = fmt::format("proven: the warm run reused the compiled programs: {}; {}; {}",
                             h.time_text, h.built_text, h.hits_text);
    return;
  }
  p.verdict = RestartVerdict::kPartial;
  p.headline = fmt::format(
      "partial: the warm run rebuilt almost nothing ({}; {}) but did not start faster: {}{}",
      h.built_text, h.hits_text, h.time_text,
      w.load_ms && w.load_ms->value > 0
          ? "; loading from the cache costs about as much as compiling (a slow or remote cache "
            "directory?)"
          : "");
}

// The verdict when most rebuilds are the cold run's own programs and nothing was loaded.
void decide_cache_unread(const HeadlineParts& h, int64_t same, RestartProof& p) {
  const RunFigures& c = p.cold;
  const RunFigures& w = p.warm;
  const double cb = c.programs_built->value;
  p.verdict = RestartVerdict::kCacheWrittenNotRead;
  bool written = (c.cache_misses && c.cache_misses->value > 0) ||
                 (c.cache_writes && c.cache_writes->value > 0);
  std::string head =
      written ? "not proven: cache written but not read" : "not proven: the cache was not read";
  p.headline = fmt::format(
      "{}: the warm run rebuilt {} of the cold run's {:.0f} programs with the same keys; {}; "
      "{}",
      head, same, cb, h.hits_text,
      h.time_text.empty() ? std::string("no time figure in the logs") : h.time_text);
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
}

// The verdict when the warm run rebuilt programs the cache could have supplied, or new ones.
void decide_rebuilt(const HeadlineParts& h, RestartProof& p) {
  const RunFigures& c = p.cold;
  const RunFigures& w = p.warm;
  const double cb = c.programs_built->value;
  int64_t same = 0, changed = 0, fresh = 0;
  for (const auto& r : p.rebuilt) {
    same += r.kind == RebuildKind::kSameProgram;
    changed += r.kind == RebuildKind::kKeyChanged;
    fresh += r.kind == RebuildKind::kNewSite;
  }
  const bool nothing_loaded = !w.programs_loaded || w.programs_loaded->value == 0;
  if (same > 0 && same * 2 >= static_cast<int64_t>(p.rebuilt.size()) && nothing_loaded) {
    decide_cache_unread(h, same, p);
    return;
  }

  p.verdict = RestartVerdict::kPartial;
  std::vector<std::string> kinds;
  if (changed) kinds.push_back(fmt::format("{} with a changed graph key", changed));
  if (same) kinds.push_back(fmt::format("{} same program not loaded", same));
  if (fresh) kinds.push_back(fmt::format("{} at a site the cold run never compiled", fresh));
  p.headline = fmt::format("partial: {}; {}: {}{}", h.built_text, h.hits_text,
                           fmt::format("{}", fmt::join(kinds, ", ")),
                           h.time_text.empty() ? "" : "; " + h.time_text);
  if (same == 0 && fresh == 0 && nothing_loaded && changed >= cb * 0.5)
    p.findings.insert(
        p.findings.begin(),
        {"graph keys",
         "every rebuilt program has a new key at a site the cold run compiled: the compile "
         "environment changed between the runs (torch / torch_xla / libtpu version, XLA_FLAGS, "
         "LIBTPU_INIT_ARGS, XLA_HLO_DEBUG / XLA_IR_DEBUG all enter the graph hash)",
         "", ""});
}

}  // namespace

// The phases: the figures of each run and their findings, the evidence gates, then the verdict
// by how much the warm run rebuilt.
RestartProof decide_restart(const RunRestartFacts& cold, const RunRestartFacts& warm) {
  RestartProof p;
  p.cold = derive_run_figures(cold);
  p.warm = derive_run_figures(warm);
  add_findings(p.cold, p.warm, p.findings);
  if (lacks_compile_evidence(cold, warm, p)) return p;
  p.rebuilt = classify_rebuilds(cold, warm, p.cold, p.warm);
  if (lacks_comparison(p)) return p;

  const int64_t uncacheable_rebuilds = count_uncacheable_rebuilds(cold, p.rebuilt);
  const double counted = p.warm.programs_built->value - static_cast<double>(uncacheable_rebuilds);
  const HeadlineParts h = headline_parts(p.cold, p.warm, uncacheable_rebuilds);
  if (counted <= p.cold.programs_built->value * kAlmostNoProgramsShare)
    decide_almost_none(h, p);
  else
    decide_rebuilt(h, p);
  return p;
}

}  // namespace rcf::analysis
