// Just enough of Python's repr() grammar to read what Dynamo logs print with %s / repr: string
// literals, lists of strings, the `(str, str)` tuple of May 2023 and `Name(key=value, ...)`
// dataclass reprs. Hand-written; never throws.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace rcf::ingest {

// Decodes the string literal starting at `s[*pos]` ('...' or "...", optional r/u/b prefix,
// backslash escapes); advances `*pos` past the closing quote. nullopt if there is none.
std::optional<std::string> read_python_string(std::string_view s, size_t* pos);

// Items of a list / set / tuple repr of strings: `['a', "b"]`, `{'a'}`, `('a', 'b')`, `set()`,
// `[]`. A nested list of strings becomes one item, its strings joined by "; " (the 2022
// `[['___check_tensors(input)'], ...]` form); a `{... N more times...}` elision is skipped.
// nullopt when `s` (trimmed) is anything else.
std::optional<std::vector<std::string>> parse_python_string_sequence(std::string_view s);

// Index just past the Python value starting at `s[pos]`, at the first top-level ',' or closing
// bracket, respecting nested brackets and string literals; s.size() if the value is cut off.
size_t skip_python_value(std::string_view s, size_t pos);

// Whether the repr in `s` was cut before its end: a string literal or a bracket it opened is
// still open at the end of `s`.
bool python_value_is_cut(std::string_view s);

// `key=value` pairs of a dataclass repr whose '(' is at `s[open_paren]`. Views point into `s`;
// values are raw (`'0/0'`, `None`, `{"'x'"}`). `*closed` tells whether the final ')' was seen.
std::vector<std::pair<std::string_view, std::string_view>> parse_python_keyword_args(
    std::string_view s, size_t open_paren, bool* closed);

}  // namespace rcf::ingest
