#include "ingest/dynamo/dynamo_limit_warning.h"

#include <vector>

#include "ingest/dynamo/python_literal.h"
#include "ingest/reading/text_util.h"

namespace rcf::ingest {
namespace {

constexpr std::string_view kFailOnRecompileLimitHit = "FailOnRecompileLimitHit: ";

// Text after `torch._dynamo hit ` / `torchdynamo hit `, or nullopt. A header that a wrap cut
// right after `hit` has an empty rest: its limit is on the next line.
std::optional<std::string_view> after_hit(std::string_view message) {
  message = rtrim(message);
  for (std::string_view lead : {"torch._dynamo hit", "torchdynamo hit"}) {
    if (!message.starts_with(lead)) continue;
    if (message.size() == lead.size()) return message.substr(lead.size());
    if (message[lead.size()] == ' ') return message.substr(lead.size() + 1);
  }
  return std::nullopt;
}

// The rest of a header after `hit`: `config.<limit> (<n>)` or the 2022 `recompilation cache
// limit (<n>) ...`.
bool is_limit_header_rest(std::string_view text) {
  return text.starts_with("config.") || text.starts_with("recompilation cache limit");
}

// `**reason**`: Markdown emphasis a reply put around a field's value.
std::string_view without_emphasis(std::string_view text) {
  if (text.size() >= 4 && text.starts_with("**") && text.ends_with("**"))
    return text.substr(2, text.size() - 4);
  return text;
}

// `(<n>)` at the start of `text`; advances past it.
bool read_parenthesized_int(std::string_view* text, int64_t* value) {
  if (text->empty() || (*text)[0] != '(') return false;
  size_t close = text->find(')');
  if (close == std::string_view::npos) return false;
  auto parsed = parse_int64(text->substr(1, close - 1));
  if (!parsed) return false;
  *value = *parsed;
  text->remove_prefix(close + 1);
  return true;
}

// `'<fn>' (<file>:<line>)` (the `function:` line and the May 2022 one-line form).
bool parse_function_location(std::string_view text, RecompileLimitHit* hit) {
  text = trim(text);
  if (text.size() < 2 || text[0] != '\'') return false;
  size_t name_end = text.find("' (", 1);
  if (name_end == std::string_view::npos) return false;
  size_t close = text.find(')', name_end + 3);
  if (close == std::string_view::npos) return false;
  std::string_view file;
  int64_t line = -1;
  if (!split_file_line(text.substr(name_end + 3, close - name_end - 3), &file, &line)) return false;
  hit->function = std::string(text.substr(1, name_end - 1));
  hit->file = std::string(file);
  hit->firstlineno = line;
  return true;
}

GuardFailure reason_failure(int64_t line_no, const CompileRef& ref, int32_t index,
                            std::string_view reason, const char* origin) {
  GuardFailure failure;
  failure.line = line_no;
  failure.ref = ref;
  failure.entry_index = index;
  failure.origin = origin;
  size_t colon = reason.find(':');
  if (colon != std::string_view::npos && colon < 40 && CompileId::parse(reason.substr(0, colon))) {
    failure.old_compile_id = std::string(reason.substr(0, colon));
    reason.remove_prefix(colon + 1);
    if (!reason.empty() && reason[0] == ' ') reason.remove_prefix(1);
  }
  failure.reason = std::string(rtrim(reason));
  return failure;
}

// The 2022 Python list of reasons: one GuardFailure per item; the last item is the last reason.
// A string instead of a list is the one reason.
bool emit_reason_list(std::string_view list, int64_t line_no, const CompileRef& ref,
                      RecompileLimitHit* hit, BlockOutput& out) {
  auto items = parse_python_string_sequence(list);
  // The one-line 2022 form runs on into `to diagnose ...` with no space after the list.
  if (!items) {
    size_t close = list.rfind(']');
    if (close != std::string_view::npos)
      items = parse_python_string_sequence(list.substr(0, close + 1));
  }
  if (!items) {
    // A single reason printed as a string: a Python string literal, or the bare text
    // (docs/dynamo_text.md, "Recompile-limit warnings").
    std::string_view text = trim(list);
    if (text.empty() || text[0] == '[') return false;
    size_t pos = 0;
    auto quoted = read_python_string(text, &pos);
    items = std::vector<std::string>{quoted && pos == text.size() ? *quoted : std::string(text)};
  }
  for (size_t i = 0; i < items->size(); ++i)
    out.emit(reason_failure(line_no, ref, int32_t(i), (*items)[i], "text_reasons_2022"));
  if (!items->empty()) hit->last_reason = std::string(rtrim(items->back()));
  return true;
}

// The hit a limit block describes, at its first line; the block's lines belong to it.
RecompileLimitHit claimed_hit(const DynamoBlock& block, const char* origin, BlockOutput& out) {
  RecompileLimitHit hit;
  hit.line = block.lines[0].line_no;
  hit.ref = block.ref;
  hit.origin = origin;
  out.claim();
  return hit;
}

}  // namespace

bool is_limit_warning_header(std::string_view message) {
  auto rest = after_hit(message);
  return rest && (rest->empty() || is_limit_header_rest(*rest));
}

bool names_limit_warning_field(std::string_view line) {
  std::string_view text = ltrim(line);
  return text.starts_with("To log all recompilation reasons") || is_limit_warning_trailer(text) ||
         starts_limit_warning_fragment(text) || is_limit_header_rest(text);
}

bool is_limit_warning_trailer(std::string_view message) {
  std::string_view text = ltrim(message);
  return text.starts_with("To diagnose recompilation issues") ||
         text.starts_with("to diagnose recompilation issues");
}

bool continues_limit_warning(std::string_view line) {
  std::string_view text = ltrim(line);
  if (text.empty()) return false;
  // Fields are named: a paste that lost the indentation still says which line is which.
  return line[0] == ' ' || names_limit_warning_field(text);
}

bool starts_limit_warning_fragment(std::string_view message) {
  std::string_view text = ltrim(message);
  return text.starts_with("function: '") || text.starts_with("last reason:") ||
         text.starts_with("reasons:");
}

RecompileLimitHit parse_limit_warning(const DynamoBlock& block, BlockOutput& out) {
  RecompileLimitHit hit = claimed_hit(block, "text_limit_warning", out);

  size_t first = 0;
  if (!block.headless) {
    first = 1;
    std::string_view rest = *after_hit(rtrim(block.lines[0].text));
    // A header cut after `hit`: the limit is the next line.
    if (rest.empty() && block.lines.size() > 1 && is_limit_header_rest(trim(block.lines[1].text))) {
      rest = trim(block.lines[1].text);
      first = 2;
    }
    bool ok = false;
    if (rest.starts_with("config.")) {
      rest.remove_prefix(7);
      size_t space = rest.find(' ');
      if (space != std::string_view::npos && space > 0) {
        hit.limit_type = std::string(rest.substr(0, space));
        rest.remove_prefix(space + 1);
        ok = read_parenthesized_int(&rest, &hit.limit_value);
      }
    } else if (constexpr std::string_view kCacheLimit = "recompilation cache limit ";
               rest.starts_with(kCacheLimit)) {
      // May 2022: `recompilation cache limit (2) for function 'f' (f.py:3), due to the following
      // guard failures: [[...], ...]` on one line. (A line cut right after `limit` is not one.)
      rest.remove_prefix(kCacheLimit.size());
      hit.limit_type = "cache_size_limit";
      ok = read_parenthesized_int(&rest, &hit.limit_value);
      constexpr std::string_view kFor = " for function ";
      constexpr std::string_view kDue = ", due to the following guard failures: ";
      size_t due = rest.find(kDue);
      if (ok && rest.starts_with(kFor) && due != std::string_view::npos) {
        ok = parse_function_location(rest.substr(kFor.size(), due - kFor.size()), &hit) &&
             emit_reason_list(rest.substr(due + kDue.size()), hit.line, hit.ref, &hit, out);
      }
    }
    if (!ok) out.note(0, reason::kBadLimitHeader);
  }

  // `last reason:` may go on over the lines after it (a dispatch-key reason, a wrapped one):
  // lines that name no field continue it.
  int64_t reason_line = -1;
  bool in_reason = false;
  for (size_t i = first; i < block.lines.size(); ++i) {
    std::string_view text = trim(block.lines[i].text);
    if (text.empty() || text.starts_with("To log all recompilation reasons") ||
        is_limit_warning_trailer(text)) {
      in_reason = false;
      continue;
    }
    const bool field = starts_limit_warning_fragment(text);
    if (in_reason && !field) {
      hit.last_reason.append(" ").append(without_emphasis(text));
      continue;
    }
    in_reason = false;
    if (text.starts_with("function:")) {
      if (!parse_function_location(without_emphasis(trim(text.substr(9))), &hit))
        out.note(i, reason::kBadLimitFunctionLine);
    } else if (text.starts_with("last reason:")) {
      hit.last_reason = std::string(without_emphasis(ltrim(text.substr(12))));
      reason_line = block.lines[i].line_no;
      in_reason = true;
    } else if (text.starts_with("reasons:")) {
      if (!emit_reason_list(text.substr(8), block.lines[i].line_no, hit.ref, &hit, out))
        out.note(i, reason::kBadReasonsList);
    } else {
      out.note(i, reason::kBadLimitLine);
    }
  }
  if (reason_line >= 0)
    out.emit(reason_failure(reason_line, hit.ref, 0, hit.last_reason, "text_limit_warning"));
  return hit;
}

bool is_unsupported_limit_block(const DynamoBlock& block) {
  return !block.lines.empty() &&
         block.lines[0].text.find("Unsupported: Dynamo recompile limit exceeded") !=
             std::string_view::npos;
}

RecompileLimitHit parse_unsupported_limit(const DynamoBlock& block, BlockOutput& out) {
  RecompileLimitHit hit = claimed_hit(block, "text_unsupported_limit", out);
  constexpr std::string_view kLimitType = "Limit type: ";
  constexpr std::string_view kCurrently = "(currently set to ";
  for (const BlockLine& line : block.lines) {
    std::string_view text = line.text;
    if (size_t at = text.find(kLimitType); at != std::string_view::npos)
      hit.limit_type = std::string(trim(text.substr(at + kLimitType.size())));
    if (size_t at = text.find(kCurrently); at != std::string_view::npos) {
      std::string_view rest = text.substr(at + kCurrently.size());
      if (auto value = parse_int64(rest.substr(0, rest.find(')')))) hit.limit_value = *value;
    }
  }
  return hit;
}

std::optional<RecompileLimitHit> parse_fail_on_recompile_limit(std::string_view text) {
  size_t at = text.find(kFailOnRecompileLimitHit);
  if (at == std::string_view::npos) return std::nullopt;
  std::string_view lead = trim(text.substr(0, at));
  if (!lead.empty() && lead != "torch._dynamo.exc.") return std::nullopt;
  std::string_view rest = text.substr(at + kFailOnRecompileLimitHit.size());
  RecompileLimitHit hit;
  hit.hard_failure = true;
  hit.origin = "text_fail_on_recompile_limit";
  size_t reached = rest.find(" reached");
  if (reached != std::string_view::npos && reached > 0 &&
      rest.substr(0, reached).find(' ') == std::string_view::npos)
    hit.limit_type = std::string(rest.substr(0, reached));
  return hit;
}

}  // namespace rcf::ingest
