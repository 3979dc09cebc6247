#include "store/run_queries.h"

namespace rcf::store {

std::vector<std::string> lane_names(Database& db) {
  std::vector<std::string> names;
  auto st = db.prepare("SELECT DISTINCT lane FROM runs ORDER BY lane");
  while (st.step()) names.push_back(st.str(0));
  return names;
}

std::string lane_names_text(Database& db) {
  std::string out;
  for (const std::string& lane : lane_names(db)) out += (out.empty() ? "'" : ", '") + lane + "'";
  return out.empty() ? "none" : out;
}

std::vector<RunRef> runs_of_lane(Database& db, const std::string& lane) {
  std::vector<RunRef> runs;
  auto st = db.prepare("SELECT run_id, run FROM runs WHERE lane = ? ORDER BY run");
  st.bind(1, lane);
  while (st.step()) runs.push_back({st.int64(0), lane, st.str(1)});
  return runs;
}

std::vector<RunRow> runs_in_lane(Database& db, const std::string& lane) {
  auto st = db.prepare(
      "SELECT run_id, lane, run, source_count FROM runs WHERE (? = '' OR lane = ?) "
      "ORDER BY lane, run");
  st.bind(1, lane).bind(2, lane);
  std::vector<RunRow> runs;
  while (st.step()) runs.push_back({st.int64(0), st.str(1), st.str(2), st.int64(3)});
  return runs;
}

std::optional<std::string> run_bundle_json(Database& db, int64_t run_id) {
  auto st = db.prepare("SELECT bundle FROM runs WHERE run_id = ?");
  st.bind(1, run_id);
  if (!st.step() || st.is_null(0)) return std::nullopt;
  return st.str(0);
}

}  // namespace rcf::store
