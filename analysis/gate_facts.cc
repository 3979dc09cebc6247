#include "analysis/gate_facts.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>

#include "analysis/restart_proof.h"
#include "analysis/run_evidence.h"
#include "store/gate_fact_reader.h"
#include "util/plausible.h"

namespace rcf::analysis {
namespace {

void load_programs(store::Database& db, RunFacts& run) {
  const store::CompileCounts counts = store::compile_counts_of_run(db, run.run_id);
  run.compiles = counts.compiles;
  run.programs = counts.programs;
}

void load_curve(store::Database& db, RunFacts& run) {
  for (const store::CurveCounts& p : store::curve_counts_of_run(db, run.run_id))
    run.curve.push_back({p.step, p.programs_cached, p.compiles_in_step});
  // A metrics-only curve counts compiles the compiles view may not hold.
  if (!run.curve.empty()) run.programs = std::max(run.programs, run.curve.back().programs_cached);
  if (auto axis = store::step_axis_of_run(db, run.run_id)) {
    run.step_axis = axis->step_axis;
    run.step_detail = axis->step_detail;
  }
}

// Compile time over wall time: analysis's own figure when present, else the convergence points'
// per-step times, else the raw step timings (compile time from them or from timed compiles).
void load_compile_share(store::Database& db, RunFacts& run) {
  store::CompileTimeRow time = store::summary_compile_time(db, run.run_id);
  if (time.compile_share) {
    run.compile_share = time.compile_share;
    run.compile_ms = time.compile_ms;
    run.wall_ms = time.wall_ms;
    return;
  }
  time = store::curve_compile_time(db, run.run_id);
  if (!time.compile_ms || !time.wall_ms) {
    time = store::step_timing_compile_time(db, run.run_id);
    if (time.wall_ms && !time.compile_ms) time.compile_ms = store::timed_compile_ms(db, run.run_id);
  }
  if (time.compile_ms && time.wall_ms && *time.wall_ms > 0) {
    run.compile_ms = time.compile_ms;
    run.wall_ms = time.wall_ms;
    run.compile_share = *time.compile_ms / *time.wall_ms;
  }
}

// A store from elsewhere may hold any number: a compile share is evidence only when its parts
// are durations (util/plausible.h). Also counts the rows the ingest rejected as implausible.
void check_compile_share(store::Database& db, RunFacts& run) {
  run.implausible_rows = store::implausible_rows_of_run(db, run.run_id);
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

// fix_first when analysis filled it, else the recompiles grouped by site x cause.
void load_groups(store::Database& db, RunFacts& run) {
  std::vector<store::CauseGroupRow> groups = store::fix_first_groups(db, run.run_id);
  if (groups.empty()) groups = store::recompile_groups(db, run.run_id);
  for (store::CauseGroupRow& g : groups)
    run.groups.push_back({std::move(g.site), std::move(g.cause), g.recompiles, std::move(g.detail),
                          g.first_step, g.last_step});
}

void load_arrivals(store::Database& db, RunFacts& run) {
  for (store::ArrivalRow& a : store::program_arrivals(db, run.run_id))
    run.arrivals.push_back({a.step, std::move(a.site), std::move(a.cause), std::move(a.detail)});
}

void load_restart(store::Database& db, const RestartLabels& labels, LaneFacts& facts) {
  std::optional<int64_t> cold = store::first_run_labelled(db, facts.lane, labels.cold);
  std::optional<int64_t> warm = store::first_run_labelled(db, facts.lane, labels.warm);
  if (!cold || !warm) {
    std::string runs;
    for (const std::string& label : store::run_labels_in_ingest_order(db, facts.lane))
      runs += (runs.empty() ? "" : ", ") + label;
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
  for (const store::RunRef& ref : store::runs_in_ingest_order(db, lane, run)) {
    RunFacts r;
    r.run_id = ref.run_id;
    r.lane = lane;
    r.run = ref.run;
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
