#include "ingest/compile_id.h"

#include <fmt/format.h>

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

namespace {

void append_text(const CompileId& id, bool with_attempt, fmt::memory_buffer& out) {
  if (id.compiled_autograd >= 0) {
    fmt::format_to(std::back_inserter(out), "!{}", id.compiled_autograd);
    if (id.frame >= 0) out.push_back('/');
  }
  if (id.frame >= 0) fmt::format_to(std::back_inserter(out), "{}/{}", id.frame, id.compile);
  if (with_attempt && out.size() > 0 && id.attempt > 0)
    fmt::format_to(std::back_inserter(out), "_{}", id.attempt);
}

}  // namespace

std::string CompileId::text_without_attempt() const {
  fmt::memory_buffer out;
  append_text(*this, false, out);
  return fmt::to_string(out);
}

std::string CompileId::text() const {
  fmt::memory_buffer out;
  append_text(*this, true, out);
  return fmt::to_string(out);
}

bool CompileId::is_text(std::string_view s) const {
  fmt::memory_buffer out;
  append_text(*this, true, out);
  return std::string_view(out.data(), out.size()) == s;
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
