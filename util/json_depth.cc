#include "util/json_depth.h"

#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>

namespace rcf::util {
namespace {

// Offset just past the string whose opening quote is at `pos`, or text.size() if unterminated.
size_t skip_string(std::string_view text, size_t pos) {
  for (size_t i = pos + 1; i < text.size(); ++i) {
    if (text[i] == '\\')
      ++i;
    else if (text[i] == '"')
      return i + 1;
  }
  return text.size();
}

}  // namespace

size_t json_too_deep_at(std::string_view text, int max_depth) {
  int depth = 0;
  size_t pos = 0;
  while (pos < text.size()) {
    char c = text[pos];
    if (c == '"') {
      pos = skip_string(text, pos);
      continue;
    }
    if (c == '[' || c == '{') {
      if (++depth > max_depth) return pos;
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
    ++pos;
  }
  return std::string_view::npos;
}

std::string text_position(std::string_view text, size_t offset) {
  offset = std::min(offset, text.size());
  std::string_view before = text.substr(0, offset);
  size_t line = 1 + static_cast<size_t>(std::count(before.begin(), before.end(), '\n'));
  size_t line_start = before.rfind('\n');
  size_t column = offset - (line_start == std::string_view::npos ? 0 : line_start + 1) + 1;
  return fmt::format("line {}, column {}", line, column);
}

std::string json_depth_problem(std::string_view text) {
  size_t at = json_too_deep_at(text);
  if (at == std::string_view::npos) return "";
  return fmt::format("nested deeper than {} levels ({})", kMaxJsonDepth, text_position(text, at));
}

nlohmann::json parse_json_bounded(std::string_view text) {
  if (json_too_deep_at(text) != std::string_view::npos)
    return nlohmann::json(nlohmann::json::value_t::discarded);
  return nlohmann::json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
}

}  // namespace rcf::util
