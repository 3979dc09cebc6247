// CompactOptional: an optional number stored in the number's own width, one value set aside to
// mean "absent" (the lowest integer, or a NaN for a double), where std::optional adds a flag and
// padding (8 bytes more per field). For the analysis's per-compile records, a million of which a
// run may hold (analysis/dynamo_attribution.h): seven optional fields were 56 of a record's 248
// bytes of padding and flags. The set-aside value never occurs in a log's numbers (line numbers,
// cache sizes, microsecond times); assigning it reads back as absent.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <type_traits>

namespace rcf::util {

template <typename T>
class CompactOptional {
  static_assert(std::is_same_v<T, int64_t> || std::is_same_v<T, double>);

 public:
  CompactOptional() = default;
  CompactOptional(std::nullopt_t) {}                                    // NOLINT: as std::optional
  CompactOptional(T v) : v_(v) {}                                       // NOLINT: as std::optional
  CompactOptional(const std::optional<T>& v) : v_(v ? *v : kAbsent) {}  // NOLINT

  bool has_value() const {
    if constexpr (std::is_same_v<T, double>)
      return !std::isnan(v_);
    else
      return v_ != kAbsent;
  }
  explicit operator bool() const { return has_value(); }
  T operator*() const { return v_; }
  T value_or(T fallback) const { return has_value() ? v_ : fallback; }
  operator std::optional<T>() const {  // NOLINT: as std::optional
    return has_value() ? std::optional<T>(v_) : std::nullopt;
  }

 private:
  static constexpr T kAbsent = std::is_same_v<T, double> ? std::numeric_limits<T>::quiet_NaN()
                                                         : std::numeric_limits<T>::lowest();
  T v_ = kAbsent;
};

}  // namespace rcf::util
