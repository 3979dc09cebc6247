#include "ingest/compile_id.h"

#include <charconv>

namespace rcf::ingest {
namespace {

// Parses a run of decimal digits at `s[i]`; advances `i`. Returns false if none.
bool parse_int(std::string_view s, size_t& i, int32_t& out) {
  size_t start = i;
  while (i < s.size() && s[i] >= '0' && s[i] <= '9') ++i;
  if (i == start || i - start > 9) return false;
  std::from_chars(s.data() + start, s.data() + i, out);
  return true;
}

}  // namespace

std::string CompileId::text_without_attempt() const {
  std::string out;
  if (compiled_autograd >= 0) {
    out = "!" + std::to_string(compiled_autograd);
    if (frame >= 0) out += "/";
  }
  if (frame >= 0) out += std::to_string(frame) + "/" + std::to_string(compile);
  return out;
}

std::string CompileId::text() const {
  std::string out = text_without_attempt();
  if (!out.empty() && attempt > 0) out += "_" + std::to_string(attempt);
  return out;
}

std::optional<CompileId> CompileId::parse(std::string_view s) {
  CompileId id;
  size_t i = 0;
  if (i < s.size() && s[i] == '!') {
    ++i;
    if (!parse_int(s, i, id.compiled_autograd)) return std::nullopt;
    if (i == s.size()) return id;
    if (s[i] != '/') return std::nullopt;
    ++i;
  }
  if (!parse_int(s, i, id.frame)) return std::nullopt;
  if (i >= s.size() || s[i] != '/') return std::nullopt;
  ++i;
  if (!parse_int(s, i, id.compile)) return std::nullopt;
  if (i < s.size() && s[i] == '_') {
    ++i;
    if (!parse_int(s, i, id.attempt)) return std::nullopt;
  }
  if (i != s.size()) return std::nullopt;
  return id;
}

}  // namespace rcf::ingest
