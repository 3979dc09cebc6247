#include "pipeline/gate_pipeline.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <fnmatch.h>

#include <algorithm>
#include <filesystem>
#include <memory>

#include "analysis/gate_facts.h"
#include "store/run_queries.h"
#include "store/store.h"
#include "util/error.h"
#include "util/safe_text.h"

namespace rcf::pipeline {
namespace {

bool is_glob(const std::string& s) {
  return s.find_first_of("*?[") != std::string::npos;
}

std::vector<std::string> select_lanes(store::Database& db, const GateRequest& r) {
  std::vector<std::string> all = store::lane_names(db);
  if (all.empty())
    throw Error(
        fmt::format("no runs in {}: ingest logs first (rcf ingest --db {} --lane NAME "
                    "PATH...)",
                    r.db, r.db));
  if (r.lane.empty()) return all;
  std::vector<std::string> chosen;
  for (const auto& lane : all)
    if (lane == r.lane || (is_glob(r.lane) && fnmatch(r.lane.c_str(), lane.c_str(), 0) == 0))
      chosen.push_back(lane);
  if (chosen.empty())
    throw Error(fmt::format("no lane {} '{}' in {} (lanes: {})",
                            is_glob(r.lane) ? "matches" : "named", r.lane, r.db,
                            fmt::join(all, ", ")));
  return chosen;
}

// A lane the gate file names that the store has no run of: a typo, or a lane not run this time.
std::vector<std::string> unknown_file_lanes(const analysis::GateFile& file,
                                            const std::vector<std::string>& lanes,
                                            const GateRequest& r) {
  std::vector<std::string> warnings;
  for (const auto& entry : file.lanes)
    if (!is_glob(entry.lane) && std::find(lanes.begin(), lanes.end(), entry.lane) == lanes.end())
      warnings.push_back(fmt::format("gate file {} names lane '{}', which {} has no run of",
                                     util::field_text(r.gate_file), util::field_text(entry.lane),
                                     util::field_text(r.db)));
  return warnings;
}

// The baseline store of `--baseline DB[:LANE]`, open for reading, with its lane ("" for the
// lane of the same name).
struct Baseline {
  std::unique_ptr<store::Database> db;
  std::string path, lane;

  std::optional<analysis::LaneBaseline> for_lane(const std::string& lane_name) const {
    if (!db) return std::nullopt;
    std::string base_lane = lane.empty() ? lane_name : lane;
    analysis::LaneFacts base = analysis::load_lane_facts(*db, base_lane, "");
    if (base.runs.empty())
      throw Error(fmt::format("baseline {} has no lane '{}' (lanes: {})", path, base_lane,
                              fmt::join(store::lane_names(*db), ", ")));
    return analysis::LaneBaseline{fmt::format("{} lane '{}'", path, base_lane),
                                  std::move(base.runs)};
  }
};

}  // namespace

std::pair<std::string, std::string> split_baseline(const std::string& spec) {
  std::error_code ec;
  size_t colon = spec.rfind(':');
  if (std::filesystem::exists(spec, ec) || colon == std::string::npos) return {spec, ""};
  if (colon == 0 || colon + 1 == spec.size())
    throw Error(fmt::format("--baseline '{}': expected DB or DB:LANE", spec));
  return {spec.substr(0, colon), spec.substr(colon + 1)};
}

GateOutcome run_gate(const GateRequest& r) {
  if (r.flags.max_growth && r.baseline.empty())
    throw Error("--max-growth compares with a baseline: give --baseline DB[:LANE] too");
  std::optional<analysis::GateFile> gate_file;
  if (!r.gate_file.empty()) gate_file = analysis::read_gate_file(r.gate_file);

  GateOutcome out;
  auto db = store::open_store(r.db, store::OpenMode::kRead);
  std::vector<std::string> lanes = select_lanes(*db, r);
  if (gate_file && r.lane.empty()) out.warnings = unknown_file_lanes(*gate_file, lanes, r);

  Baseline baseline;
  out.result.db = r.db;
  if (!r.baseline.empty()) {
    std::tie(baseline.path, baseline.lane) = split_baseline(r.baseline);
    baseline.db = store::open_store(baseline.path, store::OpenMode::kRead);
    out.result.baseline = baseline.lane.empty()
                              ? baseline.path
                              : fmt::format("{} lane '{}'", baseline.path, baseline.lane);
  }
  for (const auto& lane : lanes) {
    analysis::Budgets budgets =
        analysis::budgets_for_lane(gate_file ? &*gate_file : nullptr, r.flags, lane);
    analysis::LaneFacts facts = analysis::load_lane_facts(
        *db, lane, r.run, budgets.require_restart_proof ? &r.restart : nullptr);
    if (facts.runs.empty()) continue;  // --run names a run this lane does not have
    std::optional<analysis::LaneBaseline> base = baseline.for_lane(lane);
    out.result.lanes.push_back(analysis::evaluate_lane(facts, budgets, base ? &*base : nullptr));
  }
  if (out.result.lanes.empty())
    throw Error(fmt::format("no run labelled '{}' in {}{}", r.run, r.db,
                            r.lane.empty() ? "" : fmt::format(" lane '{}'", r.lane)));
  return out;
}

}  // namespace rcf::pipeline
