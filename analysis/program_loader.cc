#include "analysis/program_loader.h"

#include <fmt/format.h>

#include <cctype>
#include <charconv>
#include <nlohmann/json.hpp>
#include <set>

#include "util/json_depth.h"

namespace rcf::analysis {
namespace {

// The ingest writes dims as a JSON array of integers (`[8,2048]`, `[]`). Read by hand: a JSON
// parser per parameter was a tenth of the analysis of a large XLA run. Elements that are not
// integers are skipped, as before; text that is not an array gives no dims.
std::vector<int64_t> parse_dims(std::string_view json_text) {
  std::vector<int64_t> dims;
  auto is_space = [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; };
  while (!json_text.empty() && is_space(json_text.front())) json_text.remove_prefix(1);
  while (!json_text.empty() && is_space(json_text.back())) json_text.remove_suffix(1);
  if (json_text.size() < 2 || json_text.front() != '[' || json_text.back() != ']') return dims;
  std::string_view rest = json_text.substr(1, json_text.size() - 2);
  while (!rest.empty()) {
    size_t comma = rest.find(',');
    std::string_view item = rest.substr(0, comma);
    rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
    while (!item.empty() && is_space(item.front())) item.remove_prefix(1);
    while (!item.empty() && is_space(item.back())) item.remove_suffix(1);
    int64_t value = 0;
    auto [end, ec] = std::from_chars(item.data(), item.data() + item.size(), value);
    if (ec == std::errc() && end == item.data() + item.size() && !item.empty())
      dims.push_back(value);
  }
  return dims;
}

// JAX/numpy dtype names -> HLO element types, so that one vocabulary shows in details.
std::string hlo_dtype(std::string_view numpy) {
  static const std::map<std::string_view, std::string_view> kNames = {
      {"float64", "f64"}, {"float32", "f32"},   {"float16", "f16"},    {"bfloat16", "bf16"},
      {"int64", "s64"},   {"int32", "s32"},     {"int16", "s16"},      {"int8", "s8"},
      {"uint64", "u64"},  {"uint32", "u32"},    {"uint16", "u16"},     {"uint8", "u8"},
      {"bool", "pred"},   {"complex64", "c64"}, {"complex128", "c128"}};
  auto it = kNames.find(numpy);
  return std::string(it == kNames.end() ? numpy : it->second);
}

}  // namespace

// Values are compared by their interned string id; only a prefix of the text is loaded for the
// detail (which shows 40 characters), so that programs with large literal arrays stay small.
constexpr int kLoadedValueChars = 256;

namespace {

// The run's HLO modules that can be linked to its compiles.
constexpr const char* kLinkable =
    "run_id = ?1 AND (graph_hash IS NOT NULL OR stage IS NULL OR stage = 'before_optimizations')";

void load_modules(store::Database& db, int64_t run_id, std::map<int64_t, ProgramView>& programs) {
  auto modules = db.prepare(
      std::string("SELECT hlo_module_id, structure_fingerprint, full_fingerprint, op_histogram, "
                  "skeleton_fingerprint FROM hlo_module WHERE ") +
      kLinkable);
  modules.bind(1, run_id);
  while (modules.step()) {
    ProgramView& p = programs[modules.int64(0)];
    p.has_hlo = true;
    p.structure_fingerprint = modules.str(1);
    p.full_fingerprint = modules.str(2);
    p.skeleton_fingerprint = modules.str(4);
    p.hlo_module_id = modules.int64(0);
    auto hist = util::parse_json_bounded(modules.text(3));
    if (hist.is_object())
      for (const auto& [op, n] : hist.items())
        if (n.is_number_integer()) p.op_histogram[op] = n.get<int64_t>();
  }
}

void load_parameters(store::Database& db, int64_t run_id,
                     std::map<int64_t, ProgramView>& programs) {
  auto params = db.prepare(
      std::string("SELECT p.hlo_module_id, p.number, p.dtype, p.dims, p.shape_text FROM "
                  "hlo_parameter p WHERE p.hlo_module_id IN (SELECT hlo_module_id FROM hlo_module "
                  "WHERE ") +
      kLinkable + ") ORDER BY p.hlo_module_id, p.number");
  params.bind(1, run_id);
  while (params.step()) {
    auto it = programs.find(params.int64(0));
    if (it == programs.end()) continue;
    ProgramParameter q;
    q.number = params.int64(1);
    q.dtype = params.str(2);
    q.dims = parse_dims(params.text(3));
    q.shape_text = params.str(4);
    it->second.parameters.push_back(std::move(q));
  }
}

// Constants only decide between two programs of the same structure whose full fingerprints
// differ or are unknown (analysis/program_diff.cc). Only such programs get theirs: a dump of
// thousands of distinct modules then holds no constants, and memory follows the programs that
// can need them, not the HLO bytes.
std::set<int64_t> programs_needing_constants(const std::map<int64_t, ProgramView>& programs) {
  std::map<std::string, std::set<std::string>> full_by_structure;
  auto structure_key = [](const ProgramView& p) {
    if (!p.structure_fingerprint.empty()) return "s:" + p.structure_fingerprint;
    std::string key = "h:";
    for (const auto& [op, n] : p.op_histogram) key += op + "=" + std::to_string(n) + ",";
    return key;
  };
  for (const auto& [id, p] : programs)
    full_by_structure[structure_key(p)].insert(p.full_fingerprint);
  std::set<int64_t> need_constants;
  for (const auto& [id, p] : programs) {
    const auto& fulls = full_by_structure[structure_key(p)];
    if (fulls.size() > 1 || fulls.count(std::string())) need_constants.insert(id);
  }
  return need_constants;
}

void load_constants(store::Database& db, int64_t run_id, const std::set<int64_t>& need_constants,
                    std::map<int64_t, ProgramView>& programs) {
  auto constants = db.prepare(fmt::format(
      "SELECT c.hlo_module_id, c.ordinal, c.name, c.shape_text, substr(v.text, 1, {}), c.elided, "
      "c.user_op, o.text, f.text, c.source_line, c.value_sid FROM hlo_constant c "
      "JOIN strings v ON v.string_id = c.value_sid "
      "LEFT JOIN strings o ON o.string_id = c.op_name_sid "
      "LEFT JOIN strings f ON f.string_id = c.source_file_sid "
      "WHERE c.hlo_module_id IN (SELECT hlo_module_id FROM hlo_module WHERE {}) "
      "ORDER BY c.hlo_module_id, c.ordinal",
      kLoadedValueChars, kLinkable));
  constants.bind(1, run_id);
  while (constants.step()) {
    if (!need_constants.count(constants.int64(0))) continue;
    auto it = programs.find(constants.int64(0));
    if (it == programs.end()) continue;
    ProgramConstant k;
    k.ordinal = constants.int64(1);
    k.name = constants.str(2);
    k.shape_text = constants.str(3);
    k.value_text = constants.str(4);
    k.elided = constants.int64(5) != 0;
    k.user_op = constants.str(6);
    k.op_name = constants.str(7);
    k.source_file = constants.str(8);
    k.source_line = constants.opt_int64(9).value_or(-1);
    k.value_id = constants.int64(10);
    it->second.constants.push_back(std::move(k));
  }
}

}  // namespace

std::map<int64_t, ProgramView> load_hlo_programs(store::Database& db, int64_t run_id) {
  std::map<int64_t, ProgramView> programs;
  load_modules(db, run_id, programs);
  if (programs.empty()) return programs;
  load_parameters(db, run_id, programs);
  std::set<int64_t> need_constants = programs_needing_constants(programs);
  if (!need_constants.empty()) load_constants(db, run_id, need_constants, programs);
  return programs;
}

bool parse_jax_signature(std::string_view s, std::vector<ProgramParameter>& out) {
  out.clear();
  constexpr std::string_view kShaped = "ShapedArray(";
  size_t pos = 0;
  while ((pos = s.find(kShaped, pos)) != std::string_view::npos) {
    pos += kShaped.size();
    size_t open = s.find('[', pos);
    size_t close = open == std::string_view::npos ? open : s.find(']', open);
    if (close == std::string_view::npos) break;
    ProgramParameter p;
    p.number = static_cast<int64_t>(out.size());
    p.dtype = hlo_dtype(s.substr(pos, open - pos));
    std::string_view dims = s.substr(open + 1, close - open - 1);
    int64_t value = 0;
    bool in_number = false;
    for (char c : dims) {
      if (std::isdigit(static_cast<unsigned char>(c))) {
        value = value * 10 + (c - '0');
        in_number = true;
      } else if (c == ',') {
        if (in_number) p.dims.push_back(value);
        value = 0;
        in_number = false;
      }
    }
    if (in_number) p.dims.push_back(value);
    p.shape_text = p.dtype + "[" + std::string(dims) + "]";
    out.push_back(std::move(p));
    pos = close;
  }
  return !out.empty();
}

}  // namespace rcf::analysis
