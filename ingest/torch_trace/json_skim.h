// A validating JSON skimmer: walks JSON text without building a DOM, so that the TORCH_TRACE
// importer can pull a few fields out of large records (chromium events whose args copy the whole
// compilation metrics, cache artifacts listing every cache-key component, compilation_metrics
// with two embedded config dumps) at close to memory speed.
//
// Grammar: RFC 8259, except that bytes inside strings are not checked to be valid UTF-8.
// All views returned point into the text given; nothing is copied unless decoded.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "util/json_depth.h"

namespace rcf::ingest::json_skim {

inline constexpr size_t kInvalid = std::string_view::npos;
// Deeper nesting is rejected (bounded recursion): the limit of every JSON rcf reads.
inline constexpr int kMaxDepth = util::kMaxJsonDepth;

// Offset of the first non-whitespace byte at or after `pos` (text.size() if none). Inline: the
// walks call it around every token, and most tokens have no whitespace before them.
inline size_t skip_whitespace(std::string_view text, size_t pos) {
  while (pos < text.size() &&
         (text[pos] == ' ' || text[pos] == '\n' || text[pos] == '\t' || text[pos] == '\r'))
    ++pos;
  return pos;
}
// `text[pos]` must be '"'. Offset just past the closing quote, or kInvalid.
size_t skip_string(std::string_view text, size_t pos);
// Offset just past the JSON value that starts at `pos` (leading whitespace allowed), or kInvalid.
size_t skip_value(std::string_view text, size_t pos, int depth = 0);
// True when `text` is exactly one JSON value with optional surrounding whitespace.
bool is_valid(std::string_view text);

// Walks the members of the object that starts at `pos` (leading whitespace allowed), `depth`
// objects deep, and returns the offset just past it, or kInvalid. For each member it calls
// fn(key, value_pos), which must return the offset just past the value that starts at value_pos
// (skip_value(text, value_pos, depth + 1), or its own walk of it) or kInvalid: a reader can so
// descend into one member's value without skimming it twice. `key` is the raw text between the
// quotes (escapes not decoded).
template <typename Fn>
size_t walk_object(std::string_view text, size_t pos, int depth, Fn&& fn) {
  pos = skip_whitespace(text, pos);
  if (pos >= text.size() || text[pos] != '{' || depth >= kMaxDepth) return kInvalid;
  pos = skip_whitespace(text, pos + 1);
  if (pos < text.size() && text[pos] == '}') return pos + 1;
  while (true) {
    if (pos >= text.size() || text[pos] != '"') return kInvalid;
    size_t key_end = skip_string(text, pos);
    if (key_end == kInvalid) return kInvalid;
    std::string_view key = text.substr(pos + 1, key_end - pos - 2);
    pos = skip_whitespace(text, key_end);
    if (pos >= text.size() || text[pos] != ':') return kInvalid;
    size_t value_end = fn(key, skip_whitespace(text, pos + 1));
    if (value_end == kInvalid) return kInvalid;
    pos = skip_whitespace(text, value_end);
    if (pos >= text.size()) return kInvalid;
    if (text[pos] == '}') return pos + 1;
    if (text[pos] != ',') return kInvalid;
    pos = skip_whitespace(text, pos + 1);
  }
}

// Calls fn(key, value) for each member of the object that is `text` (surrounding whitespace
// allowed). `key` is the raw text between the quotes (escapes not decoded); `value` the raw text
// of the value. Returns false (after visiting the members before the error) unless `text` is
// exactly one valid object. `fn` returns void.
template <typename Fn>
bool for_each_member(std::string_view text, Fn&& fn) {
  size_t end = walk_object(text, 0, 0, [&](std::string_view key, size_t value_pos) {
    size_t value_end = skip_value(text, value_pos, 1);
    if (value_end != kInvalid) fn(key, text.substr(value_pos, value_end - value_pos));
    return value_end;
  });
  return end != kInvalid && skip_whitespace(text, end) == text.size();
}

// Calls fn(value) for each element of the array that is `text`; same contract as for_each_member.
template <typename Fn>
bool for_each_element(std::string_view text, Fn&& fn) {
  size_t pos = skip_whitespace(text, 0);
  if (pos >= text.size() || text[pos] != '[') return false;
  pos = skip_whitespace(text, pos + 1);
  if (pos < text.size() && text[pos] == ']') return skip_whitespace(text, pos + 1) == text.size();
  while (true) {
    size_t value_end = skip_value(text, pos, 1);
    if (value_end == kInvalid) return false;
    fn(text.substr(pos, value_end - pos));
    pos = skip_whitespace(text, value_end);
    if (pos >= text.size()) return false;
    if (text[pos] == ']') return skip_whitespace(text, pos + 1) == text.size();
    if (text[pos] != ',') return false;
    pos = skip_whitespace(text, pos + 1);
  }
}

// Conversions of a raw (already validated) value; nullopt when it is not of that type.
std::optional<std::string> to_string(std::string_view raw);  // decodes escapes to UTF-8
std::optional<int64_t> to_int(std::string_view raw);         // integral numbers; floats are rounded
std::optional<double> to_double(std::string_view raw);
std::optional<bool> to_bool(std::string_view raw);
inline bool is_null(std::string_view raw) {
  return raw == "null";
}

}  // namespace rcf::ingest::json_skim
