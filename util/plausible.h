// The ranges a time, duration, count or id read from a log or a store must lie in
// (docs/bad_input.md). Outside them a value is not evidence: negative, NaN or infinite numbers,
// a step longer than a year, a timestamp before 2000 or after 2100, an id past 2^53 (the largest
// integer a double, and so a JSON reader, holds exactly). The reader rejects it with a named
// reason; nothing downstream computes with it.
#pragma once

#include <cmath>
#include <cstdint>

namespace rcf::util {

inline constexpr double kMaxDurationMs = 366.0 * 24 * 3600 * 1000;
inline constexpr double kMinEpochS = 946684800.0;   // 2000-01-01T00:00:00Z
inline constexpr double kMaxEpochS = 4102444800.0;  // 2100-01-01T00:00:00Z
inline constexpr int64_t kMaxId = int64_t{1} << 53;

inline bool plausible_duration_ms(double ms) {
  return std::isfinite(ms) && ms >= 0 && ms <= kMaxDurationMs;
}

inline bool plausible_epoch_s(double s) {
  return std::isfinite(s) && s >= kMinEpochS && s <= kMaxEpochS;
}

// Ids, steps and counts.
inline bool plausible_id(int64_t id) {
  return id >= 0 && id <= kMaxId;
}

}  // namespace rcf::util
