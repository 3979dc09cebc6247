#include "analysis/gate_facts.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>

#include "analysis/restart_proof.h"
#include "analysis/run_evidence.h"
#include "util/plausible.h"

namespace rcf::analysis {
namespace {

void load_programs(store::Database& db, RunFacts& run) {
  auto st = db.prepare(
      "SELECT count(*), count(DISTINCT CASE WHEN kind <> 'dynamo_failed' THEN program_key END) "
      "FROM compiles WHERE run_id = ?");
  st.bind(1, run.run_id);
  if (st.step()) {
    run.compiles = st.int64(0);
    run.programs = st.int64(1);
  }
}

void load_curve(store::Database& db, RunFacts& run) {
  auto st = db.prepare(
      "SELECT step, programs_cached, compiles_in_step FROM convergence WHERE run_id = ? "
      "ORDER BY step");
  st.bind(1, run.run_id);
  while (st.step()) run.curve.push_back({st.int64(0), st.int64(1), st.int64(2)});
  // A metrics-only curve counts compiles the compiles view may not hold.
  if (!run.curve.empty()) run.programs = std::max(run.programs, run.curve.back().programs_cached);
  auto axis = db.prepare("SELECT step_axis, step_detail FROM convergence_summary WHERE run_id = ?");
  axis.bind(1, run.run_id);
  if (axis.step()) {
    run.step_axis = axis.str(0);
    run.step_detail = axis.str(1);
  }
}

// Compile time over wall time: analysis's own figure when present, else the convergence points'
// per-step times, else the raw step timings (compile time from them or from timed compiles).
void load_compile_share(store::Database& db, RunFacts& run) {
  auto summary = db.prepare(
      "SELECT compile_share, compile_ms, wall_ms FROM convergence_summary WHERE run_id = ?");
  summary.bind(1, run.run_id);
  if (summary.step() && !summary.is_null(0)) {
    run.compile_share = summary.real(0);
    run.compile_ms = summary.opt_real(1);
    run.wall_ms = summary.opt_real(2);
    return;
  }
  std::optional<double> compile_ms, wall_ms;
  auto points = db.prepare(
      "SELECT sum(compile_ms), sum(wall_ms) FROM convergence WHERE run_id = ? AND wall_ms IS NOT "
      "NULL");
  points.bind(1, run.run_id);
  if (points.step()) {
    compile_ms = points.opt_real(0);
    wall_ms = points.opt_real(1);
  }
  if (!compile_ms || !wall_ms) {
    auto steps = db.prepare(
        "SELECT sum(c), sum(w) FROM (SELECT max(compile_ms) AS c, max(wall_ms) AS w "
        "FROM step_timing WHERE run_id = ? GROUP BY step) WHERE w IS NOT NULL");
    steps.bind(1, run.run_id);
    if (steps.step()) {
      compile_ms = steps.opt_real(0);
      wall_ms = steps.opt_real(1);
    }
    if (wall_ms && !compile_ms) {
      auto timed = db.prepare("SELECT sum(compile_ms) FROM compiles WHERE run_id = ?");
      timed.bind(1, run.run_id);
      if (timed.step()) compile_ms = timed.opt_real(0);
    }
  }
  if (compile_ms && wall_ms && *wall_ms > 0) {
    run.compile_ms = compile_ms;
    run.wall_ms = wall_ms;
    run.compile_share = *compile_ms / *wall_ms;
  }
}

// A store from elsewhere may hold any number: a compile share is evidence only when its parts
// are durations (util/plausible.h). Also counts the rows the ingest rejected as implausible.
void check_compile_share(store::Database& db, RunFacts& run) {
  auto rejected = db.prepare(
      "SELECT coalesce(sum(n.count), 0) FROM line_note n JOIN source s USING (source_id) "
      "WHERE s.run_id = ? AND n.reason LIKE 'implausible\\_%' ESCAPE '\\'");
  rejected.bind(1, run.run_id);
  if (rejected.step()) run.implausible_rows = rejected.int64(0);
  const bool plausible =
      (!run.compile_ms || util::plausible_duration_ms(*run.compile_ms)) &&
      (!run.wall_ms || util::plausible_duration_ms(*run.wall_ms)) &&
      (!run.compile_share || (std::isfinite(*run.compile_share) && *run.compile_share >= 0));
  if (plausible) return;
  run.implausible_times = fmt::format("compile time {:g} ms of wall time {:g} ms (share {:g})",
                                      run.compile_ms.value_or(0), run.wall_ms.value_or(0),
                                      run.compile_share.value_or(0));
  run.compile_share.reset();
  run.compile_ms.reset();
  run.wall_ms.reset();
}

void load_groups(store::Database& db, RunFacts& run) {
  auto ranked = db.prepare(
      "SELECT site, cause, recompiles, coalesce(detail, ''), first_step, last_step "
      "FROM fix_first WHERE run_id = ? ORDER BY rank, site, cause");
  ranked.bind(1, run.run_id);
  while (ranked.step())
    run.groups.push_back({ranked.str(0), ranked.str(1), ranked.int64(2), ranked.str(3),
                          ranked.opt_int64(4), ranked.opt_int64(5)});
  if (!run.groups.empty()) return;
  // fix_first not filled: group the recompiles, the latest one's detail for each group.
  auto grouped = db.prepare(
      "WITH g AS (SELECT site, cause, count(*) AS n, min(step) AS first_step, "
      "max(step) AS last_step, max(ordinal) AS latest FROM recompiles WHERE run_id = ?1 "
      "GROUP BY site, cause) "
      "SELECT g.site, g.cause, g.n, coalesce(r.detail, ''), g.first_step, g.last_step FROM g "
      "LEFT JOIN recompiles r ON r.run_id = ?1 AND r.ordinal = g.latest "
      "ORDER BY g.n DESC, g.site, g.cause");
  grouped.bind(1, run.run_id);
  while (grouped.step())
    run.groups.push_back({grouped.str(0), grouped.str(1), grouped.int64(2), grouped.str(3),
                          grouped.opt_int64(4), grouped.opt_int64(5)});
}

void load_arrivals(store::Database& db, RunFacts& run) {
  auto st = db.prepare(
      "WITH firsts AS (SELECT min(ordinal) AS ordinal FROM compiles WHERE run_id = ?1 "
      "AND kind <> 'dynamo_failed' GROUP BY program_key) "
      "SELECT c.step, c.site, coalesce(r.cause, 'first_compile'), coalesce(r.detail, '') "
      "FROM firsts f JOIN compiles c ON c.run_id = ?1 AND c.ordinal = f.ordinal "
      "LEFT JOIN recompiles r ON r.run_id = ?1 AND r.ordinal = f.ordinal "
      "WHERE c.step IS NOT NULL ORDER BY c.step, c.ordinal");
  st.bind(1, run.run_id);
  while (st.step()) run.arrivals.push_back({st.int64(0), st.str(1), st.str(2), st.str(3)});
}

std::optional<int64_t> run_id_of(store::Database& db, const std::string& lane,
                                 const std::string& label) {
  auto st = db.prepare("SELECT run_id FROM runs WHERE lane = ? AND run = ? ORDER BY run_id");
  st.bind(1, lane).bind(2, label);
  if (st.step()) return st.int64(0);
  return std::nullopt;
}

void load_restart(store::Database& db, const RestartLabels& labels, LaneFacts& facts) {
  std::optional<int64_t> cold = run_id_of(db, facts.lane, labels.cold);
  std::optional<int64_t> warm = run_id_of(db, facts.lane, labels.warm);
  if (!cold || !warm) {
    std::string runs;
    auto st = db.prepare("SELECT run FROM runs WHERE lane = ? ORDER BY run_id");
    st.bind(1, facts.lane);
    while (st.step()) runs += (runs.empty() ? "" : ", ") + st.str(0);
    facts.restart_unavailable = fmt::format(
        "the lane has no {} run '{}' (its runs: {}); ingest the cold and the warm run with "
        "--run {} and --run {}",
        cold ? "warm" : "cold", cold ? labels.warm : labels.cold, runs, labels.cold, labels.warm);
    return;
  }
  RestartProof proof = decide_restart(load_restart_facts(db, *cold), load_restart_facts(db, *warm));
  RestartOutcome out;
  out.proven = proof.verdict == RestartVerdict::kProven;
  out.summary = fmt::format("{} -> {}: {}", labels.cold, labels.warm, proof.headline);
  if (!proof.to_enable.empty())
    out.summary += fmt::format("; enable: {}", fmt::join(proof.to_enable, "; "));
  if (!proof.rebuilt.empty()) {
    const RebuiltProgram& r = proof.rebuilt.front();
    SiteLocation where = parse_site(r.build.site);
    out.culprit =
        Culprit{r.build.site, rebuild_kind_name(r.kind), r.why, 0, where.file, where.line};
  }
  facts.restart = std::move(out);
}

}  // namespace

LaneFacts load_lane_facts(store::Database& db, const std::string& lane, const std::string& run,
                          const RestartLabels* restart) {
  LaneFacts facts;
  facts.lane = lane;
  auto runs = db.prepare(
      "SELECT run_id, run FROM runs WHERE lane = ?1 AND (?2 = '' OR run = ?2) ORDER BY run_id");
  runs.bind(1, lane).bind(2, run);
  while (runs.step()) {
    RunFacts r;
    r.run_id = runs.int64(0);
    r.lane = lane;
    r.run = runs.str(1);
    r.no_evidence = no_evidence_reason(db, r.run_id);
    load_programs(db, r);
    load_curve(db, r);
    load_compile_share(db, r);
    check_compile_share(db, r);
    load_groups(db, r);
    load_arrivals(db, r);
    facts.runs.push_back(std::move(r));
  }
  if (restart) load_restart(db, *restart, facts);
  return facts;
}

}  // namespace rcf::analysis
