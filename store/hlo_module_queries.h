// What the report compares between two HLO modules of a run (parameters, constants, op counts),
// and which module each program key compiled to, as plain structs; and the rows of the modules a
// compile can link to, from which analysis/program_loader.h builds what the program diff compares.
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
#include <string_view>
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

// The modules of a run a compile can link to: modules embedded in saved graphs, and dump modules
// before optimizations or of unknown stage. Their scans call a function with one row at a time
// (a dump can hold thousands of modules); a row's string_views are valid during the call only.
struct LinkableModuleRow {
  int64_t hlo_module_id = 0;
  std::string_view structure_fingerprint, full_fingerprint, skeleton_fingerprint;
  std::string_view op_histogram_json;  // {"add": 3, ...}
};

// The linkable modules of the run.
void for_each_linkable_module(Database& db, int64_t run_id,
                              const std::function<void(const LinkableModuleRow&)>& visit);

struct LinkableParameterRow {
  int64_t hlo_module_id = 0;
  int64_t number = 0;
  std::string_view dtype;
  std::string_view dims_json;  // [8,2048]
  std::string_view shape_text;
};

// The entry parameters of the linkable modules, by (hlo_module_id, number).
void for_each_linkable_parameter(Database& db, int64_t run_id,
                                 const std::function<void(const LinkableParameterRow&)>& visit);

struct LinkableConstantRow {
  int64_t hlo_module_id = 0;
  int64_t ordinal = 0;
  std::string_view name, shape_text;
  std::string_view value_prefix;  // the value text's first `value_chars` characters
  bool elided = false;
  std::string_view user_op, op_name, source_file;
  std::optional<int64_t> source_line;
  int64_t value_sid = 0;  // equal ids: equal whole values
};

// The constants of the linkable modules, by (hlo_module_id, ordinal), each value cut to its
// first `value_chars` characters so that large literal arrays are not read whole.
void for_each_linkable_constant(Database& db, int64_t run_id, int value_chars,
                                const std::function<void(const LinkableConstantRow&)>& visit);

}  // namespace rcf::store
