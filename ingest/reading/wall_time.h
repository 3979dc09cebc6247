// Wall-clock times printed in logs, as epoch seconds: ISO 8601 dates (step-timing files, the
// timestamp that opens a progress line, Python logging's `asctime`) and glog prefixes
// (`V1126 20:42:46.377000`, no year). A time printed without a zone is read as UTC and says so
// (`zoned` false): whoever compares it with a true epoch time must know the writer's zone
// (docs/training_steps.md, "Timestamps").
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace rcf::ingest {

// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's days_from_civil).
int64_t days_from_civil(int64_t y, int64_t m, int64_t d);

struct WallTime {
  double epoch_s = 0;  // seconds since 1970-01-01 UTC; the printed clock itself when !zoned
  bool zoned = false;  // the text named its zone (`Z`, `+02:00`)
  size_t length = 0;   // characters the time took in the text
};

// `YYYY-MM-DD[(T| )HH:MM[:SS[(.|,)frac]]][Z|±HH[:]MM]` at the start of `s`; the rest of `s` is
// not looked at.
std::optional<WallTime> read_iso8601_prefix(std::string_view s);

// The whole of `s` as an ISO 8601 time, or nullopt.
std::optional<WallTime> parse_iso8601(std::string_view s);

// The time that opens a log line: ISO 8601 after optional spaces and an optional `[`, followed
// by the end of the line or a separator (space, `]`, `|`, `-`, `:`); nullopt when the line does
// not open with a date.
std::optional<WallTime> leading_wall_time(std::string_view line);

// A glog prefix's clock `Lmmdd HH:MM:SS[.ffffff]` (L one of IWEFV): no year, no zone (the
// writer's local time).
struct GlogClock {
  int month = 0, day = 0;
  double seconds = 0;  // since midnight
  // Epoch seconds of this clock read in `year` (still the writer's local time).
  double in_year(int64_t year) const;
};
std::optional<GlogClock> read_glog_clock(std::string_view line);

// The writer's clock minus UTC, in seconds, rounded to a quarter hour (every zone in use is a
// multiple of 15 minutes), from a local clock and the true epoch time of the same moment (a
// TORCH_TRACE record's glog prefix and its compile's end); nullopt when they are more than 2
// minutes off any quarter hour (not the same moment).
std::optional<int64_t> clock_offset_s(const GlogClock& local, double epoch_s);

// The UTC year of an epoch time.
int64_t utc_year(double epoch_s);

}  // namespace rcf::ingest
