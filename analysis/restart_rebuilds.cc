#include "analysis/restart_rebuilds.h"

#include <fmt/format.h>

#include <map>
#include <set>

namespace rcf::analysis {

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

// A rebuild that no cache could have avoided: the cold run chose not to write the entry (JAX's
// minimum compile time).
bool uncacheable(const CacheLinesByFunction& cold_lines, const RebuiltProgram& r) {
  if (r.kind != RebuildKind::kSameProgram || r.build.jax_function.empty()) return false;
  FunctionCacheLines l = lines_of(cold_lines, r.build.jax_function);
  return l.skip && !l.write;
}

}  // namespace

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

int64_t count_uncacheable_rebuilds(const RunRestartFacts& cold,
                                   const std::vector<RebuiltProgram>& rebuilt) {
  int64_t n = 0;
  const CacheLinesByFunction cold_lines = cache_lines_by_function(cold);
  for (const auto& r : rebuilt) n += uncacheable(cold_lines, r);
  return n;
}

}  // namespace rcf::analysis
