#include "report/gate_output.h"

#include <fmt/format.h>

#include <cstdio>
#include <nlohmann/json.hpp>

#include "util/error.h"
#include "util/safe_text.h"

namespace rcf::report {

using analysis::CheckResult;
using analysis::CheckStatus;
using analysis::GateResult;
using analysis::LaneResult;

namespace {

const char* verdict(const GateResult& r) {
  return r.lacks_evidence() ? "NO EVIDENCE" : r.passed() ? "PASSED" : "FAILED";
}

std::string counts_line(const GateResult& r) {
  int64_t failed_lanes = 0;
  for (const auto& lane : r.lanes) failed_lanes += !lane.passed();
  int64_t total =
      r.count(CheckStatus::kPass) + r.count(CheckStatus::kFail) + r.count(CheckStatus::kSkipped);
  std::string text =
      fmt::format("{} of {} checks violated in {} of {} lane{}", r.count(CheckStatus::kFail), total,
                  failed_lanes, r.lanes.size(), r.lanes.size() == 1 ? "" : "s");
  if (int64_t s = r.count(CheckStatus::kSkipped)) text += fmt::format(", {} skipped", s);
  return text;
}

std::string runs_of(const LaneResult& lane) {
  std::string text;
  for (const auto& run : lane.runs) text += (text.empty() ? "" : ", ") + run;
  return text;
}

std::string value_or_dash(const CheckResult& c, const std::optional<double>& v) {
  return v ? analysis::format_value(c.kind, *v) : "-";
}

nlohmann::ordered_json value_json(const CheckResult& c, const std::optional<double>& v) {
  if (!v) return nullptr;
  if (c.kind == analysis::ValueKind::kShare) return *v;
  return static_cast<int64_t>(*v);
}

nlohmann::ordered_json text_or_null(const std::string& text) {
  return text.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(text);
}

const char* unit_name(analysis::ValueKind kind) {
  switch (kind) {
    case analysis::ValueKind::kCount:
      return "count";
    case analysis::ValueKind::kStep:
      return "step";
    case analysis::ValueKind::kSync:
      return "sync";
    case analysis::ValueKind::kShare:
      return "share";
  }
  return "count";
}

// A Markdown table cell of log-derived text: one line, markup, HTML and links inert.
std::string md_cell(std::string_view text) {
  return util::markdown_text(text);
}

}  // namespace

std::string xml_escape(std::string_view text) {
  return util::xml_text(text);
}

std::string github_escape_data(std::string_view text) {
  return util::github_data(text);
}

std::string github_escape_property(std::string_view text) {
  return util::github_property(text);
}

std::string render_gate_text(const GateResult& r) {
  // Log-derived text (sites, details) goes through field_text: a newline in it never starts a
  // line (which a CI runner could read as a workflow command), control characters show escaped.
  std::string out = fmt::format("rcf gate: {}", util::field_text(r.db));
  if (!r.baseline.empty()) out += fmt::format(" (baseline {})", util::field_text(r.baseline));
  out += "\n";
  for (const auto& lane : r.lanes) {
    out += fmt::format("lane {} (run{} {}): {}\n", util::field_text(lane.lane),
                       lane.runs.size() == 1 ? "" : "s", util::field_text(runs_of(lane)),
                       lane.passed() ? "ok" : "FAIL");
    for (const auto& c : lane.checks) {
      const char* tag = c.status == CheckStatus::kFail   ? "FAIL"
                        : c.status == CheckStatus::kPass ? "ok"
                                                         : "skip";
      out += fmt::format("  {:<4}  {:<28} {}\n", tag, c.budget, util::field_text(c.message()));
    }
  }
  out += fmt::format("gate {}: {}\n", verdict(r), counts_line(r));
  return out;
}

std::string render_gate_json(const GateResult& r) {
  nlohmann::ordered_json doc;
  doc["schema_version"] = kGateJsonVersion;
  doc["db"] = r.db;
  doc["baseline"] = text_or_null(r.baseline);
  doc["passed"] = r.passed();
  doc["counts"] = {{"pass", r.count(CheckStatus::kPass)},
                   {"fail", r.count(CheckStatus::kFail)},
                   {"skipped", r.count(CheckStatus::kSkipped)}};
  doc["lanes"] = nlohmann::ordered_json::array();
  for (const auto& lane : r.lanes) {
    nlohmann::ordered_json l;
    l["lane"] = lane.lane;
    l["runs"] = lane.runs;
    l["passed"] = lane.passed();
    l["checks"] = nlohmann::ordered_json::array();
    for (const auto& c : lane.checks) {
      nlohmann::ordered_json j;
      j["budget"] = c.budget;
      j["status"] = analysis::check_status_name(c.status);
      j["run"] = text_or_null(c.run);
      j["unit"] = unit_name(c.kind);
      j["observed"] = value_json(c, c.observed);
      j["allowed"] = value_json(c, c.allowed);
      j["summary"] = c.summary;
      j["message"] = c.message();
      if (c.culprit) {
        const auto& k = *c.culprit;
        j["top_cause"] = {
            {"cause", k.cause},
            {"site", k.site},
            {"file", text_or_null(k.file)},
            {"line", k.line ? nlohmann::ordered_json(k.line) : nlohmann::ordered_json(nullptr)},
            {"recompiles", k.recompiles},
            {"detail", k.detail}};
      } else {
        j["top_cause"] = nullptr;
      }
      l["checks"].push_back(std::move(j));
    }
    doc["lanes"].push_back(std::move(l));
  }
  // Log-derived text may hold invalid UTF-8: replace it rather than fail.
  return doc.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n";
}

std::string render_gate_junit(const GateResult& r) {
  int64_t tests =
      r.count(CheckStatus::kPass) + r.count(CheckStatus::kFail) + r.count(CheckStatus::kSkipped);
  std::string out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  out += fmt::format(
      "<testsuites name=\"rcf gate\" tests=\"{}\" failures=\"{}\" errors=\"0\" skipped=\"{}\" "
      "time=\"0\">\n",
      tests, r.count(CheckStatus::kFail), r.count(CheckStatus::kSkipped));
  for (const auto& lane : r.lanes) {
    int64_t failures = 0, skips = 0;
    for (const auto& c : lane.checks) {
      failures += c.status == CheckStatus::kFail;
      skips += c.status == CheckStatus::kSkipped;
    }
    out += fmt::format(
        "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{}\" errors=\"0\" skipped=\"{}\" "
        "time=\"0\">\n",
        xml_escape(lane.lane), lane.checks.size(), failures, skips);
    std::string classname = xml_escape("rcf.gate." + lane.lane);
    std::string system_out;
    for (const auto& c : lane.checks) {
      out += fmt::format("    <testcase name=\"{}\" classname=\"{}\" time=\"0\"",
                         xml_escape(c.budget), classname);
      std::string message = c.message();
      system_out +=
          fmt::format("{} {}: {}\n", analysis::check_status_name(c.status), c.budget, message);
      if (c.status == CheckStatus::kPass) {
        out += "/>\n";
      } else if (c.status == CheckStatus::kSkipped) {
        out += fmt::format(">\n      <skipped message=\"{}\"/>\n    </testcase>\n",
                           xml_escape(message));
      } else {
        std::string body = fmt::format("observed {}, allowed {}\n{}", value_or_dash(c, c.observed),
                                       value_or_dash(c, c.allowed), message);
        if (c.culprit)
          body += fmt::format("\ntop cause: {} at {} ({} recompiles)\ndetail: {}", c.culprit->cause,
                              c.culprit->site, c.culprit->recompiles, c.culprit->detail);
        out += fmt::format(
            ">\n      <failure message=\"{}\" type=\"budget_violated\">{}</failure>\n"
            "    </testcase>\n",
            xml_escape(message), xml_escape(body));
      }
    }
    out += fmt::format("    <system-out>{}</system-out>\n", xml_escape(system_out));
    out += "  </testsuite>\n";
  }
  out += "</testsuites>\n";
  return out;
}

std::string render_gate_annotations(const GateResult& r) {
  std::string out;
  for (const auto& lane : r.lanes) {
    for (const auto& c : lane.checks) {
      if (c.status != CheckStatus::kFail) continue;
      std::string props;
      if (c.culprit && !c.culprit->file.empty()) {
        props += "file=" + github_escape_property(c.culprit->file);
        if (c.culprit->line > 0) props += fmt::format(",line={}", c.culprit->line);
        props += ",";
      }
      props +=
          "title=" + github_escape_property(fmt::format("rcf gate {}: {}", lane.lane, c.budget));
      out += fmt::format("::error {}::{}\n", props, github_escape_data(c.message()));
    }
  }
  return out;
}

std::string render_gate_markdown(const GateResult& r) {
  std::string out = fmt::format("## rcf gate: {}\n\n", verdict(r));
  out += md_cell(counts_line(r)) + fmt::format(" (database {}", util::markdown_code(r.db, false));
  if (!r.baseline.empty()) out += fmt::format(", baseline {}", md_cell(r.baseline));
  out += ").\n\n";
  out += "| lane | budget | result | observed | allowed | details |\n";
  out += "|---|---|---|---|---|---|\n";
  for (const auto& lane : r.lanes) {
    for (const auto& c : lane.checks) {
      const char* result = c.status == CheckStatus::kFail   ? "**FAIL**"
                           : c.status == CheckStatus::kPass ? "pass"
                                                            : "skipped";
      // The budget name is rcf's own vocabulary (max_programs, forbid_cause:constant), not log
      // text.
      out += fmt::format("| {} | {} | {} | {} | {} | {} |\n", md_cell(lane.lane), c.budget, result,
                         md_cell(value_or_dash(c, c.observed)),
                         md_cell(value_or_dash(c, c.allowed)), md_cell(c.message()));
    }
  }
  out += "\n";
  return out;
}

}  // namespace rcf::report
