// JSON helpers for TORCH_TRACE records (docs/torch_trace.md). Small records go through
// nlohmann::json (parsed without exceptions); big ones are walked with json_skim. Neither throws
// on bad input, both refuse nesting deeper than util::kMaxJsonDepth, and both tolerate missing
// keys and wrong types.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

namespace rcf::ingest::torch_trace {

using json = nlohmann::json;

json parse_json(std::string_view text);
const json* member(const json& object, std::string_view key);
std::optional<int64_t> as_int(const json* value);
std::optional<int64_t> int_member(const json& object, std::string_view key);
std::optional<bool> bool_member(const json& object, std::string_view key);
std::string string_member(const json& object, std::string_view key);

// Skimmed raw value -> string ("" unless a JSON string).
std::string skim_string(std::string_view raw);
// Skimmed raw value -> int in [0, INT32_MAX], else nullopt.
std::optional<int32_t> skim_small_int(std::string_view raw);

}  // namespace rcf::ingest::torch_trace
