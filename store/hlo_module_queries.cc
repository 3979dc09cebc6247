#include "store/hlo_module_queries.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "util/json_depth.h"

namespace rcf::store {
namespace {

std::string join_ids(const std::set<int64_t>& ids) {
  std::string out;
  for (int64_t id : ids) out += (out.empty() ? "" : ",") + std::to_string(id);
  return out;
}

// The run's HLO modules that can be linked to its compiles (?1 is the run).
constexpr const char* kLinkableModules =
    "run_id = ?1 AND (graph_hash IS NOT NULL OR stage IS NULL OR stage = 'before_optimizations')";

}  // namespace

std::map<int64_t, HloModuleContents> hlo_module_contents(Database& db,
                                                         const std::set<int64_t>& ids) {
  std::map<int64_t, HloModuleContents> modules;
  if (ids.empty()) return modules;
  const std::string list = join_ids(ids);
  auto m = db.prepare(
      "SELECT hlo_module_id, op_histogram FROM hlo_module WHERE hlo_module_id IN (" + list + ")");
  while (m.step()) {
    HloModuleContents& d = modules[m.int64(0)];
    auto hist = util::parse_json_bounded(m.text(1));
    if (hist.is_object())
      for (const auto& [op, n] : hist.items())
        if (n.is_number_integer()) d.ops[op] = n.get<int64_t>();
  }
  auto p = db.prepare(
      "SELECT hlo_module_id, number, shape_text, dtype, dims FROM hlo_parameter "
      "WHERE hlo_module_id IN (" +
      list + ") ORDER BY hlo_module_id, number");
  while (p.step()) {
    HloModuleContents& d = modules[p.int64(0)];
    d.param_numbers.push_back(p.int64(1));
    d.param_shapes.push_back(p.str(2));
    d.param_keys.push_back(p.str(3) + p.str(4));
  }
  auto c = db.prepare(
      "SELECT c.hlo_module_id, c.ordinal, c.name, c.shape_text, v.text, c.user_op, o.text, "
      "f.text, c.source_line FROM hlo_constant c JOIN strings v ON v.string_id = c.value_sid "
      "LEFT JOIN strings o ON o.string_id = c.op_name_sid "
      "LEFT JOIN strings f ON f.string_id = c.source_file_sid "
      "WHERE c.hlo_module_id IN (" +
      list + ") ORDER BY c.hlo_module_id, c.ordinal");
  while (c.step()) {
    HloConstantRow k;
    k.ordinal = c.int64(1);
    k.name = c.str(2);
    k.shape = c.str(3);
    k.value = c.str(4);
    k.user_op = c.str(5);
    k.op_name = c.str(6);
    k.source_file = c.opt_str(7);
    k.source_line = c.opt_int64(8);
    modules[c.int64(0)].constants.push_back(std::move(k));
  }
  return modules;
}

std::map<std::string, std::vector<std::pair<int64_t, int64_t>>, std::less<>>
hlo_modules_of_programs(Database& db, int64_t run_id,
                        const std::set<std::string, std::less<>>& program_keys) {
  std::map<std::string, std::vector<std::pair<int64_t, int64_t>>, std::less<>> out;
  if (program_keys.empty()) return out;
  auto st = db.prepare(
      "SELECT ordinal, program_key, hlo_module_id FROM compile_artifacts "
      "WHERE run_id = ? AND hlo_module_id IS NOT NULL ORDER BY ordinal");
  st.bind(1, run_id);
  while (st.step())
    if (program_keys.count(st.text(1))) out[st.str(1)].emplace_back(st.int64(0), st.int64(2));
  return out;
}

void for_each_linkable_module(Database& db, int64_t run_id,
                              const std::function<void(const LinkableModuleRow&)>& visit) {
  auto modules = db.prepare(
      std::string("SELECT hlo_module_id, structure_fingerprint, full_fingerprint, op_histogram, "
                  "skeleton_fingerprint FROM hlo_module WHERE ") +
      kLinkableModules);
  modules.bind(1, run_id);
  while (modules.step())
    visit({modules.int64(0), modules.text(1), modules.text(2), modules.text(4), modules.text(3)});
}

void for_each_linkable_parameter(Database& db, int64_t run_id,
                                 const std::function<void(const LinkableParameterRow&)>& visit) {
  auto params = db.prepare(
      std::string("SELECT p.hlo_module_id, p.number, p.dtype, p.dims, p.shape_text FROM "
                  "hlo_parameter p WHERE p.hlo_module_id IN (SELECT hlo_module_id FROM hlo_module "
                  "WHERE ") +
      kLinkableModules + ") ORDER BY p.hlo_module_id, p.number");
  params.bind(1, run_id);
  while (params.step())
    visit({params.int64(0), params.int64(1), params.text(2), params.text(3), params.text(4)});
}

void for_each_linkable_constant(Database& db, int64_t run_id, int value_chars,
                                const std::function<void(const LinkableConstantRow&)>& visit) {
  auto constants = db.prepare(fmt::format(
      "SELECT c.hlo_module_id, c.ordinal, c.name, c.shape_text, substr(v.text, 1, {}), c.elided, "
      "c.user_op, o.text, f.text, c.source_line, c.value_sid FROM hlo_constant c "
      "JOIN strings v ON v.string_id = c.value_sid "
      "LEFT JOIN strings o ON o.string_id = c.op_name_sid "
      "LEFT JOIN strings f ON f.string_id = c.source_file_sid "
      "WHERE c.hlo_module_id IN (SELECT hlo_module_id FROM hlo_module WHERE {}) "
      "ORDER BY c.hlo_module_id, c.ordinal",
      value_chars, kLinkableModules));
  constants.bind(1, run_id);
  LinkableConstantRow k;
  while (constants.step()) {
    k.hlo_module_id = constants.int64(0);
    k.ordinal = constants.int64(1);
    k.name = constants.text(2);
    k.shape_text = constants.text(3);
    k.value_prefix = constants.text(4);
    k.elided = constants.int64(5) != 0;
    k.user_op = constants.text(6);
    k.op_name = constants.text(7);
    k.source_file = constants.text(8);
    k.source_line = constants.opt_int64(9);
    k.value_sid = constants.int64(10);
    visit(k);
  }
}

}  // namespace rcf::store
