#include "analysis/xla_compiles.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

namespace rcf::analysis {
namespace {

// Frames of the runtime and the interpreter, never the user's code.
bool is_library_frame(const FrameRecord& f) {
  const std::string& p = f.file;
  for (const char* marker :
       {"/torch_xla/", "/torch/", "/site-packages/torch", "/dist-packages/torch", "/lib/python3",
        "<frozen ", "/jax/_src/", "/jaxlib/"})
    if (p.find(marker) != std::string::npos) return true;
  return p.rfind("torch_xla/", 0) == 0 || p.rfind("torch/", 0) == 0;
}

std::string frame_text(const FrameRecord& f) {
  return fmt::format("{}:{} ({})", f.file, f.line, f.function);
}

// JAX cache-miss class -> cause vocabulary.
std::string jax_cause(const std::string& cls) {
  if (cls == "shape") return "shape";
  if (cls == "dtype" || cls == "weak_type") return "dtype";
  if (cls == "static_arg") return "constant";
  if (cls == "pytree") return "key_subset";
  if (cls == "context") return "global_state";
  if (cls == "never_seen") return "first_compile";
  return "unknown";
}

std::string first_line(const std::string& text) {
  return text.substr(0, text.find('\n'));
}

}  // namespace

std::optional<FrameRecord> innermost_user_frame(const std::vector<FrameRecord>& frames) {
  for (const auto& f : frames)
    if (!is_library_frame(f)) return f;
  return std::nullopt;
}

XlaRunResult analyze_xla_run(const XlaRunInputs& in, int64_t first_ordinal) {
  std::map<int64_t, std::string> source_name(in.source_names.begin(), in.source_names.end());
  XlaRunResult out;

  // 1. Steps were computed by the loader.
  int64_t steps_seen = in.steps_seen;

  // 2. Links: saved graphs and embedded HLO modules by graph hash; dump modules by order.
  std::map<std::string, const SavedGraphRecord*> saved_by_hash;
  for (const auto& g : in.saved_graphs)
    if (!g.graph_hash.empty()) saved_by_hash.emplace(g.graph_hash, &g);
  std::map<std::string, int64_t> hlo_by_hash;
  std::vector<const HloModuleRecord*> dump_modules;
  for (const auto& m : in.hlo_modules) {
    if (!m.graph_hash.empty())
      hlo_by_hash.emplace(m.graph_hash, m.hlo_module_id);
    else if (m.module_id && m.stage == "before_optimizations")
      dump_modules.push_back(&m);
  }
  std::sort(dump_modules.begin(), dump_modules.end(),
            [](const HloModuleRecord* a, const HloModuleRecord* b) {
              return *a->module_id < *b->module_id;
            });
  size_t compile_blocks = 0;
  for (const auto& b : in.blocks) compile_blocks += b.kind == "compile";
  // Order is the only join a dump directory allows (no block prints the module name); it is
  // trusted only when the counts agree exactly.
  bool link_dump_by_order = !dump_modules.empty() && dump_modules.size() == compile_blocks;

  // 3. torch_xla compiles and their attribution.
  struct SiteState {
    std::string last_key;
    std::optional<int64_t> last_inputs, last_outputs;
    std::set<std::string> keys;
  };
  std::map<std::string, SiteState> sites;
  int64_t ordinal = first_ordinal;
  size_t compile_index = 0;
  for (size_t i = 0; i < in.blocks.size(); ++i) {
    const auto& b = in.blocks[i];
    if (b.kind != "compile") continue;
    AttributedCompile a;
    a.key.source_id = b.source_id;
    a.ordinal = ordinal++;
    a.line = b.line;
    a.step = b.step;
    a.kind = "xla";
    a.cache = "miss";
    a.cause_reported = b.cause;
    a.evidence_kind = "pt_xla_debug_compilation_analysis";
    auto user = innermost_user_frame(b.frames);
    if (user)
      a.site = frame_text(*user);
    else if (!b.frames.empty())
      a.site = frame_text(b.frames.front());
    else
      a.site = "<no python frames>";
    if (!b.graph_name.empty()) a.site += " [" + b.graph_name + "]";
    a.program_key = !b.graph_hash.empty()
                        ? b.graph_hash
                        : fmt::format("<no graph hash>@{}:{}", source_name[b.source_id], b.line);
    if (auto it = saved_by_hash.find(b.graph_hash); it != saved_by_hash.end()) {
      a.saved_graph_source_id = it->second->source_id;
      a.saved_graph_line = it->second->line;
    }
    if (auto it = hlo_by_hash.find(b.graph_hash); it != hlo_by_hash.end())
      a.hlo_module_id = it->second;
    else if (link_dump_by_order)
      a.hlo_module_id = dump_modules[compile_index]->hlo_module_id;
    ++compile_index;

    std::string where =
        fmt::format("PT_XLA_DEBUG Compilation Analysis at {}:{}", source_name[b.source_id], b.line);
    SiteState& site = sites[a.site];
    bool first_at_site = site.keys.empty();
    a.prev_program_key = site.last_key;
    a.evidence = where;
    if (b.cause_class == "tensor_value_access") {
      a.cause = "sync_fragment";
      a.confidence = "high";
      std::string culprit = user ? frame_text(*user) : std::string("an unknown frame");
      a.subject = user ? fmt::format("{}:{}", user->file, user->line) : "";
      a.detail = fmt::format(
          "graph cut mid-step by a host sync in {}: .item(), .cpu(), print(tensor) or a "
          "data-dependent Python branch forced execution before the step-end sync",
          culprit);
    } else if (first_at_site) {
      a.cause = "first_compile";
      a.confidence = "high";
    } else if (site.keys.count(a.program_key)) {
      a.cause = "unknown";
      a.confidence = "low";
      a.detail = fmt::format(
          "graph {} was already compiled earlier in this run: the compiled program was not reused "
          "(cache eviction or a disabled cache); XLA_METRICS_FILE counters (CachedCompile, "
          "UncachedCompile) show the cache behaviour",
          a.program_key);
    } else if (b.inputs && site.last_inputs && *b.inputs != *site.last_inputs) {
      a.cause = "key_subset";
      a.confidence = "medium";
      a.subject = "graph inputs";
      a.detail = fmt::format("number of graph inputs changed at this site: {} -> {}",
                             *site.last_inputs, *b.inputs);
      if (b.outputs && site.last_outputs && *b.outputs != *site.last_outputs)
        a.detail += fmt::format(" (outputs {} -> {})", *site.last_outputs, *b.outputs);
      a.detail += "; which inputs appeared or disappeared needs the programs' HLO";
    } else {
      a.cause = "unknown";
      a.confidence = "low";
      a.detail = fmt::format(
          "a new graph ({} after {}) with the same number of inputs; deciding between a changed "
          "shape, dtype, constant or op needs the programs' HLO: set XLA_SAVE_TENSORS_FILE with "
          "XLA_SAVE_TENSORS_FMT=hlo, or XLA_FLAGS=--xla_dump_to=DIR",
          a.program_key, site.last_key);
    }
    site.keys.insert(a.program_key);
    site.last_key = a.program_key;
    site.last_inputs = b.inputs;
    site.last_outputs = b.outputs;
    out.compiles.push_back(std::move(a));
  }

  // 4. JAX compiles: `Finished XLA compilation` records (or `Compiling` lines where the log has
  // no finish records for that function).
  std::set<std::string> functions_with_finish;
  for (const auto& c : in.jax_compiles)
    if (c.phase == "compile") functions_with_finish.insert(c.function);
  std::map<std::string, std::string> last_signature;  // function -> signature of its last Compiling
  std::map<std::string, size_t> jax_seen;             // function -> compiles so far
  std::map<std::string, std::string> last_key;
  size_t miss_pos = 0;
  std::map<std::string, const JaxMissRecord*> pending_miss;  // function -> miss since last compile
  for (const auto& c : in.jax_compiles) {
    while (miss_pos < in.jax_misses.size() &&
           std::tie(in.jax_misses[miss_pos].source_id, in.jax_misses[miss_pos].line) <
               std::tie(c.source_id, c.line)) {
      pending_miss[in.jax_misses[miss_pos].function] = &in.jax_misses[miss_pos];
      ++miss_pos;
    }
    if (c.phase == "compiling" && !c.signature.empty()) last_signature[c.function] = c.signature;
    bool is_compile = c.phase == "compile" ||
                      (c.phase == "compiling" && !functions_with_finish.count(c.function));
    if (!is_compile) continue;
    AttributedCompile a;
    a.key.source_id = c.source_id;
    a.ordinal = ordinal++;
    a.line = c.line;
    a.kind = "jax";
    a.site = c.function;
    std::string sig = !c.signature.empty() ? c.signature : last_signature[c.function];
    a.program_key = sig.empty() ? c.function : c.function + " " + sig;
    if (c.seconds) a.compile_ms = *c.seconds * 1000;
    a.evidence_kind = "jax_log_compiles";
    a.prev_program_key = last_key[c.function];
    size_t n = jax_seen[c.function]++;
    const JaxMissRecord* miss = nullptr;
    if (auto it = pending_miss.find(c.function); it != pending_miss.end()) {
      miss = it->second;
      pending_miss.erase(it);
    }
    if (miss) {
      a.cause_reported = first_line(miss->detail);
      a.cause = n == 0 && miss->cause_class == "never_seen" ? "first_compile"
                                                            : jax_cause(miss->cause_class);
      a.confidence = a.cause == "unknown" ? "low" : "high";
      a.detail = miss->detail;
      a.evidence = fmt::format("jax_explain_cache_misses at {}:{}", source_name[miss->source_id],
                               miss->line);
    } else if (n == 0) {
      a.cause = "first_compile";
      a.confidence = "medium";
      a.evidence = fmt::format("first jax compile of {} at {}:{}", c.function,
                               source_name[c.source_id], c.line);
    } else {
      a.cause = "unknown";
      a.confidence = "low";
      a.detail =
          "JAX compiled this function again without an explanation in the logs; set "
          "jax_explain_cache_misses=True (JAX_EXPLAIN_CACHE_MISSES=1) to record why";
      a.evidence = fmt::format("jax_log_compiles at {}:{}", source_name[c.source_id], c.line);
    }
    last_key[c.function] = a.program_key;
    out.compiles.push_back(std::move(a));
  }

  // 5. Convergence.
  int64_t max_step = steps_seen;
  bool any_step = false;
  for (const auto& c : out.compiles)
    if (c.step) {
      any_step = true;
      max_step = std::max(max_step, *c.step);
    }
  if (any_step) {
    std::map<int64_t, std::vector<const AttributedCompile*>> by_step;
    for (const auto& c : out.compiles)
      if (c.step) by_step[*c.step].push_back(&c);
    std::set<std::string> programs;
    for (int64_t s = 1; s <= max_step; ++s) {
      ConvergencePoint p;
      p.step = s;
      for (const AttributedCompile* c : by_step[s]) {
        ++p.compiles_in_step;
        programs.insert(c->program_key);
      }
      p.programs_cached = static_cast<int64_t>(programs.size());
      out.convergence.push_back(p);
    }
  } else if (!in.compile_time_steps.empty()) {
    std::map<int64_t, double> total;  // step -> CompileTime TotalSamples (last block wins)
    for (const auto& m : in.compile_time_steps) total[m.step] = m.total_samples;
    double prev = 0;
    for (const auto& [step, samples] : total) {
      ConvergencePoint p;
      p.step = step;
      p.programs_cached = static_cast<int64_t>(samples);
      p.compiles_in_step = static_cast<int64_t>(samples - prev);
      prev = samples;
      out.convergence.push_back(p);
    }
  }
  return out;
}

}  // namespace rcf::analysis
