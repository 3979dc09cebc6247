// How `rcf export` writes one value (docs/export.md): Hive partition directory names, NDJSON
// values and RFC 4180 CSV fields.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "store/database.h"

namespace rcf::store {

// Hive's name for a partition whose value is NULL.
inline constexpr std::string_view kHiveNullPartition = "__HIVE_DEFAULT_PARTITION__";

// `value` as a Hive partition directory value: valid UTF-8, with control characters, DEL and the
// characters Hive escapes (`"#%'*/:=?\{[]^`) written %XX (upper-case hex), as Hive's
// FileUtils.escapePathName does; other characters as they are.
std::string hive_escape(std::string_view value);

// A file name may hold 255 bytes (NAME_MAX on Linux, macOS and Windows file systems).
inline constexpr size_t kMaxFileNameBytes = 255;

// The partition directory name `KEY=VALUE` for an escaped value (hive_escape). One that would
// pass kMaxFileNameBytes is cut (never inside a %XX escape or a UTF-8 sequence) and ends with `~`
// and 16 hex digits of a hash of the whole escaped value: the same name on every export, and two
// long values that share the prefix stay apart. schema.json records each such name's value.
std::string partition_dir_name(std::string_view key, std::string_view escaped_value);

// Column `col` of the current row as JSON: NULL -> null, integer -> integer, real -> number (a
// non-finite real -> null), text -> string (bytes as they are; dump with error_handler replace),
// blob -> string of its bytes as hex.
nlohmann::ordered_json json_value(const Statement& row, int col);

// Column `col` of the current row as one CSV field: empty for NULL and non-finite reals, text as
// valid UTF-8, quoted (RFC 4180: `"` doubled) when it holds a comma or a quote. A text is inert
// in a spreadsheet: control characters (C0, DEL) are written as JSON escapes, as the NDJSON
// export writes them (`\n`, `\t`, `\u001b`), and a text that starts with `=`, `+`, `-` or `@`
// (a formula to Excel, LibreOffice and Google Sheets) gets a leading `'`.
std::string csv_field(const Statement& row, int col);
// A text as one CSV field (the header's column names).
std::string csv_text(std::string_view text);

// The JSON type name of a value's storage class, for schema.json: "integer", "number",
// "string", or "null".
std::string_view json_type_name(int sqlite_value_type);

}  // namespace rcf::store
