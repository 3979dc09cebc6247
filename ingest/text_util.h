// Small string helpers shared by the Dynamo text-log parsers. All views point into the argument.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace rcf::ingest {

std::string_view ltrim(std::string_view s);  // drops leading spaces, tabs and '\r'
std::string_view rtrim(std::string_view s);  // drops trailing spaces, tabs and '\r'
std::string_view trim(std::string_view s);
bool is_blank(std::string_view s);

// A whole string of decimal digits (optionally '-'); nullopt otherwise or on overflow.
std::optional<int64_t> parse_int64(std::string_view s);
std::optional<double> parse_double(std::string_view s);

// `<file>:<line>` split at the last ':' (Windows drive letters and `<ipython-input-6-x>` keep
// their own colons). False when no digits follow the last ':'.
bool split_file_line(std::string_view location, std::string_view* file, int64_t* line);

}  // namespace rcf::ingest
