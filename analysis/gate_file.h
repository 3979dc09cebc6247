// The checked-in gate file of `rcf gate`: budgets per lane, JSON. Lanes are matched by exact name
// first, then by the first glob (fnmatch) that matches, in file order:
//
//   {
//     "schema_version": 1,
//     "defaults": {"settle_by": 20, "forbid_cause": ["sync_fragment"]},
//     "lanes": [
//       {"lane": "mtp1-*", "max_programs": 20, "settle_by": 5},
//       {"lane": "jax-small", "max_compile_share": 0.25, "max_growth": "10%"}
//     ]
//   }
//
// Budget keys are the flag names with underscores: max_programs, settle_by (null: no settle
// check), max_recompiles_per_site, forbid_cause (a cause or a list), max_compile_share (0..1),
// max_growth (a count or "P%"), require_restart_proof. Unknown keys are errors (a typo must not
// silently drop a budget). TOML is not supported.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "analysis/gate.h"

namespace rcf::analysis {

inline constexpr int kGateFileVersion = 1;

struct GateFileEntry {
  std::string lane;  // name or glob
  BudgetPatch budgets;
};

struct GateFile {
  std::string path;
  BudgetPatch defaults;
  std::vector<GateFileEntry> lanes;
};

// Throws rcf::Error "PATH: WHERE: PROBLEM" on malformed input (syntax with line and column,
// wrong types, unknown keys or causes, duplicate lanes).
GateFile parse_gate_file(std::string_view text, const std::string& path);
GateFile read_gate_file(const std::string& path);

// The entry for `lane`: an exact name, else the first matching glob; null when none matches.
const GateFileEntry* match_gate_entry(const GateFile& file, const std::string& lane);

// Built-in defaults, then the gate file's defaults and lane entry (when `file` is not null), then
// the command-line flags.
Budgets budgets_for_lane(const GateFile* file, const BudgetPatch& flags, const std::string& lane);

}  // namespace rcf::analysis
