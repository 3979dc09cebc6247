#include "util/safe_text.h"

#include <algorithm>
#include <cstdio>

namespace rcf::util {
namespace {

constexpr std::string_view kReplacement = "\xEF\xBF\xBD";  // U+FFFD

// Calls f(code point, its bytes) for each character of `text`; a byte that starts no
// well-formed sequence comes as U+FFFD with the replacement's bytes.
template <typename F>
void for_each_char(std::string_view text, F f) {
  for (size_t i = 0; i < text.size();) {
    uint32_t cp = 0;
    size_t len = decode_utf8(text, i, cp);
    if (len == 0) {
      f(uint32_t{0xFFFD}, kReplacement);
      ++i;
      continue;
    }
    f(cp, text.substr(i, len));
    i += len;
  }
}

// Appends `bytes`, or the escape of `cp` when it is unsafe.
void append_safe(std::string& out, uint32_t cp, std::string_view bytes) {
  if (is_unsafe_char(cp))
    out += escaped_char(cp);
  else
    out.append(bytes);
}

bool is_line_break(uint32_t cp) {
  return cp == '\n' || cp == '\r' || cp == '\t';
}

// Text with unsafe characters escaped and each run of CR / LF / tab written as one space (none
// at the start).
std::string one_line(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  bool in_break = false;
  for_each_char(text, [&](uint32_t cp, std::string_view bytes) {
    if (is_line_break(cp)) {
      if (!in_break && !out.empty()) out += ' ';
      in_break = true;
      return;
    }
    in_break = false;
    append_safe(out, cp, bytes);
  });
  return out;
}

// The markups that escape characters as entities, and the one table of their entities.
enum class Markup { kHtml, kXml, kMarkdown };

struct Entity {
  char c;
  std::string_view html, xml, markdown;  // "" = written as it is (or replaced, see callers)
};

constexpr Entity kEntities[] = {
    {'&', "&amp;", "&amp;", "&amp;"}, {'<', "&lt;", "&lt;", "&lt;"}, {'>', "&gt;", "&gt;", "&gt;"},
    {'"', "&quot;", "&quot;", ""},    {'\'', "&#39;", "&apos;", ""}, {'\t', "", "&#9;", ""},
    {'\n', "", "&#10;", ""},          {'\r', "", "&#13;", ""},
};

// The entity of `cp` in `markup`, "" when it has none.
std::string_view entity_of(uint32_t cp, Markup markup) {
  if (cp > '>') return {};  // every character of the table is at most '>'
  for (const Entity& e : kEntities) {
    if (static_cast<uint32_t>(e.c) != cp) continue;
    return markup == Markup::kHtml ? e.html : markup == Markup::kXml ? e.xml : e.markdown;
  }
  return {};
}

bool starts_with_lower(std::string_view s, size_t i, std::string_view prefix) {
  if (s.size() - i < prefix.size()) return false;
  for (size_t k = 0; k < prefix.size(); ++k) {
    char c = s[i + k];
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    if (c != prefix[k]) return false;
  }
  return true;
}

// The Markdown escape of one byte of safe one-line text at `s[i]` (autolinks are broken at their
// "://" and "www."); returns the bytes consumed.
size_t append_markdown(std::string& out, std::string_view s, size_t i) {
  if (s.compare(i, 3, "://") == 0) {
    out += ":&#47;&#47;";
    return 3;
  }
  if (starts_with_lower(s, i, "www.")) {
    out.append(s.substr(i, 3));
    out += "&#46;";
    return 4;
  }
  char c = s[i];
  switch (c) {
    case '\\':
    case '`':
    case '*':
    case '_':
    case '[':
    case ']':
    case '|':
    case '~':
      out += '\\';
      out += c;
      break;
    default:
      if (std::string_view e = entity_of(static_cast<unsigned char>(c), Markup::kMarkdown);
          !e.empty())
        out += e;
      else
        out += c;
  }
  return 1;
}

std::string percent_encoded(std::string_view text, std::string_view specials) {
  std::string out;
  out.reserve(text.size());
  for_each_char(text, [&](uint32_t cp, std::string_view bytes) {
    if (cp < 0x80 && specials.find(static_cast<char>(cp)) != std::string_view::npos) {
      char hex[4];
      std::snprintf(hex, sizeof hex, "%%%02X", static_cast<unsigned>(cp));
      out += hex;
      return;
    }
    append_safe(out, cp, bytes);
  });
  return out;
}

}  // namespace

size_t decode_utf8(std::string_view s, size_t i, uint32_t& cp) {
  unsigned char c = static_cast<unsigned char>(s[i]);
  size_t len = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : (c >> 3) == 0x1E ? 4 : 0;
  if (len == 0 || i + len > s.size()) return 0;
  cp = len == 1 ? c : c & (0x7F >> len);
  for (size_t k = 1; k < len; ++k) {
    unsigned char cc = static_cast<unsigned char>(s[i + k]);
    if ((cc >> 6) != 0x2) return 0;
    cp = (cp << 6) | (cc & 0x3F);
  }
  static const uint32_t kMin[] = {0, 0, 0x80, 0x800, 0x10000};
  if (cp < kMin[len] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
  return len;
}

std::string valid_utf8(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for_each_char(text, [&](uint32_t, std::string_view bytes) { out.append(bytes); });
  return out;
}

bool is_unsafe_char(uint32_t cp) {
  return cp < 0x20 || (cp >= 0x7F && cp <= 0x9F) || cp == 0x2028 || cp == 0x2029 ||
         (cp >= 0x202A && cp <= 0x202E) || (cp >= 0x2066 && cp <= 0x2069);
}

std::string escaped_char(uint32_t cp) {
  if (cp == '\n') return "\\n";
  if (cp == '\r') return "\\r";
  if (cp == '\t') return "\\t";
  char buf[16];
  if (cp < 0x80)
    std::snprintf(buf, sizeof buf, "\\x%02x", static_cast<unsigned>(cp));
  else
    std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned>(cp));
  return buf;
}

std::string field_text(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for_each_char(text, [&](uint32_t cp, std::string_view bytes) { append_safe(out, cp, bytes); });
  return out;
}

std::string terminal_text(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for_each_char(text, [&](uint32_t cp, std::string_view bytes) {
    if (cp == '\n' || cp == '\t')
      out.append(bytes);
    else
      append_safe(out, cp, bytes);
  });
  return out;
}

std::string github_data(std::string_view text) {
  return percent_encoded(text, "%\r\n");
}

std::string github_property(std::string_view text) {
  return percent_encoded(text, "%\r\n:,");
}

std::string markdown_text(std::string_view text) {
  const std::string s = one_line(text);
  std::string out;
  out.reserve(s.size() + 8);
  for (size_t i = 0; i < s.size();) i += append_markdown(out, s, i);
  while (!out.empty() && out.back() == ' ') out.pop_back();
  return out;
}

std::string html_text(std::string_view text) {
  std::string out;
  out.reserve(text.size() + text.size() / 8);
  for_each_char(text, [&](uint32_t cp, std::string_view bytes) {
    if (std::string_view e = entity_of(cp, Markup::kHtml); !e.empty())
      out += e;
    else if (cp != '\t' && cp != '\n' && (cp < 0x20 || cp == 0x7F))
      out += kReplacement;
    else
      out.append(bytes);
  });
  return out;
}

std::string xml_text(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for_each_char(text, [&](uint32_t cp, std::string_view bytes) {
    if (std::string_view e = entity_of(cp, Markup::kXml); !e.empty())
      out += e;
    else if (cp < 0x20 || cp == 0xFFFE || cp == 0xFFFF)
      out += kReplacement;  // not allowed in XML 1.0, even as a reference
    else
      out.append(bytes);
  });
  return out;
}

std::string markdown_code(std::string_view text, bool in_table) {
  std::string s = one_line(text);
  size_t longest = 0, run = 0;
  for (char c : s) {
    run = c == '`' ? run + 1 : 0;
    longest = std::max(longest, run);
  }
  if (s.empty()) return "` `";
  std::string fence(longest + 1, '`');
  bool pad = s.front() == '`' || s.back() == '`';
  std::string body;
  body.reserve(s.size());
  for (char c : s) {
    if (in_table && c == '|') body += '\\';
    body += c;
  }
  return fence + (pad ? " " : "") + body + (pad ? " " : "") + fence;
}

}  // namespace rcf::util
