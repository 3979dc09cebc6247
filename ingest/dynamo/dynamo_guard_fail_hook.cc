#include "ingest/dynamo/dynamo_guard_fail_hook.h"

#include "ingest/dynamo/python_literal.h"
#include "ingest/reading/text_util.h"

namespace rcf::ingest {
namespace {

constexpr std::string_view kGuardFailOpen = "GuardFail(reason=";
constexpr std::string_view kGuardFailCodeObject = "<code object ";

// `<code object NAME at 0xADDR, file "FILE", line N>` at the start of `text`.
void read_guard_fail_code_object(std::string_view text, GuardFailRepr* out) {
  if (!text.starts_with(kGuardFailCodeObject)) return;
  text.remove_prefix(kGuardFailCodeObject.size());
  size_t at = text.find(" at ");
  if (at == std::string_view::npos) return;
  out->co_name = std::string(text.substr(0, at));
  text.remove_prefix(at + 4);
  size_t comma = text.find(',');
  out->code_address = std::string(text.substr(0, comma));
  constexpr std::string_view kFile = ", file \"";
  size_t file = text.find(kFile);
  if (file == std::string_view::npos) return;
  text.remove_prefix(file + kFile.size());
  size_t quote = text.find('"');
  if (quote == std::string_view::npos) return;
  out->co_filename = std::string(text.substr(0, quote));
  constexpr std::string_view kLine = ", line ";
  size_t line = text.find(kLine, quote);
  if (line == std::string_view::npos) return;
  std::string_view digits = text.substr(line + kLine.size());
  size_t end = digits.find_first_not_of("0123456789");
  if (auto n = parse_int64(digits.substr(0, end))) out->co_firstlineno = *n;
}

}  // namespace

bool is_guard_fail_repr(std::string_view text) {
  return ltrim(text).starts_with(kGuardFailOpen);
}

std::optional<GuardFailRepr> parse_guard_fail_repr(std::string_view text) {
  text = trim(text);
  if (!text.starts_with(kGuardFailOpen)) return std::nullopt;
  size_t pos = kGuardFailOpen.size();
  auto reason = read_python_string(text, &pos);
  if (!reason) return std::nullopt;
  GuardFailRepr out;
  out.reason = std::string(rtrim(*reason));
  constexpr std::string_view kOrigCode = ", orig_code=";
  if (text.compare(pos, kOrigCode.size(), kOrigCode) == 0)
    read_guard_fail_code_object(text.substr(pos + kOrigCode.size()), &out);
  return out;
}

bool GuardFailHookReader::read(std::string_view text, int32_t rank, int64_t line_no) {
  auto repr = parse_guard_fail_repr(text);
  if (!repr) return false;
  bool same = !repr->code_address.empty() && repr->code_address == code_address_ && rank == rank_ &&
              line_no == last_line_ + 1;
  CompileRef ref;
  ref.rank = rank;
  if (!same) {
    DynamoCompile compile;
    compile.line = line_no;
    compile.ref = ref;
    compile.kind = "recompile_block";
    compile.co_name = repr->co_name;
    compile.co_filename = repr->co_filename;
    compile.co_firstlineno = repr->co_firstlineno;
    sink_.emit(std::move(compile));
    next_entry_ = 0;
  }
  GuardFailure failure;
  failure.line = line_no;
  failure.ref = ref;
  failure.entry_index = next_entry_++;
  failure.reason = std::move(repr->reason);
  failure.origin = "text_guard_fail_hook";
  sink_.emit(std::move(failure));
  code_address_ = std::move(repr->code_address);
  rank_ = rank;
  last_line_ = line_no;
  return true;
}

}  // namespace rcf::ingest
