#include "ingest/steps/compile_line.h"

#include <re2/re2.h>

#include "ingest/compile_id.h"
#include "ingest/dynamo/log_prefix.h"

namespace rcf::ingest {
namespace {

// Python's warnings.formatwarning: `<file>:<lineno>: <Category>: <message>`.
const re2::RE2& warning_header() {
  static const re2::RE2 re(R"(^\s*\S*?(torch/_(?:dynamo|inductor)/\S+?\.py):(\d+): \w*Warning: )");
  return re;
}

bool compile_module_path(std::string_view path) {
  return path.find("torch/_dynamo/") != std::string_view::npos ||
         path.find("torch/_inductor/") != std::string_view::npos;
}

bool compile_logger(std::string_view logger) {
  return logger.rfind("torch._dynamo", 0) == 0 || logger.rfind("torch._inductor", 0) == 0;
}

// `[0/1] ...` at the start of a record's message (the short and bracket-date forms), else "".
std::string_view leading_compile_id(std::string_view message) {
  const size_t close = message.find(']');
  if (message.empty() || message.front() != '[' || close == std::string_view::npos) return {};
  std::string_view id = message.substr(1, close - 1);
  return CompileId::parse(id) ? id : std::string_view{};
}

std::optional<CompileLine> from_record(const LogPrefix& p) {
  CompileLine out;
  if (p.form == PrefixForm::kGlog || p.form == PrefixForm::kTrimmedGlog) {
    if (!compile_module_path(p.path)) return std::nullopt;
    std::string_view path = p.path.substr(p.path.find("torch/_"));
    out.location = std::string(path) + ":" + std::string(p.path_line);
  } else if (p.form == PrefixForm::kShort || p.form == PrefixForm::kBracketDate) {
    if (!compile_logger(p.logger)) return std::nullopt;
    out.location = std::string(p.logger);
  } else {
    return std::nullopt;
  }
  out.compile_id = std::string(p.trace_id.empty() ? leading_compile_id(p.message) : p.trace_id);
  return out;
}

}  // namespace

std::optional<CompileLine> read_compile_line(std::string_view text) {
  if (text.find("torch") == std::string_view::npos) return std::nullopt;  // the common case
  const LogPrefix p = parse_log_prefix(text);
  if (p.form != PrefixForm::kNone) return from_record(p);
  std::string path, line;
  if (!re2::RE2::PartialMatch(re2::StringPiece(p.message.data(), p.message.size()),
                              warning_header(), &path, &line))
    return std::nullopt;
  return CompileLine{path + ":" + line, ""};
}

StepMarker compile_line_marker(int64_t line_no, const CompileLine& c) {
  StepMarker m;
  m.line = line_no;
  m.origin = "compile_line";
  m.shape = c.compile_id.empty() ? c.location : c.location + " [" + c.compile_id + "]";
  return m;
}

}  // namespace rcf::ingest
