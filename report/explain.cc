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
#include "report/summary_json.h"
#include "util/base_name.h"
#include "util/safe_text.h"

namespace rcf::report {
namespace {

// Log-derived text in the terminal rendering: one line, control characters shown escaped.
std::string safe(const std::string& text) {
  return util::field_text(text);
}

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
  auto st = db.prepare(
      "SELECT c.site_sid, c.kind, c.compile_ms, a.cause, a.subject_sid, c.ordinal "
      "FROM compile_event c JOIN attribution a ON a.compile_row = c.compile_row "
      "WHERE c.run_id = ? ORDER BY c.ordinal");
  st.bind(1, run.run_id);
  auto site_text = db.prepare("SELECT text FROM strings WHERE string_id = ?");
  std::unordered_map<int64_t, size_t> by_sid;
  while (st.step()) {
    const int64_t sid = st.int64(0);
    auto [at, added] = by_sid.try_emplace(sid, 0);
    if (added) {
      site_text.reset();
      site_text.bind(1, sid);
      at->second = static_cast<size_t>(
          &site_entry(run, sites, site_text.step() ? site_text.str(0) : "") - run.sites.data());
      if (pending.size() < run.sites.size()) pending.resize(run.sites.size());
    }
    SiteSummary& site = run.sites[at->second];
    const std::string cause(st.text(3));  // a cause name fits a string's inline buffer
    double ms = st.opt_real(2).value_or(0);
    bool failed = st.text(1) == "dynamo_failed";
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
    const std::optional<int64_t> subject = st.opt_int64(4);
    auto& groups = pending[at->second];
    auto it = std::find_if(groups.begin(), groups.end(), [&](const PendingReason& g) {
      return g.subject_sid == subject && g.cause == cause;
    });
    if (it == groups.end()) it = groups.insert(groups.end(), {cause, subject, 0, 0});
    ++it->count;
    it->latest_ordinal = st.int64(5);  // rows come in ordinal order: the latest so far
  }
}

// Reads the texts of listed sites' reason groups: one statement of each kind per run.
struct ReasonTexts {
  store::Statement latest, subject_text;
  explicit ReasonTexts(store::Database& db)
      : latest(db.prepare(
            "SELECT c.program_key, a.confidence, a.detail, a.prev_program_key, a.evidence "
            "FROM compile_event c JOIN attribution a ON a.compile_row = c.compile_row "
            "WHERE c.run_id = ? AND c.ordinal = ?")),
        subject_text(db.prepare("SELECT text FROM strings WHERE string_id = ?")) {}
};

// The reason groups of one listed site, with the texts of each group's latest recompile, sorted
// by count, cause and subject.
void fill_reasons(ReasonTexts& texts, int64_t run_id, const std::vector<PendingReason>& pending,
                  SiteSummary& site) {
  store::Statement& latest = texts.latest;
  store::Statement& subject_text = texts.subject_text;
  for (const PendingReason& p : pending) {
    ReasonGroup g;
    g.cause = p.cause;
    g.count = p.count;
    if (p.subject_sid) {
      subject_text.reset();
      subject_text.bind(1, *p.subject_sid);
      if (subject_text.step()) g.subject = subject_text.str(0);
    }
    latest.reset();
    latest.bind(1, run_id).bind(2, p.latest_ordinal);
    if (latest.step()) {
      g.program_key = latest.str(0);
      g.confidence = latest.str(1);
      g.detail = latest.str(2);
      g.prev_program_key = latest.str(3);
      g.evidence = latest.str(4);
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

void load_merged_sources(store::Database& db, RunSummary& run) {
  auto st = db.prepare(
      "SELECT source, same_process_as, evidence FROM merged_sources WHERE run_id = ? "
      "ORDER BY source");
  st.bind(1, run.run_id);
  while (st.step())
    run.merged_sources.push_back({base_name(st.str(0)), base_name(st.str(1)), st.str(2)});
}

// The run's cudagraph_skips rows grouped by kind, reason, compile and user location; each group
// keeps its first message (source, line) as evidence.
void load_cudagraph_skips(store::Database& db, RunSummary& run) {
  auto st = db.prepare(
      "SELECT kind, reason, coalesce(program_key, CASE WHEN frame_id >= 0 THEN frame_id || '/' "
      "|| frame_compile_id END, ''), coalesce(site, ''), coalesce(user_file, ''), user_line, "
      "coalesce(user_function, ''), source, line "
      "FROM cudagraph_skips WHERE run_id = ? ORDER BY source, line");
  st.bind(1, run.run_id);
  std::map<std::tuple<std::string, std::string, std::string, std::string>, size_t> group_of;
  while (st.step()) {
    CudagraphSkipInfo k;
    k.kind = st.str(0);
    k.reason = first_line(st.str(1));
    k.program_key = st.str(2);
    k.site = st.str(3);
    if (!st.str(4).empty()) {
      k.user_location = st.is_null(5) ? st.str(4) : fmt::format("{}:{}", st.str(4), st.int64(5));
      if (!st.str(6).empty()) k.user_location += fmt::format(" ({})", st.str(6));
    }
    auto [it, added] =
        group_of.try_emplace(std::make_tuple(k.kind, k.reason, k.program_key, k.user_location),
                             run.cudagraph_skips.size());
    if (!added) {
      ++run.cudagraph_skips[it->second].count;
      continue;
    }
    k.count = 1;
    k.where = fmt::format("{}:{}", base_name(st.str(7)), st.int64(8));
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
  auto st = db.prepare(
      "SELECT state, first_step, last_step, settle_step, programs_at_settle, final_programs, "
      "new_after_growth_step, growth_step, compile_ms, wall_ms, compile_share, compiles, "
      "execute_ms, counted_compiles, counted_by, step_axis, step_basis, step_detail "
      "FROM convergence_summary WHERE run_id = ?");
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
  c.unit = st.str(15);
  run.step_axis = c.unit;
  run.step_basis = st.str(16);
  run.step_detail = st.str(17);
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
  run.counted_compiles = st.opt_int64(13);
  run.counted_by = st.str(14);
}

// The first `rows` fix-first rows (0: all) and the run's totals. Ranks are 1..N within a run,
// so the first rows are found without sorting the others.
void load_fix_first(store::Database& db, RunSummary& run, int64_t rows) {
  auto st = db.prepare(
      "SELECT rank, site, cause, recompiles, compile_ms_lost, compile_ms_basis, first_step, "
      "last_step, detail, subject, remedy FROM fix_first WHERE run_id = ? AND rank <= ? "
      "ORDER BY rank");
  st.bind(1, run.run_id).bind(2, rows > 0 ? rows : std::numeric_limits<int64_t>::max());
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
  auto totals = db.prepare(
      "SELECT count(*), coalesce(sum(cause = 'unknown'), 0) FROM cause_group WHERE run_id = ?");
  totals.bind(1, run.run_id);
  if (totals.step()) {
    run.fix_first_total = totals.int64(0);
    run.fix_first_unknown = totals.int64(1);
  }
}

}  // namespace

ExplainModel build_explain(store::Database& db, const std::string& lane,
                           const ExplainListing& loaded) {
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
    run.no_evidence = analysis::no_evidence_reason(db, run.run_id);
    run.rejected_lines = runs.int64(4);
    SiteIndex sites;
    std::vector<std::vector<PendingReason>> pending;
    load_compiles(db, run, sites, pending);
    load_limit_hits(db, run, sites);
    pending.resize(run.sites.size());
    load_graph_breaks(db, run);
    load_cudagraph_skips(db, run);
    load_merged_sources(db, run);
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

std::string causes_text(const std::map<std::string, int64_t>& causes) {
  std::vector<std::pair<std::string, int64_t>> v(causes.begin(), causes.end());
  std::stable_sort(v.begin(), v.end(), [](auto& a, auto& b) { return a.second > b.second; });
  std::string out;
  for (const auto& [cause, n] : v) out += fmt::format("{}{} {}", out.empty() ? "" : ", ", cause, n);
  return out;
}

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
    out += fmt::format("== lane {} / run {}  ({} source{})\n", safe(run.lane), safe(run.run),
                       run.sources, run.sources == 1 ? "" : "s");
    if (!run.no_evidence.empty()) {
      out += fmt::format("   no evidence: {}; nothing can be said about its compiles\n\n",
                         safe(run.no_evidence));
      continue;
    }
    out += compile_count_text(run);
    if (run.failed) out += fmt::format(", {} failed", run.failed);
    if (run.recompile_ms > 0)
      out += fmt::format(", {} spent recompiling", analysis::duration_text(run.recompile_ms));
    out += "\n";
    if (!run.causes.empty()) out += fmt::format("   causes: {}\n", causes_text(run.causes));
    for (const MergedSourceInfo& m : run.merged_sources)
      out += fmt::format("   one process, two logs: {} read with {} ({})\n", safe(m.source),
                         safe(m.same_process_as), safe(m.evidence));
    if (!run.convergence_text.empty()) {
      out += fmt::format("   convergence: {}\n", safe(run.convergence_text));
      out += fmt::format("   {}\n", safe(step_axis_text(run)));
    } else if (!run.step_detail.empty()) {  // why there is no curve, and what would give one
      out += fmt::format("   steps: no convergence curve: {}\n", safe(run.step_detail));
    }
    if (run.compile_ms && run.wall_ms && run.compile_share)
      out += fmt::format("   compile time {} of {} step wall time ({:.0f}%){}\n",
                         analysis::duration_text(*run.compile_ms),
                         analysis::duration_text(*run.wall_ms), *run.compile_share * 100,
                         time_split_text(run, analysis::duration_text));
    if (!run.fix_first.empty()) {
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
      out += fmt::format("\n   site {}\n", safe(site.site));
      out += fmt::format("     {} compile{}, {} recompile{}", site.compiles,
                         site.compiles == 1 ? "" : "s", site.recompiles,
                         site.recompiles == 1 ? "" : "s");
      if (!site.causes.empty()) out += fmt::format(" [{}]", causes_text(site.causes));
      if (site.failed) out += fmt::format(", {} failed", site.failed);
      if (site.recompile_ms > 0)
        out += fmt::format(", {} lost to recompiles", analysis::duration_text(site.recompile_ms));
      out += "\n";
      for (const auto& g : site.reasons) {
        out += fmt::format("     {:>4}x {}{}  [{}]\n", g.count, safe(g.cause),
                           g.subject.empty() ? "" : " on " + safe(g.subject), safe(g.confidence));
        out +=
            fmt::format("           latest {}{}: {}\n", safe(g.program_key),
                        g.prev_program_key.empty() ? "" : " (vs " + safe(g.prev_program_key) + ")",
                        safe(g.detail));
        if (!g.evidence.empty()) out += fmt::format("           evidence: {}\n", safe(g.evidence));
      }
      for (const auto& h : site.limit_hits) {
        out += fmt::format(
            "     recompile limit hit: {}{}{} at {}{}; the frame {} from here on\n",
            safe(h.limit_type), h.limit_value ? fmt::format(" ({})", *h.limit_value) : "",
            h.program_key.empty() ? "" : " refusing " + safe(h.program_key), safe(h.where), "",
            h.hard_failure ? "raised FailOnRecompileLimitHit" : "runs eager");
        if (!h.last_reason.empty())
          out += fmt::format("           last reason ({}): {}\n", safe(h.last_reason_cause),
                             safe(first_line(h.last_reason)));
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
                           b.location.empty() ? "" : safe(b.location) + ": ", safe(b.gb_type),
                           b.sync_signature ? "  [host sync: sync_fragment]" : "");
      }
    }
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
         {"merged_sources", merged_sources_json(run)},
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
