#include "report/lane_claims.h"

#include <algorithm>

namespace rcf::report {
namespace {

void validated_claims(const RunReport& run, size_t index, LaneClaims& claims) {
  const RunSummary& s = run.summary;
  if (s.settle_state == "settled" && s.settle_step > 0 && run.recompiles_after_settle == 0)
    claims.validated.push_back({ClaimKind::kSettledClean, index});
  if (s.recompiles == 0 && s.compiles > 0)
    claims.validated.push_back({ClaimKind::kNoRecompiles, index});
}

void workaround_claims(const RunReport& run, size_t index, LaneClaims& claims) {
  const size_t n = std::min<size_t>(kWorkaroundsPerRun, run.summary.fix_first.size());
  for (size_t i = 0; i < n; ++i) claims.workaround.push_back({ClaimKind::kRemedy, index, i});
}

void risk_claims(const RunReport& run, size_t index, LaneClaims& claims) {
  const RunSummary& s = run.summary;
  if (s.settle_state == "still_growing" || s.settle_state == "not_settled")
    claims.risk.push_back({ClaimKind::kNotSettled, index});
  if (s.settle_state == "no_data" && s.compiles > 0)
    claims.risk.push_back({ClaimKind::kNoSteps, index});
  int64_t unknown_listed = 0;
  for (size_t i = 0; i < s.fix_first.size(); ++i)
    if (s.fix_first[i].cause == "unknown") {
      ++unknown_listed;
      claims.risk.push_back({ClaimKind::kUnknownCause, index, i});
    }
  if (s.fix_first_unknown > unknown_listed)
    claims.risk.push_back(
        {ClaimKind::kMoreUnknownCauses, index, 0, 0, s.fix_first_unknown - unknown_listed});
  for (size_t site = 0; site < s.sites.size(); ++site)
    for (size_t hit = 0; hit < s.sites[site].limit_hits.size(); ++hit)
      claims.risk.push_back({ClaimKind::kLimitHit, index, site, hit});
  if (s.failed) claims.risk.push_back({ClaimKind::kFailedCompiles, index});
  if (s.rejected_lines) claims.risk.push_back({ClaimKind::kRejectedLines, index});
}

void frontier_claims(const RunReport& run, size_t index, LaneClaims& claims) {
  if (run.first_failure) claims.frontier.push_back({ClaimKind::kFirstFailure, index});
  if (run.first_recompile) claims.frontier.push_back({ClaimKind::kFirstRecompile, index});
}

void restart_claims(const LaneReport& lane, LaneClaims& claims) {
  for (size_t r = 0; r < lane.restarts.size(); ++r) {
    const analysis::RestartProof& proof = lane.restarts[r].proof;
    if (proof.verdict == analysis::RestartVerdict::kProven)
      claims.validated.push_back({ClaimKind::kRestartProven, 0, r});
    else
      claims.risk.push_back({ClaimKind::kRestartNotProven, 0, r});
    for (size_t e = 0; e < proof.to_enable.size(); ++e)
      claims.risk.push_back({ClaimKind::kRestartToEnable, 0, r, e});
  }
}

}  // namespace

LaneClaims decide_lane_claims(const LaneReport& lane) {
  LaneClaims claims;
  for (size_t i = 0; i < lane.runs.size(); ++i) {
    const RunReport& run = lane.runs[i];
    if (!run.summary.no_evidence.empty()) claims.risk.push_back({ClaimKind::kNoEvidence, i});
    validated_claims(run, i, claims);
    workaround_claims(run, i, claims);
    risk_claims(run, i, claims);
    frontier_claims(run, i, claims);
  }
  restart_claims(lane, claims);
  if (std::all_of(lane.runs.begin(), lane.runs.end(),
                  [](const RunReport& r) { return r.bundle.empty(); }))
    claims.risk.push_back({ClaimKind::kNoBundle});
  claims.evidence = std::any_of(lane.runs.begin(), lane.runs.end(),
                                [](const RunReport& r) { return r.summary.no_evidence.empty(); });
  return claims;
}

}  // namespace rcf::report
