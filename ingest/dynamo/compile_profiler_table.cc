#include "ingest/dynamo/compile_profiler_table.h"

#include <optional>
#include <string>
#include <vector>

#include "ingest/reading/text_util.h"

namespace rcf::ingest {
namespace {

// Start offsets of the dash runs of a `----  ----  ----` rule; empty if `line` is not one.
std::vector<size_t> rule_columns(std::string_view line) {
  std::vector<size_t> starts;
  line = rtrim(line);
  for (size_t i = 0; i < line.size(); ++i) {
    if (line[i] != '-' && line[i] != ' ') return {};
    if (line[i] == '-' && (i == 0 || line[i - 1] == ' ')) starts.push_back(i);
  }
  return starts;
}

struct ProfilerRow {
  std::string_view function;  // empty on a continuation row
  std::string_view reason;
};

std::optional<ProfilerRow> parse_row(const std::vector<size_t>& columns, std::string_view line) {
  if (columns.size() < 3) return std::nullopt;
  line = rtrim(line);
  if (line.size() <= columns[2]) return std::nullopt;
  auto cell = [&](size_t c) {
    size_t begin = columns[c];
    size_t end = c + 1 < columns.size() ? columns[c + 1] : line.size();
    return trim(line.substr(begin, end - begin));
  };
  ProfilerRow row;
  row.function = trim(line.substr(0, columns[1]));
  std::string_view count = cell(1);
  row.reason = trim(line.substr(columns[2]));
  if (row.reason.empty()) return std::nullopt;
  if (row.function.empty() ? !count.empty() : !parse_int64(count)) return std::nullopt;
  return row;
}

}  // namespace

bool is_compile_profiler_header(std::string_view line) {
  line = trim(line);
  return line.starts_with("Function") && line.find("Recompile Reasons") != std::string_view::npos;
}

bool continues_compile_profiler(const DynamoBlock& block, std::string_view line) {
  if (block.lines.size() == 1) return rule_columns(line).size() >= 3;
  return parse_row(rule_columns(block.lines[1].text), line).has_value();
}

void parse_compile_profiler_block(const DynamoBlock& block, BlockOutput& out) {
  if (block.lines.size() < 2) return;
  std::vector<size_t> columns = rule_columns(block.lines[1].text);
  int32_t entry_index = 0;
  for (size_t i = 2; i < block.lines.size(); ++i) {
    auto row = parse_row(columns, block.lines[i].text);
    if (!row) {
      out.note(i, reason::kBadCompileProfilerRow);
      continue;
    }
    if (!row->function.empty()) entry_index = 0;
    GuardFailure failure;
    failure.line = block.lines[i].line_no;
    failure.ref = block.ref;
    failure.entry_index = entry_index++;
    failure.reason = std::string(row->reason);
    failure.origin = "text_compile_profiler";
    out.emit(std::move(failure));
  }
}

}  // namespace rcf::ingest
