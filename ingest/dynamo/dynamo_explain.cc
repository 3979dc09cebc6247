#include "ingest/dynamo/dynamo_explain.h"

#include <optional>
#include <string>

#include "ingest/dynamo/dynamo_graph_break.h"
#include "ingest/dynamo/sync_signature.h"
#include "ingest/reading/text_util.h"

namespace rcf::ingest {
namespace {

// `<FrameSummary file <path>, line <n> in <fn>>`.
std::optional<StackFrame> parse_frame_summary(std::string_view text) {
  constexpr std::string_view kOpen = "<FrameSummary file ";
  if (!text.starts_with(kOpen) || !text.ends_with(">")) return std::nullopt;
  std::string_view inner = text.substr(kOpen.size(), text.size() - kOpen.size() - 1);
  size_t at = inner.rfind(", line ");
  if (at == std::string_view::npos) return std::nullopt;
  std::string_view rest = inner.substr(at + 7);
  size_t in = rest.find(" in ");
  auto line = parse_int64(in == std::string_view::npos ? rest : rest.substr(0, in));
  if (!line) return std::nullopt;
  StackFrame frame;
  frame.file = std::string(inner.substr(0, at));
  frame.line = *line;
  if (in != std::string_view::npos) frame.function = std::string(rest.substr(in + 4));
  return frame;
}

void finish_break(GraphBreak& gb, BlockOutput& out) {
  if (!gb.user_stack.empty()) {
    const StackFrame& innermost = gb.user_stack.back();
    gb.user_file = innermost.file;
    gb.user_line = innermost.line;
    gb.user_function = innermost.function;
  }
  gb.sync_signature = has_sync_signature(gb.reason);
  out.emit(std::move(gb));
}

// `<n>. <reason>`: a break of the 2022 summary's numbered list; returns the reason.
std::optional<std::string_view> explain_2022_reason(std::string_view line) {
  size_t digits = line.find_first_not_of("0123456789");
  if (digits == 0 || digits == std::string_view::npos || line.compare(digits, 2, ". ") != 0)
    return std::nullopt;
  return trim(line.substr(digits + 2));
}

}  // namespace

bool is_explain_2022_item(std::string_view line) {
  return explain_2022_reason(line).has_value();
}

bool is_explain_header(std::string_view line) {
  // 2022 (and torchbench's summary): `Dynamo produced N graphs[ ]with M graph break and K ops`.
  return line.starts_with("Graph Count: ") || rtrim(line) == "Break Reasons:" ||
         line.starts_with("Dynamo produced ");
}

bool continues_explain(std::string_view line) {
  // The 2022 summary separates its numbered breaks with lines that hold one space.
  if (line.starts_with("  ") || is_blank(line) || is_explain_2022_item(line)) return true;
  line = trim(line);
  return line.starts_with("Graph Break Count: ") || line.starts_with("Op Count: ") ||
         line == "Break Reasons:" || line == "Ops per Graph:" || line == "Out Guards:" ||
         line == "Compile Times:" || line == "Break reasons:";
}

void parse_explain_block(const DynamoBlock& block, BlockOutput& out) {
  enum class Part { kNone, kHeader, kReason, kStack };  // kNone: not inside a Break Reason
  GraphBreak current;
  Part part = Part::kNone;
  for (size_t i = 0; i < block.lines.size(); ++i) {
    std::string_view line = rtrim(block.lines[i].text);
    std::string_view text = ltrim(line);
    bool top_level = line.size() == text.size();
    if (auto reason = top_level ? explain_2022_reason(text) : std::nullopt) {
      if (part != Part::kNone) finish_break(current, out);
      current = GraphBreak{};
      current.line = block.lines[i].line_no;
      current.ref = block.ref;
      current.origin = "text_explain";
      current.reason = std::string(*reason);
      part = Part::kStack;  // its frames follow as a traceback's `File "...", line N, in fn`
      continue;
    }
    if (top_level || (text.starts_with("Break Reason ") && text.ends_with(":"))) {
      if (part != Part::kNone) finish_break(current, out);
      part = Part::kNone;
      if (!top_level) {
        current = GraphBreak{};
        current.line = block.lines[i].line_no;
        current.ref = block.ref;
        current.origin = "text_explain";
        part = Part::kHeader;
      }
      continue;
    }
    if (part == Part::kNone) continue;
    if (text.starts_with("Reason:")) {
      current.reason = std::string(ltrim(text.substr(7)));
      part = Part::kReason;
    } else if (text == "User Stack:") {
      part = Part::kStack;
    } else if (part == Part::kStack) {
      auto frame = parse_frame_summary(text);
      if (!frame) frame = parse_traceback_frame(text);
      if (frame) current.user_stack.push_back(std::move(*frame));
    } else if (part == Part::kReason) {
      current.reason += '\n';
      current.reason += text;
    }
  }
  if (part != Part::kNone) finish_break(current, out);
}

}  // namespace rcf::ingest
