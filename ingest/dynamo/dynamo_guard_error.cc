#include "ingest/dynamo/dynamo_guard_error.h"

#include <cctype>
#include <string>

#include "ingest/compile_id.h"
#include "ingest/dynamo/python_literal.h"
#include "ingest/reading/text_util.h"

namespace rcf::ingest {
namespace {

// The traceback of a guard that raised is bounded; a record longer than this was cut.
constexpr int64_t kMaxGuardErrorLines = 400;

constexpr std::string_view kErrorRunningGuards = "ERROR RUNNING GUARDS ";
constexpr std::string_view kSameFrame = "Guard failed on the same frame it was created";
constexpr std::string_view kGuardFailReason = "Guard fail reason: ";
constexpr std::string_view kVerboseCodeParts = "verbose_code_parts=";

// `KeyError: 'b'`, `AttributeError: 'A' object has no attribute 'a'`: the line that ends a
// Python traceback (an exception class name, then `: ` or the end).
bool is_exception_line(std::string_view text) {
  size_t i = 0;
  while (i < text.size() &&
         (isalnum(static_cast<unsigned char>(text[i])) || text[i] == '_' || text[i] == '.'))
    ++i;
  std::string_view name = text.substr(0, i);
  bool named = name.ends_with("Error") || name.ends_with("Exception");
  return named && (i == text.size() || text[i] == ':');
}

}  // namespace

void GuardErrorReader::emit(std::string_view reason, std::string_view old_id, const char* origin,
                            int32_t rank, int64_t line_no) {
  GuardFailure failure;
  failure.line = line_no;
  failure.ref.rank = rank;
  failure.old_compile_id = std::string(old_id);
  failure.reason = std::string(rtrim(reason));
  failure.origin = origin;
  sink_.emit(std::move(failure));
}

bool GuardErrorReader::read(std::string_view text, int32_t rank, std::string_view line,
                            int64_t line_no) {
  text = ltrim(text);
  // Runs on every line no other record took: dispatch on the first byte of the records it reads.
  if (guard_error_line_ == 0 &&
      (text.empty() || (text[0] != 'E' && text[0] != 'A' && text[0] != 'G' && text[0] != 'v')))
    return false;
  if (text.starts_with(kErrorRunningGuards)) {
    guard_error_line_ = line_no;
    sink_.note(line_no, reason::kGuardEvalErrorContext, line);
    return true;
  }
  if (guard_error_line_ > 0) {
    if (line_no - guard_error_line_ > kMaxGuardErrorLines) {
      guard_error_line_ = 0;
    } else if (is_exception_line(text)) {
      guard_error_line_ = 0;
      emit(text, "", "text_guard_eval_error", rank, line_no);
      return true;
    } else {
      sink_.note(line_no, reason::kGuardEvalErrorContext, line);
      return true;
    }
  }
  // Checked by prefix, not searched for: this runs on every line no other record took.
  if (text.starts_with("AssertionError: ") && text.substr(16).starts_with(kSameFrame)) {
    sink_.note(line_no, reason::kGuardSanityContext, line);
    return true;
  }
  if (text.starts_with(kGuardFailReason)) {
    std::string_view reason = text.substr(kGuardFailReason.size());
    std::string_view old_id;
    size_t colon = reason.find(": ");
    if (colon != std::string_view::npos && CompileId::parse(reason.substr(0, colon))) {
      old_id = reason.substr(0, colon);
      reason.remove_prefix(colon + 2);
    }
    emit(reason, old_id, "text_guard_sanity", rank, line_no);
    return true;
  }
  if (text.starts_with(kVerboseCodeParts)) {
    std::string_view list = rtrim(text.substr(kVerboseCodeParts.size()));
    if (list.ends_with(",")) list.remove_suffix(1);
    auto items = parse_python_string_sequence(list);
    if (!items || items->empty()) {
      sink_.note(line_no, reason::kBadVerboseCodeParts, line);
      return true;
    }
    std::string joined;
    for (const auto& item : *items) joined += (joined.empty() ? "" : "; ") + item;
    emit(joined, "", "text_fail_on_recompile", rank, line_no);
    return true;
  }
  return false;
}

}  // namespace rcf::ingest
