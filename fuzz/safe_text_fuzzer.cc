// libFuzzer target: the output sanitiser (util/safe_text.h) that every log-derived text passes
// before a terminal, a CI log or Markdown. The whole input is the hostile text. Invariants beyond
// "no crash": every output is valid UTF-8; field_text writes no control character (so no escape
// sequence and no new line), terminal_text none but LF and tab; the GitHub escapes leave no CR,
// LF or (for properties) ':' and ','; Markdown text is one line with no raw '<', '>', '[', ']',
// "://" or "www."; a code span is one line; sanitising is idempotent for terminal text.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "util/safe_text.h"

namespace {

void fail(const char* what, std::string_view out) {
  std::fprintf(stderr, "rcf fuzz invariant broken: %s (output %zu bytes)\n", what, out.size());
  std::abort();
}

void check_utf8(const char* what, const std::string& out) {
  if (rcf::util::valid_utf8(out) != out) fail(what, out);
}

// No byte below 0x20 other than those in `allowed`, no DEL, no C1 or bidi control characters.
void check_controls(const char* what, const std::string& out, std::string_view allowed) {
  for (size_t i = 0; i < out.size(); ++i) {
    unsigned char c = static_cast<unsigned char>(out[i]);
    if ((c < 0x20 && allowed.find(static_cast<char>(c)) == std::string_view::npos) || c == 0x7f)
      fail(what, out);
  }
  for (size_t i = 0; i < out.size();) {
    uint32_t cp = 0;
    size_t len = rcf::util::decode_utf8(out, i, cp);
    if (len == 0) fail(what, out);
    if (cp >= 0x80 && rcf::util::is_unsafe_char(cp)) fail(what, out);
    i += len;
  }
}

void check_absent(const char* what, const std::string& out, std::string_view needle) {
  if (out.find(needle) != std::string::npos) fail(what, out);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  namespace u = rcf::util;

  std::string field = u::field_text(text);
  check_utf8("field_text utf8", field);
  check_controls("field_text controls", field, "");
  if (u::field_text(u::valid_utf8(text)) != field) fail("field_text after valid_utf8", field);

  std::string terminal = u::terminal_text(text);
  check_utf8("terminal_text utf8", terminal);
  check_controls("terminal_text controls", terminal, "\n\t");
  if (u::terminal_text(terminal) != terminal) fail("terminal_text not idempotent", terminal);

  std::string data_escaped = u::github_data(text);
  check_utf8("github_data utf8", data_escaped);
  check_controls("github_data controls", data_escaped, "");
  std::string property = u::github_property(text);
  check_controls("github_property controls", property, "");
  check_absent("github_property colon", property, ":");
  check_absent("github_property comma", property, ",");

  std::string md = u::markdown_text(text);
  check_utf8("markdown_text utf8", md);
  check_controls("markdown_text controls", md, "");
  for (std::string_view raw : {"<", ">", "://"}) check_absent("markdown_text markup", md, raw);
  for (size_t i = 0; i < md.size(); ++i)
    if ((md[i] == '[' || md[i] == ']' || md[i] == '|') && (i == 0 || md[i - 1] != '\\'))
      fail("markdown_text unescaped bracket", md);
  for (size_t i = md.find("www."); i != std::string::npos; i = md.find("www.", i + 1))
    fail("markdown_text autolink", md);

  std::string code = u::markdown_code(text, true);
  check_utf8("markdown_code utf8", code);
  check_controls("markdown_code controls", code, "");
  return 0;
}
