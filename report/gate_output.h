// Renders a `rcf gate` result (analysis/gate.h): terminal text, versioned JSON, JUnit XML (one
// testcase per lane x budget), GitHub Actions `::error` annotations and a Markdown job summary.
// Log-derived text (sites, details) is escaped for each target: XML entities and invalid
// characters, workflow-command percent escapes, Markdown table cells.
#pragma once

#include <string>
#include <string_view>

#include "analysis/gate.h"

namespace rcf::report {

inline constexpr int kGateJsonVersion = 1;

std::string render_gate_text(const analysis::GateResult& result);
std::string render_gate_json(const analysis::GateResult& result);
std::string render_gate_junit(const analysis::GateResult& result);
// One `::error` line per violated check (so at most one per lane and budget), with file= and
// line= when the culprit's site names them.
std::string render_gate_annotations(const analysis::GateResult& result);
std::string render_gate_markdown(const analysis::GateResult& result);

// Escapes for XML text and attribute values: util::xml_text (the entity table of
// util/safe_text.h): & < > " ' as entities, tab/CR/LF as character references, other characters
// XML 1.0 forbids and invalid UTF-8 as U+FFFD.
std::string xml_escape(std::string_view text);
// GitHub workflow commands: data escapes % CR LF; properties also : and ,.
std::string github_escape_data(std::string_view text);
std::string github_escape_property(std::string_view text);

}  // namespace rcf::report
