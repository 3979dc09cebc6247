// What a paste does to a log's lines (docs/line_framing.md, "Re-flowed lines"), for the tests that
// vary constructed logs: a terminal's hard wrap, a document's word wrap, double spacing, lost
// indentation. Each takes the lines as printed and returns them as pasted.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

namespace rcf::testing {

using LogLines = std::vector<std::string>;
using Reflow = std::function<LogLines(const LogLines&)>;

// A terminal's copy: every line cut at exactly `width` characters.
Reflow hard_wrap(size_t width);
// A document's: broken at the last space before `width`, each rest indented two spaces.
Reflow word_wrap(size_t width);
LogLines double_spaced(const LogLines& lines);
LogLines dedented(const LogLines& lines);

}  // namespace rcf::testing
