// torch_xla metrics importer: `metrics_report()` / `short_metrics_report()` text and
// XLA_METRICS_FILE files (docs/xla_metrics.md). Emits one MetricSample per printed
// value and a StepMarker per `[MetricsData; step=N]` header.
//
// Reports. A report index starts at 0 and grows at each `[MetricsData` header (except one that
// opens the source) and when a block name repeats inside the current report: a report is two
// sorted runs (lazy, then runtime registry), so a repeated name means a second report was pasted
// or printed without a header.
//
// 2019 reports name a metric's sum `Counter:` (later `Accumulator:`); it is read as Accumulator.
//
// Line fates: header, field and blank lines are parsed (blank: skipped "blank"); field lines
// before any block (a snippet that starts mid-block) are skipped "orphan_field"; anything else
// is skipped "other_output". Malformed values are rejected with one note per line and give no
// sample, even when only one percentile of the line is bad.
#include "ingest/xla/xla_metrics_importer.h"

#include <cmath>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "ingest/reading/text_util.h"
#include "ingest/xla/xla_metric_value.h"
#include "util/plausible.h"

namespace rcf::ingest {
namespace {

// The importer also takes `Metric:<name>` (a paste that lost the space); sniff wants the space.
constexpr std::string_view kMetricHeader = "Metric:";
constexpr std::string_view kCounterHeader = "Counter:";
constexpr std::string_view kStepHeader = "[MetricsData; step=";
constexpr std::string_view kPerSecond = " / second";
// Bounds memory on hostile input; beyond it, repeated names no longer split reports.
constexpr size_t kMaxNamesPerReport = 1 << 20;

enum class MetricBlockKind { kNone, kMetric, kCounter };

// The `Metric:` / `Counter:` block whose field lines are being read.
struct OpenMetricBlock {
  MetricBlockKind kind = MetricBlockKind::kNone;
  std::string name;
  int64_t line = 0;
  bool complete = false;  // saw its last line (Percentiles / Value)
};

// `text` minus a trailing " / second"; nullopt when it lacks one.
std::optional<std::string_view> strip_per_second(std::string_view text) {
  if (!text.ends_with(kPerSecond)) return std::nullopt;
  return rtrim(text.substr(0, text.size() - kPerSecond.size()));
}

class XlaMetricsImporter : public Importer {
 public:
  explicit XlaMetricsImporter(EventSink& sink) : sink_(sink) {}

  void on_line(std::string_view raw_line, int64_t line_no) override {
    std::string_view line = trim(raw_line);
    if (line.empty()) {
      close_block();
      sink_.note(line_no, reason::kBlank, raw_line);
      return;
    }
    if (line.starts_with("[MetricsData")) return on_step_header(line, raw_line, line_no);
    if (line.starts_with(kMetricHeader))
      return on_block_header(MetricBlockKind::kMetric, line.substr(kMetricHeader.size()), raw_line,
                             line_no);
    if (line.starts_with(kCounterHeader)) {
      std::string_view rest = line.substr(kCounterHeader.size());
      if (is_2019_sum_field(rest)) return on_field_2019_sum(rest, raw_line, line_no);
      return on_block_header(MetricBlockKind::kCounter, rest, raw_line, line_no);
    }
    on_field(line, raw_line, line_no);
  }

  // Every member is a value (ingest/importer.h).
  std::unique_ptr<Importer> clone() const override {
    return std::make_unique<XlaMetricsImporter>(*this);
  }

  void finish() override { close_block(); }

 private:
  // 2019 reports (docs/xla_formats.md) call a metric's sum `Counter:` where later ones print
  // `Accumulator:`: inside an open Metric block, `Counter: <time, size or number>` is that field,
  // not the header of a Counter block (whose name is never a value).
  bool is_2019_sum_field(std::string_view rest) const {
    return block_.kind == MetricBlockKind::kMetric && !block_.complete &&
           parse_metric_value(trim(rest)).has_value();
  }

  void on_field_2019_sum(std::string_view value, std::string_view raw_line, int64_t line_no) {
    if (const LineReason* why = field_rejection_reason("Accumulator", trim(value), line_no))
      sink_.note(line_no, *why, raw_line);
  }

  void on_step_header(std::string_view line, std::string_view raw_line, int64_t line_no) {
    close_block();
    start_report();
    std::optional<int64_t> step;
    if (line.starts_with(kStepHeader) && line.ends_with(']'))
      step = parse_int64(line.substr(kStepHeader.size(), line.size() - kStepHeader.size() - 1));
    if (!step || !util::plausible_id(*step)) {
      // Still a report boundary: what follows is not part of the previous report.
      step_.reset();
      sink_.note(line_no, reason::kBadStepHeader, raw_line);
      return;
    }
    step_ = step;
    sink_.emit(StepMarker{line_no, step_, "metrics_file", {}, {}, false});
  }

  void on_block_header(MetricBlockKind kind, std::string_view name, std::string_view raw_line,
                       int64_t line_no) {
    close_block();
    name = trim(name);
    if (name.empty() || name.find_first_of(" \t") != std::string_view::npos) {
      sink_.note(line_no, reason::kBadBlockName, raw_line);
      return;
    }
    std::string key(kind == MetricBlockKind::kMetric ? "m:" : "c:");
    key.append(name);
    if (names_in_report_.contains(key)) {
      // A second report printed without a header: it has no step of its own.
      start_report();
      step_.reset();
    }
    if (names_in_report_.size() < kMaxNamesPerReport) names_in_report_.insert(std::move(key));
    report_has_content_ = true;
    block_ = {kind, std::string(name), line_no, false};
  }

  void on_field(std::string_view line, std::string_view raw_line, int64_t line_no) {
    size_t colon = line.find(':');
    std::string_view key = colon == std::string_view::npos ? line : line.substr(0, colon);
    std::string_view value =
        colon == std::string_view::npos ? std::string_view() : trim(line.substr(colon + 1));
    bool metric_field = key == "TotalSamples" || key == "Accumulator" || key == "ValueRate" ||
                        key == "Rate" || key == "Percentiles" || key == "Mean" || key == "StdDev";
    bool counter_field = key == "Value";
    if (colon == std::string_view::npos || (!metric_field && !counter_field)) {
      // Indented `Key: value` inside a block is a field we do not know; the rest is other text.
      bool indented = raw_line.size() > 0 && (raw_line[0] == ' ' || raw_line[0] == '\t');
      if (indented && colon != std::string_view::npos && block_.kind != MetricBlockKind::kNone)
        sink_.note(line_no, reason::kUnknownField, raw_line);
      else
        sink_.note(line_no, reason::kOtherOutput, raw_line);
      return;
    }
    if (block_.kind == MetricBlockKind::kNone) {
      sink_.note(line_no, reason::kOrphanField, raw_line);
      return;
    }
    if ((block_.kind == MetricBlockKind::kMetric) != metric_field) {
      sink_.note(line_no, reason::kFieldOfOtherKind, raw_line);
      return;
    }
    if (const LineReason* why = field_rejection_reason(key, value, line_no))
      sink_.note(line_no, *why, raw_line);
  }

  // One value a field line holds, before it is emitted.
  struct FieldValue {
    std::string field;
    double value = 0;
    std::string_view unit;  // static
  };

  // Emits the samples of one field line. Returns why nothing was emitted (docs/reasons.md):
  // `bad_metric_value` when a value is malformed, `implausible_count` / `implausible_duration`
  // when one is out of range (util/plausible.h); nullptr when the samples were emitted.
  const LineReason* field_rejection_reason(std::string_view key, std::string_view value,
                                           int64_t line_no) {
    std::vector<FieldValue> values;
    if (!read_field_values(key, value, &values)) return &reason::kBadMetricValue;
    for (const FieldValue& v : values)
      if (const LineReason* why = implausible_value_reason(v.field, v.value, v.unit)) return why;
    for (const FieldValue& v : values) emit(line_no, v.field, v.value, v.unit);
    if (key == "Value" || key == "Percentiles") block_.complete = true;
    return nullptr;
  }

  // Why a value is out of range, or nullptr: counts are ids (0 to 2^53), times durations (no
  // more than a year), sizes and rates not negative; every one finite. A plain value
  // (`MetricFnValue`) may be negative.
  static const LineReason* implausible_value_reason(std::string_view field, double value,
                                                    std::string_view unit) {
    constexpr const LineReason* kCount = &reason::kImplausibleCountRejected;
    if (field == "TotalSamples" || field == "Value")
      return value >= 0 ? nullptr : kCount;  // read_field_values checked the range
    if (!std::isfinite(value)) return kCount;
    if (unit == "ns" && field != "ValueRate")
      return util::plausible_duration_ms(value / 1e6) ? nullptr
                                                      : &reason::kImplausibleDurationRejected;
    if (unit != "" && value < 0) return kCount;
    return nullptr;
  }

  // The values of one field line; false when a value is malformed.
  static bool read_field_values(std::string_view key, std::string_view value,
                                std::vector<FieldValue>* out) {
    if (key == "TotalSamples" || key == "Value") {
      auto count = parse_int64(value);
      if (!count) return false;
      // Checked as an integer: past 2^53 a double no longer tells it from its neighbours.
      double as_double = util::plausible_id(*count) ? static_cast<double>(*count) : -1.0;
      out->push_back({std::string(key), as_double, ""});
      return true;
    }
    if (key == "Accumulator" || key == "Mean" || key == "StdDev") {
      auto parsed = parse_metric_value(value);
      if (!parsed) return false;
      out->push_back({std::string(key), parsed->value, parsed->unit});
      return true;
    }
    if (key == "ValueRate") {
      auto per_second = strip_per_second(value);
      if (!per_second) return false;
      auto parsed = parse_metric_value(*per_second);
      if (!parsed) return false;
      // A plain value per second is a count rate, like Rate.
      std::string_view unit = parsed->unit == "ns"      ? "ns/s"
                              : parsed->unit == "bytes" ? "bytes/s"
                                                        : "1/s";
      out->push_back({std::string(key), parsed->value, unit});
      return true;
    }
    if (key == "Rate") {
      auto per_second = strip_per_second(value);
      if (!per_second) return false;
      auto rate = parse_metric_float(*per_second);
      if (!rate) return false;
      out->push_back({std::string(key), *rate, "1/s"});
      return true;
    }
    // Percentiles: `1%=<value>; 5%=<value>; ...` (empty when the metric has no samples).
    std::string_view rest = value;
    while (!rest.empty()) {
      size_t semicolon = rest.find(';');
      std::string_view item = trim(rest.substr(0, semicolon));
      rest = semicolon == std::string_view::npos ? std::string_view()
                                                 : trim(rest.substr(semicolon + 1));
      size_t percent = item.find("%=");
      if (percent == std::string_view::npos) return false;
      std::string_view percent_text = item.substr(0, percent);
      if (!parse_metric_plain(percent_text) || percent_text.starts_with('-')) return false;
      auto parsed = parse_metric_value(item.substr(percent + 2));
      if (!parsed) return false;
      out->push_back({"P" + std::string(percent_text), parsed->value, parsed->unit});
    }
    return true;
  }

  void emit(int64_t line_no, std::string_view field, double value, std::string_view unit) {
    MetricSample sample;
    sample.line = line_no;
    sample.step = step_;
    sample.report_index = report_index_;
    sample.name = block_.name;
    sample.kind = block_.kind == MetricBlockKind::kMetric ? "metric" : "counter";
    sample.field = std::string(field);
    sample.value = value;
    sample.unit = std::string(unit);
    sink_.emit(std::move(sample));
    report_has_content_ = true;
  }

  // Ends the open block; a block without its last line was cut off (paste, crash, end of file).
  void close_block() {
    if (block_.kind != MetricBlockKind::kNone && !block_.complete)
      sink_.note(block_.line, reason::kTruncatedBlock, block_.name);
    block_ = {};
  }

  // Begins a new report; the first one keeps index 0 unless something came before it.
  void start_report() {
    if (report_has_content_) ++report_index_;
    report_has_content_ = true;
    names_in_report_.clear();
  }

  EventSink& sink_;
  OpenMetricBlock block_;
  std::optional<int64_t> step_;
  int64_t report_index_ = 0;
  bool report_has_content_ = false;  // a header or a sample belongs to the current report
  std::unordered_set<std::string> names_in_report_;
};

bool has_line_starting_with(std::string_view head, std::string_view prefix) {
  for (size_t at = head.find(prefix); at != std::string_view::npos; at = head.find(prefix, at + 1))
    if (at == 0 || head[at - 1] == '\n') return true;
  return false;
}

// The score of a metrics report that is not inside a PT_XLA_DEBUG log (the highest it gives).
constexpr int kMetricsScore = 85;

int sniff_xla_metrics(std::string_view head) {
  if (!has_line_starting_with(head, "Metric: ") && !has_line_starting_with(head, "Counter: ") &&
      !has_line_starting_with(head, kStepHeader))
    return 0;
  // A PT_XLA_DEBUG log that also prints a report belongs to the debug importer.
  if (head.find("Compilation Analysis: ") != std::string_view::npos ||
      head.find("Execution Analysis: ") != std::string_view::npos)
    return 40;
  return kMetricsScore;
}

}  // namespace

ImporterInfo xla_metrics_importer_info() {
  return {"xla_metrics",
          "torch_xla metrics_report() text and XLA_METRICS_FILE ([MetricsData; step=N]) files",
          &sniff_xla_metrics,
          [](EventSink& sink) -> std::unique_ptr<Importer> {
            return std::make_unique<XlaMetricsImporter>(sink);
          },
          kMetricsScore};
}

}  // namespace rcf::ingest
