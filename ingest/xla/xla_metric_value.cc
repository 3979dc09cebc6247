#include "ingest/xla/xla_metric_value.h"

#include <array>
#include <charconv>
#include <cmath>
#include <cstdint>

#include "ingest/reading/text_util.h"

namespace rcf::ingest {
namespace {

bool is_letter(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

// Length of the `digits[.digits]` prefix of `s` (0 when it does not start with a digit).
// `*has_fraction` tells whether a '.' was taken.
size_t decimal_prefix(std::string_view s, bool* has_fraction) {
  size_t i = 0;
  while (i < s.size() && is_digit(s[i])) ++i;
  *has_fraction = false;
  if (i == 0) return 0;
  if (i + 1 < s.size() && s[i] == '.' && is_digit(s[i + 1])) {
    *has_fraction = true;
    i += 1;
    while (i < s.size() && is_digit(s[i])) ++i;
  }
  return i;
}

std::optional<double> finite_double(std::string_view s) {
  double value = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
  if (ec != std::errc() || end != s.data() + s.size() || !std::isfinite(value)) return std::nullopt;
  return value;
}

struct TimePart {
  std::string_view suffix;
  double ns;
};
// In printing order; a part may only follow parts earlier in this list.
constexpr std::array<TimePart, 6> kTimeParts = {{
    {"d", 86400e9},
    {"h", 3600e9},
    {"m", 60e9},
    {"s", 1e9},
    {"ms", 1e6},
    {"us", 1e3},
}};

}  // namespace

std::optional<double> parse_metric_time_ns(std::string_view text) {
  if (text.empty()) return std::nullopt;
  double total = 0;
  size_t next_part = 0;  // index into kTimeParts of the first part still allowed
  while (!text.empty()) {
    bool has_fraction = false;
    size_t number_len = decimal_prefix(text, &has_fraction);
    if (number_len == 0) return std::nullopt;
    std::string_view number = text.substr(0, number_len);
    text.remove_prefix(number_len);
    size_t suffix_len = 0;
    while (suffix_len < text.size() && is_letter(text[suffix_len])) ++suffix_len;
    std::string_view suffix = text.substr(0, suffix_len);
    text.remove_prefix(suffix_len);
    size_t part = next_part;
    while (part < kTimeParts.size() && kTimeParts[part].suffix != suffix) ++part;
    if (part == kTimeParts.size()) return std::nullopt;  // unknown, repeated or out of order
    if (has_fraction && kTimeParts[part].suffix != "us") return std::nullopt;
    auto value = finite_double(number);
    if (!value) return std::nullopt;
    total += *value * kTimeParts[part].ns;
    next_part = part + 1;
  }
  return total;
}

std::optional<double> parse_metric_bytes(std::string_view text) {
  static constexpr std::array<std::string_view, 6> kSuffixes = {"PB", "TB", "GB", "MB", "KB", "B"};
  for (size_t i = 0; i < kSuffixes.size(); ++i) {
    if (!text.ends_with(kSuffixes[i])) continue;
    auto value = parse_metric_plain(text.substr(0, text.size() - kSuffixes[i].size()));
    if (!value || *value < 0) return std::nullopt;
    // kSuffixes runs from PB (1024^5) down to B (1024^0).
    return *value * std::pow(1024.0, static_cast<double>(kSuffixes.size() - 1 - i));
  }
  return std::nullopt;
}

std::optional<double> parse_metric_plain(std::string_view text) {
  std::string_view digits = text;
  if (digits.starts_with('-')) digits.remove_prefix(1);
  bool has_fraction = false;
  size_t len = decimal_prefix(digits, &has_fraction);
  if (len == 0 || len != digits.size()) return std::nullopt;
  return finite_double(text);
}

std::optional<double> parse_metric_float(std::string_view text) {
  std::string_view body = text;
  if (body.starts_with('-')) body.remove_prefix(1);
  // from_chars also takes "inf"/"nan" and a leading '.', which a stream never prints.
  if (body.empty() || !is_digit(body[0])) return std::nullopt;
  return finite_double(text);
}

std::optional<MetricValue> parse_metric_value(std::string_view text) {
  if (text.empty()) return std::nullopt;
  char last = text.back();
  if (last == 'B') {
    if (auto bytes = parse_metric_bytes(text)) return MetricValue{*bytes, "bytes"};
    return std::nullopt;
  }
  if (is_letter(last)) {
    if (auto ns = parse_metric_time_ns(text)) return MetricValue{*ns, "ns"};
    return std::nullopt;
  }
  if (auto plain = parse_metric_plain(text)) return MetricValue{*plain, ""};
  return std::nullopt;
}

}  // namespace rcf::ingest
