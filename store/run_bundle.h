// The bundle of a run (run_table.bundle): a JSON object of stack versions (torch, torch_xla,
// libtpu, jax, python, ...) and flags (XLA_FLAGS, ...). Two writers with one precedence rule:
// what the user declares (rcf ingest --bundle / --bundle-set, rcf capture) replaces the run's
// value for that key; a version a log prints only fills a key the run has no value for.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "store/database.h"

namespace rcf::store {

// The run's bundle; an empty object when none is recorded (or the column is not a JSON object).
nlohmann::json read_run_bundle(Database& db, int64_t run_id);

// Merges `declared` (a JSON object) into the run's bundle: its keys replace the run's, a null
// value removes the key. An empty result stores NULL.
void merge_declared_bundle(Database& db, int64_t run_id, const nlohmann::json& declared);

// Records a version printed by a log unless the run already has a value for `key`.
void add_logged_version(Database& db, int64_t run_id, const std::string& key,
                        const std::string& value);

// The id of run (lane, run), if it exists.
std::optional<int64_t> find_run_id(Database& db, const std::string& lane, const std::string& run);

}  // namespace rcf::store
