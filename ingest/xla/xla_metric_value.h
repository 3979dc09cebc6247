// Value parsers for torch_xla metrics reports (docs/xla_metrics.md, Values). Hand-written
// (no regex): the report is printed by `MetricFnTime`, `MetricFnBytes`, `MetricFnValue` and the
// default stream float of `Rate`, so every form is small and fixed.
#pragma once

#include <optional>
#include <string_view>

namespace rcf::ingest {

// A time as printed by `MetricFnTime`: `06m15s551ms654.655us`, `013.884us`, `1d02h03m04s`. Parts
// d, h, m, s, ms, us appear in this order, each at most once, at least one; only `us` may carry a
// fraction. Returns nanoseconds.
std::optional<double> parse_metric_time_ns(std::string_view text);

// A size as printed by `MetricFnBytes`: `%.2f` + B/KB/MB/GB/TB/PB (base 1024). Returns bytes.
std::optional<double> parse_metric_bytes(std::string_view text);

// A plain decimal as printed by `MetricFnValue` (`%.2f`): `792.00`, `-1.50`, `5`. No exponent.
std::optional<double> parse_metric_plain(std::string_view text);

// A default-stream float (`Rate`): `0.211497`, `466.654`, `1.5e-05`. Finite only.
std::optional<double> parse_metric_float(std::string_view text);

// A metric value of unknown kind, told apart by its suffix: time ("ns"), bytes ("bytes") or plain
// (""). `unit` is a static string.
struct MetricValue {
  double value = 0;
  std::string_view unit;
};
std::optional<MetricValue> parse_metric_value(std::string_view text);

}  // namespace rcf::ingest
