#include "ingest/dynamo/python_literal.h"

namespace rcf::ingest {
namespace {

bool is_literal_space(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

size_t skip_spaces(std::string_view s, size_t pos) {
  while (pos < s.size() && is_literal_space(s[pos])) ++pos;
  return pos;
}

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

void append_utf8(std::string& out, uint32_t cp) {
  if (cp < 0x80) {
    out += char(cp);
  } else if (cp < 0x800) {
    out += char(0xC0 | (cp >> 6));
    out += char(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += char(0xE0 | (cp >> 12));
    out += char(0x80 | ((cp >> 6) & 0x3F));
    out += char(0x80 | (cp & 0x3F));
  } else if (cp < 0x110000) {
    out += char(0xF0 | (cp >> 18));
    out += char(0x80 | ((cp >> 12) & 0x3F));
    out += char(0x80 | ((cp >> 6) & 0x3F));
    out += char(0x80 | (cp & 0x3F));
  }
}

// `\x..`, `\u....`, `\U........` at s[pos] (just after the backslash and the letter); returns the
// code point or -1.
long read_hex_escape(std::string_view s, size_t pos, size_t digits) {
  if (pos + digits > s.size()) return -1;
  long value = 0;
  for (size_t i = 0; i < digits; ++i) {
    int h = hex_value(s[pos + i]);
    if (h < 0) return -1;
    value = value * 16 + h;
  }
  return value;
}

}  // namespace

std::optional<std::string> read_python_string(std::string_view s, size_t* pos) {
  size_t i = *pos;
  bool raw = false;
  while (i < s.size() &&
         (s[i] == 'r' || s[i] == 'R' || s[i] == 'u' || s[i] == 'U' || s[i] == 'b' || s[i] == 'B')) {
    raw = raw || s[i] == 'r' || s[i] == 'R';
    ++i;
  }
  if (i >= s.size() || (s[i] != '\'' && s[i] != '"')) return std::nullopt;
  const char quote = s[i++];
  std::string out;
  while (i < s.size()) {
    char c = s[i];
    if (c == quote) {
      *pos = i + 1;
      return out;
    }
    if (c != '\\' || i + 1 >= s.size()) {
      out += c;
      ++i;
      continue;
    }
    char e = s[i + 1];
    if (raw) {
      out += c;
      out += e;
      i += 2;
      continue;
    }
    i += 2;
    switch (e) {
      case 'n':
        out += '\n';
        break;
      case 't':
        out += '\t';
        break;
      case 'r':
        out += '\r';
        break;
      case '\\':
        out += '\\';
        break;
      case '\'':
        out += '\'';
        break;
      case '"':
        out += '"';
        break;
      case 'x':
      case 'u':
      case 'U': {
        size_t digits = e == 'x' ? 2 : e == 'u' ? 4 : 8;
        long cp = read_hex_escape(s, i, digits);
        if (cp < 0) {
          out += '\\';
          out += e;
        } else {
          append_utf8(out, uint32_t(cp));
          i += digits;
        }
        break;
      }
      default:
        out += '\\';
        out += e;
    }
  }
  return std::nullopt;
}

std::optional<std::vector<std::string>> parse_python_string_sequence(std::string_view s) {
  size_t i = skip_spaces(s, 0);
  size_t end = s.size();
  while (end > i && is_literal_space(s[end - 1])) --end;
  s = s.substr(0, end);
  if (s.substr(i) == "set()") return std::vector<std::string>{};
  if (i >= s.size()) return std::nullopt;
  char open = s[i];
  char close = open == '[' ? ']' : open == '(' ? ')' : open == '{' ? '}' : 0;
  if (!close) return std::nullopt;
  std::vector<std::string> items;
  i = skip_spaces(s, i + 1);
  while (i < s.size() && s[i] != close) {
    if (s.compare(i, 4, "{...") == 0) {
      // `{... 62 more times...}`: 2022 Dynamo elided repeated cache entries.
      i = skip_python_value(s, i);
    } else if (s[i] == '[') {
      // Nested list: one cache entry's failures in the May 2022 limit warning.
      size_t nested_end = skip_python_value(s, i);
      auto nested = parse_python_string_sequence(s.substr(i, nested_end - i));
      if (!nested) return std::nullopt;
      std::string joined;
      for (const auto& item : *nested) {
        if (!joined.empty()) joined += "; ";
        joined += item;
      }
      items.push_back(std::move(joined));
      i = nested_end;
    } else {
      auto item = read_python_string(s, &i);
      if (!item) return std::nullopt;
      items.push_back(std::move(*item));
    }
    i = skip_spaces(s, i);
    if (i < s.size() && s[i] == ',')
      i = skip_spaces(s, i + 1);
    else if (i < s.size() && s[i] != close)
      return std::nullopt;
  }
  if (i + 1 != s.size()) return std::nullopt;  // missing close, or text after it
  return items;
}

size_t skip_python_value(std::string_view s, size_t pos) {
  int depth = 0;
  size_t i = pos;
  while (i < s.size()) {
    char c = s[i];
    if (c == '\'' || c == '"') {
      size_t j = i;
      if (!read_python_string(s, &j)) return s.size();
      i = j;
      continue;
    }
    if (c == '(' || c == '[' || c == '{') {
      ++depth;
    } else if (c == ')' || c == ']' || c == '}') {
      if (depth == 0) return i;
      --depth;
    } else if (c == ',' && depth == 0) {
      return i;
    }
    ++i;
  }
  return s.size();
}

bool python_value_is_cut(std::string_view s) {
  int depth = 0;
  for (size_t i = 0; i < s.size();) {
    const char c = s[i];
    if (c == '\'' || c == '"') {
      size_t j = i;
      if (!read_python_string(s, &j)) return true;
      i = j;
      continue;
    }
    if (c == '(' || c == '[' || c == '{') {
      ++depth;
    } else if ((c == ')' || c == ']' || c == '}') && depth > 0) {
      --depth;
    }
    ++i;
  }
  return depth > 0;
}

std::vector<std::pair<std::string_view, std::string_view>> parse_python_keyword_args(
    std::string_view s, size_t open_paren, bool* closed) {
  std::vector<std::pair<std::string_view, std::string_view>> args;
  *closed = false;
  size_t i = open_paren + 1;
  while (true) {
    i = skip_spaces(s, i);
    if (i >= s.size()) return args;
    if (s[i] == ')') {
      *closed = true;
      return args;
    }
    size_t eq = i;
    while (eq < s.size() && s[eq] != '=' && s[eq] != ',' && s[eq] != ')') ++eq;
    if (eq >= s.size() || s[eq] != '=') return args;
    std::string_view key = s.substr(i, eq - i);
    size_t value_end = skip_python_value(s, eq + 1);
    if (value_end >= s.size()) return args;  // cut off inside this value: drop it
    args.emplace_back(key, s.substr(eq + 1, value_end - eq - 1));
    i = value_end;
    if (s[i] == ',') ++i;
  }
}

}  // namespace rcf::ingest
