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

// An id's text, written into a fixed buffer: four numbers of at most 11 characters and their
// separators (is_text runs for every guard failure of a watched run at every batch: no string
// or format is made for it).
class IdText {
 public:
  IdText(const CompileId& id, bool with_attempt) {
    if (id.compiled_autograd >= 0) {
      put('!');
      put(id.compiled_autograd);
      if (id.frame >= 0) put('/');
    }
    if (id.frame >= 0) {
      put(id.frame);
      put('/');
      put(id.compile);
    }
    if (with_attempt && size_ > 0 && id.attempt > 0) {
      put('_');
      put(id.attempt);
    }
  }
  std::string_view view() const { return {chars_, size_}; }

 private:
  void put(char c) {
    if (size_ < sizeof(chars_)) chars_[size_++] = c;
  }
  void put(int32_t n) {
    size_ =
        static_cast<size_t>(std::to_chars(chars_ + size_, chars_ + sizeof(chars_), n).ptr - chars_);
  }
  char chars_[64];
  size_t size_ = 0;
};

}  // namespace

std::string CompileId::text_without_attempt() const {
  return std::string(IdText(*this, false).view());
}

std::string CompileId::text() const {
  return std::string(IdText(*this, true).view());
}

bool CompileId::is_text(std::string_view s) const {
  return IdText(*this, true).view() == s;
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
