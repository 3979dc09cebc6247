#include "report/lane_diff.h"

#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <set>

#include "analysis/restart_proof.h"
#include "report/explain.h"
#include "report/markdown_report.h"
#include "report/report_model.h"
#include "report/report_text.h"
#include "store/convergence_queries.h"
#include "store/run_bundle.h"
#include "store/run_queries.h"
#include "util/error.h"
#include "util/safe_text.h"

namespace rcf::report {
namespace {

using json = nlohmann::ordered_json;

std::string signed_delta(int64_t a, int64_t b) {
  return b == a ? "" : fmt::format(" ({:+d})", b - a);
}

std::string percent(double a, double b) {
  if (a <= 0) return "";
  return fmt::format(" ({:+.0f}%)", (b - a) / a * 100);
}

std::string ms(const std::optional<double>& v) {
  return duration_or_unknown(v);
}

std::string settle_text(const LaneRunFacts& r) {
  if (r.state == "no_data") return "no steps in the logs";
  const std::string& u = r.step_axis;
  if (r.state == "settled")
    return fmt::format("settled at {} {} with {} programs", u, r.settle_step, r.programs_at_settle);
  if (r.state == "still_growing")
    return fmt::format("still growing (last new program at {} {}, {} programs)", u, r.settle_step,
                       r.programs_at_settle);
  return fmt::format("not settled at the last {} seen ({}, {} programs)", u, r.last_step,
                     r.final_programs);
}

bool has_evidence(const LaneFacts& lane) {
  return lane.runs.empty() ||
         std::any_of(lane.runs.begin(), lane.runs.end(),
                     [](const LaneRunFacts& r) { return r.no_evidence.empty(); });
}

// " (why)" for a run without evidence, else "".
std::string reason_of(const LaneRunFacts& r) {
  return r.no_evidence.empty() ? "" : " (" + r.no_evidence + ")";
}

// The figures compared for a pair of runs, as (what, A text, B text, change) rows.
struct Row {
  std::string what, a, b, change;
};

std::vector<Row> run_rows(const RunPair& p) {
  std::vector<Row> rows;
  const LaneRunFacts empty;
  const LaneRunFacts& a = p.a ? *p.a : empty;
  const LaneRunFacts& b = p.b ? *p.b : empty;
  // A side without evidence shows "no evidence" (never 0), and nothing is compared with it.
  auto side = [&](bool present, const LaneRunFacts& r, const std::string& text) {
    return !present ? std::string("(no run)") : !r.no_evidence.empty() ? "no evidence" : text;
  };
  const bool compared = p.a && p.b && a.no_evidence.empty() && b.no_evidence.empty();
  if ((p.a && !a.no_evidence.empty()) || (p.b && !b.no_evidence.empty()))
    rows.push_back({"evidence", side(p.a.has_value(), a, "yes") + reason_of(a),
                    side(p.b.has_value(), b, "yes") + reason_of(b), ""});
  auto count = [&](const char* what, int64_t LaneRunFacts::*field) {
    rows.push_back({what, side(p.a.has_value(), a, std::to_string(a.*field)),
                    side(p.b.has_value(), b, std::to_string(b.*field)),
                    compared ? signed_delta(a.*field, b.*field) : ""});
  };
  count("programs", &LaneRunFacts::programs);
  count("compiles", &LaneRunFacts::compiles);
  count("recompiles", &LaneRunFacts::recompiles);
  if (a.failed || b.failed) count("failed compiles", &LaneRunFacts::failed);
  rows.push_back(
      {"convergence", side(p.a.has_value(), a, settle_text(a)),
       side(p.b.has_value(), b, settle_text(b)),
       compared && a.state != b.state ? fmt::format(" ({} -> {})", a.state, b.state) : ""});
  if (a.state != "no_data" || b.state != "no_data")
    rows.push_back({"settle step", side(p.a.has_value(), a, std::to_string(a.settle_step)),
                    side(p.b.has_value(), b, std::to_string(b.settle_step)),
                    compared ? signed_delta(a.settle_step, b.settle_step) : ""});
  if (a.compile_ms || b.compile_ms)
    rows.push_back({"compile time", side(p.a.has_value(), a, ms(a.compile_ms)),
                    side(p.b.has_value(), b, ms(b.compile_ms)),
                    a.compile_ms && b.compile_ms ? percent(*a.compile_ms, *b.compile_ms) : ""});
  return rows;
}

std::string pair_label(const RunPair& p) {
  return fmt::format("{} -> {}", p.a ? p.a->run : "(none)", p.b ? p.b->run : "(none)");
}

json run_json(const LaneRunFacts& r) {
  auto opt = [](const std::optional<double>& v) { return v ? json(*v) : json(nullptr); };
  return {{"run", r.run},
          {"no_evidence", r.no_evidence.empty() ? json(nullptr) : json(r.no_evidence)},
          {"programs", r.programs},
          {"compiles", r.compiles},
          {"recompiles", r.recompiles},
          {"failed", r.failed},
          {"state", r.state},
          {"first_step", r.first_step},
          {"last_step", r.last_step},
          {"settle_step", r.settle_step},
          {"axis", r.step_axis},
          {"programs_at_settle", r.programs_at_settle},
          {"final_programs", r.final_programs},
          {"convergence_text", r.convergence_text},
          {"compile_ms", opt(r.compile_ms)},
          {"wall_ms", opt(r.wall_ms)},
          {"causes", r.causes}};
}

json changes_json(const std::vector<CountChange>& v) {
  json out = json::array();
  for (const auto& c : v) out.push_back({{"name", c.name}, {"a", c.a}, {"b", c.b}});
  return out;
}

json restarts_json(const std::vector<LaneRestartFacts>& v) {
  json out = json::array();
  for (const auto& r : v)
    out.push_back({{"cold_run", r.cold_run},
                   {"warm_run", r.warm_run},
                   {"verdict", r.verdict},
                   {"headline", r.headline}});
  return out;
}

// The bundle headline: not recorded, the same, or how many entries differ.
std::string bundle_summary(const LaneDiff& d) {
  if (d.a.bundle.empty() && d.b.bundle.empty())
    return "not recorded for either lane (rcf ingest --bundle or rcf capture records it)";
  if (d.bundle_changes.empty()) return fmt::format("the same ({} entries)", d.a.bundle.size());
  std::set<std::string> keys;
  for (const auto& [key, value] : d.a.bundle) keys.insert(key);
  for (const auto& [key, value] : d.b.bundle) keys.insert(key);
  return fmt::format("{} of {} entries differ", d.bundle_changes.size(), keys.size());
}

json bundle_changes_json(const LaneDiff& d) {
  json out = json::array();
  auto side = [](const std::optional<std::string>& v) { return v ? json(*v) : json(nullptr); };
  for (const auto& c : d.bundle_changes)
    out.push_back({{"key", c.key}, {"a", side(c.a)}, {"b", side(c.b)}});
  return out;
}

std::string restart_text(const LaneDiff& d) {
  if (d.a.restarts.empty() && d.b.restarts.empty()) return "";
  std::string out = "\n   restart proofs\n";
  for (const auto* side : {&d.a, &d.b})
    for (const auto& r : side->restarts)
      out += fmt::format("     {} {} -> {}: {}\n", side == &d.a ? "A" : "B", safe(r.cold_run),
                         safe(r.warm_run), safe(r.headline));
  return out;
}

}  // namespace

LaneFacts load_lane_facts(store::Database& db, const std::string& lane) {
  if (lane.empty()) throw Error("a lane name is empty (rcf diff LANE_A LANE_B)");
  // Only counts per run, site and cause are compared: the texts of one row of each list are
  // read, not those of every site (a million compiles have a hundred thousand sites).
  ExplainModel model = build_explain(db, lane, ExplainListing{1});
  if (model.runs.empty())
    throw Error(fmt::format("no lane named '{}' in {} (lanes: {})", lane, db.path(),
                            store::lane_names_text(db)));
  LaneFacts facts;
  facts.lane = lane;
  for (const auto& s : model.runs) {
    LaneRunFacts r;
    r.run = s.run;
    r.no_evidence = s.no_evidence;
    r.compiles = s.compiles;
    r.recompiles = s.recompiles;
    r.failed = s.failed;
    r.state = s.settle_state;
    r.last_step = s.last_step;
    r.settle_step = s.settle_step;
    r.programs_at_settle = s.programs_at_settle;
    r.final_programs = s.final_programs;
    r.convergence_text = s.convergence_text;
    r.step_axis = s.step_axis;
    r.causes = s.causes;
    if (auto conv = store::convergence_summary_of_run(db, s.run_id)) {
      r.programs = conv->programs;
      r.first_step = conv->first_step.value_or(0);
      r.compile_ms = conv->compile_ms;
      r.wall_ms = conv->wall_ms;
    }
    for (const auto& site : s.sites) {
      if (site.compiles > 0) facts.site_compiles[site.site] += site.compiles;
      if (site.recompiles > 0) facts.site_recompiles[site.site] += site.recompiles;
    }
    for (const auto& [cause, n] : s.causes) facts.causes[cause] += n;
    facts.runs.push_back(std::move(r));
  }
  std::map<std::string, std::vector<std::string>> bundle_values;  // distinct, in run order
  for (const auto& s : model.runs) {
    const nlohmann::json bundle = store::read_run_bundle(db, s.run_id);
    for (const auto& [key, value] : bundle.items()) {
      std::string text = value.is_string()
                             ? value.get<std::string>()
                             : value.dump(-1, ' ', false, json::error_handler_t::replace);
      auto& values = bundle_values[key];
      if (std::find(values.begin(), values.end(), text) == values.end()) values.push_back(text);
    }
  }
  for (const auto& [key, values] : bundle_values) {
    std::string joined;
    for (const auto& v : values) joined += (joined.empty() ? "" : " / ") + v;
    facts.bundle[key] = joined;
  }
  for (const auto& r : lane_restart_proofs(db, lane))
    facts.restarts.push_back({r.cold_run, r.warm_run,
                              analysis::restart_verdict_name(r.proof.verdict), r.proof.headline});
  return facts;
}

namespace {

void compare_sites_and_causes(const LaneFacts& a, const LaneFacts& b, LaneDiff& d) {
  for (const auto& [site, n] : b.site_compiles)
    if (!a.site_compiles.count(site)) d.sites_new.push_back({site, 0, n});
  for (const auto& [site, n] : a.site_compiles)
    if (!b.site_compiles.count(site)) d.sites_vanished.push_back({site, n, 0});
  for (const auto& entry : a.site_compiles) {
    const auto& site = entry.first;  // not a structured binding: clang before 16 cannot capture it
    if (!b.site_compiles.count(site)) continue;
    auto count = [&](const LaneFacts& f) {
      auto it = f.site_recompiles.find(site);
      return it == f.site_recompiles.end() ? int64_t{0} : it->second;
    };
    if (count(a) != count(b)) d.sites_recompiles_changed.push_back({site, count(a), count(b)});
  }
  for (const auto& [cause, n] : b.causes) {
    auto it = a.causes.find(cause);
    if (it == a.causes.end())
      d.causes_appeared.push_back({cause, 0, n});
    else if (it->second != n)
      d.causes_changed.push_back({cause, it->second, n});
  }
  for (const auto& [cause, n] : a.causes)
    if (!b.causes.count(cause)) d.causes_disappeared.push_back({cause, n, 0});
}

void compare_bundles(const LaneFacts& a, const LaneFacts& b, LaneDiff& d) {
  std::map<std::string, BundleChange> bundle;
  for (const auto& [key, value] : a.bundle) bundle[key].a = value;
  for (const auto& [key, value] : b.bundle) bundle[key].b = value;
  for (auto& [key, change] : bundle) {
    if (change.a == change.b) continue;
    change.key = key;
    d.bundle_changes.push_back(std::move(change));
  }
}

}  // namespace

LaneDiff diff_lanes(const LaneFacts& a, const LaneFacts& b) {
  LaneDiff d;
  d.a = a;
  d.b = b;
  if (a.runs.size() == 1 && b.runs.size() == 1) {
    d.runs.push_back({a.runs[0], b.runs[0]});
  } else {
    std::map<std::string, RunPair> by_label;
    for (const auto& r : a.runs) by_label[r.run].a = r;
    for (const auto& r : b.runs) by_label[r.run].b = r;
    for (auto& [label, pair] : by_label) d.runs.push_back(std::move(pair));
  }
  for (const LaneFacts* lane : {&a, &b})
    if (!has_evidence(*lane))
      d.not_compared += fmt::format(
          "{}lane '{}' holds no evidence (no run with a log in a known "
          "format)",
          d.not_compared.empty() ? "" : "; ", lane->lane);
  if (d.not_compared.empty()) compare_sites_and_causes(a, b, d);
  compare_bundles(a, b, d);
  return d;
}

std::string render_diff_text(const LaneDiff& d) {
  std::string out =
      fmt::format("== diff: lane {} (A) -> lane {} (B)\n", safe(d.a.lane), safe(d.b.lane));
  out += "\n   bundle: " + bundle_summary(d) + "\n";
  for (const auto& c : d.bundle_changes)
    out += fmt::format("     {}: {} -> {}\n", safe(c.key), safe(c.a.value_or("(not recorded)")),
                       safe(c.b.value_or("(not recorded)")));
  for (const auto& p : d.runs) {
    out += fmt::format("\n   run {}\n", safe(pair_label(p)));
    for (const auto& r : run_rows(p))
      out += fmt::format("     {:<16}{} -> {}{}\n", r.what + ":", safe(r.a), safe(r.b), r.change);
  }
  auto sites = [&](const char* title, const std::vector<CountChange>& v, bool recompiles) {
    if (v.empty()) return;
    out += fmt::format("\n   {} ({})\n", title, v.size());
    for (const auto& c : v)
      out += recompiles ? fmt::format("     {}: {} -> {} recompiles\n", safe(c.name), c.a, c.b)
                        : fmt::format("     {}  ({} compiles)\n", safe(c.name), c.a + c.b);
  };
  if (!d.not_compared.empty()) {
    out += fmt::format("\n   sites and causes: not compared: {}\n", safe(d.not_compared));
    return out + restart_text(d);
  }
  sites("sites only in B (new)", d.sites_new, false);
  sites("sites only in A (vanished)", d.sites_vanished, false);
  sites("sites whose recompiles changed", d.sites_recompiles_changed, true);
  if (d.sites_new.empty() && d.sites_vanished.empty() && d.sites_recompiles_changed.empty())
    out += "\n   sites: the same sites compiled, with the same recompile counts\n";
  std::string causes;
  for (const auto& c : d.causes_appeared)
    causes += fmt::format("     appeared: {} ({} recompiles in B)\n", c.name, c.b);
  for (const auto& c : d.causes_disappeared)
    causes += fmt::format("     disappeared: {} ({} recompiles in A)\n", c.name, c.a);
  for (const auto& c : d.causes_changed)
    causes += fmt::format("     changed: {} {} -> {}\n", c.name, c.a, c.b);
  out += causes.empty() ? "\n   causes: unchanged\n" : "\n   causes\n" + causes;
  return out + restart_text(d);
}

std::string render_diff_markdown(const LaneDiff& d) {
  std::string out = fmt::format("## What changed: lane {} → lane {}\n\n", md_code(d.a.lane, false),
                                md_code(d.b.lane, false));
  if (d.bundle_changes.empty()) {
    out += "**Bundle:** " + md_text(bundle_summary(d)) + "\n\n";
  } else {
    out += fmt::format("**Bundle changes:**\n\n| key | {} | {} |\n|---|---|---|\n",
                       md_code(d.a.lane, true), md_code(d.b.lane, true));
    auto cell = [](const std::optional<std::string>& v) {
      return v ? md_code(*v, true) : std::string("(not recorded)");
    };
    for (const auto& c : d.bundle_changes)
      out += fmt::format("| {} | {} | {} |\n", md_code(c.key, true), cell(c.a), cell(c.b));
    out += "\n";
  }
  for (const auto& p : d.runs) {
    out += fmt::format("### Run {} → {}\n\n| | {} | {} | change |\n|---|---|---|---|\n",
                       p.a ? md_code(p.a->run, false) : "(none)",
                       p.b ? md_code(p.b->run, false) : "(none)", md_code(d.a.lane, true),
                       md_code(d.b.lane, true));
    for (const auto& r : run_rows(p))
      out += fmt::format("| {} | {} | {} | {} |\n", r.what, md_text(r.a), md_text(r.b),
                         md_text(r.change));
    out += "\n";
  }
  auto list = [&](const char* title, const std::vector<CountChange>& v, const char* unit,
                  bool use_b) {
    if (v.empty()) return;
    out += fmt::format("**{}:**\n\n", title);
    for (const auto& c : v)
      out += fmt::format("- {} ({} {})\n", md_code(c.name, false), use_b ? c.b : c.a, unit);
    out += "\n";
  };
  if (!d.not_compared.empty())
    out += "**Sites and causes:** not compared: " + md_text(d.not_compared) + ".\n\n";
  list("Sites new in B", d.sites_new, "compiles", true);
  list("Sites vanished from A", d.sites_vanished, "compiles", false);
  if (!d.sites_recompiles_changed.empty()) {
    out += "**Sites whose recompiles changed:**\n\n";
    for (const auto& c : d.sites_recompiles_changed)
      out += fmt::format("- {}: {} → {} recompiles\n", md_code(c.name, false), c.a, c.b);
    out += "\n";
  }
  list("Causes that appeared", d.causes_appeared, "recompiles", true);
  list("Causes that disappeared", d.causes_disappeared, "recompiles", false);
  if (!d.causes_changed.empty()) {
    out += "**Causes whose counts changed:**\n\n";
    for (const auto& c : d.causes_changed)
      out += fmt::format("- {}: {} → {}\n", md_code(c.name, false), c.a, c.b);
    out += "\n";
  }
  if (!d.a.restarts.empty() || !d.b.restarts.empty()) {
    out += "**Restart proofs:**\n\n| lane | cold → warm | verdict |\n|---|---|---|\n";
    for (const auto* side : {&d.a, &d.b})
      for (const auto& r : side->restarts)
        out +=
            fmt::format("| {} | {} → {} | {} |\n", md_code(side->lane, true),
                        md_code(r.cold_run, true), md_code(r.warm_run, true), md_text(r.headline));
  }
  return out;
}

std::string render_diff_json(const LaneDiff& d) {
  json runs = json::array();
  for (const auto& p : d.runs)
    runs.push_back(
        {{"a", p.a ? run_json(*p.a) : json(nullptr)}, {"b", p.b ? run_json(*p.b) : json(nullptr)}});
  json doc = {
      {"schema_version", kDiffJsonVersion},
      {"tool", "rcf diff"},
      {"lane_a", d.a.lane},
      {"lane_b", d.b.lane},
      {"runs", runs},
      {"sites",
       {{"new", changes_json(d.sites_new)},
        {"vanished", changes_json(d.sites_vanished)},
        {"recompiles_changed", changes_json(d.sites_recompiles_changed)}}},
      {"causes",
       {{"appeared", changes_json(d.causes_appeared)},
        {"disappeared", changes_json(d.causes_disappeared)},
        {"changed", changes_json(d.causes_changed)},
        {"a", d.a.causes},
        {"b", d.b.causes}}},
      {"bundle", {{"a", d.a.bundle}, {"b", d.b.bundle}, {"changed", bundle_changes_json(d)}}},
      {"restart_proofs", {{"a", restarts_json(d.a.restarts)}, {"b", restarts_json(d.b.restarts)}}},
      {"not_compared", d.not_compared.empty() ? json(nullptr) : json(d.not_compared)}};
  return doc.dump(2, ' ', false, json::error_handler_t::replace) + "\n";
}

}  // namespace rcf::report
