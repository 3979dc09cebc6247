#include "report/report_model.h"

#include <fmt/format.h>

#include <algorithm>
#include <deque>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <unordered_map>

#include "analysis/restart_proof.h"
#include "store/run_queries.h"
#include "util/error.h"
#include "util/json_depth.h"

namespace rcf::report {
namespace {

std::string join_ids(const std::vector<int64_t>& ids) {
  std::string out;
  for (int64_t id : ids) out += (out.empty() ? "" : ",") + std::to_string(id);
  return out;
}

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
  auto st = db.prepare("SELECT DISTINCT format FROM source WHERE run_id = ? ORDER BY format");
  st.bind(1, run.summary.run_id);
  while (st.step()) run.formats.push_back(st.str(0));
}

// Returns the curve's first step (0 when the run has no curve).
int64_t load_convergence_facts(store::Database& db, RunReport& run) {
  auto st = db.prepare(
      "SELECT programs, execute_ms, first_step FROM convergence_summary WHERE run_id = ?");
  st.bind(1, run.summary.run_id);
  if (!st.step()) return 0;
  run.programs = st.int64(0);
  run.execute_ms = st.opt_real(1);
  int64_t first_step = st.opt_int64(2).value_or(0);
  return first_step;
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
  auto points = db.prepare(
      "SELECT step, programs_cached, compiles_in_step, compile_ms FROM convergence_point "
      "WHERE run_id = ? ORDER BY step");
  points.bind(1, s.run_id);
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
  while (points.step()) {
    int64_t b = bucket_of(chart, points.int64(0));
    if (b != current) {
      flush();
      current = b;
      bar = ChartBar{};
    }
    value = points.int64(1);
    bar.compiles += points.int64(2);
    if (auto ms = points.opt_real(3)) bar.compile_ms = bar.compile_ms.value_or(0) + *ms;
    ++chart.points;
  }
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

struct ConstantRow {
  int64_t ordinal = 0;
  std::string name, shape, value, user_op, op_name, source;
};

// What the report compares between two HLO modules.
struct ModuleData {
  std::vector<int64_t> param_numbers;
  std::vector<std::string> param_shapes;  // as printed
  std::vector<std::string> param_keys;    // dtype + dims: layouts are not compared
  std::vector<ConstantRow> constants;     // by ordinal
  std::map<std::string, int64_t> ops;
};

std::map<int64_t, ModuleData> load_modules(store::Database& db, const std::set<int64_t>& ids) {
  std::map<int64_t, ModuleData> modules;
  if (ids.empty()) return modules;
  std::string list = join_ids(std::vector<int64_t>(ids.begin(), ids.end()));
  auto m = db.prepare(
      "SELECT hlo_module_id, op_histogram FROM hlo_module WHERE hlo_module_id IN (" + list + ")");
  while (m.step()) {
    ModuleData& d = modules[m.int64(0)];
    auto hist = util::parse_json_bounded(m.text(1));
    if (hist.is_object())
      for (const auto& [op, n] : hist.items())
        if (n.is_number_integer()) d.ops[op] = n.get<int64_t>();
  }
  auto p = db.prepare(
      "SELECT hlo_module_id, number, shape_text, dtype, dims FROM hlo_parameter "
      "WHERE hlo_module_id IN (" +
      list + ") ORDER BY hlo_module_id, number");
  while (p.step()) {
    ModuleData& d = modules[p.int64(0)];
    d.param_numbers.push_back(p.int64(1));
    d.param_shapes.push_back(p.str(2));
    d.param_keys.push_back(p.str(3) + p.str(4));
  }
  auto c = db.prepare(
      "SELECT c.hlo_module_id, c.ordinal, c.name, c.shape_text, v.text, c.user_op, o.text, "
      "f.text, c.source_line FROM hlo_constant c JOIN strings v ON v.string_id = c.value_sid "
      "LEFT JOIN strings o ON o.string_id = c.op_name_sid "
      "LEFT JOIN strings f ON f.string_id = c.source_file_sid "
      "WHERE c.hlo_module_id IN (" +
      list + ") ORDER BY c.hlo_module_id, c.ordinal");
  while (c.step()) {
    ConstantRow k;
    k.ordinal = c.int64(1);
    k.name = c.str(2);
    k.shape = c.str(3);
    k.value = c.str(4);
    k.user_op = c.str(5);
    k.op_name = c.str(6);
    if (!c.is_null(7))
      k.source = c.is_null(8) ? c.str(7) : fmt::format("{}:{}", c.str(7), c.int64(8));
    modules[c.int64(0)].constants.push_back(std::move(k));
  }
  return modules;
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
  std::map<int64_t, std::pair<const ConstantRow*, const ConstantRow*>> pairs;
  for (const auto& k : before.constants) pairs[k.ordinal].first = &k;
  for (const auto& k : after.constants) pairs[k.ordinal].second = &k;
  for (const auto& [ordinal, pair] : pairs) {
    const auto [a, b] = pair;
    if (a && b && a->value == b->value && a->shape == b->shape) continue;
    if (static_cast<int64_t>(r.constants.size()) >= kMaxEvidenceRows) {
      ++r.constants_not_listed;
      continue;
    }
    const ConstantRow& any = b ? *b : *a;
    ConstantChange change;
    change.name = any.name;
    change.shape = any.shape;
    change.old_value = a ? a->value : "";
    change.new_value = b ? b->value : "";
    change.user_op = any.user_op;
    change.op_name = any.op_name;
    change.source = any.source;
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
  constexpr size_t kChunk = 500;
  for (size_t at = 0; at < rows.size(); at += kChunk) {
    std::vector<int64_t> chunk(rows.begin() + at,
                               rows.begin() + std::min(rows.size(), at + kChunk));
    auto st = db.prepare(
        "SELECT c.compile_row, c.ordinal, c.step, c.program_key, a.prev_program_key, a.cause, "
        "a.confidence, "
        "a.detail, a.evidence, c.compile_ms, rs.text, a.other_reasons, c.hlo_module_id, "
        "a.prev_program_key IS NOT NULL FROM compile_event c "
        "JOIN attribution a ON a.compile_row = c.compile_row "
        "LEFT JOIN strings rs ON rs.string_id = a.reason_sid "
        "WHERE c.compile_row IN (" +
        join_ids(chunk) + ")");
    while (st.step()) {
      Fetched f;
      RecompileEvidence& r = f.evidence;
      r.ordinal = st.int64(1);
      r.step = st.opt_int64(2);
      r.program_key = st.str(3);
      r.prev_program_key = st.str(4);
      r.cause = st.str(5);
      r.confidence = st.str(6);
      r.detail = st.str(7);
      r.evidence = st.str(8);
      r.compile_ms = st.opt_real(9);
      r.guard_text = st.str(10);
      r.other_reasons = st.int64(11);
      f.hlo_module_id = st.opt_int64(12).value_or(-1);
      f.has_prev = st.int64(13) != 0;
      out[st.int64(0)] = std::move(f);
    }
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
  // program key -> (ordinal, module id)
  std::map<std::string, std::vector<std::pair<int64_t, int64_t>>, std::less<>> modules_of;
  auto st = db.prepare(
      "SELECT ordinal, program_key, hlo_module_id FROM compile_event "
      "WHERE run_id = ? AND hlo_module_id IS NOT NULL ORDER BY ordinal");
  st.bind(1, run_id);
  while (st.step())
    if (prev_keys.count(st.text(1))) modules_of[st.str(1)].emplace_back(st.int64(0), st.int64(2));
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
  auto modules = load_modules(db, needed);
  for (auto& [row, f] : fetched) {
    auto prev = prev_module.find(row);
    if (prev == prev_module.end()) continue;
    auto a = modules.find(prev->second), b = modules.find(f.hlo_module_id);
    if (a != modules.end() && b != modules.end()) compare_modules(a->second, b->second, f.evidence);
  }
}

void load_recompiles(store::Database& db, RunReport& run) {
  const int64_t run_id = run.summary.run_id;
  std::unordered_map<int64_t, SiteScan> scan;  // by site_sid
  int64_t first_row = -1, first_site = -1;
  // One pass over the run's recompiles: the listed ones per site, the chart's marks per bucket
  // and cause, and the recompiles after the settle step.
  RunChart& chart = run.chart;
  const bool curve = chart.has_curve, settled = run.summary.settle_state != "no_data";
  std::map<std::pair<int64_t, std::string>, int64_t> marks;
  std::pair<int64_t, std::string> last_mark{INT64_MIN, ""};
  int64_t* last_count = nullptr;
  auto st = db.prepare(
      "SELECT c.compile_row, c.site_sid, c.step, a.cause FROM compile_event c "
      "JOIN attribution a ON a.compile_row = c.compile_row "
      "WHERE c.run_id = ? AND a.cause <> 'first_compile' ORDER BY c.ordinal");
  st.bind(1, run_id);
  while (st.step()) {
    int64_t row = st.int64(0), site = st.int64(1);
    if (!st.is_null(2)) {
      int64_t step = st.int64(2);
      if (settled && step > run.summary.settle_step) ++run.recompiles_after_settle;
      if (curve && step >= chart.first_step && step <= chart.last_step) {
        int64_t b = bucket_of(chart, step);
        // Consecutive recompiles usually share a bucket and cause: skip the map lookup.
        if (!last_count || last_mark.first != b || last_mark.second != st.text(3)) {
          last_mark = {b, st.str(3)};
          last_count = &marks[last_mark];
        }
        ++*last_count;
      }
    }
    if (first_row < 0) {
      first_row = row;
      first_site = site;
    }
    SiteScan& s = scan[site];
    ++s.count;
    if (static_cast<int64_t>(s.head.size()) < kRecompileHead) {
      s.head.push_back(row);
      continue;
    }
    s.tail.push_back(row);
    if (static_cast<int64_t>(s.tail.size()) > kRecompileTail) s.tail.pop_front();
  }
  finish_marks(chart, marks);
  if (scan.empty()) return;

  std::vector<int64_t> sids;
  for (const auto& [sid, s] : scan) sids.push_back(sid);
  std::unordered_map<std::string, int64_t> sid_of;
  std::unordered_map<int64_t, std::string> text_of;
  auto names =
      db.prepare("SELECT string_id, text FROM strings WHERE string_id IN (" + join_ids(sids) + ")");
  while (names.step()) {
    sid_of[names.str(1)] = names.int64(0);
    text_of[names.int64(0)] = names.str(1);
  }

  // Sites in explain's order (most recompiles first); those beyond the bound are counted.
  std::vector<std::pair<std::string, const SiteScan*>> listed;
  for (const auto& site : run.summary.sites) {
    auto it = sid_of.find(site.site);
    if (it == sid_of.end()) continue;
    if (static_cast<int64_t>(listed.size()) >= kMaxRecompileSites) {
      ++run.sites_not_listed;
      continue;
    }
    listed.emplace_back(site.site, &scan[it->second]);
  }
  std::vector<int64_t> rows = {first_row};
  for (const auto& [site, s] : listed) {
    rows.insert(rows.end(), s->head.begin(), s->head.end());
    rows.insert(rows.end(), s->tail.begin(), s->tail.end());
  }
  auto fetched = fetch_recompiles(db, rows);
  attach_hlo_evidence(db, run_id, fetched);

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
  run.first_recompile = fetched[first_row].evidence;
  run.first_recompile_site = text_of[first_site];
}

void load_first_failure(store::Database& db, RunReport& run) {
  if (run.summary.failed == 0) return;
  auto st = db.prepare(
      "SELECT ordinal, step, program_key, site, cause_reported FROM compiles "
      "WHERE run_id = ? AND kind = 'dynamo_failed' ORDER BY ordinal LIMIT 1");
  st.bind(1, run.summary.run_id);
  if (!st.step()) return;
  run.first_failure = FailedCompile{st.int64(0), st.opt_int64(1), st.str(2), st.str(3), st.str(4)};
}

// ---------------------------------------------------------------------------------------------
// Ingest statistics.

void load_sources(store::Database& db, RunReport& run) {
  auto count = db.prepare("SELECT count(*) FROM source WHERE run_id = ?");
  count.bind(1, run.summary.run_id);
  int64_t total = count.step() ? count.int64(0) : 0;
  auto st = db.prepare(
      "SELECT source_id, path, format, encoding, lines, bytes, events, skipped, rejected, "
      "warnings, first_error, read_error FROM source WHERE run_id = ? ORDER BY path, source_id "
      "LIMIT ?");
  st.bind(1, run.summary.run_id).bind(2, kMaxSourcesListed);
  auto notes = db.prepare(
      "SELECT reason, count FROM line_note WHERE source_id = ? AND fate = 'rejected' "
      "ORDER BY count DESC, reason");
  while (st.step()) {
    SourceStat s;
    s.path = st.str(1);
    s.format = st.str(2);
    s.encoding = st.str(3);
    s.lines = st.int64(4);
    s.bytes = st.int64(5);
    s.events = st.int64(6);
    s.skipped = st.int64(7);
    s.rejected = st.int64(8);
    s.warnings = st.int64(9);
    s.first_error = st.str(10);
    s.read_error = st.str(11);
    if (s.rejected > 0) {
      notes.reset();
      notes.bind(1, st.int64(0));
      while (notes.step())
        s.rejected_reasons += fmt::format("{}{} {}", s.rejected_reasons.empty() ? "" : ", ",
                                          notes.str(0), notes.int64(1));
    }
    run.sources.push_back(std::move(s));
  }
  run.sources_not_listed = total - static_cast<int64_t>(run.sources.size());
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
  for (auto& l : model.lanes) l.restarts = lane_restart_proofs(db, l.lane);
  relativize_sources(model);
  return model;
}

}  // namespace rcf::report
