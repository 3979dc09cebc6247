#include "store/export_format.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "util/safe_text.h"

namespace rcf::store {

namespace {

bool hive_escapes(unsigned char c) {
  if (c < 0x20 || c == 0x7f) return true;
  switch (c) {
    case '"':
    case '#':
    case '%':
    case '\'':
    case '*':
    case '/':
    case ':':
    case '=':
    case '?':
    case '\\':
    case '{':
    case '[':
    case ']':
    case '^':
      return true;
    default:
      return false;
  }
}

std::string hex_bytes(const void* data, int size) {
  std::string out;
  const auto* bytes = static_cast<const unsigned char*>(data);
  for (int i = 0; i < size; ++i) out += fmt::format("{:02x}", bytes[i]);
  return out;
}

// FNV-1a, 64 bits: a short, stable name for a long value (not a security boundary).
uint64_t fnv1a(std::string_view text) {
  uint64_t hash = 0xcbf29ce484222325ull;
  for (unsigned char c : text) hash = (hash ^ c) * 0x100000001b3ull;
  return hash;
}

// The longest prefix of `text` of at most `max` bytes that cuts no %XX escape and no UTF-8
// sequence.
std::string_view whole_prefix(std::string_view text, size_t max) {
  size_t cut = std::min(max, text.size());
  while (cut > 0 && cut < text.size() && (static_cast<unsigned char>(text[cut]) & 0xc0) == 0x80)
    --cut;
  // hive_escape writes every '%' as the start of an escape.
  if (cut >= 1 && text[cut - 1] == '%')
    cut -= 1;
  else if (cut >= 2 && text[cut - 2] == '%')
    cut -= 2;
  return text.substr(0, cut);
}

// A control character as JSON writes it.
std::string json_escape(unsigned char c) {
  switch (c) {
    case '\n':
      return "\\n";
    case '\r':
      return "\\r";
    case '\t':
      return "\\t";
    case '\b':
      return "\\b";
    case '\f':
      return "\\f";
    default:
      return fmt::format("\\u{:04x}", c);
  }
}

bool starts_formula(std::string_view text) {
  return !text.empty() && (text[0] == '=' || text[0] == '+' || text[0] == '-' || text[0] == '@');
}

}  // namespace

std::string partition_dir_name(std::string_view key, std::string_view escaped_value) {
  std::string name = fmt::format("{}={}", key, escaped_value);
  if (name.size() <= kMaxFileNameBytes) return name;
  constexpr size_t kHashPart = 17;  // "~" and 16 hex digits
  const size_t room = kMaxFileNameBytes - key.size() - 1 - kHashPart;
  return fmt::format("{}={}~{:016x}", key, whole_prefix(escaped_value, room), fnv1a(escaped_value));
}

std::string hive_escape(std::string_view value) {
  std::string out;
  for (unsigned char c : util::valid_utf8(value)) {
    if (hive_escapes(c))
      out += fmt::format("%{:02X}", c);
    else
      out += static_cast<char>(c);
  }
  return out;
}

nlohmann::ordered_json json_value(const Statement& row, int col) {
  switch (row.value_type(col)) {
    case SQLITE_INTEGER:
      return row.int64(col);
    case SQLITE_FLOAT: {
      double v = row.real(col);
      return std::isfinite(v) ? nlohmann::ordered_json(v) : nlohmann::ordered_json(nullptr);
    }
    case SQLITE_TEXT:
      return row.str(col);
    case SQLITE_BLOB: {
      std::string_view bytes = row.text(col);
      return hex_bytes(bytes.data(), static_cast<int>(bytes.size()));
    }
    default:
      return nullptr;
  }
}

std::string csv_text(std::string_view text) {
  std::string valid = starts_formula(text) ? "'" : "";
  for (unsigned char c : util::valid_utf8(text))
    valid += c < 0x20 || c == 0x7f ? json_escape(c) : std::string(1, static_cast<char>(c));
  if (valid.find_first_of(",\"") == std::string::npos) return valid;
  std::string out = "\"";
  for (char c : valid) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

std::string csv_field(const Statement& row, int col) {
  switch (row.value_type(col)) {
    case SQLITE_INTEGER:
      return std::to_string(row.int64(col));
    case SQLITE_FLOAT: {
      double v = row.real(col);
      return std::isfinite(v) ? nlohmann::ordered_json(v).dump() : std::string();
    }
    case SQLITE_TEXT:
      return csv_text(row.text(col));
    case SQLITE_BLOB: {
      std::string_view bytes = row.text(col);
      return hex_bytes(bytes.data(), static_cast<int>(bytes.size()));
    }
    default:
      return "";
  }
}

std::string_view json_type_name(int sqlite_value_type) {
  switch (sqlite_value_type) {
    case SQLITE_INTEGER:
      return "integer";
    case SQLITE_FLOAT:
      return "number";
    case SQLITE_TEXT:
    case SQLITE_BLOB:
      return "string";
    default:
      return "null";
  }
}

}  // namespace rcf::store
