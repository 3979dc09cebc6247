// Small text pieces shared by the renderings (terminal, HTML, Markdown): one definition each.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace rcf::report {

// Log-derived text in a terminal rendering: one line, control characters shown escaped
// (util::field_text).
std::string safe(const std::string& text);

// "1 compile", "3 compiles".
std::string plural(int64_t n, std::string_view word);

// "shape 4, constant 1": causes by count, most frequent first (ties keep the map's order), each
// cause rendered by `render` (a Markdown code span, say).
std::string causes_text(const std::map<std::string, int64_t>& causes,
                        const std::function<std::string(const std::string&)>& render = {});

// A compile's evidence, one record per line: analysis puts a record that corroborates the
// deciding one (a grab_graphs.py count, a profiler frame) on a line of its own.
std::vector<std::string> evidence_lines(const std::string& evidence);

}  // namespace rcf::report
