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

// Column `col` of the current row as JSON: NULL -> null, integer -> integer, real -> number (a
// non-finite real -> null), text -> string (bytes as they are; dump with error_handler replace),
// blob -> string of its bytes as hex.
nlohmann::ordered_json json_value(const Statement& row, int col);

// Column `col` of the current row as one CSV field: empty for NULL and non-finite reals, text as
// valid UTF-8, quoted (RFC 4180: `"` doubled) when it holds a comma, quote, CR or LF.
std::string csv_field(const Statement& row, int col);
// A text as one CSV field (the header's column names).
std::string csv_text(std::string_view text);

// The JSON type name of a value's storage class, for schema.json: "integer", "number",
// "string", or "null".
std::string_view json_type_name(int sqlite_value_type);

}  // namespace rcf::store
