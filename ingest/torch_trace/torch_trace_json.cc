// JSON helpers for TORCH_TRACE records. Format: docs/torch_trace.md.
#include "ingest/torch_trace/torch_trace_json.h"

#include <cmath>
#include <limits>

#include "ingest/torch_trace/json_skim.h"
#include "util/json_depth.h"

namespace rcf::ingest::torch_trace {

json parse_json(std::string_view text) {
  return util::parse_json_bounded(text);
}

const json* member(const json& object, std::string_view key) {
  if (!object.is_object()) return nullptr;
  auto it = object.find(key);
  return it == object.end() ? nullptr : &*it;
}

std::optional<int64_t> as_int(const json* value) {
  if (!value) return std::nullopt;
  if (value->is_number_unsigned()) {
    uint64_t u = value->get<uint64_t>();
    if (u > uint64_t(std::numeric_limits<int64_t>::max())) return std::nullopt;
    return int64_t(u);
  }
  if (value->is_number_integer()) return value->get<int64_t>();
  if (value->is_number_float()) {
    double d = value->get<double>();
    if (!std::isfinite(d) || std::fabs(d) > 9.0e18) return std::nullopt;
    return int64_t(std::llround(d));
  }
  return std::nullopt;
}

std::optional<int64_t> int_member(const json& object, std::string_view key) {
  return as_int(member(object, key));
}

std::optional<bool> bool_member(const json& object, std::string_view key) {
  const json* value = member(object, key);
  if (!value || !value->is_boolean()) return std::nullopt;
  return value->get<bool>();
}

std::string string_member(const json& object, std::string_view key) {
  const json* value = member(object, key);
  if (!value || !value->is_string()) return {};
  return value->get<std::string>();
}

// Skimmed raw value -> string ("" unless a JSON string).
std::string skim_string(std::string_view raw) {
  return raw.empty() || raw.front() != '"' ? std::string() : json_skim::to_string(raw).value_or("");
}

std::optional<int32_t> skim_small_int(std::string_view raw) {
  std::optional<int64_t> v = json_skim::to_int(raw);
  if (!v || *v < 0 || *v > std::numeric_limits<int32_t>::max()) return std::nullopt;
  return int32_t(*v);
}

}  // namespace rcf::ingest::torch_trace
