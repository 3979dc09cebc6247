#include "report/explain.h"

#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <unordered_map>

#include "analysis/convergence_summary.h"
#include "analysis/guard_reason.h"
#include "util/base_name.h"

namespace rcf::report {
namespace {

// First non-blank line, trimmed: reasons often start with an empty line or indentation.
std::string first_line(const std::string& text) {
  size_t pos = 0;
  while (pos < text.size()) {
    size_t nl = text.find('\n', pos);
    std::string line = text.substr(pos, nl == std::string::npos ? std::string::npos : nl - pos);
    size_t a = line.find_first_not_of(" \t\r");
    if (a != std::string::npos) return line.substr(a, line.find_last_not_of(" \t\r") - a + 1);
    if (nl == std::string::npos) break;
    pos = nl + 1;
  }
  return "";
}

std::string site_of(const std::string& file, std::optional<int64_t> line, const std::string& fn) {
  std::string where = file.empty() ? "<unknown file>" : file;
  std::string name = fn.empty() ? "?" : fn;
  return line ? fmt::format("{}:{} ({})", where, *line, name) : fmt::format("{} ({})", where, name);
}

// A run's sites by text -> their index in RunSummary::sites (a run of a million compiles may
// have a hundred thousand sites: a linear search per compile row was quadratic).
using SiteIndex = std::unordered_map<std::string, size_t>;

// The entry of `site`, appended when new. The reference is valid until the next call.
SiteSummary& site_entry(RunSummary& run, SiteIndex& index, const std::string& site) {
  auto [it, added] = index.try_emplace(site, run.sites.size());
  if (added) {
    run.sites.push_back({});
    run.sites.back().site = site;
  }
  return run.sites[it->second];
}

void load_compiles(store::Database& db, RunSummary& run, SiteIndex& sites) {
  auto st = db.prepare(
      "SELECT site.text, c.program_key, c.kind, c.compile_ms, a.cause, a.confidence, a.detail, "
      "a.prev_program_key, a.evidence, subj.text, c.ordinal "
      "FROM compile_event c JOIN attribution a ON a.compile_row = c.compile_row "
      "JOIN strings site ON site.string_id = c.site_sid "
      "LEFT JOIN strings subj ON subj.string_id = a.subject_sid "
      "WHERE c.run_id = ? ORDER BY c.ordinal");
  st.bind(1, run.run_id);
  while (st.step()) {
    SiteSummary& site = site_entry(run, sites, st.str(0));
    std::string cause = st.str(4);
    double ms = st.opt_real(3).value_or(0);
    bool failed = st.text(2) == "dynamo_failed";
    ++site.compiles;
    ++run.compiles;
    site.compile_ms += ms;
    if (failed) {
      ++site.failed;
      ++run.failed;
    }
    if (cause == "first_compile") continue;
    ++site.recompiles;
    ++run.recompiles;
    site.recompile_ms += ms;
    run.recompile_ms += ms;
    ++site.causes[cause];
    ++run.causes[cause];
    std::string subject = st.str(9);
    auto it = std::find_if(site.reasons.begin(), site.reasons.end(), [&](const ReasonGroup& g) {
      return g.cause == cause && g.subject == subject;
    });
    if (it == site.reasons.end()) {
      site.reasons.push_back({});
      it = site.reasons.end() - 1;
      it->cause = cause;
      it->subject = subject;
    }
    ++it->count;
    // Rows come in ordinal order: the last one seen is the most recent recompile.
    it->confidence = st.str(5);
    it->detail = st.str(6);
    it->program_key = st.str(1);
    it->prev_program_key = st.str(7);
    it->evidence = st.str(8);
  }
}

void load_limit_hits(store::Database& db, RunSummary& run, SiteIndex& sites) {
  auto st = db.prepare(
      "SELECT fn.text, f.text, h.firstlineno, h.limit_type, h.limit_value, lr.text, "
      "h.hard_failure, h.frame_id, h.frame_compile_id, h.attempt, h.rank, s.path, h.line "
      "FROM recompile_limit_hit h JOIN source s ON s.source_id = h.source_id "
      "LEFT JOIN strings fn ON fn.string_id = h.function_sid "
      "LEFT JOIN strings f ON f.string_id = h.file_sid "
      "LEFT JOIN strings lr ON lr.string_id = h.last_reason_sid "
      "WHERE h.run_id = ? ORDER BY h.source_id, h.line");
  st.bind(1, run.run_id);
  while (st.step()) {
    LimitHitInfo hit;
    hit.limit_type = st.str(3);
    hit.limit_value = st.opt_int64(4);
    hit.last_reason = st.str(5);
    hit.hard_failure = st.int64(6) != 0;
    if (st.int64(7) >= 0) hit.program_key = fmt::format("{}/{}", st.int64(7), st.int64(8));
    hit.where = fmt::format("{}:{}", base_name(st.text(11)), st.int64(12));
    if (!hit.last_reason.empty())
      hit.last_reason_cause = analysis::classify_guard_reason(hit.last_reason).cause;
    std::string site = site_of(st.str(1), st.opt_int64(2), st.str(0));
    // Attached to the compiled site of the same function when the file matches.
    site_entry(run, sites, site).limit_hits.push_back(std::move(hit));
  }
}

void load_graph_breaks(store::Database& db, RunSummary& run) {
  auto st = db.prepare(
      "SELECT f.text, g.user_line, gt.text, rs.text, max(g.sync_signature), count(*) "
      "FROM graph_break g "
      "LEFT JOIN strings f ON f.string_id = g.user_file_sid "
      "LEFT JOIN strings gt ON gt.string_id = g.gb_type_sid "
      "LEFT JOIN strings rs ON rs.string_id = g.reason_sid "
      "WHERE g.run_id = ? GROUP BY f.text, g.user_line, coalesce(gt.text, rs.text)");
  st.bind(1, run.run_id);
  while (st.step()) {
    BreakInfo b;
    if (!st.is_null(0))
      b.location = st.is_null(1) ? st.str(0) : fmt::format("{}:{}", st.str(0), st.int64(1));
    b.gb_type = first_line(st.str(2));
    if (b.gb_type.empty()) b.gb_type = first_line(st.str(3));
    b.sync_signature = st.int64(4) != 0;
    b.count = st.int64(5);
    run.graph_breaks.push_back(std::move(b));
  }
  std::sort(run.graph_breaks.begin(), run.graph_breaks.end(),
            [](const BreakInfo& a, const BreakInfo& b) {
              if (a.sync_signature != b.sync_signature) return a.sync_signature;
              if (a.count != b.count) return a.count > b.count;
              if (a.location != b.location) return a.location < b.location;
              return a.gb_type < b.gb_type;
            });
}

void load_convergence(store::Database& db, RunSummary& run) {
  auto st = db.prepare(
      "SELECT state, first_step, last_step, settle_step, programs_at_settle, final_programs, "
      "new_after_growth_step, growth_step, compile_ms, wall_ms, compile_share, compiles, "
      "execute_ms FROM convergence_summary WHERE run_id = ?");
  st.bind(1, run.run_id);
  if (!st.step()) return;
  analysis::ConvergenceSummary c;
  std::string state = st.str(0);
  c.state = state == "settled"         ? analysis::SettleState::kSettled
            : state == "not_settled"   ? analysis::SettleState::kNotSettled
            : state == "still_growing" ? analysis::SettleState::kStillGrowing
                                       : analysis::SettleState::kNoData;
  c.first_step = st.opt_int64(1).value_or(0);
  c.last_step = st.opt_int64(2).value_or(0);
  c.settle_step = st.opt_int64(3).value_or(0);
  c.programs_at_settle = st.opt_int64(4).value_or(0);
  c.final_programs = st.opt_int64(5).value_or(0);
  c.new_after_growth_step = st.opt_int64(6).value_or(0);
  c.growth_step = st.int64(7);
  run.settle_state = state;
  run.last_step = c.last_step;
  run.settle_step = c.settle_step;
  run.programs_at_settle = c.programs_at_settle;
  run.final_programs = c.final_programs;
  if (c.state != analysis::SettleState::kNoData)
    run.convergence_text = analysis::describe_convergence(c);
  run.compile_ms = st.opt_real(8);
  run.wall_ms = st.opt_real(9);
  run.compile_share = st.opt_real(10);
  run.execute_ms = st.opt_real(12);
}

void load_fix_first(store::Database& db, RunSummary& run) {
  auto st = db.prepare(
      "SELECT rank, site, cause, recompiles, compile_ms_lost, compile_ms_basis, first_step, "
      "last_step, detail, subject, remedy FROM fix_first WHERE run_id = ? ORDER BY rank");
  st.bind(1, run.run_id);
  while (st.step()) {
    FixFirstItem f;
    f.rank = st.int64(0);
    f.site = st.str(1);
    f.cause = st.str(2);
    f.recompiles = st.int64(3);
    f.compile_ms_lost = st.opt_real(4);
    f.compile_ms_basis = st.str(5);
    f.first_step = st.opt_int64(6);
    f.last_step = st.opt_int64(7);
    f.detail = st.str(8);
    f.subject = st.str(9);
    f.remedy = st.str(10);
    run.fix_first.push_back(std::move(f));
  }
}

}  // namespace

ExplainModel build_explain(store::Database& db, const std::string& lane) {
  ExplainModel model;
  auto runs = db.prepare(
      "SELECT run_id, lane, run, source_count, "
      "(SELECT coalesce(sum(rejected), 0) FROM source s WHERE s.run_id = runs.run_id) "
      "FROM runs WHERE (? = '' OR lane = ?) ORDER BY lane, run");
  runs.bind(1, lane).bind(2, lane);
  while (runs.step()) {
    RunSummary run;
    run.run_id = runs.int64(0);
    run.lane = runs.str(1);
    run.run = runs.str(2);
    run.sources = runs.int64(3);
    run.rejected_lines = runs.int64(4);
    SiteIndex sites;
    load_compiles(db, run, sites);
    load_limit_hits(db, run, sites);
    load_graph_breaks(db, run);
    load_convergence(db, run);
    load_fix_first(db, run);
    for (auto& site : run.sites)
      std::sort(site.reasons.begin(), site.reasons.end(),
                [](const ReasonGroup& a, const ReasonGroup& b) {
                  if (a.count != b.count) return a.count > b.count;
                  if (a.cause != b.cause) return a.cause < b.cause;
                  return a.subject < b.subject;
                });
    // Sites with the most recompiles first, then limit hits, then by name.
    std::sort(run.sites.begin(), run.sites.end(), [](const SiteSummary& a, const SiteSummary& b) {
      if (a.recompiles != b.recompiles) return a.recompiles > b.recompiles;
      if (a.limit_hits.size() != b.limit_hits.size())
        return a.limit_hits.size() > b.limit_hits.size();
      if (a.compiles != b.compiles) return a.compiles > b.compiles;
      return a.site < b.site;
    });
    model.runs.push_back(std::move(run));
  }
  return model;
}

namespace {

std::string causes_text(const std::map<std::string, int64_t>& causes) {
  std::vector<std::pair<std::string, int64_t>> v(causes.begin(), causes.end());
  std::stable_sort(v.begin(), v.end(), [](auto& a, auto& b) { return a.second > b.second; });
  std::string out;
  for (const auto& [cause, n] : v) out += fmt::format("{}{} {}", out.empty() ? "" : ", ", cause, n);
  return out;
}

std::string ms_text(double ms) {
  if (ms >= 60000) return fmt::format("{:.1f} min", ms / 60000);
  if (ms >= 1000) return fmt::format("{:.1f} s", ms / 1000);
  return fmt::format("{:.0f} ms", ms);
}

// "; execute 4.1 s, other 2.0 s" when the execute time is known, else "".
template <typename Text>
std::string time_split_text(const RunSummary& run, Text text) {
  if (!run.execute_ms) return "";
  std::optional<double> other = other_step_ms(run);
  return fmt::format("; execute {}, other {}", text(*run.execute_ms),
                     other ? text(*other) : std::string("unknown (execution overlaps host time)"));
}

}  // namespace

std::optional<double> other_step_ms(const RunSummary& run) {
  if (!run.wall_ms || !run.compile_ms || !run.execute_ms) return std::nullopt;
  double other = *run.wall_ms - *run.compile_ms - *run.execute_ms;
  if (other < 0) return std::nullopt;
  return other;
}

std::string render_explain_text(const ExplainModel& model, const ExplainListing& listing) {
  std::string out;
  if (model.runs.empty()) return "No runs in this database. Ingest logs with `rcf ingest`.\n";
  for (const auto& run : model.runs) {
    out += fmt::format("== lane {} / run {}  ({} source{})\n", run.lane, run.run, run.sources,
                       run.sources == 1 ? "" : "s");
    out += fmt::format("   {} compiles, {} recompiles", run.compiles, run.recompiles);
    if (run.failed) out += fmt::format(", {} failed", run.failed);
    if (run.recompile_ms > 0)
      out += fmt::format(", {} spent recompiling", ms_text(run.recompile_ms));
    out += "\n";
    if (!run.causes.empty()) out += fmt::format("   causes: {}\n", causes_text(run.causes));
    if (!run.convergence_text.empty())
      out += fmt::format("   convergence: {}\n", run.convergence_text);
    if (run.compile_ms && run.wall_ms && run.compile_share)
      out += fmt::format("   compile time {} of {} step wall time ({:.0f}%){}\n",
                         ms_text(*run.compile_ms), ms_text(*run.wall_ms), *run.compile_share * 100,
                         time_split_text(run, ms_text));
    if (!run.fix_first.empty()) {
      out += "\n   fix first (by compile time lost):\n";
      for (size_t i = 0; i < run.fix_first.size(); ++i) {
        if (listing.cuts(i)) {
          out += fmt::format("        ... {} more (rcf explain --all, or the fix_first view)\n",
                             run.fix_first.size() - i);
          break;
        }
        const FixFirstItem& f = run.fix_first[i];
        std::string lost = !f.compile_ms_lost                   ? std::string("time unknown")
                           : f.compile_ms_basis == "step_share" ? "~" + ms_text(*f.compile_ms_lost)
                                                                : ms_text(*f.compile_ms_lost);
        std::string steps = f.first_step
                                ? (*f.first_step == *f.last_step
                                       ? fmt::format(", step {}", *f.first_step)
                                       : fmt::format(", steps {}..{}", *f.first_step, *f.last_step))
                                : "";
        out += fmt::format("   {:>3}. {} at {}: {} recompile{}, {}{}\n", f.rank, f.cause, f.site,
                           f.recompiles, f.recompiles == 1 ? "" : "s", lost, steps);
        if (!f.detail.empty()) out += fmt::format("        e.g. {}\n", first_line(f.detail));
        if (!f.remedy.empty()) out += fmt::format("        fix: {}\n", f.remedy);
      }
    }
    if (run.rejected_lines)
      out += fmt::format("   {} input lines rejected (see the ingest_stats view)\n",
                         run.rejected_lines);
    for (size_t i = 0; i < run.sites.size(); ++i) {
      if (listing.cuts(i)) {
        out += fmt::format("\n   ... {} more sites (rcf explain --all, or the recompiles view)\n",
                           run.sites.size() - i);
        break;
      }
      const SiteSummary& site = run.sites[i];
      out += fmt::format("\n   site {}\n", site.site);
      out += fmt::format("     {} compile{}, {} recompile{}", site.compiles,
                         site.compiles == 1 ? "" : "s", site.recompiles,
                         site.recompiles == 1 ? "" : "s");
      if (!site.causes.empty()) out += fmt::format(" [{}]", causes_text(site.causes));
      if (site.failed) out += fmt::format(", {} failed", site.failed);
      if (site.recompile_ms > 0)
        out += fmt::format(", {} lost to recompiles", ms_text(site.recompile_ms));
      out += "\n";
      for (const auto& g : site.reasons) {
        out += fmt::format("     {:>4}x {}{}  [{}]\n", g.count, g.cause,
                           g.subject.empty() ? "" : " on " + g.subject, g.confidence);
        out += fmt::format("           latest {}{}: {}\n", g.program_key,
                           g.prev_program_key.empty() ? "" : " (vs " + g.prev_program_key + ")",
                           g.detail);
        if (!g.evidence.empty()) out += fmt::format("           evidence: {}\n", g.evidence);
      }
      for (const auto& h : site.limit_hits) {
        out += fmt::format("     recompile limit hit: {}{}{} at {}{}; the frame {} from here on\n",
                           h.limit_type, h.limit_value ? fmt::format(" ({})", *h.limit_value) : "",
                           h.program_key.empty() ? "" : " refusing " + h.program_key, h.where, "",
                           h.hard_failure ? "raised FailOnRecompileLimitHit" : "runs eager");
        if (!h.last_reason.empty())
          out += fmt::format("           last reason ({}): {}\n", h.last_reason_cause,
                             first_line(h.last_reason));
        else
          out +=
              "           last reason: not printed by this PyTorch version (use "
              "TORCH_LOGS=recompiles)\n";
      }
    }
    if (!run.graph_breaks.empty()) {
      out += "\n   graph breaks (distinct):\n";
      for (size_t i = 0; i < run.graph_breaks.size(); ++i) {
        if (listing.cuts(i)) {
          out += fmt::format("     ... {} more (rcf explain --all, or the graph_break table)\n",
                             run.graph_breaks.size() - i);
          break;
        }
        const BreakInfo& b = run.graph_breaks[i];
        out += fmt::format("     {:>4}x {}{}{}\n", b.count,
                           b.location.empty() ? "" : b.location + ": ", b.gb_type,
                           b.sync_signature ? "  [host sync: sync_fragment]" : "");
      }
    }
    out += "\n";
  }
  return out;
}

std::string render_explain_json(const ExplainModel& model, const ExplainListing& listing) {
  using nlohmann::json;
  json runs = json::array();
  for (const auto& run : model.runs) {
    json sites = json::array();
    for (const auto& s : run.sites) {
      if (listing.cuts(sites.size())) break;
      json reasons = json::array();
      for (const auto& g : s.reasons)
        reasons.push_back({{"cause", g.cause},
                           {"subject", g.subject},
                           {"count", g.count},
                           {"confidence", g.confidence},
                           {"detail", g.detail},
                           {"program_key", g.program_key},
                           {"prev_program_key", g.prev_program_key},
                           {"evidence", g.evidence}});
      json hits = json::array();
      for (const auto& h : s.limit_hits)
        hits.push_back({{"limit_type", h.limit_type},
                        {"limit_value", h.limit_value ? json(*h.limit_value) : json(nullptr)},
                        {"program_key", h.program_key},
                        {"last_reason", h.last_reason},
                        {"last_reason_cause", h.last_reason_cause},
                        {"hard_failure", h.hard_failure},
                        {"where", h.where},
                        {"falls_back_to_eager", !h.hard_failure}});
      sites.push_back({{"site", s.site},
                       {"compiles", s.compiles},
                       {"recompiles", s.recompiles},
                       {"failed", s.failed},
                       {"compile_ms", s.compile_ms},
                       {"recompile_ms", s.recompile_ms},
                       {"causes", s.causes},
                       {"reasons", reasons},
                       {"recompile_limit_hits", hits}});
    }
    json breaks = json::array();
    for (const auto& b : run.graph_breaks) {
      if (listing.cuts(breaks.size())) break;
      breaks.push_back({{"location", b.location},
                        {"gb_type", b.gb_type},
                        {"count", b.count},
                        {"sync_signature", b.sync_signature}});
    }
    json fix = json::array();
    for (const auto& f : run.fix_first) {
      if (listing.cuts(fix.size())) break;
      fix.push_back({{"rank", f.rank},
                     {"site", f.site},
                     {"cause", f.cause},
                     {"recompiles", f.recompiles},
                     {"compile_ms_lost", f.compile_ms_lost ? json(*f.compile_ms_lost) : json()},
                     {"compile_ms_basis", f.compile_ms_basis},
                     {"first_step", f.first_step ? json(*f.first_step) : json()},
                     {"last_step", f.last_step ? json(*f.last_step) : json()},
                     {"detail", f.detail},
                     {"subject", f.subject},
                     {"remedy", f.remedy}});
    }
    const std::optional<double> other = other_step_ms(run);
    json convergence = {{"state", run.settle_state},
                        {"last_step", run.last_step},
                        {"settle_step", run.settle_step},
                        {"programs_at_settle", run.programs_at_settle},
                        {"final_programs", run.final_programs},
                        {"text", run.convergence_text},
                        {"compile_ms", run.compile_ms ? json(*run.compile_ms) : json()},
                        {"wall_ms", run.wall_ms ? json(*run.wall_ms) : json()},
                        {"compile_share", run.compile_share ? json(*run.compile_share) : json()},
                        {"execute_ms", run.execute_ms ? json(*run.execute_ms) : json()},
                        {"other_ms", other ? json(*other) : json()}};
    runs.push_back({{"lane", run.lane},
                    {"run", run.run},
                    {"sources", run.sources},
                    {"compiles", run.compiles},
                    {"recompiles", run.recompiles},
                    {"failed", run.failed},
                    {"recompile_ms", run.recompile_ms},
                    {"causes", run.causes},
                    {"rejected_lines", run.rejected_lines},
                    {"convergence", convergence},
                    {"fix_first", fix},
                    {"fix_first_not_listed", run.fix_first.size() - fix.size()},
                    {"sites", sites},
                    {"sites_not_listed", run.sites.size() - sites.size()},
                    {"graph_breaks", breaks},
                    {"graph_breaks_not_listed", run.graph_breaks.size() - breaks.size()}});
  }
  json doc = {{"schema_version", kExplainJsonVersion}, {"tool", "rcf explain"}, {"runs", runs}};
  return doc.dump(2, ' ', false, json::error_handler_t::replace) + "\n";
}

}  // namespace rcf::report
