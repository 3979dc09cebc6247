#include "ingest/dynamo/dynamo_graph_break.h"

#include <string>
#include <vector>

#include "ingest/dynamo/sync_signature.h"
#include "ingest/reading/text_util.h"

namespace rcf::ingest {
namespace {

constexpr std::string_view kInUserCodeAt = " in user code at ";
constexpr std::string_view kFromUserCodeAt = "from user code at:";
constexpr std::string_view kUnsupported = "torch._dynamo.exc.Unsupported: ";

// Lines after which a traceback follows.
bool is_frames_marker(std::string_view text) {
  return text == "User code traceback:" || text == kFromUserCodeAt ||
         text == "Graph break: from user code at:" || text == "from user code:" ||
         text == "The graph break occurred in the following user code:";
}

const char* origin_of(const DynamoBlock& block) {
  switch (block.kind) {
    case DynamoBlockKind::kItemWarning:
      return "text_item_warning";
    case DynamoBlockKind::kUnsupported:
      return "text_unsupported";
    default:
      return block.era_2022 ? "text_2022" : "text_graph_breaks";
  }
}

enum class BreakSection { kAfterHeader, kReason, kFrames };

}  // namespace

bool is_verbose_trailer(std::string_view line) {
  std::string_view text = ltrim(line);
  return text.starts_with("Set TORCHDYNAMO_VERBOSE=1") || text.starts_with("Set TORCH_LOGS=");
}

bool continues_graph_break(DynamoBlockKind kind, std::string_view line) {
  if (is_blank(line) || line[0] == ' ' || line[0] == '\t') return true;
  std::string_view text = rtrim(line);
  switch (kind) {
    case DynamoBlockKind::kItemWarning:
      return text == "or:" || text.starts_with("to include these operations") ||
             is_item_warning_frames_marker(text);
    case DynamoBlockKind::kUnsupported:
      return text == "from user code:" || is_verbose_trailer(text);
    default:
      return is_frames_marker(text) || text.starts_with("Graph Break Reason:") ||
             text.starts_with("Reason:");
  }
}

std::optional<StackFrame> parse_traceback_frame(std::string_view line) {
  std::string_view text = trim(line);
  if (!text.starts_with("File \"")) return std::nullopt;
  size_t file_end = text.find("\", line ", 6);
  if (file_end == std::string_view::npos) return std::nullopt;
  std::string_view rest = text.substr(file_end + 8);
  size_t comma = rest.find(", in ");
  std::string_view number = comma == std::string_view::npos ? rest : rest.substr(0, comma);
  auto line_no = parse_int64(number);
  if (!line_no) return std::nullopt;
  StackFrame frame;
  frame.file = std::string(text.substr(6, file_end - 6));
  frame.line = *line_no;
  if (comma != std::string_view::npos) frame.function = std::string(rest.substr(comma + 5));
  return frame;
}

bool is_graph_break_header(std::string_view message) {
  if (!message.starts_with("Graph break")) return false;
  if (message.size() == 11) return true;
  char next = message[11];
  return next == ' ' || next == ':' || next == '(';
}

bool is_item_warning_header(std::string_view message) {
  return message.starts_with("Graph break from `Tensor.item()`");
}

bool is_item_warning_frames_marker(std::string_view message) {
  return rtrim(message) == "Graph break: from user code at:";
}

std::string_view registry_gb_type(std::string_view reason) {
  std::string_view previous;  // the last non-blank line before the current one
  size_t pos = 0;
  while (pos <= reason.size()) {
    size_t end = reason.find('\n', pos);
    if (end == std::string_view::npos) end = reason.size();
    std::string_view line = reason.substr(pos, end - pos);
    // `  Explanation:` is indented under its type.
    if (ltrim(line).starts_with("Explanation:") && line.size() > ltrim(line).size())
      return trim(previous);
    if (!is_blank(line)) previous = line;
    pos = end + 1;
  }
  return {};
}

namespace {

// What the phases of parse_graph_break_block build up.
struct GraphBreakParse {
  GraphBreak gb;
  std::vector<std::string_view> reason_lines;  // views into the block's lines
  BreakSection section = BreakSection::kReason;
  bool location_from_header = false;
};

// Phase 1: the header line, in each era's form. Returns the index of the first body line.
size_t read_header(const DynamoBlock& block, BlockOutput& out, GraphBreakParse& p) {
  if (block.headless) {
    if (parse_traceback_frame(block.lines[0].text)) p.section = BreakSection::kFrames;
    return 0;
  }
  std::string_view header = rtrim(block.lines[0].text);
  if (block.kind == DynamoBlockKind::kUnsupported) {
    size_t at = header.find(kUnsupported);
    p.reason_lines.push_back(header.substr(at + kUnsupported.size()));
  } else if (block.kind == DynamoBlockKind::kItemWarning) {
    p.reason_lines.push_back(header);
  } else if (size_t at = header.find(kInUserCodeAt); at != std::string_view::npos) {
    // `Graph break in user code at F:L`, `Graph break (<why> suppressed ...) in user code at
    // F:L`.
    p.gb.suppressed = header.substr(0, at).find("suppressed") != std::string_view::npos;
    std::string_view file;
    if (split_file_line(header.substr(at + kInUserCodeAt.size()), &file, &p.gb.user_line)) {
      p.gb.user_file = std::string(file);
      p.location_from_header = true;
    } else {
      out.note(0, reason::kBadGraphBreakLocation);
    }
    p.section = BreakSection::kAfterHeader;
  } else if (header.starts_with("Graph break:")) {
    // 2022/2023 `Graph break: <reason> from user code at:`; newer `Graph break: <text>` with
    // the reason continuing on the next lines.
    std::string_view rest = ltrim(header.substr(12));
    if (rest.ends_with(kFromUserCodeAt)) {
      std::string_view reason = rtrim(rest.substr(0, rest.size() - kFromUserCodeAt.size()));
      if (!reason.empty()) p.reason_lines.push_back(reason);
      p.section = BreakSection::kFrames;
    } else {
      p.reason_lines.push_back(rest);
    }
  } else {
    p.reason_lines.push_back(header);
  }
  return 1;
}

// Phase 2: one body line, a reason line or a traceback line by the section it is in.
void read_body_line(std::string_view raw, GraphBreakParse& p) {
  std::string_view line = rtrim(raw);
  std::string_view text = ltrim(line);
  if (is_frames_marker(text)) {
    p.section = BreakSection::kFrames;
    return;
  }
  if (is_verbose_trailer(text)) return;
  if (text.starts_with("Graph Break Reason:")) {
    p.reason_lines.push_back(ltrim(text.substr(19)));
    p.section = BreakSection::kReason;
    return;
  }
  if (p.section == BreakSection::kAfterHeader && text.starts_with("Reason:")) {
    p.reason_lines.push_back(ltrim(text.substr(7)));
    p.section = BreakSection::kReason;
    return;
  }
  if (p.section == BreakSection::kFrames) {
    std::vector<StackFrame>& stack = p.gb.user_stack;
    if (auto frame = parse_traceback_frame(line)) {
      stack.push_back(std::move(*frame));
    } else if (!text.empty() && !stack.empty() && stack.back().code.empty() &&
               line.size() > text.size()) {
      stack.back().code = std::string(text);
    }
    return;
  }
  p.reason_lines.push_back(line);
}

// Phase 3: the reason, its registry type, and the user location (the header's, else the
// innermost frame's).
void finish_graph_break(GraphBreakParse& p) {
  GraphBreak& gb = p.gb;
  while (!p.reason_lines.empty() && is_blank(p.reason_lines.back())) p.reason_lines.pop_back();
  for (size_t i = 0; i < p.reason_lines.size(); ++i) {
    if (i) gb.reason += '\n';
    gb.reason += p.reason_lines[i];
  }
  gb.gb_type = std::string(registry_gb_type(gb.reason));
  if (!gb.user_stack.empty()) {
    const StackFrame& innermost = gb.user_stack.back();
    gb.user_function = innermost.function;
    if (!p.location_from_header) {
      gb.user_file = innermost.file;
      gb.user_line = innermost.line;
    }
  }
  gb.sync_signature = has_sync_signature(gb.reason) || has_sync_signature(gb.gb_type);
}

}  // namespace

void parse_graph_break_block(const DynamoBlock& block, BlockOutput& out) {
  GraphBreakParse p;
  p.gb.line = block.lines[0].line_no;
  p.gb.ref = block.ref;
  p.gb.pid = block.pid;
  p.gb.origin = origin_of(block);
  for (size_t i = read_header(block, out, p); i < block.lines.size(); ++i)
    read_body_line(block.lines[i].text, p);
  finish_graph_break(p);
  out.emit(std::move(p.gb));
}

}  // namespace rcf::ingest
