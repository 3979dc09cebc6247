// Small string helpers shared by the parsers (and the guard-reason classifier). All views point
// into the argument.
#pragma once

#include <charconv>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#if defined(__SSE2__)
#include <immintrin.h>
#endif

namespace rcf::ingest {

inline constexpr size_t kNpos = std::string_view::npos;

// Whitespace here is ' ', '\t', '\r' and '\n' (a CRLF line, a payload's last newline).
std::string_view ltrim(std::string_view s);  // drops leading whitespace
std::string_view rtrim(std::string_view s);  // drops trailing whitespace
std::string_view trim(std::string_view s);   // drops both
bool is_blank(std::string_view s);

// Whether `line` holds a '\r' or an ESC (0x1b), the bytes after which glue may hide, in one pass:
// two memchr calls per line were most of the framer's cost on the short payload lines of a
// TORCH_TRACE log (docs/performance.md). A reading thread also asks it of whole blocks
// (LineReader::line_is_plain). Inline: the framer's fast path runs it on every line.
inline bool has_cr_or_escape(std::string_view line) {
  const char* p = line.data();
  size_t n = line.size();
#if defined(__SSE2__)
  const __m128i cr = _mm_set1_epi8('\r');
  const __m128i esc = _mm_set1_epi8('\x1b');
  for (; n >= 16; p += 16, n -= 16) {
    __m128i chunk = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
    if (_mm_movemask_epi8(_mm_or_si128(_mm_cmpeq_epi8(chunk, cr), _mm_cmpeq_epi8(chunk, esc))))
      return true;
  }
#endif
  for (; n > 0; ++p, --n)
    if (*p == '\r' || *p == '\x1b') return true;
  return false;
}

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
constexpr bool is_alpha(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}
constexpr bool is_upper(char c) {
  return c >= 'A' && c <= 'Z';
}
// A letter, a digit or '_' (a C or Python identifier's characters).
constexpr bool is_identifier_char(char c) {
  return is_digit(c) || is_alpha(c) || c == '_';
}
// `count` digits at `pos`, all inside `s` (a fixed-width field of a timestamp or a glog prefix).
constexpr bool digits_at(std::string_view s, size_t pos, size_t count) {
  if (pos > s.size() || count > s.size() - pos) return false;
  for (size_t i = pos; i < pos + count; ++i)
    if (!is_digit(s[i])) return false;
  return true;
}
// The value of a run of digits the caller has checked (short: no overflow check).
constexpr int64_t digits_value(std::string_view digits) {
  int64_t v = 0;
  for (char c : digits) v = v * 10 + (c - '0');
  return v;
}
// Appends `v` in decimal (to_chars: no locale, no allocation beyond `out`'s growth).
inline void append_int(std::string& out, int64_t v) {
  char buf[24];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
  out.append(buf, end);
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
