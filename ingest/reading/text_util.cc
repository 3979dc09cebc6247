#include "ingest/reading/text_util.h"

#include <string.h>

#include <charconv>

namespace rcf::ingest {
namespace {
bool is_trim_char(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}
}  // namespace

std::string_view ltrim(std::string_view s) {
  size_t i = 0;
  while (i < s.size() && is_trim_char(s[i])) ++i;
  return s.substr(i);
}

std::string_view rtrim(std::string_view s) {
  size_t n = s.size();
  while (n > 0 && is_trim_char(s[n - 1])) --n;
  return s.substr(0, n);
}

std::string_view trim(std::string_view s) {
  return ltrim(rtrim(s));
}

bool is_blank(std::string_view s) {
  return ltrim(s).empty();
}

bool contains(std::string_view s, std::string_view part) {
  return s.find(part) != std::string_view::npos;
}

size_t find_in_head(std::string_view text, std::string_view part, size_t from) {
  if (from > text.size()) return std::string_view::npos;
  const void* at = memmem(text.data() + from, text.size() - from, part.data(), part.size());
  return at ? static_cast<size_t>(static_cast<const char*>(at) - text.data())
            : std::string_view::npos;
}

std::optional<int64_t> parse_int64(std::string_view s) {
  int64_t value = 0;
  if (s.empty()) return std::nullopt;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
  if (ec != std::errc() || end != s.data() + s.size()) return std::nullopt;
  return value;
}

std::optional<double> parse_double(std::string_view s) {
  double value = 0;
  if (s.empty()) return std::nullopt;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
  if (ec != std::errc() || end != s.data() + s.size()) return std::nullopt;
  return value;
}

bool split_file_line(std::string_view location, std::string_view* file, int64_t* line) {
  size_t colon = location.rfind(':');
  if (colon == std::string_view::npos || colon == 0) return false;
  std::string_view digits = location.substr(colon + 1);
  if (digits.empty() || digits[0] == '-') return false;
  auto value = parse_int64(digits);
  if (!value) return false;
  *file = location.substr(0, colon);
  *line = *value;
  return true;
}

}  // namespace rcf::ingest
