// The nesting limit of every JSON text rcf reads from a user: `--bundle` files, gate files,
// TORCH_TRACE envelopes and payloads, step-timing JSONL lines, and JSON read back from a store
// (which may be someone else's, e.g. a gate baseline). nlohmann's dump, copy and comparison
// recurse once per level, so a text nested tens of thousands deep overflowed the stack (exit 139);
// json_skim recurses too. The check is one pass over the bytes, before any parser sees them.
#pragma once

#include <cstddef>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>

namespace rcf::util {

// Deepest nesting of arrays and objects accepted. Real inputs nest a few levels (a bundle 1,
// TORCH_TRACE metadata and guard lists under 10).
inline constexpr int kMaxJsonDepth = 256;

// Offset of the '[' or '{' outside strings that opens nesting level max_depth + 1, or npos when
// the text nests no deeper. No recursion; the text need not be valid JSON (closers never take
// the count below zero, an unterminated string hides the rest, which a parser then rejects).
size_t json_too_deep_at(std::string_view text, int max_depth = kMaxJsonDepth);

// "line L, column C" of byte `offset` of `text` (both counted from 1; a column counts bytes).
std::string text_position(std::string_view text, size_t offset);

// Empty when `text` nests no deeper than kMaxJsonDepth, else what to tell the user:
// "nested deeper than 256 levels (line 1, column 257)".
std::string json_depth_problem(std::string_view text);

// nlohmann::json::parse without exceptions; a text nested deeper than kMaxJsonDepth is refused
// like malformed JSON (a discarded value).
nlohmann::json parse_json_bounded(std::string_view text);

}  // namespace rcf::util
