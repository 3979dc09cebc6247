#include "ingest/dynamo/dynamo_recompile_block.h"

#include <algorithm>
#include <vector>

#include "ingest/dynamo/python_literal.h"
#include "ingest/reading/text_util.h"

namespace rcf::ingest {
namespace {

constexpr std::string_view kHeaderMarker = "Recompiling function ";
constexpr std::string_view kStanceMarker =
    "Detected recompile when torch.compile stance is 'fail_on_recompile'. filename: '";
constexpr std::string_view kTriggeredBy = "triggered by the following guard failure";

DynamoCompile make_compile(int64_t line_no, const CompileRef& ref, std::string kind,
                           const RecompileHeader& header, int64_t pid = -1) {
  DynamoCompile compile;
  compile.line = line_no;
  compile.pid = pid;
  compile.ref = ref;
  compile.kind = std::move(kind);
  compile.co_name = header.co_name;
  compile.co_filename = header.co_filename;
  compile.co_firstlineno = header.co_firstlineno;
  return compile;
}

// `guard <i> failures:` (recompiles_verbose group header); -1 when `text` is something else.
int32_t verbose_group_index(std::string_view text) {
  if (!text.starts_with("guard ") || !text.ends_with(" failures:")) return -1;
  auto index = parse_int64(text.substr(6, text.size() - 6 - 10));
  return index && *index >= 0 && *index < (int64_t{1} << 30) ? int32_t(*index) : -1;
}

// Splits `<F/C>: <reason>` (the space is missing when the reason is empty and right-trimmed).
// Returns false when the entry carries no compile id (2023 – Jun 2024 era).
bool split_compile_id(std::string_view entry, std::string_view* id, std::string_view* reason) {
  size_t colon = entry.find(':');
  if (colon == std::string_view::npos || colon > 40) return false;
  if (!CompileId::parse(entry.substr(0, colon))) return false;
  *id = entry.substr(0, colon);
  std::string_view rest = entry.substr(colon + 1);
  if (!rest.empty() && rest[0] == ' ') rest.remove_prefix(1);
  *reason = rest;
  return true;
}

// Locates the header in a block's first line: plain `Recompiling function ...` or the text of a
// raised `torch._dynamo.exc.RecompileError: Recompiling function ...`.
std::optional<std::string_view> header_text(std::string_view first_line) {
  size_t at = first_line.find(kHeaderMarker);
  if (at == std::string_view::npos) return std::nullopt;
  if (at != 0 && first_line.substr(0, at).find("RecompileError: ") == std::string_view::npos)
    return std::nullopt;
  return first_line.substr(at + kHeaderMarker.size());
}

// `Detected recompile when torch.compile stance is 'fail_on_recompile'. filename: '<file>',
// function name: '<fn>', line number: <N>` (eval_frame.py), possibly after `RuntimeError: `.
std::optional<RecompileHeader> parse_fail_on_recompile_header(std::string_view line) {
  size_t at = line.find(kStanceMarker);
  if (at == std::string_view::npos) return std::nullopt;
  std::string_view rest = rtrim(line.substr(at + kStanceMarker.size()));
  constexpr std::string_view kFunction = "', function name: '";
  constexpr std::string_view kLine = "', line number: ";
  size_t function_at = rest.find(kFunction);
  size_t line_at = rest.rfind(kLine);
  if (function_at == std::string_view::npos || line_at == std::string_view::npos ||
      line_at < function_at)
    return std::nullopt;
  auto first_line = parse_int64(rest.substr(line_at + kLine.size()));
  if (!first_line) return std::nullopt;
  RecompileHeader header;
  header.co_filename = std::string(rest.substr(0, function_at));
  header.co_name = std::string(
      rest.substr(function_at + kFunction.size(), line_at - function_at - kFunction.size()));
  header.co_firstlineno = *first_line;
  return header;
}

}  // namespace

bool is_fail_on_recompile_header(std::string_view line) {
  return line.find(kStanceMarker) != std::string_view::npos;
}

bool continues_recompile_block(std::string_view line) {
  if (is_blank(line)) return true;
  // The entries are named (`triggered by`, `- `): a paste that lost the indentation keeps them.
  if (line[0] != ' ' && line[0] != '\t') return starts_recompile_fragment(line);
  // An entry, or a deeper-indented line of a multi-line entry; an indented line of unrelated
  // output (`  warnings.warn(`) is not one.
  return starts_recompile_fragment(line) || line.starts_with("      ") || line[0] == '\t';
}

bool starts_recompile_fragment(std::string_view message) {
  std::string_view text = trim(message);
  return text.starts_with(kTriggeredBy) || text == "-" || text.starts_with("- ") ||
         verbose_group_index(text) >= 0;
}

bool is_guard_failure_bullet(std::string_view text) {
  text = trim(text);
  if (!text.starts_with("- ")) return false;
  std::string_view id, reason = trim(text.substr(2));
  if (split_compile_id(reason, &id, &reason)) reason = trim(reason);
  static constexpr std::string_view kGuardStarts[] = {
      "L[",      "G[",         "___",        "len(L[",        "len(G[",
      "not L[",  "not G[",     "id(L[",      "id(G[",         "type(L[",
      "type(G[", "hasattr(L[", "hasattr(G[", "isinstance(L[", "isinstance(G[",
      "Eq(",     "Ne("};
  for (std::string_view start : kGuardStarts)
    if (reason.starts_with(start)) return true;
  return reason.starts_with("tensor '") && reason.find(" mismatch") != std::string_view::npos;
}

bool is_bulletless_recompile_entry(std::string_view text, bool first) {
  text = trim(text);
  std::string_view id, reason;
  if (text.empty() || text.starts_with(kTriggeredBy) || text.starts_with("- ") || text == "-")
    return false;
  return first || split_compile_id(text, &id, &reason);
}

std::optional<RecompileHeader> parse_recompile_header(std::string_view text) {
  text = trim(text);
  size_t name_end = 0;
  if (!text.empty() && text[0] == '<') {
    int depth = 0;
    for (; name_end < text.size(); ++name_end) {
      if (text[name_end] == '<') ++depth;
      if (text[name_end] == '>' && --depth == 0) break;
    }
    if (name_end == text.size()) return std::nullopt;
    ++name_end;
  } else {
    name_end = std::min(text.find(' '), text.size());
  }
  if (name_end == 0) return std::nullopt;
  RecompileHeader header;
  header.co_name = std::string(text.substr(0, name_end));
  // A header with no `in <file>:<line>` (docs/dynamo_text.md, "Recompile blocks") names only
  // the function.
  if (name_end == text.size()) return header;
  if (text.compare(name_end, 4, " in ") != 0) return std::nullopt;
  std::string_view location = text.substr(name_end + 4);
  if (location.empty()) return std::nullopt;
  std::string_view file;
  if (split_file_line(location, &file, &header.co_firstlineno)) {
    header.co_filename = std::string(file);
  } else {
    header.co_filename = std::string(location);
  }
  return header;
}

// The id of the compile a block announces when its header carries none (logging without a
// format, e.g. a notebook's set_logs): Dynamo lists one reason per cache entry of the frame, so
// when the entries named are all of one frame F and are exactly F/0 .. F/N, the new entry is
// F/N+1. Anything less complete decides nothing.
std::optional<CompileId> inferred_compile_id(const DynamoBlock& block) {
  std::vector<bool> seen;
  std::optional<CompileId> frame;
  for (const BlockLine& line : block.lines) {
    std::string_view text = trim(line.text);
    if (!text.starts_with("- ")) continue;
    std::string_view id_text, reason;
    if (!split_compile_id(text.substr(2), &id_text, &reason)) return std::nullopt;
    auto id = CompileId::parse(id_text);
    if (!id || id->frame < 0 || id->compile < 0 || id->attempt != 0) return std::nullopt;
    if (frame && (frame->frame != id->frame || frame->compiled_autograd != id->compiled_autograd))
      return std::nullopt;
    frame = id;
    if (seen.size() <= size_t(id->compile)) seen.resize(id->compile + 1, false);
    seen[id->compile] = true;
  }
  if (!frame) return std::nullopt;
  for (bool s : seen)
    if (!s) return std::nullopt;
  CompileId next = *frame;
  next.compile = int32_t(seen.size());
  return next;
}

// The text of the entry a recompile block's line holds: after its `- ` bullet, or the whole line
// when an era or a paste printed none (docs/dynamo_text.md, "Recompile blocks"): a line that starts
// with a compile id, or the first entry of a block whose header named its function. False when
// the line holds no entry.
bool recompile_entry_text(std::string_view text, bool first, std::string_view* entry) {
  if (text == "-" || text.starts_with("- ")) {
    *entry = text.size() > 2 ? text.substr(2) : std::string_view();
    return true;
  }
  if (!is_bulletless_recompile_entry(text, first)) return false;
  *entry = text;
  return true;
}

// The header phase of a recompile block: the compiled function, whether the recompile was refused
// under set_stance("fail_on_recompile") (its guard failures are logged, but no compile happened),
// and the origin its guard failures carry.
struct BlockHeader {
  RecompileHeader header;
  bool refused = false;
  std::string origin;
};

BlockHeader read_block_header(const DynamoBlock& block, BlockOutput& out) {
  BlockHeader h;
  h.origin = block.artifact == "recompiles_verbose" ? "text_recompiles_verbose" : "text_recompiles";
  if (block.headless) return h;
  std::optional<RecompileHeader> parsed;
  if (auto text = header_text(block.lines[0].text)) {
    parsed = parse_recompile_header(*text);
  } else {
    parsed = parse_fail_on_recompile_header(block.lines[0].text);
    h.refused = is_fail_on_recompile_header(block.lines[0].text);
    if (h.refused) h.origin = "text_fail_on_recompile";
  }
  if (parsed) {
    h.header = std::move(*parsed);
  } else {
    out.note(0, reason::kBadRecompileHeader);
  }
  return h;
}

namespace {

// Reads the entries of one recompile block, line by line: one GuardFailure per entry (a
// multi-line reason extends the entry before it) and one `referenced` compile per distinct old
// id. Lifetime: one block; `block`, `out` and `emitted` outlive it.
class RecompileEntryReader {
 public:
  RecompileEntryReader(const DynamoBlock& block, const RecompileHeader& header, std::string origin,
                       BlockOutput& out, EmittedCompileRefs* emitted)
      : block_(block),
        header_(header),
        origin_(std::move(origin)),
        out_(out),
        emitted_(emitted),
        named_(!header.co_name.empty()) {}

  void read_line(size_t i) {
    std::string_view text = trim(block_.lines[i].text);
    if (text.empty() || text.starts_with(kTriggeredBy)) return;
    if (int32_t g = verbose_group_index(text); g >= 0) {
      group_ = g;
      return;
    }
    std::string_view entry;
    if (!recompile_entry_text(text, named_ && entry_index_ == 0 && !pending_, &entry)) {
      out_.note(i, reason::kBadRecompileLine);
      return;
    }
    if (int32_t g = verbose_group_index(entry); g >= 0) {
      group_ = g;
      return;
    }
    std::string_view id, reason;
    bool has_id = split_compile_id(entry, &id, &reason);
    if (!has_id && ids_printed_ && pending_) {
      // A later line of a multi-line reason (`User stack trace:` and its frames).
      pending_->reason += '\n';
      pending_->reason += rtrim(entry);
      return;
    }
    flush();
    start_entry(block_.lines[i].line_no, has_id, id, has_id ? reason : entry);
  }

  void flush() {
    if (!pending_) return;
    pending_->reason = std::string(rtrim(pending_->reason));
    out_.emit(std::move(*pending_));
    pending_.reset();
  }

 private:
  void start_entry(int64_t line, bool has_id, std::string_view id, std::string_view reason) {
    GuardFailure failure;
    failure.line = line;
    failure.ref = block_.ref;
    failure.entry_index = entry_index_++;
    failure.verbose_group = group_;
    failure.origin = origin_;
    failure.reason = std::string(reason);
    if (has_id) {
      ids_printed_ = true;
      failure.old_compile_id = std::string(id);
      reference(id, line);
    }
    pending_ = std::move(failure);
  }

  // The old compile an entry names, emitted once per block (and once per source when named).
  void reference(std::string_view id, int64_t line) {
    for (const auto& r : referenced_)
      if (r == id) return;
    referenced_.emplace_back(id);
    CompileRef old_ref = block_.ref;
    old_ref.id = *CompileId::parse(id);
    if (!emitted_ || !named_ || emitted_->insert(old_ref))
      out_.emit(make_compile(line, old_ref, "referenced", header_, block_.pid));
  }

  const DynamoBlock& block_;
  const RecompileHeader& header_;
  const std::string origin_;
  BlockOutput& out_;
  EmittedCompileRefs* emitted_;
  const bool named_;
  std::vector<std::string> referenced_;  // distinct old ids of this block
  std::optional<GuardFailure> pending_;  // the entry that continuation lines still extend
  bool ids_printed_ = false;             // era with `<F/C>: ` on each entry
  int32_t group_ = -1;
  int32_t entry_index_ = 0;
};

}  // namespace

void parse_recompile_block(const DynamoBlock& block_in, BlockOutput& out,
                           EmittedCompileRefs* emitted) {
  DynamoBlock block_copy;
  const DynamoBlock* source = &block_in;
  if (!block_in.ref.id.known() && !block_in.headless) {
    if (auto id = inferred_compile_id(block_in)) {
      block_copy = block_in;
      block_copy.ref.id = *id;
      source = &block_copy;
    }
  }
  const DynamoBlock& block = *source;
  BlockHeader read = read_block_header(block, out);
  const RecompileHeader& header = read.header;
  if (!read.refused)
    out.emit(make_compile(block.lines[0].line_no, block.ref, "recompile_block", header, block.pid));
  else
    out.claim();
  // A record without a header (a block whose start is not in the log) names no function: a later
  // block's mention of the compile, which carries one, is still emitted.
  if (emitted && !header.co_name.empty()) emitted->insert(block.ref);

  RecompileEntryReader entries(block, header, read.origin, out, emitted);
  for (size_t i = block.headless ? 0 : 1; i < block.lines.size(); ++i) entries.read_line(i);
  entries.flush();
}

bool parse_recompile_tuple(std::string_view message, const CompileRef& ref, int64_t line_no,
                           EventSink& sink) {
  message = trim(message);
  if (message.empty() || message[0] != '(') return false;
  size_t pos = 1;
  auto first = read_python_string(message, &pos);
  if (!first || message.compare(pos, 2, ", ") != 0) return false;
  pos += 2;
  auto second = read_python_string(message, &pos);
  if (!second || pos + 1 != message.size() || message[pos] != ')') return false;
  if (!std::string_view(*first).starts_with(kHeaderMarker)) return false;
  auto header = parse_recompile_header(std::string_view(*first).substr(kHeaderMarker.size()));
  std::string_view trigger = *second;
  if (!header || !trigger.starts_with(kTriggeredBy)) return false;
  size_t colon = trigger.find(':');
  if (colon == std::string_view::npos) return false;
  std::string_view reason = ltrim(trigger.substr(colon + 1));
  // `report_all_guard_failures` (Oct 2023): a list of the entry's failing guards, kept together as
  // recompiles_verbose joins them (`a; b`) so that the first decides and the rest are counted.
  std::string joined;
  if (reason.starts_with("[")) {
    if (auto items = parse_python_string_sequence(reason)) {
      for (const auto& item : *items) joined += (joined.empty() ? "" : "; ") + item;
      reason = joined;
    }
  }

  sink.emit(make_compile(line_no, ref, "recompile_block", *header));
  GuardFailure failure;
  failure.line = line_no;
  failure.ref = ref;
  failure.reason = std::string(rtrim(reason));
  failure.origin = "text_tuple_2023";
  sink.emit(std::move(failure));
  return true;
}

}  // namespace rcf::ingest
