// Step-timing importer: per-step wall / compile times from a CSV (or TSV) file with a header row,
// or from JSONL (one object per line). Column names vary between training scripts, so headers
// are normalised (`Wall (ms)` -> `wall_ms`) and looked up in a small table; a unit suffix
// `_s`/`_sec`/`_seconds` means seconds, converted to milliseconds.
#include "ingest/steps/step_timing_importer.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "ingest/reading/text_util.h"
#include "ingest/reading/wall_time.h"
#include "util/json_depth.h"
#include "util/plausible.h"

namespace rcf::ingest {
namespace {

enum class Column { kIgnored, kStep, kWallMs, kWallS, kCompileMs, kCompileS, kTimestamp };

// `Wall Time (ms)` -> `wall_time_ms`: lowercase, separators to '_', brackets dropped.
std::string normalise_name(std::string_view name) {
  std::string out;
  for (char c : trim(name)) {
    if (c == '(' || c == ')' || c == '[' || c == ']' || c == '"' || c == '\'') {
      c = '_';
    } else if (c == ' ' || c == '-' || c == '/' || c == '.') {
      c = '_';
    }
    if (c == '_' && (out.empty() || out.back() == '_')) continue;
    out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  while (!out.empty() && out.back() == '_') out.pop_back();
  return out;
}

Column column_of(std::string_view name) {
  std::string n = normalise_name(name);
  if (n == "step" || n == "global_step" || n == "iteration" || n == "iter") return Column::kStep;
  if (n == "timestamp" || n == "ts" || n == "time" || n == "wall_time" || n == "datetime" ||
      n == "timestamp_s")
    return Column::kTimestamp;
  // `step_time` and `compile_time` without a unit are seconds, as JAX and most loggers print.
  if (n == "compile_ms" || n == "compile_time_ms") return Column::kCompileMs;
  if (n == "compile_s" || n == "compile_time" || n == "compile_time_s" || n == "compile_sec" ||
      n == "compile_seconds" || n == "compile_time_sec")
    return Column::kCompileS;
  static constexpr std::string_view kWallBases[] = {"wall",     "step",          "time",
                                                    "duration", "step_time",     "wall_time",
                                                    "elapsed",  "step_duration", "iter_time"};
  // `<base>_<unit>`, compared in place: a string built per base and unit made sniffing every
  // file's first line (a long HLO module header splits into dozens of fields) cost 56 us.
  auto wall_with_unit = [&n](std::string_view unit) {
    std::string_view base = n;
    if (!base.ends_with(unit)) return false;
    base.remove_suffix(unit.size());
    return std::find(std::begin(kWallBases), std::end(kWallBases), base) != std::end(kWallBases);
  };
  if (wall_with_unit("_ms")) return Column::kWallMs;
  if (wall_with_unit("_s") || wall_with_unit("_sec") || wall_with_unit("_seconds"))
    return Column::kWallS;
  if (n == "ms") return Column::kWallMs;
  if (n == "step_time" || n == "duration" || n == "elapsed") return Column::kWallS;
  return Column::kIgnored;
}

// Epoch seconds from a number (ms/us/ns epochs scaled down by magnitude) or an ISO 8601 text.
std::optional<double> parse_timestamp(std::string_view s) {
  s = trim(s);
  if (auto v = parse_double(s)) {
    double x = *v;
    if (!std::isfinite(x)) return std::nullopt;
    if (std::fabs(x) > 1e17) return x / 1e9;
    if (std::fabs(x) > 1e14) return x / 1e6;
    if (std::fabs(x) > 1e11) return x / 1e3;
    return x;
  }
  // A date without a zone is read as UTC (docs/step_timing.md).
  if (auto t = parse_iso8601(s)) return t->epoch_s;
  return std::nullopt;
}

std::optional<double> parse_number(std::string_view s) {
  s = trim(s);
  if (!s.empty() && s[0] == '+') s.remove_prefix(1);
  auto v = parse_double(s);
  if (!v || !std::isfinite(*v)) return std::nullopt;
  return v;
}

std::optional<int64_t> parse_step(std::string_view s) {
  s = trim(s);
  if (auto i = parse_int64(s)) return i;
  // `12.0` (pandas writes integer columns with NaNs as floats).
  auto v = parse_number(s);
  if (!v || *v != std::floor(*v) || std::fabs(*v) > 9e15) return std::nullopt;
  return static_cast<int64_t>(*v);
}

// One CSV record on one line: RFC 4180 quoting (`""` inside quotes). False on an unterminated
// quote.
bool split_fields(std::string_view line, char sep, std::vector<std::string>* out) {
  out->clear();
  std::string field;
  bool quoted = false;
  bool was_quoted = false;
  for (size_t i = 0; i < line.size(); ++i) {
    char c = line[i];
    if (quoted) {
      if (c == '"') {
        if (i + 1 < line.size() && line[i + 1] == '"') {
          field += '"';
          ++i;
        } else {
          quoted = false;
        }
      } else {
        field += c;
      }
    } else if (c == '"' && trim(field).empty() && !was_quoted) {
      field.clear();
      quoted = was_quoted = true;
    } else if (c == sep) {
      out->push_back(std::move(field));
      field.clear();
      was_quoted = false;
    } else {
      field += c;
    }
  }
  if (quoted) return false;
  out->push_back(std::move(field));
  return true;
}

char separator_of(std::string_view header) {
  size_t tabs = 0, commas = 0, semis = 0;
  for (char c : header) {
    tabs += c == '\t';
    commas += c == ',';
    semis += c == ';';
  }
  if (tabs > 0 && tabs >= commas) return '\t';
  if (commas == 0 && semis > 0) return ';';
  return ',';
}

struct Header {
  char sep = ',';
  std::vector<Column> columns;
};

bool has_time_column(const std::vector<Column>& columns) {
  for (Column c : columns)
    if (c != Column::kIgnored && c != Column::kStep) return true;
  return false;
}

// A header row: a step column and at least one time column.
std::optional<Header> parse_header(std::string_view line) {
  Header h;
  h.sep = separator_of(line);
  std::vector<std::string> fields;
  if (!split_fields(line, h.sep, &fields)) return std::nullopt;
  int steps = 0;
  for (const auto& f : fields) {
    Column c = column_of(f);
    // Only the first step column counts (`step` and `global_step` side by side).
    if (c == Column::kStep && steps++ > 0) c = Column::kIgnored;
    h.columns.push_back(c);
  }
  if (steps == 0 || !has_time_column(h.columns)) return std::nullopt;
  return h;
}

// Sets the field `column` of `t` from text; false when non-empty text does not parse.
bool set_value(Column column, std::string_view text, bool* have_step, StepTiming* t) {
  text = trim(text);
  if (column == Column::kIgnored) return true;
  if (text.empty() || text == "nan" || text == "NaN" || text == "null" || text == "None" ||
      text == "NA")
    return column != Column::kStep;
  switch (column) {
    case Column::kStep: {
      auto s = parse_step(text);
      if (!s) return false;
      t->step = *s;
      *have_step = true;
      return true;
    }
    case Column::kTimestamp:
      t->timestamp_s = parse_timestamp(text);
      return t->timestamp_s.has_value();
    default:
      break;
  }
  auto v = parse_number(text);
  if (!v) return false;
  switch (column) {
    case Column::kWallMs:
      t->wall_ms = *v;
      break;
    case Column::kWallS:
      t->wall_ms = *v * 1000;
      break;
    case Column::kCompileMs:
      t->compile_ms = *v;
      break;
    case Column::kCompileS:
      t->compile_ms = *v * 1000;
      break;
    default:
      break;
  }
  return true;
}

std::string_view strip_bom(std::string_view s) {
  if (s.starts_with("\xEF\xBB\xBF")) s.remove_prefix(3);
  return s;
}

// A JSON value as the text set_value() parses (numbers and strings; null = empty).
std::optional<std::string> json_text(const nlohmann::json& v) {
  if (v.is_null()) return std::string();
  if (v.is_string()) return v.get<std::string>();
  if (v.is_number_integer()) return std::to_string(v.get<int64_t>());
  if (v.is_number_unsigned()) return std::to_string(v.get<uint64_t>());
  if (v.is_number_float()) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.17g", v.get<double>());
    return std::string(buf);
  }
  return std::nullopt;
}

class StepTimingImporter : public Importer {
 public:
  explicit StepTimingImporter(EventSink& sink) : sink_(sink) {}

  void on_line(std::string_view line, int64_t line_no) override {
    std::string_view text = line;
    if (first_) text = strip_bom(text);
    if (is_blank(text)) {
      sink_.note(line_no, reason::kBlank, line);
      return;
    }
    first_ = false;
    std::string_view t = trim(text);
    if (t.starts_with("{")) {
      on_json(t, line, line_no);
      return;
    }
    if (t.starts_with("#")) {
      sink_.note(line_no, reason::kComment, line);
      return;
    }
    // A header row (also a repeated one, where files were concatenated) sets the columns.
    if (auto h = parse_header(text)) {
      header_ = std::move(*h);
      return;
    }
    if (!header_) {
      sink_.note(line_no, reason::kNoStepHeader, line);
      return;
    }
    on_row(text, line, line_no);
  }

  // Every member is a value (ingest/importer.h).
  std::unique_ptr<Importer> clone() const override {
    return std::make_unique<StepTimingImporter>(*this);
  }

  void finish() override {}

 private:
  void on_row(std::string_view text, std::string_view line, int64_t line_no) {
    if (!split_fields(text, header_->sep, &fields_)) {
      sink_.note(line_no, reason::kBadStepRow, line);
      return;
    }
    StepTiming t;
    t.line = line_no;
    bool have_step = false;
    bool ok = true;
    for (size_t i = 0; i < fields_.size() && ok; ++i) {
      // Extra trailing fields (a trailing separator) are fine when empty.
      Column c = i < header_->columns.size() ? header_->columns[i] : Column::kIgnored;
      if (i >= header_->columns.size() && !trim(fields_[i]).empty()) ok = false;
      if (ok) ok = set_value(c, fields_[i], &have_step, &t);
    }
    if (!ok || !have_step) {
      sink_.note(line_no, reason::kBadStepRow, line);
      return;
    }
    emit_plausible(std::move(t), line, line_no);
  }

  // A row whose numbers are out of range is rejected under the reason that says which
  // (util/plausible.h): a negative compile time would turn a failing compile share into a pass.
  void emit_plausible(StepTiming t, std::string_view line, int64_t line_no) {
    if (const LineReason* why = implausible_step_timing_reason(t))
      sink_.note(line_no, *why, line);
    else
      sink_.emit(std::move(t));
  }

  void on_json(std::string_view text, std::string_view line, int64_t line_no) {
    if (util::json_too_deep_at(text) != std::string_view::npos) {
      sink_.note(line_no, reason::kJsonTooDeepRejected, line);
      return;
    }
    nlohmann::json j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
    if (j.is_discarded() || !j.is_object()) {
      sink_.note(line_no, reason::kBadStepRow, line);
      return;
    }
    StepTiming t;
    t.line = line_no;
    bool have_step = false;
    bool has_step_key = false;
    bool ok = true;
    for (auto it = j.begin(); it != j.end() && ok; ++it) {
      Column c = column_of(it.key());
      if (c == Column::kIgnored) continue;
      if (c == Column::kStep) {
        if (has_step_key) continue;  // first step key wins, as for CSV
        has_step_key = true;
      }
      auto value = json_text(it.value());
      ok = value && set_value(c, *value, &have_step, &t);
    }
    if (!has_step_key && ok) {
      // A record of another kind (run metadata, eval results) in the same stream.
      sink_.note(line_no, reason::kNoStepKey, line);
      return;
    }
    if (!ok || !have_step) {
      sink_.note(line_no, reason::kBadStepRow, line);
      return;
    }
    emit_plausible(std::move(t), line, line_no);
  }

  EventSink& sink_;
  bool first_ = true;
  std::optional<Header> header_;
  std::vector<std::string> fields_;
};

// The score of a header (or JSON object) that names a step column (the only one it gives).
constexpr int kTimingScore = 80;

int sniff_step_timing(std::string_view head) {
  head = strip_bom(head);
  size_t pos = 0;
  while (pos < head.size()) {
    size_t end = head.find('\n', pos);
    if (end == std::string_view::npos) end = head.size();
    std::string_view line = trim(head.substr(pos, end - pos));
    pos = end + 1;
    if (line.empty()) continue;
    if (line.starts_with("{")) {
      nlohmann::json j = util::parse_json_bounded(line);
      if (j.is_discarded() || !j.is_object()) return 0;
      for (auto it = j.begin(); it != j.end(); ++it)
        if (column_of(it.key()) == Column::kStep) return kTimingScore;
      return 0;
    }
    return parse_header(line) ? kTimingScore : 0;
  }
  return 0;
}

}  // namespace

ImporterInfo step_timing_importer_info() {
  return {"step_timing",
          "per-step timings: CSV/TSV with a header (step + wall/compile time or timestamp) or "
          "JSONL",
          sniff_step_timing,
          [](EventSink& sink) -> std::unique_ptr<Importer> {
            return std::make_unique<StepTimingImporter>(sink);
          },
          kTimingScore};
}

const LineReason* implausible_step_timing_reason(const StepTiming& t) {
  if (!util::plausible_id(t.step)) return &reason::kImplausibleStepRejected;
  if ((t.wall_ms && !util::plausible_duration_ms(*t.wall_ms)) ||
      (t.compile_ms && !util::plausible_duration_ms(*t.compile_ms)))
    return &reason::kImplausibleDurationRejected;
  if (t.timestamp_s && !util::plausible_epoch_s(*t.timestamp_s))
    return &reason::kImplausibleTimestampRejected;
  return nullptr;
}

}  // namespace rcf::ingest
