#include "report/explain.h"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <tuple>
#include <unordered_map>

#include "analysis/convergence_summary.h"
#include "analysis/guard_reason.h"
#include "analysis/restart_proof.h"
#include "analysis/run_evidence.h"
#include "report/rank_divergence_output.h"
#include "report/report_text.h"
#include "report/summary_json.h"
#include "store/compile_queries.h"
#include "store/convergence_queries.h"
#include "store/run_queries.h"
#include "store/runtime_note_queries.h"
#include "store/source_queries.h"
#include "util/base_name.h"
#include "util/safe_text.h"

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

// A site x cause x subject group while the compiles are read: the texts of its latest recompile
// are read only if its site is listed (fill_reasons).
struct PendingReason {
  std::string cause;  // short: held inline
  std::optional<int64_t> subject_sid;
  int64_t count = 0;
  int64_t latest_ordinal = 0;
};

// The compile rows of a run, in ordinal order, counted per site (sites keyed by strings id: a
// site's text is read once, when it first appears). `pending[i]` gets the reason groups of
// run.sites[i].
void load_compiles(store::Database& db, RunSummary& run, SiteIndex& sites,
                   std::vector<std::vector<PendingReason>>& pending) {
  store::StringTexts site_text(db);
  std::unordered_map<int64_t, size_t> by_sid;
  store::for_each_compile(db, run.run_id, [&](const store::CompileCauseRow& row) {
    auto [at, added] = by_sid.try_emplace(row.site_sid, 0);
    if (added) {
      at->second = static_cast<size_t>(&site_entry(run, sites, site_text.text(row.site_sid)) -
                                       run.sites.data());
      if (pending.size() < run.sites.size()) pending.resize(run.sites.size());
    }
    SiteSummary& site = run.sites[at->second];
    const std::string cause(row.cause);  // a cause name fits a string's inline buffer
    double ms = row.compile_ms.value_or(0);
    ++site.compiles;
    ++run.compiles;
    site.compile_ms += ms;
    if (row.failed) {
      ++site.failed;
      ++run.failed;
    }
    if (cause == "first_compile") return;
    ++site.recompiles;
    ++run.recompiles;
    site.recompile_ms += ms;
    run.recompile_ms += ms;
    ++site.causes[cause];
    ++run.causes[cause];
    auto& groups = pending[at->second];
    auto it = std::find_if(groups.begin(), groups.end(), [&](const PendingReason& g) {
      return g.subject_sid == row.subject_sid && g.cause == cause;
    });
    if (it == groups.end()) it = groups.insert(groups.end(), {cause, row.subject_sid, 0, 0});
    ++it->count;
    it->latest_ordinal = row.ordinal;  // rows come in ordinal order: the latest so far
  });
}

// Reads the texts of listed sites' reason groups: one statement of each kind per run.
struct ReasonTexts {
  store::RecompileTextReader latest;
  store::StringTexts subject_text;
  explicit ReasonTexts(store::Database& db) : latest(db), subject_text(db) {}
};

// The reason groups of one listed site, with the texts of each group's latest recompile, sorted
// by count, cause and subject.
void fill_reasons(ReasonTexts& texts, int64_t run_id, const std::vector<PendingReason>& pending,
                  SiteSummary& site) {
  for (const PendingReason& p : pending) {
    ReasonGroup g;
    g.cause = p.cause;
    g.count = p.count;
    if (p.subject_sid) g.subject = texts.subject_text.text(*p.subject_sid);
    if (std::optional<store::RecompileTexts> latest = texts.latest.at(run_id, p.latest_ordinal)) {
      g.program_key = std::move(latest->program_key);
      g.confidence = std::move(latest->confidence);
      g.detail = std::move(latest->detail);
      g.prev_program_key = std::move(latest->prev_program_key);
      g.evidence = std::move(latest->evidence);
    }
    site.reasons.push_back(std::move(g));
  }
  std::sort(site.reasons.begin(), site.reasons.end(),
            [](const ReasonGroup& a, const ReasonGroup& b) {
              if (a.count != b.count) return a.count > b.count;
              if (a.cause != b.cause) return a.cause < b.cause;
              return a.subject < b.subject;
            });
}

void load_limit_hits(store::Database& db, RunSummary& run, SiteIndex& sites) {
  for (store::LimitHitRow& row : store::limit_hits_of_run(db, run.run_id)) {
    LimitHitInfo hit;
    hit.limit_type = std::move(row.limit_type);
    hit.limit_value = row.limit_value;
    hit.last_reason = std::move(row.last_reason);
    hit.hard_failure = row.hard_failure;
    if (row.frame_id >= 0)
      hit.program_key = fmt::format("{}/{}", row.frame_id, row.frame_compile_id);
    hit.where = fmt::format("{}:{}", base_name(row.source), row.line);
    if (!hit.last_reason.empty())
      hit.last_reason_cause = analysis::classify_guard_reason(hit.last_reason).cause;
    std::string site = site_of(row.file, row.firstlineno, row.function);
    // Attached to the compiled site of the same function when the file matches.
    site_entry(run, sites, site).limit_hits.push_back(std::move(hit));
  }
}

void load_graph_breaks(store::Database& db, RunSummary& run) {
  for (const store::GraphBreakGroupRow& row : store::graph_break_groups_of_run(db, run.run_id)) {
    BreakInfo b;
    if (row.user_file)
      b.location =
          row.user_line ? fmt::format("{}:{}", *row.user_file, *row.user_line) : *row.user_file;
    b.gb_type = first_line(row.gb_type);
    if (b.gb_type.empty()) b.gb_type = first_line(row.reason);
    b.sync_signature = row.sync_signature;
    b.count = row.count;
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

void load_merged_sources(store::Database& db, RunSummary& run) {
  for (const store::MergedSourceRow& m : store::merged_sources_of_run(db, run.run_id))
    run.merged_sources.push_back({base_name(m.source), base_name(m.same_process_as), m.evidence});
}

// The run's cudagraph_skips rows grouped by kind, reason, compile and user location; each group
// keeps its first message (source, line) as evidence.
void load_cudagraph_skips(store::Database& db, RunSummary& run) {
  std::map<std::tuple<std::string, std::string, std::string, std::string>, size_t> group_of;
  for (const store::CudagraphSkipRow& row : store::cudagraph_skips_of_run(db, run.run_id)) {
    CudagraphSkipInfo k;
    k.kind = row.kind;
    k.reason = first_line(row.reason);
    k.program_key = row.program_key;
    k.site = row.site;
    if (!row.user_file.empty()) {
      k.user_location =
          row.user_line ? fmt::format("{}:{}", row.user_file, *row.user_line) : row.user_file;
      if (!row.user_function.empty()) k.user_location += fmt::format(" ({})", row.user_function);
    }
    auto [it, added] =
        group_of.try_emplace(std::make_tuple(k.kind, k.reason, k.program_key, k.user_location),
                             run.cudagraph_skips.size());
    if (!added) {
      ++run.cudagraph_skips[it->second].count;
      continue;
    }
    k.count = 1;
    k.where = fmt::format("{}:{}", base_name(row.source), row.line);
    run.cudagraph_skips.push_back(std::move(k));
  }
  std::stable_sort(run.cudagraph_skips.begin(), run.cudagraph_skips.end(),
                   [](const CudagraphSkipInfo& a, const CudagraphSkipInfo& b) {
                     return std::tie(b.count, a.kind, a.reason, a.program_key, a.user_location) <
                            std::tie(a.count, b.kind, b.reason, b.program_key, b.user_location);
                   });
}

void render_cudagraph_skips_text(const RunSummary& run, const ExplainListing& listing,
                                 std::string& out) {
  if (run.cudagraph_skips.empty()) return;
  out += "\n   CUDA graphs not used (Inductor's reasons, distinct):\n";
  for (size_t i = 0; i < run.cudagraph_skips.size(); ++i) {
    if (listing.cuts(i)) {
      out += fmt::format("     ... {} more (rcf explain --all, or the cudagraph_skips view)\n",
                         run.cudagraph_skips.size() - i);
      break;
    }
    const CudagraphSkipInfo& k = run.cudagraph_skips[i];
    out += fmt::format("     {:>4}x {}{}: {}\n", k.count, safe(k.kind),
                       k.program_key.empty() ? "" : " at " + safe(k.program_key), safe(k.reason));
    std::string from = k.user_location.empty() ? "" : "from " + safe(k.user_location) + "; ";
    out += fmt::format("           {}{}evidence: {}\n", from,
                       k.site.empty() ? "" : "site " + safe(k.site) + "; ", safe(k.where));
  }
}

nlohmann::json hosts_json(const RunSummary& run) {
  nlohmann::json out = nlohmann::json::array();
  for (const store::SourceHostRow& h : run.hosts)
    out.push_back({{"host", h.host}, {"sources", h.sources}});
  return out;
}

nlohmann::json merged_sources_json(const RunSummary& run) {
  nlohmann::json merged = nlohmann::json::array();
  for (const MergedSourceInfo& m : run.merged_sources)
    merged.push_back(merged_source_json<nlohmann::json>(m));
  return merged;
}

nlohmann::json cudagraph_skips_json(const RunSummary& run, const ExplainListing& listing) {
  nlohmann::json skips = nlohmann::json::array();
  for (const auto& k : run.cudagraph_skips) {
    if (listing.cuts(skips.size())) break;
    skips.push_back(cudagraph_skip_json<nlohmann::json>(k));
  }
  return skips;
}

void load_convergence(store::Database& db, RunSummary& run) {
  const std::optional<store::ConvergenceSummaryRow> row =
      store::convergence_summary_of_run(db, run.run_id);
  if (!row) return;
  analysis::ConvergenceSummary c;
  const std::string& state = row->state;
  c.state = state == "settled"         ? analysis::SettleState::kSettled
            : state == "not_settled"   ? analysis::SettleState::kNotSettled
            : state == "still_growing" ? analysis::SettleState::kStillGrowing
                                       : analysis::SettleState::kNoData;
  c.first_step = row->first_step.value_or(0);
  c.last_step = row->last_step.value_or(0);
  c.settle_step = row->settle_step.value_or(0);
  c.programs_at_settle = row->programs_at_settle.value_or(0);
  c.final_programs = row->final_programs.value_or(0);
  c.new_after_growth_step = row->new_after_growth_step.value_or(0);
  c.growth_step = row->growth_step;
  c.unit = row->step_axis;
  run.step_axis = c.unit;
  run.step_basis = row->step_basis;
  run.step_detail = row->step_detail;
  run.settle_state = state;
  run.last_step = c.last_step;
  run.settle_step = c.settle_step;
  run.programs_at_settle = c.programs_at_settle;
  run.final_programs = c.final_programs;
  if (c.state != analysis::SettleState::kNoData)
    run.convergence_text = analysis::describe_convergence(c);
  run.compile_ms = row->compile_ms;
  run.wall_ms = row->wall_ms;
  run.compile_share = row->compile_share;
  run.execute_ms = row->execute_ms;
  run.counted_compiles = row->counted_compiles;
  run.counted_by = row->counted_by;
}

// The first `rows` fix-first rows (0: all) and the run's totals.
void load_fix_first(store::Database& db, RunSummary& run, int64_t rows) {
  run.fix_first = store::fix_first_of_run(db, run.run_id, rows);
  const store::FixFirstTotals totals = store::fix_first_totals(db, run.run_id);
  run.fix_first_total = totals.rows;
  run.fix_first_unknown = totals.unknown;
}

}  // namespace

ExplainModel build_explain(store::Database& db, const std::string& lane,
                           const ExplainListing& loaded) {
  ExplainModel model;
  for (const store::RunRow& row : store::runs_in_lane(db, lane)) {
    RunSummary run;
    run.run_id = row.run_id;
    run.lane = row.lane;
    run.run = row.run;
    run.sources = row.source_count;
    run.no_evidence = analysis::no_evidence_reason(db, run.run_id);
    run.missing_record = analysis::missing_recompile_record(db, run.run_id);
    run.rejected_lines = store::rejected_lines_of_run(db, run.run_id);
    SiteIndex sites;
    std::vector<std::vector<PendingReason>> pending;
    load_compiles(db, run, sites, pending);
    load_limit_hits(db, run, sites);
    pending.resize(run.sites.size());
    load_graph_breaks(db, run);
    load_cudagraph_skips(db, run);
    load_merged_sources(db, run);
    run.hosts = store::hosts_of_run(db, run.run_id);
    run.rank_divergence = store::rank_divergence_of_run(db, run.run_id);
    load_convergence(db, run);
    load_fix_first(db, run, loaded.rows);
    // Sites with the most recompiles first, then limit hits, then by name.
    std::vector<size_t> order(run.sites.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::sort(order.begin(), order.end(), [&run](size_t x, size_t y) {
      const SiteSummary& a = run.sites[x];
      const SiteSummary& b = run.sites[y];
      if (a.recompiles != b.recompiles) return a.recompiles > b.recompiles;
      if (a.limit_hits.size() != b.limit_hits.size())
        return a.limit_hits.size() > b.limit_hits.size();
      if (a.compiles != b.compiles) return a.compiles > b.compiles;
      return a.site < b.site;
    });
    std::vector<SiteSummary> sorted;
    sorted.reserve(order.size());
    ReasonTexts texts(db);
    for (size_t rank = 0; rank < order.size(); ++rank) {
      sorted.push_back(std::move(run.sites[order[rank]]));
      if (!loaded.cuts(rank) || !sorted.back().limit_hits.empty())
        fill_reasons(texts, run.run_id, pending[order[rank]], sorted.back());
    }
    run.sites = std::move(sorted);
    model.runs.push_back(std::move(run));
  }
  return model;
}

std::string step_axis_text(const RunSummary& run) {
  if (run.step_axis == "step")
    return fmt::format("steps: training steps, decided by {}: {}", run.step_basis, run.step_detail);
  return fmt::format("steps: counted in syncs (the training step is undecided): {}",
                     run.step_detail);
}

namespace {

// "; execute 4.1s, other 2.0s" when the execute time is known, else "".
template <typename Text>
std::string time_split_text(const RunSummary& run, Text text) {
  if (!run.execute_ms) return "";
  std::optional<double> other = other_step_ms(run);
  return fmt::format("; execute {}, other {}", text(*run.execute_ms),
                     other ? text(*other) : std::string("unknown (execution overlaps host time)"));
}

// The run's compile and recompile counts. A metrics report's count is said where it is more
// than the compile records show: alone, it counts compiles and names none (docs/xla_formats.md).
std::string compile_count_text(const RunSummary& run) {
  const int64_t counted = run.counted_compiles.value_or(0);
  if (run.compiles == 0 && counted > 0)
    return fmt::format(
        "   {} compiles (evidence: {}), recompiles not known: the metrics count compiles but name "
        "no program (PT_XLA_DEBUG_LEVEL=1 names each one and its cause)",
        counted, safe(run.counted_by));
  std::string text = fmt::format("   {} compiles, {} recompiles", run.compiles, run.recompiles);
  if (counted > run.compiles)
    text += fmt::format(" ({} compiles counted, evidence: {})", counted, safe(run.counted_by));
  return text;
}

}  // namespace

std::string hosts_text(const RunSummary& run) {
  std::string text;
  for (const store::SourceHostRow& h : run.hosts)
    text +=
        fmt::format("{}{} ({} log{})", text.empty() ? "" : ", ",
                    h.host.empty() ? "unrecorded" : h.host, h.sources, h.sources == 1 ? "" : "s");
  return text;
}

std::optional<double> other_step_ms(const RunSummary& run) {
  if (!run.wall_ms || !run.compile_ms || !run.execute_ms) return std::nullopt;
  double other = *run.wall_ms - *run.compile_ms - *run.execute_ms;
  if (other < 0) return std::nullopt;
  return other;
}

namespace {

// The run's counts, causes, merged logs, convergence and compile time.
void render_run_header_text(const RunSummary& run, std::string& out) {
  out += compile_count_text(run);
  if (run.failed) out += fmt::format(", {} failed", run.failed);
  if (run.recompile_ms > 0)
    out += fmt::format(", {} spent recompiling", analysis::duration_text(run.recompile_ms));
  out += "\n";
  if (!run.missing_record.empty())
    out += fmt::format("   no recompile record: {}\n", safe(run.missing_record));
  if (!run.causes.empty()) out += fmt::format("   causes: {}\n", causes_text(run.causes));
  for (const MergedSourceInfo& m : run.merged_sources)
    out += fmt::format("   one process, two logs: {} read with {} ({})\n", safe(m.source),
                       safe(m.same_process_as), safe(m.evidence));
  if (run.hosts.size() > 1) out += fmt::format("   hosts: {}\n", safe(hosts_text(run)));
  if (!run.convergence_text.empty()) {
    out += fmt::format("   convergence: {}\n", safe(run.convergence_text));
    out += fmt::format("   {}\n", safe(step_axis_text(run)));
  } else if (!run.step_detail.empty()) {  // why there is no curve, and what would give one
    out += fmt::format("   steps: no convergence curve: {}\n", safe(run.step_detail));
  }
  if (run.compile_ms && run.wall_ms && run.compile_share)
    out +=
        fmt::format("   compile time {} of {} step wall time ({:.0f}%){}\n",
                    analysis::duration_text(*run.compile_ms), analysis::duration_text(*run.wall_ms),
                    *run.compile_share * 100, time_split_text(run, analysis::duration_text));
}

void render_fix_first_text(const RunSummary& run, const ExplainListing& listing, std::string& out) {
  if (run.fix_first.empty()) return;
  out += "\n   fix first (by compile time lost):\n";
  size_t shown = 0;
  for (; shown < run.fix_first.size() && !listing.cuts(shown); ++shown) {
    const FixFirstItem& f = run.fix_first[shown];
    std::string lost = !f.compile_ms_lost ? std::string("time unknown")
                       : f.compile_ms_basis == "step_share"
                           ? "~" + analysis::duration_text(*f.compile_ms_lost)
                           : analysis::duration_text(*f.compile_ms_lost);
    std::string steps =
        f.first_step
            ? (*f.first_step == *f.last_step
                   ? fmt::format(", {} {}", run.step_axis, *f.first_step)
                   : fmt::format(", {}s {}..{}", run.step_axis, *f.first_step, *f.last_step))
            : "";
    out += fmt::format("   {:>3}. {} at {}: {} recompile{}, {}{}\n", f.rank, safe(f.cause),
                       safe(f.site), f.recompiles, f.recompiles == 1 ? "" : "s", lost, steps);
    if (!f.detail.empty()) out += fmt::format("        e.g. {}\n", safe(first_line(f.detail)));
    if (!f.remedy.empty()) out += fmt::format("        fix: {}\n", safe(f.remedy));
  }
  if (run.fix_first_total > static_cast<int64_t>(shown))
    out += fmt::format("        ... {} more (rcf explain --all, or the fix_first view)\n",
                       run.fix_first_total - static_cast<int64_t>(shown));
}

// One site: counts, causes, its reason groups and its recompile-limit hits.
void render_site_text(const SiteSummary& site, std::string& out) {
  out += fmt::format("\n   site {}\n", safe(site.site));
  out +=
      fmt::format("     {} compile{}, {} recompile{}", site.compiles, site.compiles == 1 ? "" : "s",
                  site.recompiles, site.recompiles == 1 ? "" : "s");
  if (!site.causes.empty()) out += fmt::format(" [{}]", causes_text(site.causes));
  if (site.failed) out += fmt::format(", {} failed", site.failed);
  if (site.recompile_ms > 0)
    out += fmt::format(", {} lost to recompiles", analysis::duration_text(site.recompile_ms));
  out += "\n";
  for (const auto& g : site.reasons) {
    out += fmt::format("     {:>4}x {}{}  [{}]\n", g.count, safe(g.cause),
                       g.subject.empty() ? "" : " on " + safe(g.subject), safe(g.confidence));
    out += fmt::format("           latest {}{}: {}\n", safe(g.program_key),
                       g.prev_program_key.empty() ? "" : " (vs " + safe(g.prev_program_key) + ")",
                       safe(g.detail));
    for (const std::string& line : evidence_lines(g.evidence))
      out += fmt::format("           evidence: {}\n", safe(line));
  }
  for (const auto& h : site.limit_hits) {
    out +=
        fmt::format("     recompile limit hit: {}{}{} at {}{}; the frame {} from here on\n",
                    safe(h.limit_type), h.limit_value ? fmt::format(" ({})", *h.limit_value) : "",
                    h.program_key.empty() ? "" : " refusing " + safe(h.program_key), safe(h.where),
                    "", h.hard_failure ? "raised FailOnRecompileLimitHit" : "runs eager");
    if (!h.last_reason.empty())
      out += fmt::format("           last reason ({}): {}\n", safe(h.last_reason_cause),
                         safe(first_line(h.last_reason)));
    else
      out +=
          "           last reason: not printed by this PyTorch version (use "
          "TORCH_LOGS=recompiles)\n";
  }
}

void render_sites_text(const RunSummary& run, const ExplainListing& listing, std::string& out) {
  for (size_t i = 0; i < run.sites.size(); ++i) {
    if (listing.cuts(i)) {
      out += fmt::format("\n   ... {} more sites (rcf explain --all, or the recompiles view)\n",
                         run.sites.size() - i);
      break;
    }
    render_site_text(run.sites[i], out);
  }
}

void render_graph_breaks_text(const RunSummary& run, const ExplainListing& listing,
                              std::string& out) {
  if (run.graph_breaks.empty()) return;
  out += "\n   graph breaks (distinct):\n";
  for (size_t i = 0; i < run.graph_breaks.size(); ++i) {
    if (listing.cuts(i)) {
      out += fmt::format("     ... {} more (rcf explain --all, or the graph_break table)\n",
                         run.graph_breaks.size() - i);
      break;
    }
    const BreakInfo& b = run.graph_breaks[i];
    out += fmt::format("     {:>4}x {}{}{}\n", b.count,
                       b.location.empty() ? "" : safe(b.location) + ": ", safe(b.gb_type),
                       b.sync_signature ? "  [host sync: sync_fragment]" : "");
  }
}

}  // namespace

std::string render_explain_text(const ExplainModel& model, const ExplainListing& listing) {
  std::string out;
  if (model.runs.empty()) return "No runs in this database. Ingest logs with `rcf ingest`.\n";
  for (const auto& run : model.runs) {
    out += fmt::format("== lane {} / run {}  ({} source{})\n", safe(run.lane), safe(run.run),
                       run.sources, run.sources == 1 ? "" : "s");
    if (!run.no_evidence.empty()) {
      out += fmt::format("   no evidence: {}; nothing can be said about its compiles\n\n",
                         safe(run.no_evidence));
      continue;
    }
    render_run_header_text(run, out);
    render_fix_first_text(run, listing, out);
    if (run.rejected_lines)
      out += fmt::format("   {} input lines rejected (see the ingest_stats view)\n",
                         run.rejected_lines);
    render_sites_text(run, listing, out);
    render_graph_breaks_text(run, listing, out);
    render_cudagraph_skips_text(run, listing, out);
    render_rank_divergence_text(run, listing, out);
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
      sites.push_back(site_summary_json<json>(s));
    }
    json breaks = json::array();
    for (const auto& b : run.graph_breaks) {
      if (listing.cuts(breaks.size())) break;
      breaks.push_back(graph_break_json<json>(b));
    }
    json fix = json::array();
    for (const auto& f : run.fix_first) {
      if (listing.cuts(fix.size())) break;
      fix.push_back(fix_first_json<json>(f));
    }
    const std::optional<double> other = other_step_ms(run);
    json convergence = {{"state", run.settle_state},
                        {"axis", run.step_axis},
                        {"step_basis", run.step_basis},
                        {"step_detail", run.step_detail},
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
    runs.push_back(
        {{"lane", run.lane},
         {"run", run.run},
         {"sources", run.sources},
         {"no_evidence", run.no_evidence.empty() ? json() : json(run.no_evidence)},
         {"missing_record", run.missing_record.empty() ? json() : json(run.missing_record)},
         {"merged_sources", merged_sources_json(run)},
         {"hosts", hosts_json(run)},
         {"compiles", run.compiles},
         {"counted_compiles", run.counted_compiles ? json(*run.counted_compiles) : json()},
         {"counted_by", run.counted_by.empty() ? json() : json(run.counted_by)},
         {"recompiles", run.recompiles},
         {"failed", run.failed},
         {"recompile_ms", run.recompile_ms},
         {"causes", run.causes},
         {"rejected_lines", run.rejected_lines},
         {"convergence", convergence},
         {"fix_first", fix},
         {"fix_first_not_listed",
          std::max<int64_t>(0, run.fix_first_total - static_cast<int64_t>(fix.size()))},
         {"sites", sites},
         {"sites_not_listed", run.sites.size() - sites.size()},
         {"graph_breaks", breaks},
         {"graph_breaks_not_listed", run.graph_breaks.size() - breaks.size()}});
    json skips = cudagraph_skips_json(run, listing);
    runs.back()["cudagraph_skips_not_listed"] = run.cudagraph_skips.size() - skips.size();
    runs.back()["cudagraph_skips"] = std::move(skips);
    runs.back()["rank_divergence"] = rank_divergence_json(run);
  }
  json doc = {{"schema_version", kExplainJsonVersion}, {"tool", "rcf explain"}, {"runs", runs}};
  return doc.dump(2, ' ', false, json::error_handler_t::replace) + "\n";
}

}  // namespace rcf::report
