#include "report/report_model.h"

#include <fmt/format.h>

#include <algorithm>
#include <deque>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <unordered_map>

#include "analysis/restart_proof.h"
#include "report/lane_claims.h"
#include "store/compile_queries.h"
#include "store/convergence_queries.h"
#include "store/hlo_module_queries.h"
#include "store/run_queries.h"
#include "store/source_queries.h"
#include "util/error.h"
#include "util/json_depth.h"

namespace rcf::report {
namespace {

// ---------------------------------------------------------------------------------------------
// Bundle, formats, convergence facts.

void load_bundle(store::Database& db, RunReport& run) {
  const std::optional<std::string> text = store::run_bundle_json(db, run.summary.run_id);
  if (!text) return;
  auto j = util::parse_json_bounded(*text);
  if (j.is_object()) {
    for (const auto& [key, value] : j.items())
      run.bundle.push_back(
          {key, value.is_string()
                    ? value.get<std::string>()
                    : value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace)});
    // The stack versions first, in stack order; then flags and the rest by name.
    static const std::vector<std::string> kStack = {
        "python", "torch",  "torch_git", "torch_xla", "libtpu",
        "jax",    "jaxlib", "cuda",      "triton",    "capture_level"};
    auto rank = [](const std::string& key) {
      return std::find(kStack.begin(), kStack.end(), key) - kStack.begin();
    };
    std::stable_sort(
        run.bundle.begin(), run.bundle.end(),
        [&](const BundleEntry& a, const BundleEntry& b) { return rank(a.key) < rank(b.key); });
  } else {
    run.bundle.push_back({"bundle", *text});
  }
}

void load_formats(store::Database& db, RunReport& run) {
  run.formats = store::formats_of_run(db, run.summary.run_id);
}

// Returns the curve's first step (0 when the run has no curve).
int64_t load_convergence_facts(store::Database& db, RunReport& run) {
  const std::optional<store::ConvergenceSummaryRow> row =
      store::convergence_summary_of_run(db, run.summary.run_id);
  if (!row) return 0;
  run.programs = row->programs;
  run.execute_ms = row->execute_ms;
  return row->first_step.value_or(0);
}

// ---------------------------------------------------------------------------------------------
// The convergence chart: change points over at most kMaxChartColumns buckets.

// First step of the bucket that holds `step` (steps from first_step on).
int64_t bucket_of(const RunChart& chart, int64_t step) {
  return chart.first_step + (step - chart.first_step) / chart.bucket * chart.bucket;
}

void load_chart(store::Database& db, RunReport& run, int64_t first_step) {
  const RunSummary& s = run.summary;
  RunChart& chart = run.chart;
  if (s.settle_state == "no_data") return;
  chart.first_step = first_step;
  chart.last_step = std::max(first_step, s.last_step);
  int64_t span = chart.last_step - chart.first_step + 1;
  chart.bucket = std::max<int64_t>(1, (span + kMaxChartColumns - 1) / kMaxChartColumns);
  int64_t current = INT64_MIN, value = 0;  // bucket being read and its latest programs_cached
  ChartBar bar;
  auto flush = [&]() {
    if (current == INT64_MIN) return;
    if (chart.programs.empty() || chart.programs.back().second != value)
      chart.programs.emplace_back(current, value);
    if (bar.compiles > 0 || bar.compile_ms) {
      bar.step = current;
      chart.max_compile_ms = std::max(chart.max_compile_ms, bar.compile_ms.value_or(0));
      chart.compiles.push_back(bar);
    }
    chart.max_programs = std::max(chart.max_programs, value);
  };
  store::for_each_convergence_point(db, s.run_id, [&](const store::ConvergencePointRow& point) {
    int64_t b = bucket_of(chart, point.step);
    if (b != current) {
      flush();
      current = b;
      bar = ChartBar{};
    }
    value = point.programs_cached;
    bar.compiles += point.compiles_in_step;
    if (point.compile_ms) bar.compile_ms = bar.compile_ms.value_or(0) + *point.compile_ms;
    ++chart.points;
  });
  flush();
  chart.has_curve = chart.points > 0;
}

// Marks from recompiles counted per (bucket, cause), each placed on the step line.
void finish_marks(RunChart& chart,
                  const std::map<std::pair<int64_t, std::string>, int64_t>& counts) {
  for (const auto& [key, count] : counts) {
    ChartMark m;
    m.step = key.first;
    m.cause = key.second;
    m.count = count;
    // Programs cached at the end of the mark's bucket: the last change point at or before it.
    auto it = std::upper_bound(chart.programs.begin(), chart.programs.end(), m.step,
                               [](int64_t step, const auto& p) { return step < p.first; });
    m.programs = it == chart.programs.begin() ? 0 : std::prev(it)->second;
    chart.marks.push_back(std::move(m));
  }
}

// ---------------------------------------------------------------------------------------------
// Every recompile per site (head and tail), with its evidence.

using ModuleData = store::HloModuleContents;

// "file:line" of a constant from HLO metadata, "" when absent.
std::string constant_source(const store::HloConstantRow& k) {
  if (!k.source_file) return "";
  return k.source_line ? fmt::format("{}:{}", *k.source_file, *k.source_line) : *k.source_file;
}

// Fills the parameter table, constant changes and op delta of `r` from the two modules.
void compare_modules(const ModuleData& before, const ModuleData& after, RecompileEvidence& r) {
  r.hlo_compared = true;
  const size_t n_old = before.param_keys.size(), n_new = after.param_keys.size();
  r.old_params = static_cast<int64_t>(n_old);
  r.new_params = static_cast<int64_t>(n_new);
  size_t prefix = 0;
  while (prefix < n_old && prefix < n_new && before.param_keys[prefix] == after.param_keys[prefix])
    ++prefix;
  size_t suffix = 0;
  while (suffix < n_old - prefix && suffix < n_new - prefix &&
         before.param_keys[n_old - 1 - suffix] == after.param_keys[n_new - 1 - suffix])
    ++suffix;
  r.params_same_before = static_cast<int64_t>(prefix);
  r.params_same_after = static_cast<int64_t>(suffix);
  size_t rows = std::max(n_old - prefix - suffix, n_new - prefix - suffix);
  for (size_t i = 0; i < rows; ++i) {
    if (static_cast<int64_t>(r.params.size()) >= kMaxEvidenceRows) {
      ++r.params_not_listed;
      continue;
    }
    ParamRow row;
    if (prefix + i < n_old - suffix) {
      row.old_number = before.param_numbers[prefix + i];
      row.old_shape = before.param_shapes[prefix + i];
    }
    if (prefix + i < n_new - suffix) {
      row.new_number = after.param_numbers[prefix + i];
      row.new_shape = after.param_shapes[prefix + i];
    }
    r.params.push_back(std::move(row));
  }

  // Constants are paired by ordinal, as the attribution pairs them.
  r.old_constants = static_cast<int64_t>(before.constants.size());
  r.new_constants = static_cast<int64_t>(after.constants.size());
  std::map<int64_t, std::pair<const store::HloConstantRow*, const store::HloConstantRow*>> pairs;
  for (const auto& k : before.constants) pairs[k.ordinal].first = &k;
  for (const auto& k : after.constants) pairs[k.ordinal].second = &k;
  for (const auto& [ordinal, pair] : pairs) {
    const auto [a, b] = pair;
    if (a && b && a->value == b->value && a->shape == b->shape) continue;
    if (static_cast<int64_t>(r.constants.size()) >= kMaxEvidenceRows) {
      ++r.constants_not_listed;
      continue;
    }
    const store::HloConstantRow& any = b ? *b : *a;
    ConstantChange change;
    change.name = any.name;
    change.shape = any.shape;
    change.old_value = a ? a->value : "";
    change.new_value = b ? b->value : "";
    change.user_op = any.user_op;
    change.op_name = any.op_name;
    change.source = constant_source(any);
    r.constants.push_back(std::move(change));
  }

  std::set<std::string> ops;
  for (const auto& [op, n] : before.ops) ops.insert(op);
  for (const auto& [op, n] : after.ops) ops.insert(op);
  int listed = 0, more = 0;
  for (const auto& op : ops) {
    auto count = [&](const ModuleData& d) {
      auto it = d.ops.find(op);
      return it == d.ops.end() ? int64_t{0} : it->second;
    };
    int64_t delta = count(after) - count(before);
    if (delta == 0) continue;
    if (listed == 12) {
      ++more;
      continue;
    }
    r.op_delta += fmt::format("{}{:+d} {}", r.op_delta.empty() ? "" : ", ", delta, op);
    ++listed;
  }
  if (more) r.op_delta += fmt::format(" (+{} more)", more);
}

struct SiteScan {
  int64_t count = 0;
  std::vector<int64_t> head;  // compile rows
  std::deque<int64_t> tail;
};

struct Fetched {
  RecompileEvidence evidence;
  int64_t hlo_module_id = -1;
  bool has_prev = false;  // evidence.prev_program_key is known
};

std::unordered_map<int64_t, Fetched> fetch_recompiles(store::Database& db,
                                                      const std::vector<int64_t>& rows) {
  std::unordered_map<int64_t, Fetched> out;
  for (auto& [row, rec] : store::recompiles_by_row(db, rows)) {
    Fetched f;
    RecompileEvidence& r = f.evidence;
    r.ordinal = rec.ordinal;
    r.step = rec.step;
    r.program_key = std::move(rec.program_key);
    r.prev_program_key = std::move(rec.prev_program_key);
    r.cause = std::move(rec.cause);
    r.confidence = std::move(rec.confidence);
    r.detail = std::move(rec.detail);
    r.evidence = std::move(rec.evidence);
    r.compile_ms = rec.compile_ms;
    r.guard_text = std::move(rec.guard_text);
    r.other_reasons = rec.other_reasons;
    f.hlo_module_id = rec.hlo_module_id.value_or(-1);
    f.has_prev = rec.has_prev;
    out[row] = std::move(f);
  }
  return out;
}

// For XLA recompiles whose program and previous program both have HLO, the evidence tables.
void attach_hlo_evidence(store::Database& db, int64_t run_id,
                         std::unordered_map<int64_t, Fetched>& fetched) {
  std::set<std::string, std::less<>> prev_keys;
  for (const auto& [row, f] : fetched)
    if (f.hlo_module_id >= 0 && f.has_prev) prev_keys.insert(f.evidence.prev_program_key);
  if (prev_keys.empty()) return;
  // Every compile of the previous program keys that has a module, in compile order.
  const auto modules_of = store::hlo_modules_of_programs(db, run_id, prev_keys);
  std::map<int64_t, int64_t> prev_module;  // compile row -> module of its previous program
  std::set<int64_t> needed;
  for (const auto& [row, f] : fetched) {
    if (f.hlo_module_id < 0 || !f.has_prev) continue;
    auto it = modules_of.find(f.evidence.prev_program_key);
    if (it == modules_of.end()) continue;
    // The latest compile of that key before this one (else its first).
    int64_t chosen = it->second.front().second;
    for (const auto& [ordinal, id] : it->second)
      if (ordinal < f.evidence.ordinal) chosen = id;
    prev_module[row] = chosen;
    needed.insert(chosen);
    needed.insert(f.hlo_module_id);
  }
  const auto modules = store::hlo_module_contents(db, needed);
  for (auto& [row, f] : fetched) {
    auto prev = prev_module.find(row);
    if (prev == prev_module.end()) continue;
    auto a = modules.find(prev->second), b = modules.find(f.hlo_module_id);
    if (a != modules.end() && b != modules.end()) compare_modules(a->second, b->second, f.evidence);
  }
}

// The run's recompiles per site as the listing needs them.
struct RecompileScan {
  std::unordered_map<int64_t, SiteScan> sites;  // by site string id
  int64_t first_row = -1, first_site = -1;      // the run's first recompile
};

// One pass over the run's recompiles: the listed ones per site, the chart's marks per bucket
// and cause, and the recompiles after the settle step.
RecompileScan scan_recompiles(store::Database& db, RunReport& run) {
  RecompileScan scan;
  RunChart& chart = run.chart;
  const bool curve = chart.has_curve, settled = run.summary.settle_state != "no_data";
  std::map<std::pair<int64_t, std::string>, int64_t> marks;
  std::pair<int64_t, std::string> last_mark{INT64_MIN, ""};
  int64_t* last_count = nullptr;
  store::for_each_recompile(db, run.summary.run_id, [&](const store::RecompileScanRow& c) {
    if (c.step) {
      const int64_t step = *c.step;
      if (settled && step > run.summary.settle_step) ++run.recompiles_after_settle;
      if (curve && step >= chart.first_step && step <= chart.last_step) {
        int64_t b = bucket_of(chart, step);
        // Consecutive recompiles usually share a bucket and cause: skip the map lookup.
        if (!last_count || last_mark.first != b || last_mark.second != c.cause) {
          last_mark = {b, std::string(c.cause)};
          last_count = &marks[last_mark];
        }
        ++*last_count;
      }
    }
    if (scan.first_row < 0) {
      scan.first_row = c.compile_row;
      scan.first_site = c.site_sid;
    }
    SiteScan& s = scan.sites[c.site_sid];
    ++s.count;
    if (static_cast<int64_t>(s.head.size()) < kRecompileHead) {
      s.head.push_back(c.compile_row);
      return;
    }
    s.tail.push_back(c.compile_row);
    if (static_cast<int64_t>(s.tail.size()) > kRecompileTail) s.tail.pop_front();
  });
  finish_marks(chart, marks);
  return scan;
}

using ListedSites = std::vector<std::pair<std::string, const SiteScan*>>;

// Sites with recompiles in explain's order (most recompiles first), at most kMaxRecompileSites;
// those beyond the bound are counted in run.sites_not_listed.
ListedSites listed_sites(RunReport& run, const RecompileScan& scan,
                         const std::unordered_map<int64_t, std::string>& text_of) {
  std::unordered_map<std::string, int64_t> sid_of;
  for (const auto& [sid, text] : text_of) sid_of[text] = sid;
  ListedSites listed;
  for (const auto& site : run.summary.sites) {
    auto it = sid_of.find(site.site);
    if (it == sid_of.end()) continue;
    if (static_cast<int64_t>(listed.size()) >= kMaxRecompileSites) {
      ++run.sites_not_listed;
      continue;
    }
    listed.emplace_back(site.site, &scan.sites.at(it->second));
  }
  return listed;
}

void load_recompiles(store::Database& db, RunReport& run) {
  const RecompileScan scan = scan_recompiles(db, run);
  if (scan.sites.empty()) return;
  std::vector<int64_t> sids;
  for (const auto& [sid, s] : scan.sites) sids.push_back(sid);
  std::unordered_map<int64_t, std::string> text_of = store::string_texts(db, sids);
  const ListedSites listed = listed_sites(run, scan, text_of);

  std::vector<int64_t> rows = {scan.first_row};
  for (const auto& [site, s] : listed) {
    rows.insert(rows.end(), s->head.begin(), s->head.end());
    rows.insert(rows.end(), s->tail.begin(), s->tail.end());
  }
  auto fetched = fetch_recompiles(db, rows);
  attach_hlo_evidence(db, run.summary.run_id, fetched);

  for (const auto& [site, s] : listed) {
    SiteRecompiles out;
    out.site = site;
    out.recompiles = s->count;
    for (int64_t row : s->head) out.listed.push_back(fetched[row].evidence);
    out.head = static_cast<int64_t>(out.listed.size());
    for (int64_t row : s->tail) out.listed.push_back(fetched[row].evidence);
    out.not_listed = s->count - static_cast<int64_t>(out.listed.size());
    run.sites.push_back(std::move(out));
  }
  run.first_recompile = fetched[scan.first_row].evidence;
  run.first_recompile_site = text_of[scan.first_site];
}

void load_first_failure(store::Database& db, RunReport& run) {
  if (run.summary.failed == 0) return;
  if (auto f = store::first_failed_compile(db, run.summary.run_id))
    run.first_failure = FailedCompile{f->ordinal, f->step, std::move(f->program_key),
                                      std::move(f->site), std::move(f->reason)};
}

// ---------------------------------------------------------------------------------------------
// Ingest statistics.

void load_sources(store::Database& db, RunReport& run) {
  store::RunSources sources = store::sources_of_run(db, run.summary.run_id, kMaxSourcesListed);
  run.sources = std::move(sources.listed);
  run.sources_not_listed = sources.total - static_cast<int64_t>(run.sources.size());
}

// The longest directory (ending in '/') that starts every path.
std::string common_directory(const std::vector<const std::string*>& paths) {
  if (paths.empty()) return "";
  std::string prefix = *paths.front();
  for (const auto* p : paths) {
    size_t n = 0;
    while (n < prefix.size() && n < p->size() && prefix[n] == (*p)[n]) ++n;
    prefix.resize(n);
  }
  size_t slash = prefix.find_last_of('/');
  return slash == std::string::npos ? "" : prefix.substr(0, slash + 1);
}

std::string strip_root(const std::string& text, const std::string& root) {
  if (root.empty()) return text;
  std::string out;
  size_t pos = 0, hit;
  while ((hit = text.find(root, pos)) != std::string::npos) {
    out.append(text, pos, hit - pos);
    pos = hit + root.size();
  }
  out.append(text, pos, std::string::npos);
  return out;
}

void relativize_sources(ReportModel& model) {
  std::vector<const std::string*> paths;
  for (const auto& lane : model.lanes)
    for (const auto& run : lane.runs)
      for (const auto& s : run.sources)
        if (s.path != "-") paths.push_back(&s.path);
  model.source_root = common_directory(paths);
  for (auto& lane : model.lanes)
    for (auto& run : lane.runs)
      for (auto& s : run.sources) {
        if (s.path.rfind(model.source_root, 0) == 0)
          s.path = s.path.substr(model.source_root.size());
        s.first_error = strip_root(s.first_error, model.source_root);
        s.read_error = strip_root(s.read_error, model.source_root);
      }
}

}  // namespace

std::string duration_or_unknown(const std::optional<double>& ms) {
  return ms ? analysis::duration_text(*ms) : "unknown";
}

std::vector<std::pair<std::string, std::string>> restart_pairs(
    const std::vector<std::string>& run_labels) {
  std::vector<std::string> labels = run_labels;
  std::sort(labels.begin(), labels.end());
  std::vector<std::string> colds;
  for (const auto& l : labels)
    if (l.find("cold") != std::string::npos) colds.push_back(l);
  std::vector<std::pair<std::string, std::string>> pairs;
  for (const auto& warm : labels) {
    size_t at = warm.find("warm");
    if (at == std::string::npos) continue;
    std::string cold = warm;
    cold.replace(at, 4, "cold");
    if (std::binary_search(labels.begin(), labels.end(), cold))
      pairs.emplace_back(cold, warm);
    else if (colds.size() == 1)
      pairs.emplace_back(colds.front(), warm);
  }
  return pairs;
}

std::vector<RestartReport> lane_restart_proofs(store::Database& db, const std::string& lane) {
  std::map<std::string, int64_t> ids;
  std::vector<std::string> labels;
  for (const store::RunRef& r : store::runs_of_lane(db, lane)) {
    ids[r.run] = r.run_id;
    labels.push_back(r.run);
  }
  std::vector<RestartReport> out;
  for (const auto& [cold, warm] : restart_pairs(labels))
    out.push_back({lane, cold, warm,
                   analysis::decide_restart(analysis::load_restart_facts(db, ids[cold]),
                                            analysis::load_restart_facts(db, ids[warm]))});
  return out;
}

ReportModel build_report(store::Database& db, const std::string& lane) {
  ReportModel model;
  model.database = db.path();
  // Reasons and fix-first rows are loaded for what the reports list (the rest is counted).
  ExplainModel explain =
      build_explain(db, lane, ExplainListing{std::max(kMaxFixFirstRows, kMaxRecompileSites)});
  if (!lane.empty() && explain.runs.empty())
    throw Error(fmt::format("no lane named '{}' in {} (lanes: {})", lane, db.path(),
                            store::lane_names_text(db)));
  bool any_curve = false;
  for (auto& summary : explain.runs) {
    if (model.lanes.empty() || model.lanes.back().lane != summary.lane) {
      model.lanes.push_back({});
      model.lanes.back().lane = summary.lane;
    }
    RunReport run;
    run.summary = std::move(summary);
    load_bundle(db, run);
    load_formats(db, run);
    int64_t first_step = load_convergence_facts(db, run);
    load_chart(db, run, first_step);
    load_recompiles(db, run);
    load_first_failure(db, run);
    load_sources(db, run);
    if (run.chart.has_curve) {
      model.chart_first_step =
          any_curve ? std::min(model.chart_first_step, run.chart.first_step) : run.chart.first_step;
      model.chart_last_step =
          any_curve ? std::max(model.chart_last_step, run.chart.last_step) : run.chart.last_step;
      any_curve = true;
    }
    model.lanes.back().runs.push_back(std::move(run));
  }
  for (auto& l : model.lanes) {
    l.restarts = lane_restart_proofs(db, l.lane);
    l.claims = decide_lane_claims(l);
  }
  relativize_sources(model);
  return model;
}

}  // namespace rcf::report
