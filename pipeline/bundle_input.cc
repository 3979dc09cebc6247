#include "pipeline/bundle_input.h"

#include <fmt/format.h>

#include <fstream>
#include <sstream>

#include "util/error.h"
#include "util/json_depth.h"

namespace rcf::pipeline {

nlohmann::json read_bundle_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(fmt::format("--bundle {}: cannot read the file", path));
  std::ostringstream read;
  read << in.rdbuf();
  const std::string text = read.str();
  if (std::string problem = util::json_depth_problem(text); !problem.empty())
    throw Error(fmt::format("--bundle {}: JSON {}", path, problem));
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    throw Error(fmt::format("--bundle {}: not valid JSON at byte {}", path, e.byte));
  }
  if (!j.is_object())
    throw Error(fmt::format("--bundle {}: expected a JSON object of versions and flags, got {}",
                            path, j.type_name()));
  return j;
}

void apply_bundle_sets(const std::vector<std::string>& sets, nlohmann::json* bundle) {
  if (!bundle->is_object()) *bundle = nlohmann::json::object();
  for (const auto& set : sets) {
    size_t eq = set.find('=');
    if (eq == std::string::npos || eq == 0)
      throw Error(fmt::format("--bundle-set '{}': expected KEY=VALUE (e.g. torch=2.12.0)", set));
    std::string value = set.substr(eq + 1);
    (*bundle)[set.substr(0, eq)] = value.empty() ? nlohmann::json(nullptr) : nlohmann::json(value);
  }
}

}  // namespace rcf::pipeline
