// Runs and lanes as the public `runs` view lists them (sql/schema.sql): the one place a lane list,
// the runs of a lane or a run's bundle are queried, for report/, cli/ and analysis/ alike.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "store/database.h"

namespace rcf::store {

struct RunRef {
  int64_t run_id = 0;
  std::string lane, run;
};

// Every lane name, sorted.
std::vector<std::string> lane_names(Database& db);

// The lane names quoted for a message ("'a', 'b'"), "none" when the store has no run.
std::string lane_names_text(Database& db);

// The runs of `lane` by run label.
std::vector<RunRef> runs_of_lane(Database& db, const std::string& lane);

// A run as `rcf explain` and the reports list it.
struct RunRow {
  int64_t run_id = 0;
  std::string lane, run;
  int64_t source_count = 0;
};

// The runs of `lane` (every run when it is ""), by lane and run label.
std::vector<RunRow> runs_in_lane(Database& db, const std::string& lane);

// runs.bundle of a run: its JSON text, nullopt when none was recorded.
std::optional<std::string> run_bundle_json(Database& db, int64_t run_id);

}  // namespace rcf::store
