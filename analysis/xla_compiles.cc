#include "analysis/xla_compiles.h"

#include <fmt/format.h>

#include <algorithm>
#include <iterator>
#include <map>
#include <set>
#include <string_view>
#include <tuple>

#include "analysis/grab_frame_evidence.h"
#include "analysis/jax_module_links.h"
#include "analysis/program_loader.h"
#include "analysis/value_read_evidence.h"

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

constexpr std::string_view kLevel2Hint =
    "PT_XLA_DEBUG_LEVEL=2 (Execution blocks) would show whether this site alternates between "
    "its programs";

// Two programs flip-flopping at one site (grad-create vs grad-accumulate with
// zero_grad(set_to_none=True)): both keep executing step after step (level-2 executions), or the
// compiles at the site keep switching between two structures.
void mark_alternation(std::vector<AttributedCompile>& compiles,
                      const std::vector<std::string>& structure,
                      const std::map<std::string, ExecutionSpan>& executions) {
  std::map<std::string, std::vector<size_t>> by_site;
  for (size_t i = 0; i < compiles.size() && i < structure.size(); ++i)
    by_site[compiles[i].site].push_back(i);
  for (auto& [site, indices] : by_site) {
    // Compile-level flips: only two structures, and at least two switches between them.
    std::vector<size_t> known;
    for (size_t i : indices)
      if (!structure[i].empty()) known.push_back(i);
    std::set<std::string> distinct;
    int switches = 0;
    for (size_t k = 0; k < known.size(); ++k) {
      distinct.insert(structure[known[k]]);
      if (k > 0 && structure[known[k]] != structure[known[k - 1]]) ++switches;
    }
    bool flipping = distinct.size() == 2 && switches >= 2;
    for (size_t i : indices) {
      AttributedCompile& c = compiles[i];
      const bool no_hlo = c.cause == "unknown" && c.subject == "no HLO";
      if (c.cause != "graph_structure" && !no_hlo &&
          !(flipping && c.cause == "unknown" && i != indices[0]))
        continue;
      std::string why;
      auto p = executions.find(c.prev_program_key);
      auto q = executions.find(c.program_key);
      if (p != executions.end() && q != executions.end() && p->second.steps >= 2 &&
          q->second.steps >= 2 &&
          std::min(p->second.last_step, q->second.last_step) >
              std::max(p->second.first_step, q->second.first_step)) {
        why = fmt::format(
            "both programs keep executing: {} in {} steps ({}..{}), {} in {} steps ({}..{})",
            c.prev_program_key, p->second.steps, p->second.first_step, p->second.last_step,
            c.program_key, q->second.steps, q->second.first_step, q->second.last_step);
      } else if (flipping) {
        why =
            fmt::format("the compiles at this site switch {} times between 2 structures", switches);
      } else {
        // Level-1 logs print compiles only: a program that is compiled once and then reused every
        // other step looks like one recompile. Execution blocks would show it.
        if (executions.empty() && c.detail.find(kLevel2Hint) == std::string::npos)
          c.detail += fmt::format("; {}", kLevel2Hint);
        continue;
      }
      if (no_hlo) {
        // The flip-flop is seen, what differs between the two programs is not: still unknown.
        c.detail = fmt::format("the site alternates between two programs ({}); {}", why, c.detail);
        continue;
      }
      if (c.cause == "unknown") c.detail.clear();
      c.cause = "graph_structure";
      c.subject = kSubjectAlternatingPrograms;
      c.confidence = "high";
      c.detail = fmt::format(
          "alternation: this site flips between two programs forever ({}){}{}; the typical "
          "cause is grad-create vs grad-accumulate (zero_grad(set_to_none=True) inside an "
          "accumulation loop, or one compiled region per micro-step)",
          why, c.detail.empty() ? "" : "; ", c.detail);
    }
  }
}

// What, besides the compile block's own cause line, shows that a host sync happened around
// `step`: "" when nothing does. The counter's growth in the compile's step is the closest
// evidence; a run-wide count still shows that the step does sync. The profiler's transfer note
// is an evidence record of its own (analysis/value_read_evidence.h).
std::string host_sync_corroboration(const HostSyncCounts& h, std::optional<int64_t> step) {
  if (step) {
    auto it = h.scalar_dense_by_step.find(*step);
    if (it != h.scalar_dense_by_step.end()) {
      double before = it == h.scalar_dense_by_step.begin() ? 0 : std::prev(it)->second;
      if (it->second > before)
        return fmt::format("the metrics counter aten::_local_scalar_dense grew by {} in step {}",
                           it->second - before, *step);
    }
  }
  if (h.scalar_dense_max > 0)
    return fmt::format("the metrics counter aten::_local_scalar_dense reached {} at {}",
                       h.scalar_dense_max, h.scalar_dense_where);
  return "";
}

// Program_diff rule 4a says only that op attributes differ; the HLO text names them.
void name_op_attribute_changes(const XlaRunInputs& in, const ProgramView& before,
                               const ProgramView& after, ProgramDiff& d) {
  std::string why = "no HLO instructions stored for the two modules";
  std::optional<OpAttributeChanges> named;
  if (in.describe_op_attributes && before.hlo_module_id && after.hlo_module_id)
    named = in.describe_op_attributes(*before.hlo_module_id, *after.hlo_module_id, &why);
  if (!named) {
    d.detail += fmt::format("; which ones is not known: {}", why);
    return;
  }
  d.confidence = "high";
  d.subject = named->subject;
  d.detail = named->detail;
  d.evidence = "HLO op attributes (the two modules' instructions in the store)";
}

// The old -> new value of a static argument from a `different value of static args` explanation
// (`now 3 and before 2`), "" when not printed (docs/xla_formats.md).
std::string static_value_change(const std::string& detail) {
  size_t at = detail.find("static");
  if (at == std::string::npos) return "";
  size_t now = detail.find("now ", at);
  if (now == std::string::npos) return "";
  size_t end = detail.find('\n', now);
  std::string_view line = std::string_view(detail).substr(
      now + 4, end == std::string::npos ? std::string::npos : end - now - 4);
  size_t before = line.find(" and before ");
  if (before == std::string_view::npos) return "";
  std::string_view new_value = line.substr(0, before), old_value = line.substr(before + 12);
  while (!old_value.empty() && (old_value.back() == ' ' || old_value.back() == '.'))
    old_value.remove_suffix(1);
  return fmt::format("{} -> {}", old_value, new_value);
}

// `never seen function` ... `but seen another function defined on the same line`: a new function
// object at each call (a closure or lambda defined inside the step).
bool redefined_function(const JaxMissRecord& m) {
  return m.cause_class == "never_seen" &&
         (m.detail.find("re-defined repeatedly") != std::string::npos ||
          m.detail.find("seen another function defined on the same line") != std::string::npos);
}

// JAX compiles and their attribution. Compile records are `Finished XLA compilation` lines (or
// `Compiling` lines where the log has no finish records for that function); a tracing cache miss
// explains the next compile record of its function. A miss that no compile record of its
// function follows (jax_explain_cache_misses without jax_log_compiles, or a retrace of an inner
// function) is itself the record of a retrace and compile, so it is counted as one.
class JaxAttributor {
 public:
  JaxAttributor(const XlaRunInputs& in, std::map<int64_t, std::string>& source_name,
                int64_t& ordinal, std::vector<AttributedCompile>& out)
      : in_(in), source_name_(source_name), ordinal_(ordinal), out_(out) {}

  void run() {
    for (const auto& c : in_.jax_compiles)
      if (c.phase == "compile") functions_with_finish_.insert(c.function);
    std::vector<Event> events = merged_events();
    pair_misses(events);
    std::map<std::string, size_t> compiles_per_function;
    for (const Event& e : events)
      if (e.record && is_compile(*e.record)) ++compiles_per_function[e.record->function];
    links_.emplace(in_.hlo_modules, compiles_per_function);
    for (const Event& e : events) {
      if (e.miss)
        on_miss(*e.miss, e.paired);
      else
        on_record(*e.record, e.paired_miss);
    }
  }

 private:
  struct Event {
    const JaxCompileRecord* record = nullptr;
    const JaxMissRecord* miss = nullptr;
    bool paired = false;                         // a miss that a compile record explains
    const JaxMissRecord* paired_miss = nullptr;  // a compile record's explaining miss
  };

  bool is_compile(const JaxCompileRecord& c) const {
    return c.phase == "compile" ||
           (c.phase == "compiling" && !functions_with_finish_.count(c.function));
  }

  // Compile records and misses in log order (misses first on one line).
  std::vector<Event> merged_events() const {
    std::vector<Event> events;
    size_t m = 0;
    auto miss_before = [&](const JaxCompileRecord& c) {
      const JaxMissRecord& x = in_.jax_misses[m];
      return std::tie(x.source_id, x.line) < std::tie(c.source_id, c.line);
    };
    for (const auto& c : in_.jax_compiles) {
      for (; m < in_.jax_misses.size() && miss_before(c); ++m)
        events.push_back({nullptr, &in_.jax_misses[m]});
      events.push_back({&c, nullptr});
    }
    for (; m < in_.jax_misses.size(); ++m) events.push_back({nullptr, &in_.jax_misses[m]});
    return events;
  }

  // A miss explains the next compile record of its function, unless another miss of the function
  // comes first.
  void pair_misses(std::vector<Event>& events) const {
    std::map<std::string, size_t> pending;  // function -> index of its unexplained miss
    for (size_t i = 0; i < events.size(); ++i) {
      Event& e = events[i];
      if (e.miss) {
        pending[e.miss->function] = i;
        continue;
      }
      if (!is_compile(*e.record)) continue;
      auto it = pending.find(e.record->function);
      if (it == pending.end()) continue;
      events[it->second].paired = true;
      e.paired_miss = events[it->second].miss;
      pending.erase(it);
    }
  }

  AttributedCompile start(int64_t source_id, int64_t line, const std::string& site) {
    AttributedCompile a;
    a.key.source_id = source_id;
    a.ordinal = ordinal_++;
    a.line = line;
    a.kind = "jax";
    a.site = site;
    a.prev_program_key = last_key_[site];
    return a;
  }

  void finish(AttributedCompile&& a) {
    last_key_[a.site] = a.program_key;
    out_.push_back(std::move(a));
  }

  // Cause of a compile that `miss` explains; `n` = earlier compiles of the function.
  void explain(AttributedCompile& a, const JaxMissRecord& miss, size_t n) {
    a.cause_reported = first_line(miss.detail);
    a.detail = miss.detail;
    a.evidence =
        fmt::format("jax_explain_cache_misses at {}:{}", source_name_[miss.source_id], miss.line);
    if (redefined_function(miss)) {
      a.cause = "object_identity";
      a.subject = miss.function;
      a.detail = fmt::format(
          "a new function object at every call: {} is defined again on the same line each time "
          "(a closure or lambda created inside the step), so JAX traces and compiles it again",
          miss.function);
    } else if (n == 0 && miss.cause_class == "never_seen") {
      a.cause = "first_compile";
    } else {
      a.cause = jax_cause(miss.cause_class);
    }
    if (a.cause == "constant") {
      std::string change = static_value_change(miss.detail);
      a.subject = "static argument";
      a.detail = change.empty()
                     ? "a static argument (static_argnums / static_argnames) took a new value"
                     : fmt::format("a static argument took a new value: {}", change);
    }
    a.confidence = a.cause == "unknown" ? "low" : "high";
    if (a.cause == "unknown")
      a.detail += fmt::format(
          "\n(JAX's explanation names no change rcf can classify. What would decide it: "
          "JAX_LOG_COMPILES=1, whose `Compiling {} with global shapes and types` lines show "
          "whether the argument types changed, and XLA_FLAGS=--xla_dump_to=DIR, whose modules "
          "show what changed in the program; rcf capture sets both)",
          miss.function.empty() ? std::string("<function>") : miss.function);
  }

  // A miss no compile record follows: the retrace is the compile's only record.
  void on_miss(const JaxMissRecord& miss, bool paired) {
    if (paired) return;
    const std::string& fn =
        miss.function.empty() ? std::string("<unknown function>") : miss.function;
    AttributedCompile a = start(miss.source_id, miss.line, fn);
    a.step = miss.step;
    a.program_key = fmt::format("{} @{}:{}", fn, source_name_[miss.source_id], miss.line);
    a.evidence_kind = "jax_explain_cache_misses";
    explain(a, miss, seen_[fn]++);
    finish(std::move(a));
  }

  void on_record(const JaxCompileRecord& c, const JaxMissRecord* miss) {
    if (c.phase == "compiling" && !c.signature.empty()) last_signature_[c.function] = c.signature;
    if (!is_compile(c)) return;
    AttributedCompile a = start(c.source_id, c.line, c.function);
    a.step = c.step;
    std::string sig = !c.signature.empty() ? c.signature : last_signature_[c.function];
    a.program_key = sig.empty() ? c.function : c.function + " " + sig;
    if (c.seconds) a.compile_ms = *c.seconds * 1000;
    a.evidence_kind = "jax_log_compiles";
    size_t n = seen_[c.function]++;
    if (miss) {
      explain(a, *miss, n);
      if (a.cause == "unknown" && n > 0) same_signature_retrace(a, c, sig);
    } else if (n == 0) {
      a.cause = "first_compile";
      a.confidence = "medium";
      a.evidence = fmt::format("first jax compile of {} at {}:{}", c.function,
                               source_name_[c.source_id], c.line);
    } else {
      unexplained(a, c, sig);
    }
    with_dumped_hlo(a, c.function, record_compiles_[c.function]++);
    if (!sig.empty()) last_signature_compiled_[c.function] = sig;
    finish(std::move(a));
  }

  // The n-th compile of `function` with its module of an --xla_dump_to directory, when the dump
  // and the log agree (analysis/jax_module_links.h): the program diff with the function's previous
  // module decides what the log left open and names the parameter, dimension or literal.
  void with_dumped_hlo(AttributedCompile& a, const std::string& function, size_t n) {
    std::optional<int64_t> now_id = links_->module_of(function, n);
    if (!now_id) {
      std::string why = links_->why_not_linked(function);
      if (!why.empty() && n > 0) a.detail += "; HLO dump: " + why;
      return;
    }
    a.hlo_module_id = now_id;
    if (n == 0 || a.cause == "first_compile") return;
    std::optional<int64_t> before_id = links_->module_of(function, n - 1);
    auto now = in_.hlo_programs.find(*now_id);
    auto before = before_id ? in_.hlo_programs.find(*before_id) : in_.hlo_programs.end();
    if (now == in_.hlo_programs.end() || before == in_.hlo_programs.end() || !now->second.has_hlo ||
        !before->second.has_hlo)
      return;
    ProgramDiff d = diff_programs(before->second, now->second);
    if (d.op_attributes_only) name_op_attribute_changes(in_, before->second, now->second, d);
    const bool same_program = before->second.full_fingerprint == now->second.full_fingerprint &&
                              input_signature(before->second) == input_signature(now->second);
    a.evidence +=
        fmt::format("; {} (--xla_dump_to modules of {}, compiles {} and {})",
                    d.evidence.empty() ? "HLO" : d.evidence, jax_module_name(function), n, n + 1);
    join_hlo_diff(a, d, same_program, function);
  }

  // What the log said, with what the two dumped modules show. The log's explanation is the cause
  // (why JAX traced again); the HLO is the effect, which decides when the log could not, names
  // the parameter or literal, and tells a function object made again with the same program from
  // one that carries a new value.
  static void join_hlo_diff(AttributedCompile& a, const ProgramDiff& d, bool same_program,
                            const std::string& function) {
    if (a.cause == "object_identity") {
      if (same_program) {
        a.detail +=
            "; its dumped HLO is identical to the previous compile's: only the function "
            "object is new";
      } else {
        a.cause = d.cause == "unknown" ? "graph_structure" : d.cause;
        a.confidence = "high";
        a.subject = d.subject;
        a.detail = fmt::format(
            "{} is defined again (a closure or jax.jit made anew) and its program changed: {}",
            function, d.detail);
      }
      return;
    }
    const bool log_decided = a.confidence == "high" && a.cause != "unknown";
    if (same_program) {
      a.detail += "; its dumped HLO is identical to the previous compile's";
      return;
    }
    if (a.cause == "constant" && (d.cause == "graph_structure" || d.cause == "constant")) {
      // A static argument or a value read at trace time; the HLO shows what it changed.
      a.confidence = "high";
      a.detail += "; the dumped HLO shows it: " + d.detail;
      return;
    }
    if (log_decided) {
      if (d.cause == a.cause) {
        a.subject = d.subject;
        a.detail += "; HLO: " + d.detail;
      } else {
        a.detail += "; the dumped HLO shows: " + d.detail;
      }
      return;
    }
    if (d.cause == "unknown") return;
    a.cause = d.cause;
    a.confidence = d.confidence;
    a.subject = d.subject;
    a.detail = d.detail + " (from the dumped HLO; the log did not decide it)";
  }

  // A miss JAX could not explain (`cache miss explanation unavailable`) of a function whose
  // argument types are those of its previous compile: what changed is outside the arguments'
  // types and values, which JAX traces abstractly: a static argument's value, most often, or a
  // Python value the function reads at trace time (docs/causes.md, JAX).
  void same_signature_retrace(AttributedCompile& a, const JaxCompileRecord& c,
                              const std::string& sig) {
    auto before = last_signature_compiled_.find(c.function);
    if (sig.empty() || before == last_signature_compiled_.end() || before->second != sig) return;
    a.cause = "constant";
    a.confidence = "medium";
    a.subject = "static argument";
    a.detail = fmt::format(
        "JAX could not explain the miss, but {} was compiled again with the same argument types "
        "{}: a static argument (static_argnums / static_argnames) or a Python value read at trace "
        "time took a new value",
        c.function, sig);
  }

  // A recompile without an explanation: the `Compiling f with global shapes and types [...]`
  // signatures may still show a changed argument shape, dtype or argument count.
  void unexplained(AttributedCompile& a, const JaxCompileRecord& c, const std::string& sig) {
    a.cause = "unknown";
    a.confidence = "low";
    a.detail =
        "JAX compiled this function again without an explanation in the logs; set "
        "jax_explain_cache_misses=True (JAX_EXPLAIN_CACHE_MISSES=1) to record why";
    a.evidence = fmt::format("jax_log_compiles at {}:{}", source_name_[c.source_id], c.line);
    ProgramView now, before;
    auto sig_it = last_signature_compiled_.find(c.function);
    if (sig_it == last_signature_compiled_.end() || !parse_jax_signature(sig, now.parameters) ||
        !parse_jax_signature(sig_it->second, before.parameters))
      return;
    now.has_hlo = before.has_hlo = true;  // parameters are comparable; nothing else is
    ProgramDiff d = diff_programs(before, now);
    if (d.cause == "shape" || d.cause == "dtype" || d.cause == "key_subset") {
      a.cause = d.cause;
      a.confidence = "medium";
      a.subject = d.subject;
      a.detail = d.detail + " (from the argument signatures of jax_log_compiles)";
    }
  }

  const XlaRunInputs& in_;
  std::map<int64_t, std::string>& source_name_;
  int64_t& ordinal_;
  std::vector<AttributedCompile>& out_;
  std::set<std::string> functions_with_finish_;
  std::map<std::string, std::string> last_signature_;  // function -> its last Compiling signature
  std::map<std::string, std::string> last_signature_compiled_;  // function -> its last compile's
  std::map<std::string, size_t> seen_;                          // function -> compiles so far
  std::map<std::string, std::string> last_key_;
  std::optional<JaxModuleLinks> links_;
  std::map<std::string, size_t> record_compiles_;  // function -> compile records so far
};

// Where a compile belongs: the innermost user frame, else the first frame, else (VLOG lines
// and blocks without Python frames) the device or nothing.
std::string site_of(const XlaBlockRecord& b, const std::optional<FrameRecord>& user) {
  std::string site;
  if (user)
    site = frame_text(*user);
  else if (!b.frames.empty())
    site = frame_text(b.frames.front());
  else if (b.origin == "vlog")
    site = fmt::format("<no python frames> device {}", b.device.empty() ? "?" : b.device);
  else
    site = "<no python frames>";
  if (!b.graph_name.empty()) site += " [" + b.graph_name + "]";
  return site;
}

// Phase 1 of analyze_xla_run: what each compile block links to. Saved graphs and embedded HLO
// modules join by graph hash; dump modules by order.
class ProgramLinks {
 public:
  explicit ProgramLinks(const XlaRunInputs& in) {
    for (const auto& g : in.saved_graphs)
      if (!g.graph_hash.empty()) saved_by_hash_.emplace(g.graph_hash, &g);
    for (const auto& m : in.hlo_modules) {
      if (!m.graph_hash.empty())
        hlo_by_hash_.emplace(m.graph_hash, m.hlo_module_id);
      else if (m.module_id && m.stage == "before_optimizations")
        dump_modules_.push_back(&m);
    }
    std::sort(dump_modules_.begin(), dump_modules_.end(),
              [](const HloModuleRecord* a, const HloModuleRecord* b) {
                return *a->module_id < *b->module_id;
              });
    size_t compile_blocks = 0;
    for (const auto& b : in.blocks) compile_blocks += b.kind == "compile";
    // Order is the only join a dump directory allows (no block prints the module name); it is
    // trusted only when the counts agree exactly.
    link_dump_by_order_ = !dump_modules_.empty() && dump_modules_.size() == compile_blocks;
    size_t n = 0;
    for (const auto& b : in.blocks)
      if (b.kind == "compile")
        if (auto id = module_of(b, n++)) ++module_uses_[*id];
  }

  const SavedGraphRecord* saved_graph(const std::string& graph_hash) const {
    auto it = saved_by_hash_.find(graph_hash);
    return it == saved_by_hash_.end() ? nullptr : it->second;
  }

  // The HLO module of the n-th compile block, if linked.
  std::optional<int64_t> module_of(const XlaBlockRecord& b, size_t n) const {
    if (auto it = hlo_by_hash_.find(b.graph_hash); it != hlo_by_hash_.end()) return it->second;
    if (link_dump_by_order_) return dump_modules_[n]->hlo_module_id;
    return std::nullopt;
  }

  // The HLO view of `module`, empty when it has none. A module's view is moved into the compile
  // that uses it last instead of copied, so that each program's HLO view is held once.
  ProgramView take_view(std::optional<int64_t> module, std::map<int64_t, ProgramView>& views) {
    if (!module) return {};
    auto it = views.find(*module);
    if (it == views.end()) return {};
    if (--module_uses_[*module] == 0) return std::move(it->second);  // its last use
    return it->second;
  }

 private:
  std::map<std::string, const SavedGraphRecord*> saved_by_hash_;
  std::map<std::string, int64_t> hlo_by_hash_;
  std::vector<const HloModuleRecord*> dump_modules_;
  bool link_dump_by_order_ = false;
  std::map<int64_t, int64_t> module_uses_;  // compiles per linked module
};

// Phase 2 of analyze_xla_run: torch_xla compiles and their attribution. Each compile is compared
// with the most similar earlier program at its site (analysis/program_diff.h), with its HLO when
// linked.
class XlaAttributor {
 public:
  XlaAttributor(XlaRunInputs& in, std::map<int64_t, std::string>& source_name, int64_t& ordinal,
                std::vector<AttributedCompile>& out)
      : in_(in), links_(in), source_name_(source_name), ordinal_(ordinal), out_(out) {}

  void run() {
    size_t compile_index = 0;
    for (const auto& b : in_.blocks)
      if (b.kind == "compile") on_compile(b, compile_index++);
    list_dim_values();
    mark_alternation(out_, compile_structure_, in_.executions_by_hash);
  }

 private:
  struct SiteState {
    // Earlier distinct programs at the site, in compile order (pointers into `programs_`).
    std::vector<const ProgramView*> programs;
    PreviousProgramIndex index;
    std::set<std::string> keys;
  };
  using DimKey = std::tuple<std::string, int64_t, int64_t>;  // site, param, dim

  // The n-th compile block.
  void on_compile(const XlaBlockRecord& b, size_t n) {
    auto user = innermost_user_frame(b.frames);
    AttributedCompile a = start(b, user, n);
    ProgramView view = links_.take_view(a.hlo_module_id, in_.hlo_programs);
    view.program_key = a.program_key;
    view.input_count = b.inputs;
    view.output_count = b.outputs;

    const bool vlog = b.origin == "vlog";
    std::string where = fmt::format(
        "{} at {}:{}", vlog ? "VLOG Compiling IR graph hash" : "PT_XLA_DEBUG Compilation Analysis",
        source_name_[b.source_id], b.line);
    SiteState& site = sites_[{b.source_id, a.site}];
    int64_t prev = site.index.choose(view);
    if (prev >= 0) a.prev_program_key = site.programs[prev]->program_key;
    a.evidence = where;
    if (b.cause_class == "tensor_value_access") {
      host_sync(a, b, user);
    } else if (site.keys.empty()) {
      a.cause = "first_compile";
      a.confidence = "high";
    } else if (site.keys.count(a.program_key)) {
      not_reused(a);
    } else {
      compare(a, *site.programs[prev], view, where);
    }
    if (vlog && a.cause == "unknown")
      a.detail += fmt::format(
          "; VLOG lines name no Python frame, so compiles are grouped by device: "
          "PT_XLA_DEBUG_LEVEL=1 would name the frame and cause of each");
    compile_structure_.resize(out_.size() + 1);
    compile_structure_.back() = view.has_hlo ? view.structure_fingerprint : "";
    if (site.keys.insert(a.program_key).second) {
      auto [it, added] = programs_.try_emplace(a.program_key, std::move(view));
      site.index.add(it->second);
      site.programs.push_back(&it->second);
    }
    out_.push_back(std::move(a));
  }

  // The compile's identity: ordinal, site, program key and links, before any attribution.
  AttributedCompile start(const XlaBlockRecord& b, const std::optional<FrameRecord>& user,
                          size_t n) {
    AttributedCompile a;
    a.key.source_id = b.source_id;
    a.ordinal = ordinal_++;
    a.line = b.line;
    a.step = b.step;
    a.kind = "xla";
    a.cache = "miss";
    a.cause_reported = b.cause;
    a.evidence_kind = b.origin == "vlog" ? "xla_vlog_compile" : "pt_xla_debug_compilation_analysis";
    a.compile_ms = b.compile_ms;
    a.site = site_of(b, user);
    a.program_key = !b.graph_hash.empty()
                        ? b.graph_hash
                        : fmt::format("<no graph hash>@{}:{}", source_name_[b.source_id], b.line);
    if (const SavedGraphRecord* saved = links_.saved_graph(b.graph_hash)) {
      a.saved_graph_source_id = saved->source_id;
      a.saved_graph_line = saved->line;
    }
    a.hlo_module_id = links_.module_of(b, n);
    return a;
  }

  // The block's own cause line says a tensor value was read on the host. Evidence records, one
  // per line: the block, the read (docs/causes.md), the profiler's transfer count.
  void host_sync(AttributedCompile& a, const XlaBlockRecord& b,
                 const std::optional<FrameRecord>& user) const {
    a.cause = "sync_fragment";
    ValueRead read = name_value_read(b, user, in_.value_read_executions, source_name_);
    a.subject = read.frame ? fmt::format("{}:{}", read.frame->file, read.frame->line) : "";
    a.detail = fmt::format(
        "graph cut mid-step by a host sync in {}: .item(), .cpu(), print(tensor) or a "
        "data-dependent Python branch forced execution before the step-end sync",
        read.frame ? frame_text(*read.frame) : std::string("an unknown frame"));
    if (b.value_read_line > 0) {
      // VLOG: the GetTensor read names no frame; its line is the evidence.
      a.subject = "value read on the host";
      a.evidence = fmt::format("GetTensor `Trying to get the value of {} tensor(s)` at {}:{}; {}",
                               b.value_read_tensors.value_or(0), source_name_[b.source_id],
                               b.value_read_line, a.evidence);
      a.detail = fmt::format(
          "graph compiled for a value read on the host (torch_xla VLOG line {}: `Trying to get "
          "the value of {} tensor(s)`): .item(), .cpu(), print(tensor) or a data-dependent "
          "Python branch forced execution before the step-end sync; VLOG names no Python frame, "
          "PT_XLA_DEBUG=1 would name the line that read it",
          b.value_read_line, b.value_read_tensors.value_or(0));
    } else if (!read.frame) {
      a.detail += "; " + read.missing;
    }
    // The cause line alone is one artifact's word: `medium` until a runtime count agrees.
    std::string corroboration = host_sync_corroboration(in_.host_syncs, b.step);
    if (!corroboration.empty()) a.evidence += "; " + corroboration;
    a.evidence += "\n" + read.evidence;
    std::string transfers = transfer_note_evidence(in_.host_syncs.transfer_notes, b, source_name_);
    if (!transfers.empty()) a.evidence += "\n" + transfers;
    if (corroboration.empty() && transfers.empty()) {
      a.confidence = "medium";
      a.detail += fmt::format("; seen only in {} (an XLA_METRICS_FILE report would confirm it)",
                              b.origin == "vlog" ? "the VLOG output" : "PT_XLA_DEBUG");
    } else {
      a.confidence = "high";
    }
  }

  // A graph this site compiled before is compiled again.
  static void not_reused(AttributedCompile& a) {
    a.cause = "unknown";
    a.confidence = "low";
    a.prev_program_key = a.program_key;
    a.detail = fmt::format(
        "graph {} was already compiled earlier in this run: the compiled program was not reused "
        "(cache eviction or a disabled cache); XLA_METRICS_FILE counters (CachedCompile, "
        "UncachedCompile) show the cache behaviour",
        a.program_key);
  }

  // A new graph at the site: what differs from the most similar earlier program.
  void compare(AttributedCompile& a, const ProgramView& before, const ProgramView& view,
               const std::string& where) {
    ProgramDiff d = diff_programs(before, view);
    if (d.op_attributes_only) name_op_attribute_changes(in_, before, view, d);
    a.cause = d.cause;
    a.confidence = d.confidence;
    a.subject = d.subject;
    a.detail = d.detail;
    if (!d.evidence.empty()) a.evidence = d.evidence + "; " + where;
    if (d.cause == "shape" && d.shape_param >= 0) {
      auto& values = shape_values_[{a.site, d.shape_param, d.shape_dim}];
      if (d.old_dim_value) values.insert(*d.old_dim_value);
      if (d.new_dim_value) values.insert(*d.new_dim_value);
      shape_compiles_.push_back({out_.size(), {a.site, d.shape_param, d.shape_dim}});
    }
  }

  // A dim that takes several values at one site: every shape recompile of it lists them.
  void list_dim_values() {
    for (const auto& [index, dim_key] : shape_compiles_) {
      const auto& values = shape_values_[dim_key];
      if (values.size() < 3) continue;
      std::string list;
      size_t shown = 0;
      for (int64_t v : values) {
        if (shown++ == 12) {
          list += fmt::format(", (+{} more)", values.size() - 12);
          break;
        }
        list += (list.empty() ? "" : ", ") + std::to_string(v);
      }
      out_[index].detail +=
          fmt::format("; param {} dim {} took {} values at this site: {}", std::get<1>(dim_key),
                      std::get<2>(dim_key), values.size(), list);
    }
  }

  XlaRunInputs& in_;
  ProgramLinks links_;
  std::map<int64_t, std::string>& source_name_;
  int64_t& ordinal_;
  std::vector<AttributedCompile>& out_;
  std::map<std::string, ProgramView> programs_;  // program key -> its view: one per program
  // Per process and site: each PT_XLA_DEBUG source is one process's stream with its own program
  // cache (analysis/xla_same_process.h), so a graph another process compiled is new to this one.
  std::map<std::pair<int64_t, std::string>, SiteState> sites_;
  std::map<DimKey, std::set<int64_t>> shape_values_;
  std::vector<std::pair<size_t, DimKey>> shape_compiles_;  // out_ index, its dim
  std::vector<std::string> compile_structure_;             // per out_ index (XLA only), "" unknown
};

// For phase 4 of analyze_xla_run: compile and wall time per step. The step-timing file's compile
// column, else the growth of the CompileTime accumulator between metrics blocks, else the known
// compile times.
class StepTimes {
 public:
  explicit StepTimes(const XlaRunInputs& in) {
    for (const auto& t : in.step_times) step_time_[t.step] = t;
    for (const auto& m : in.compile_time_steps) metrics_[m.step] = m;
    double accumulated_ns = 0;
    for (const auto& [step, m] : metrics_)
      if (m.accumulator_ns) {
        metric_compile_ms_[step] = std::max(0.0, *m.accumulator_ns - accumulated_ns) / 1e6;
        accumulated_ns = *m.accumulator_ns;
      }
  }

  // Last CompileTime block of each step.
  const std::map<int64_t, MetricStepRecord>& metrics() const { return metrics_; }

  void fill(ConvergencePoint& p, std::optional<double> known_ms) const {
    if (auto t = step_time_.find(p.step); t != step_time_.end()) {
      p.wall_ms = t->second.wall_ms;
      p.compile_ms = t->second.compile_ms;
    }
    if (!p.compile_ms)
      if (auto m = metric_compile_ms_.find(p.step); m != metric_compile_ms_.end())
        p.compile_ms = m->second;
    if (!p.compile_ms) p.compile_ms = known_ms;
  }

 private:
  std::map<int64_t, StepTimeRecord> step_time_;
  std::map<int64_t, MetricStepRecord> metrics_;  // last block of each step wins
  std::map<int64_t, double> metric_compile_ms_;
};

// Change points only: a run of 1 M steps that compiled in ten keeps a dozen rows. A step left out
// had no compile, no compile or wall time, and the programs of the row before.
bool changes(const ConvergencePoint& p) {
  return p.compiles_in_step > 0 || p.wall_ms || (p.compile_ms && *p.compile_ms > 0);
}

// The convergence curve from the compiles' steps, up to `max_step`.
std::vector<ConvergencePoint> convergence_from_compiles(
    const std::vector<AttributedCompile>& compiles, int64_t max_step, const StepTimes& times) {
  std::vector<ConvergencePoint> curve;
  std::map<int64_t, std::vector<const AttributedCompile*>> by_step;
  for (const auto& c : compiles)
    if (c.step) by_step[*c.step].push_back(&c);
  std::set<std::string> programs;
  for (int64_t s = 1; s <= max_step; ++s) {
    ConvergencePoint p;
    p.step = s;
    std::optional<double> known_ms;
    if (auto it = by_step.find(s); it != by_step.end())  // find: most steps compile nothing
      for (const AttributedCompile* c : it->second) {
        ++p.compiles_in_step;
        programs.insert(c->program_key);
        if (c->compile_ms) known_ms = known_ms.value_or(0) + *c->compile_ms;
      }
    p.programs_cached = static_cast<int64_t>(programs.size());
    times.fill(p, known_ms);
    if (s == 1 || s == max_step || changes(p)) curve.push_back(p);
  }
  return curve;
}

// The convergence curve from the metrics blocks' CompileTime samples, when no compile has a step.
std::vector<ConvergencePoint> convergence_from_metrics(const StepTimes& times) {
  std::vector<ConvergencePoint> curve;
  const auto& metrics = times.metrics();
  double prev = 0;
  for (const auto& [step, m] : metrics) {
    ConvergencePoint p;
    p.step = step;
    p.programs_cached = static_cast<int64_t>(m.total_samples);
    p.compiles_in_step = static_cast<int64_t>(m.total_samples - prev);
    prev = m.total_samples;
    times.fill(p, std::nullopt);
    if (step == metrics.begin()->first || step == metrics.rbegin()->first || changes(p))
      curve.push_back(p);
  }
  return curve;
}

// Phase 4 of analyze_xla_run: convergence, with compile time per step.
std::vector<ConvergencePoint> convergence(const XlaRunInputs& in,
                                          const std::vector<AttributedCompile>& compiles) {
  StepTimes times(in);
  int64_t max_step = in.steps_seen;  // steps were computed by the loader
  bool any_step = false;
  for (const auto& c : compiles)
    if (c.step) {
      any_step = true;
      max_step = std::max(max_step, *c.step);
    }
  if (any_step) return convergence_from_compiles(compiles, max_step, times);
  return convergence_from_metrics(times);
}

}  // namespace

std::string frame_text(const FrameRecord& f) {
  return fmt::format("{}:{} ({})", f.file, f.line, f.function);
}

std::optional<FrameRecord> innermost_user_frame(const std::vector<FrameRecord>& frames) {
  for (const auto& f : frames)
    if (!is_library_frame(f)) return f;
  return std::nullopt;
}

XlaRunResult analyze_xla_run(XlaRunInputs in, int64_t first_ordinal) {
  std::map<int64_t, std::string> source_name(in.source_names.begin(), in.source_names.end());
  XlaRunResult out;
  out.counted = in.counted;
  int64_t ordinal = first_ordinal;
  // 1, 2. Links (in XlaAttributor) and torch_xla compiles.
  XlaAttributor(in, source_name, ordinal, out.compiles).run();
  // 2b. grab_graphs.py summaries: corroborating those compiles, or the only record of a frame's.
  apply_grab_frames(in.grab_frames, source_name, ordinal, out.compiles);
  // 3. JAX compiles.
  JaxAttributor(in, source_name, ordinal, out.compiles).run();
  // 4. Convergence.
  out.convergence = convergence(in, out.compiles);
  return out;
}

}  // namespace rcf::analysis
