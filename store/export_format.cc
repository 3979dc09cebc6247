#include "store/export_format.h"

#include <fmt/format.h>

#include <cmath>

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

}  // namespace

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
  std::string valid = util::valid_utf8(text);
  if (valid.find_first_of(",\"\r\n") == std::string::npos) return valid;
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
