// Small string helpers shared by the parsers (and the guard-reason classifier). All views point
// into the argument.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace rcf::ingest {

// Whitespace here is ' ', '\t', '\r' and '\n' (a CRLF line, a payload's last newline).
std::string_view ltrim(std::string_view s);  // drops leading whitespace
std::string_view rtrim(std::string_view s);  // drops trailing whitespace
std::string_view trim(std::string_view s);   // drops both
bool is_blank(std::string_view s);

// Whether `part` occurs in `s` (string_view::find: fast when the needle's first byte is rare).
bool contains(std::string_view s, std::string_view part);
// The first `part` in `text` at or after `from`, npos if none: memmem (glibc: a vectorised
// two-way search), for a sniffer's 64 KiB head and a marker whose first byte is common (a blank,
// `t`, `[`), where string_view::find stops at every occurrence of that byte. Each sniffer reads
// every file of an HLO dump.
size_t find_in_head(std::string_view text, std::string_view part, size_t from = 0);

// '0'..'9', with no locale. Inline: the line framers and the JSON skimmer call it per byte.
constexpr bool is_digit(char c) {
  return static_cast<unsigned char>(c - '0') < 10;
}
// A non-empty string of '0'..'9' only.
constexpr bool all_digits(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s)
    if (!is_digit(c)) return false;
  return true;
}

// A whole string of decimal digits (optionally '-'); nullopt otherwise or on overflow.
std::optional<int64_t> parse_int64(std::string_view s);
std::optional<double> parse_double(std::string_view s);

// `<file>:<line>` split at the last ':' (Windows drive letters and `<ipython-input-6-x>` keep
// their own colons). False when no digits follow the last ':'.
bool split_file_line(std::string_view location, std::string_view* file, int64_t* line);

}  // namespace rcf::ingest
