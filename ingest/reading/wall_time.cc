#include "ingest/reading/wall_time.h"

#include <cmath>

#include "ingest/reading/text_util.h"

namespace rcf::ingest {
namespace {

bool take_digits(std::string_view s, size_t* at, size_t n, int64_t* out) {
  if (*at + n > s.size()) return false;
  int64_t v = 0;
  for (size_t i = *at; i < *at + n; ++i) {
    if (!is_digit(s[i])) return false;
    v = v * 10 + (s[i] - '0');
  }
  *out = v;
  *at += n;
  return true;
}

bool take_char(std::string_view s, size_t* at, char c) {
  if (*at >= s.size() || s[*at] != c) return false;
  ++*at;
  return true;
}

// `HH:MM[:SS[(.|,)frac]]` at `*at`: seconds since midnight.
std::optional<double> read_clock(std::string_view s, size_t* at) {
  int64_t h = 0, mi = 0, sec = 0;
  if (!take_digits(s, at, 2, &h) || !take_char(s, at, ':') || !take_digits(s, at, 2, &mi))
    return std::nullopt;
  double frac = 0;
  if (take_char(s, at, ':')) {
    if (!take_digits(s, at, 2, &sec)) return std::nullopt;
    if (*at + 1 < s.size() && (s[*at] == '.' || s[*at] == ',') && is_digit(s[*at + 1])) {
      ++*at;
      for (double scale = 0.1; *at < s.size() && is_digit(s[*at]); ++*at, scale /= 10)
        frac += (s[*at] - '0') * scale;
    }
  }
  if (h > 23 || mi > 59 || sec > 60) return std::nullopt;
  return static_cast<double>(h * 3600 + mi * 60 + sec) + frac;
}

// `Z`, `±HH[:]MM` or `±HH` at `*at`: the offset east of UTC in seconds; nullopt when absent.
std::optional<int64_t> read_zone(std::string_view s, size_t* at) {
  if (take_char(s, at, 'Z') || take_char(s, at, 'z')) return 0;
  if (*at >= s.size() || (s[*at] != '+' && s[*at] != '-')) return std::nullopt;
  size_t p = *at + 1;
  int64_t sign = s[*at] == '-' ? -1 : 1, oh = 0, om = 0;
  if (!take_digits(s, &p, 2, &oh)) return std::nullopt;
  size_t colon = p;
  take_char(s, &colon, ':');
  if (take_digits(s, &colon, 2, &om)) p = colon;
  *at = p;
  return sign * (oh * 3600 + om * 60);
}

}  // namespace

int64_t days_from_civil(int64_t y, int64_t m, int64_t d) {
  y -= m <= 2;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const int64_t yoe = y - era * 400;
  const int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;
}

std::optional<WallTime> read_iso8601_prefix(std::string_view s) {
  size_t at = 0;
  int64_t y = 0, mo = 0, d = 0;
  if (!take_digits(s, &at, 4, &y) || !take_char(s, &at, '-') || !take_digits(s, &at, 2, &mo) ||
      !take_char(s, &at, '-') || !take_digits(s, &at, 2, &d))
    return std::nullopt;
  if (mo < 1 || mo > 12 || d < 1 || d > 31) return std::nullopt;
  double clock = 0;
  if (at + 1 < s.size() && (s[at] == 'T' || s[at] == 't' || s[at] == ' ') && is_digit(s[at + 1])) {
    size_t p = at + 1;
    auto c = read_clock(s, &p);
    if (!c) return std::nullopt;
    clock = *c;
    at = p;
  }
  WallTime t;
  auto zone = read_zone(s, &at);
  t.zoned = zone.has_value();
  t.epoch_s = static_cast<double>(days_from_civil(y, mo, d) * 86400) + clock - zone.value_or(0);
  t.length = at;
  return t;
}

std::optional<WallTime> parse_iso8601(std::string_view s) {
  auto t = read_iso8601_prefix(s);
  if (!t || t->length != s.size()) return std::nullopt;
  return t;
}

std::optional<WallTime> leading_wall_time(std::string_view line) {
  size_t at = 0;
  while (at < line.size() && line[at] == ' ') ++at;
  if (at < line.size() && line[at] == '[') ++at;
  auto t = read_iso8601_prefix(line.substr(at));
  if (!t) return std::nullopt;
  size_t end = at + t->length;
  if (end < line.size() && line[end] != ' ' && line[end] != ']' && line[end] != '|' &&
      line[end] != '-' && line[end] != ':' && line[end] != '\t')
    return std::nullopt;
  t->length = end;
  return t;
}

std::optional<GlogClock> read_glog_clock(std::string_view line) {
  if (line.size() < 14) return std::nullopt;
  char level = line[0];
  if (level != 'I' && level != 'W' && level != 'E' && level != 'F' && level != 'V')
    return std::nullopt;
  size_t at = 1;
  int64_t mo = 0, d = 0;
  if (!take_digits(line, &at, 2, &mo) || !take_digits(line, &at, 2, &d) ||
      !take_char(line, &at, ' '))
    return std::nullopt;
  if (mo < 1 || mo > 12 || d < 1 || d > 31) return std::nullopt;
  auto clock = read_clock(line, &at);
  if (!clock) return std::nullopt;
  return GlogClock{static_cast<int>(mo), static_cast<int>(d), *clock};
}

double GlogClock::in_year(int64_t year) const {
  return static_cast<double>(days_from_civil(year, month, day) * 86400) + seconds;
}

std::optional<int64_t> clock_offset_s(const GlogClock& local, double epoch_s) {
  // The local date may be in the year before or after the UTC one (around New Year).
  const int64_t year = utc_year(epoch_s);
  for (int64_t y : {year, year - 1, year + 1}) {
    double diff = local.in_year(y) - epoch_s;
    if (std::fabs(diff) > 15 * 3600) continue;  // zones span UTC-12..UTC+14
    double quarters = std::round(diff / 900);
    if (std::fabs(diff - quarters * 900) <= 120) return static_cast<int64_t>(quarters) * 900;
  }
  return std::nullopt;
}

int64_t utc_year(double epoch_s) {
  // civil_from_days (Howard Hinnant), year only.
  int64_t z = static_cast<int64_t>(std::floor(epoch_s / 86400)) + 719468;
  const int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  const int64_t doe = z - era * 146097;
  const int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const int64_t mp = (5 * doy + 2) / 153;
  const int64_t m = mp < 10 ? mp + 3 : mp - 9;
  return yoe + era * 400 + (m <= 2);
}

}  // namespace rcf::ingest
