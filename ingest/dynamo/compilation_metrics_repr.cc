#include "ingest/dynamo/compilation_metrics_repr.h"

#include <cmath>
#include <string>

#include "ingest/dynamo/compilation_metrics_counts.h"
#include "ingest/dynamo/python_literal.h"
#include "ingest/reading/text_util.h"

namespace rcf::ingest {
namespace {

constexpr std::string_view kMarker = "CompilationMetrics(";

std::optional<std::string> string_value(std::string_view raw) {
  raw = trim(raw);
  size_t pos = 0;
  auto value = read_python_string(raw, &pos);
  if (!value || pos != raw.size()) return std::nullopt;
  return value;
}

std::optional<int64_t> int_value(std::string_view raw) {
  return parse_int64(trim(raw));
}

std::optional<double> float_value(std::string_view raw) {
  return parse_double(trim(raw));
}

std::optional<bool> bool_value(std::string_view raw) {
  raw = trim(raw);
  if (raw == "True") return true;
  if (raw == "False") return false;
  return std::nullopt;
}

}  // namespace

bool has_compilation_metrics(std::string_view line) {
  return line.find(kMarker) != std::string_view::npos;
}

std::optional<ParsedCompilationMetrics> parse_compilation_metrics(std::string_view line,
                                                                  int32_t rank) {
  size_t at = line.find(kMarker);
  if (at == std::string_view::npos) return std::nullopt;
  ParsedCompilationMetrics parsed;
  DynamoCompile& c = parsed.compile;
  c.kind = "forward";
  c.ref.rank = rank;
  bool has_id = false;
  std::optional<double> legacy_start_s, legacy_duration_s;
  for (auto [key, raw] :
       parse_python_keyword_args(line, at + kMarker.size() - 1, &parsed.complete)) {
    if (key == "compile_id") {
      if (auto s = string_value(raw))
        if (auto id = CompileId::parse(*s)) {
          c.ref.id = *id;
          has_id = true;
        }
    } else if (key == "co_name") {
      if (auto s = string_value(raw)) c.co_name = *s;
    } else if (key == "co_filename") {
      if (auto s = string_value(raw)) c.co_filename = *s;
    } else if (key == "co_firstlineno") {
      if (auto v = int_value(raw)) c.co_firstlineno = *v;
    } else if (auto count = compilation_metrics_count(key)) {
      c.*count = int_value(raw);
    } else if (key == "has_guarded_code") {
      c.has_guarded_code = bool_value(raw);
    } else if (key == "fail_type") {
      if (auto s = string_value(raw)) c.fail_type = *s;
    } else if (key == "fail_reason") {
      if (auto s = string_value(raw)) c.fail_reason = *s;
    } else if (key == "recompile_reason") {
      if (auto s = string_value(raw)) c.recompile_reason = *s;
    } else if (key == "restart_reasons") {
      if (auto items = parse_python_string_sequence(raw)) c.restart_reasons = std::move(*items);
    } else if (key == "start_time_us") {
      c.start_time_us = int_value(raw);
    } else if (key == "start_time") {
      legacy_start_s = float_value(raw);
    } else if (key == "duration_us") {
      if (auto v = int_value(raw)) c.duration_ms = double(*v) / 1000.0;
    } else if (key == "entire_frame_compile_time_s") {
      legacy_duration_s = float_value(raw);
    } else if (key == "is_fwd" || key == "is_forward") {
      if (bool_value(raw) == false) c.kind = "backward";
    }
  }
  if (!has_id) return std::nullopt;
  // Older reprs only carry the legacy seconds fields.
  if (!c.start_time_us && legacy_start_s && std::fabs(*legacy_start_s) < 9e12)
    c.start_time_us = std::llround(*legacy_start_s * 1e6);
  if (!c.duration_ms && legacy_duration_s) c.duration_ms = *legacy_duration_s * 1000.0;
  return parsed;
}

}  // namespace rcf::ingest
