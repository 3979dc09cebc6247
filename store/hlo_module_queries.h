// What the report compares between two HLO modules of a run (parameters, constants, op counts),
// and which module each program key compiled to, as plain structs.
//
// The module contents come from the internal hlo_module, hlo_parameter and hlo_constant tables:
// no public view carries a module's parameters, constants or op histogram. Which module a compile
// has comes from the compile_artifacts view.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "store/database.h"

namespace rcf::store {

struct HloConstantRow {
  int64_t ordinal = 0;
  std::string name, shape, value, user_op, op_name;
  std::optional<std::string> source_file;  // from HLO metadata, nullopt when absent
  std::optional<int64_t> source_line;
};

struct HloModuleContents {
  std::vector<int64_t> param_numbers;
  std::vector<std::string> param_shapes;  // as printed
  std::vector<std::string> param_keys;    // dtype + dims: layouts are not compared
  std::vector<HloConstantRow> constants;  // by ordinal
  std::map<std::string, int64_t> ops;     // op histogram
};

// The contents of the modules `ids`, by module id (a module with no row is absent).
std::map<int64_t, HloModuleContents> hlo_module_contents(Database& db,
                                                         const std::set<int64_t>& ids);

// For each of `program_keys`, every compile of the run with that key that has an HLO module, as
// (ordinal, module id) in compile order.
std::map<std::string, std::vector<std::pair<int64_t, int64_t>>, std::less<>>
hlo_modules_of_programs(Database& db, int64_t run_id,
                        const std::set<std::string, std::less<>>& program_keys);

}  // namespace rcf::store
