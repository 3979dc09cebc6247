#include "analysis/restart_facts.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "store/run_queries.h"
#include "util/error.h"

namespace rcf::analysis {
namespace {

// "'cold', 'warm'": the run labels of `lane`, for a message.
std::string run_labels_text(store::Database& db, const std::string& lane) {
  std::vector<std::string> names;
  for (const store::RunRef& r : store::runs_of_lane(db, lane)) names.push_back("'" + r.run + "'");
  return fmt::format("{}", fmt::join(names, ", "));
}

}  // namespace

RestartRuns resolve_restart_runs(store::Database& db, const std::string& lane,
                                 const std::string& cold_run, const std::string& warm_run) {
  if (!lane.empty() && store::run_count_of_lane(db, lane) == 0)
    throw Error(fmt::format("no lane named '{}' in {} (lanes: {})", lane, db.path(),
                            store::lane_names_text(db)));
  auto find = [&](const std::string& label, const char* role) {
    auto rows = store::runs_labelled(db, lane, label);
    if (rows.empty())
      throw Error(
          lane.empty()
              ? fmt::format("no run named '{}' in {} (the --{} run)", label, db.path(), role)
              : fmt::format("lane '{}' has no run named '{}' (the --{} run; its runs: {})", lane,
                            label, role, run_labels_text(db, lane)));
    if (rows.size() > 1) {
      std::vector<std::string> lanes;
      for (const auto& r : rows) lanes.push_back("'" + r.lane + "'");
      throw Error(fmt::format("run '{}' exists in lanes {}: choose one with --lane", label,
                              fmt::format("{}", fmt::join(lanes, ", "))));
    }
    return rows.front();
  };
  store::RunRef cold = find(cold_run, "cold");
  store::RunRef warm = find(warm_run, "warm");
  if (cold.lane != warm.lane)
    throw Error(fmt::format(
        "the cold run '{}' is in lane '{}' and the warm run '{}' in lane '{}': a restart proof "
        "compares two runs of the same lane",
        cold.run, cold.lane, warm.run, warm.lane));
  if (cold.run_id == warm.run_id)
    throw Error(fmt::format("--cold and --warm name the same run ('{}' of lane '{}')", cold.run,
                            cold.lane));
  return {cold.run_id, warm.run_id, cold.lane};
}

RunRestartFacts load_restart_facts(store::Database& db, int64_t run_id) {
  return store::restart_facts_of_run(db, run_id);
}

}  // namespace rcf::analysis
