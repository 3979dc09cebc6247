// The bundle a user declares on the command line: `rcf ingest --bundle FILE.json` (a JSON object)
// and repeated `--bundle-set KEY=VALUE` (a string value; `KEY=` removes the key). Parsed here so
// that bad input is an rcf::Error naming the file and the problem.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace rcf::pipeline {

// The JSON object in `path`. Throws rcf::Error when it cannot be read, is not JSON (with the
// byte offset) or is not an object.
nlohmann::json read_bundle_file(const std::string& path);

// Applies KEY=VALUE entries in order on top of `bundle`: VALUE is stored as a string, an empty
// VALUE becomes null (removes KEY when merged). Throws rcf::Error for an entry without '=' or with
// an empty KEY.
void apply_bundle_sets(const std::vector<std::string>& sets, nlohmann::json* bundle);

}  // namespace rcf::pipeline
