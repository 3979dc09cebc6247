#include "ingest/dynamo/compile_times_table.h"

#include <optional>
#include <string>

#include "ingest/reading/text_util.h"

namespace rcf::ingest {
namespace {

bool is_header(std::string_view line) {
  line = trim(line);
  return line.starts_with("Function") && line.find("Runtimes") != std::string_view::npos;
}

bool is_rule(std::string_view line) {
  line = trim(line);
  if (line.empty() || line[0] != '-') return false;
  for (char c : line)
    if (c != '-' && c != ' ') return false;
  return true;
}

// `<key>, <v1>, <v2>` (no tabulate) or `<key>   <v1>, <v2>` (tabulate).
std::optional<CompileTimesRow> parse_row(std::string_view line) {
  line = trim(line);
  size_t comma = line.find(',');
  size_t space = line.find(' ');
  if (line.empty() || (comma == std::string_view::npos && space == std::string_view::npos))
    return std::nullopt;
  CompileTimesRow row;
  std::string_view values;
  if (comma < space) {
    row.function = std::string(line.substr(0, comma));
    values = line.substr(comma + 1);
  } else {
    if (line.compare(space, 2, "  ") != 0) return std::nullopt;
    row.function = std::string(line.substr(0, space));
    values = line.substr(space);
  }
  // 2022 cells are a Python list of strings: `['0.0637', '0.0204']`.
  values = trim(values);
  if (values.size() >= 2 && values.front() == '[' && values.back() == ']')
    values = values.substr(1, values.size() - 2);
  while (!values.empty()) {
    size_t next = values.find(',');
    std::string_view cell = trim(values.substr(0, next));
    if (cell.size() >= 2 && cell.front() == '\'' && cell.back() == '\'')
      cell = cell.substr(1, cell.size() - 2);
    auto value = parse_double(cell);
    if (!value) return std::nullopt;
    row.seconds.push_back(*value);
    if (next == std::string_view::npos) break;
    values.remove_prefix(next + 1);
  }
  if (row.seconds.empty()) return std::nullopt;
  return row;
}

}  // namespace

bool is_compile_times_title(std::string_view line) {
  return trim(line) == "TorchDynamo compilation metrics:";
}

bool is_compile_times_header_row(std::string_view line) {
  return line.starts_with("Function ") && line.find("Runtimes (s)") != std::string_view::npos;
}

bool continues_compile_times(std::string_view line) {
  return is_header(line) || is_rule(line) || parse_row(line).has_value();
}

void parse_compile_times_block(const DynamoBlock& block, BlockOutput& out) {
  for (size_t i = 0; i < block.lines.size(); ++i) {
    std::string_view text = block.lines[i].text;
    if ((i == 0 && is_compile_times_title(text)) || is_header(text) || is_rule(text) ||
        is_blank(text))
      continue;
    if (auto row = parse_row(text)) {
      row->line = block.lines[i].line_no;
      out.emit(std::move(*row));
    } else {
      out.note(i, reason::kBadCompileTimesRow);
    }
  }
}

}  // namespace rcf::ingest
