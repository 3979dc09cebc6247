#include "analysis/gate_file.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <fnmatch.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>

#include "util/error.h"
#include "util/json_depth.h"

namespace rcf::analysis {
namespace {

using nlohmann::ordered_json;

const char* const kBudgetKeys[] = {
    "max_programs",      "settle_by",  "max_recompiles_per_site", "forbid_cause",
    "max_compile_share", "max_growth", "require_restart_proof"};

class Parser {
 public:
  explicit Parser(const std::string& path) : path_(path) {}

  [[noreturn]] void fail(const std::string& where, const std::string& problem) const {
    throw Error(fmt::format("gate file {}: {}: {}", path_, where, problem));
  }

  // A whole number from 0 to kMaxBudgetValue (2.0 counts; 1e30 and 2^63 do not fit and are
  // refused, not converted).
  int64_t count(const ordered_json& v, const std::string& where, const char* key) const {
    if (std::optional<int64_t> n = whole_budget(v)) return *n;
    fail(where, fmt::format("{} must be a whole number from 0 to {}, got {}", key, kMaxBudgetValue,
                            v.dump()));
  }

  static std::optional<int64_t> whole_budget(const ordered_json& v) {
    if (v.is_number_unsigned() && v.get<uint64_t>() <= uint64_t(kMaxBudgetValue))
      return static_cast<int64_t>(v.get<uint64_t>());
    if (!v.is_number_float()) return std::nullopt;
    double d = v.get<double>();
    if (d >= 0 && d <= static_cast<double>(kMaxBudgetValue) && std::floor(d) == d)
      return static_cast<int64_t>(d);
    return std::nullopt;
  }

  BudgetPatch budgets(const ordered_json& obj, const std::string& where, bool allow_lane) const {
    if (!obj.is_object()) fail(where, fmt::format("must be an object, got {}", obj.dump()));
    BudgetPatch p;
    for (const auto& [key, v] : obj.items()) {
      if (key == "lane" && allow_lane) continue;
      if (key == "max_programs") {
        p.max_programs = count(v, where, "max_programs");
      } else if (key == "settle_by") {
        if (v.is_null())
          p.settle_by_off = true;
        else
          p.settle_by = count(v, where, "settle_by");
      } else if (key == "max_recompiles_per_site") {
        p.max_recompiles_per_site = count(v, where, "max_recompiles_per_site");
      } else if (key == "forbid_cause") {
        p.forbid_causes = causes(v, where);
      } else if (key == "max_compile_share") {
        if (!v.is_number() || v.get<double>() < 0 || v.get<double>() > 1)
          fail(where, fmt::format("max_compile_share must be a number from 0 to 1 (0.25 = 25%), "
                                  "got {}",
                                  v.dump()));
        p.max_compile_share = v.get<double>();
      } else if (key == "max_growth") {
        if (v.is_number_unsigned())
          p.max_growth = Growth{false, static_cast<double>(count(v, where, "max_growth"))};
        else if (v.is_string())
          p.max_growth = parse_growth(v.get<std::string>(),
                                      "gate file " + path_ + ": " + where + ": max_growth");
        else
          fail(where,
               fmt::format("max_growth must be a count or a string \"P%\", got {}", v.dump()));
      } else if (key == "require_restart_proof") {
        if (!v.is_boolean())
          fail(where, fmt::format("require_restart_proof must be true or false, got {}", v.dump()));
        p.require_restart_proof = v.get<bool>();
      } else {
        std::string known;
        for (const char* k : kBudgetKeys) known += (known.empty() ? "" : ", ") + std::string(k);
        fail(where, fmt::format("unknown key '{}' (budgets: {}{})", key, known,
                                allow_lane ? "; and lane" : ""));
      }
    }
    return p;
  }

  std::vector<std::string> causes(const ordered_json& v, const std::string& where) const {
    std::vector<std::string> out;
    auto add = [&](const ordered_json& c) {
      if (!c.is_string())
        fail(where,
             fmt::format("forbid_cause must be a cause or a list of causes, got {}", c.dump()));
      const auto& vocabulary = gate_cause_vocabulary();
      std::string cause = c.get<std::string>();
      if (std::find(vocabulary.begin(), vocabulary.end(), cause) == vocabulary.end())
        fail(where, fmt::format("forbid_cause: unknown cause '{}' (causes: {})", cause,
                                fmt::join(vocabulary, ", ")));
      out.push_back(cause);
    };
    if (v.is_array())
      for (const auto& c : v) add(c);
    else
      add(v);
    return out;
  }

 private:
  std::string path_;
};

// nlohmann's message without its "[json.exception.parse_error.101] " tag.
std::string json_problem(const std::exception& e) {
  std::string what = e.what();
  if (what.rfind("[json.exception.", 0) == 0) {
    size_t close = what.find("] ");
    if (close != std::string::npos) what = what.substr(close + 2);
  }
  return what;
}

}  // namespace

GateFile parse_gate_file(std::string_view text, const std::string& path) {
  Parser parser(path);
  if (std::string problem = util::json_depth_problem(text); !problem.empty())
    throw Error(fmt::format("gate file {}: not valid JSON: {}", path, problem));
  ordered_json doc;
  try {
    doc = ordered_json::parse(text.begin(), text.end());
  } catch (const ordered_json::exception& e) {
    throw Error(fmt::format("gate file {}: not valid JSON: {}", path, json_problem(e)));
  }
  if (!doc.is_object())
    parser.fail("top level", "must be a JSON object with \"lanes\" (and optional \"defaults\")");
  GateFile file;
  file.path = path;
  for (const auto& [key, v] : doc.items()) {
    if (key == "schema_version") {
      if (!v.is_number_integer() || v.get<int64_t>() != kGateFileVersion)
        parser.fail("schema_version", fmt::format("this rcf reads gate files of version {}, got {}",
                                                  kGateFileVersion, v.dump()));
    } else if (key == "defaults") {
      file.defaults = parser.budgets(v, "defaults", false);
    } else if (key == "lanes") {
      if (!v.is_array())
        parser.fail("lanes", "must be a list of entries {\"lane\": NAME_OR_GLOB, budgets...}");
      for (size_t i = 0; i < v.size(); ++i) {
        std::string where = fmt::format("lanes[{}]", i);
        const auto& entry = v[i];
        if (!entry.is_object() || !entry.contains("lane") || !entry["lane"].is_string() ||
            entry["lane"].get<std::string>().empty())
          parser.fail(where, "each entry needs \"lane\": a lane name or glob");
        std::string lane = entry["lane"].get<std::string>();
        for (size_t j = 0; j < file.lanes.size(); ++j)
          if (file.lanes[j].lane == lane)
            parser.fail(where, fmt::format("lane '{}' already has an entry (lanes[{}])", lane, j));
        where += fmt::format(" (lane '{}')", lane);
        file.lanes.push_back({lane, parser.budgets(entry, where, true)});
      }
    } else {
      parser.fail("top level", fmt::format("unknown key '{}' (expected schema_version, defaults, "
                                           "lanes)",
                                           key));
    }
  }
  return file;
}

GateFile read_gate_file(const std::string& path) {
  if (path.size() >= 5 && path.compare(path.size() - 5, 5, ".toml") == 0)
    throw Error(
        fmt::format("gate file {}: TOML gate files are not supported; write it as JSON "
                    "(see docs/ci_gate.md)",
                    path));
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(fmt::format("gate file {}: cannot read: {}", path, std::strerror(errno)));
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) throw Error(fmt::format("gate file {}: read error", path));
  return parse_gate_file(text.str(), path);
}

const GateFileEntry* match_gate_entry(const GateFile& file, const std::string& lane) {
  for (const auto& entry : file.lanes)
    if (entry.lane == lane) return &entry;
  for (const auto& entry : file.lanes)
    if (fnmatch(entry.lane.c_str(), lane.c_str(), 0) == 0) return &entry;
  return nullptr;
}

Budgets budgets_for_lane(const GateFile* file, const BudgetPatch& flags, const std::string& lane) {
  Budgets budgets;
  if (file) {
    file->defaults.apply_to(budgets);
    if (const GateFileEntry* entry = match_gate_entry(*file, lane))
      entry->budgets.apply_to(budgets);
  }
  flags.apply_to(budgets);
  return budgets;
}

}  // namespace rcf::analysis
