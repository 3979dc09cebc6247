#include "analysis/program_loader.h"

#include <cctype>
#include <charconv>
#include <nlohmann/json.hpp>
#include <set>

#include "store/hlo_module_queries.h"
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

void load_modules(store::Database& db, int64_t run_id, std::map<int64_t, ProgramView>& programs) {
  store::for_each_linkable_module(db, run_id, [&](const store::LinkableModuleRow& m) {
    ProgramView& p = programs[m.hlo_module_id];
    p.has_hlo = true;
    p.structure_fingerprint = m.structure_fingerprint;
    p.full_fingerprint = m.full_fingerprint;
    p.skeleton_fingerprint = m.skeleton_fingerprint;
    p.hlo_module_id = m.hlo_module_id;
    auto hist = util::parse_json_bounded(m.op_histogram_json);
    if (hist.is_object())
      for (const auto& [op, n] : hist.items())
        if (n.is_number_integer()) p.op_histogram[op] = n.get<int64_t>();
  });
}

void load_parameters(store::Database& db, int64_t run_id,
                     std::map<int64_t, ProgramView>& programs) {
  store::for_each_linkable_parameter(db, run_id, [&](const store::LinkableParameterRow& row) {
    auto it = programs.find(row.hlo_module_id);
    if (it == programs.end()) return;
    ProgramParameter q;
    q.number = row.number;
    q.dtype = row.dtype;
    q.dims = parse_dims(row.dims_json);
    q.shape_text = row.shape_text;
    it->second.parameters.push_back(std::move(q));
  });
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
  auto visit = [&](const store::LinkableConstantRow& row) {
    if (!need_constants.count(row.hlo_module_id)) return;
    auto it = programs.find(row.hlo_module_id);
    if (it == programs.end()) return;
    ProgramConstant k;
    k.ordinal = row.ordinal;
    k.name = row.name;
    k.shape_text = row.shape_text;
    k.value_text = row.value_prefix;
    k.elided = row.elided;
    k.user_op = row.user_op;
    k.op_name = row.op_name;
    k.source_file = row.source_file;
    k.source_line = row.source_line.value_or(-1);
    k.value_id = row.value_sid;
    it->second.constants.push_back(std::move(k));
  };
  store::for_each_linkable_constant(db, run_id, kLoadedValueChars, visit);
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
