#include "report/restart_output.h"

#include <fmt/format.h>

#include <cctype>
#include <cmath>
#include <nlohmann/json.hpp>

#include "report/report_text.h"
#include "util/safe_text.h"

namespace rcf::report {
namespace {

using json = nlohmann::ordered_json;
using analysis::Figure;
using analysis::RestartVerdict;
using analysis::RunFigures;
// The headline with its verdict phrase (before the first ':') in capitals, so it stands out.
std::string shout_verdict(const std::string& headline) {
  std::string out = headline;
  size_t colon = out.find(':');
  for (size_t i = 0; i < out.size() && i < colon; ++i)
    out[i] = static_cast<char>(std::toupper(static_cast<unsigned char>(out[i])));
  return out;
}

// Counts print as integers, times (ms) as numbers.
json figure_json(const std::optional<Figure>& f, bool count = false) {
  if (!f) return nullptr;
  json value = count ? json(std::llround(f->value)) : json(f->value);
  return {{"value", value}, {"evidence", f->evidence}};
}

json run_json(const std::string& run, const RunFigures& r) {
  json builds = json::array();
  for (const auto& b : r.builds) {
    if (builds.size() >= kRestartListed) break;
    builds.push_back({{"program_key", b.program_key},
                      {"site", b.site},
                      {"step", b.step ? json(*b.step) : json(nullptr)},
                      {"compile_ms", b.compile_ms ? json(*b.compile_ms) : nullptr},
                      {"where", b.where}});
  }
  auto startup = r.startup_ms();
  return {{"run", run},
          {"programs_built", figure_json(r.programs_built, true)},
          {"programs_loaded", figure_json(r.programs_loaded, true)},
          {"cache_misses", figure_json(r.cache_misses, true)},
          {"deserialize_failures", figure_json(r.deserialize_failures, true)},
          {"cache_writes", figure_json(r.cache_writes, true)},
          {"compile_ms", figure_json(r.compile_ms)},
          {"load_ms", figure_json(r.load_ms)},
          {"startup_ms", startup ? json(*startup) : json(nullptr)},
          {"first_step_ms", figure_json(r.first_step_ms)},
          {"builds", builds},
          {"builds_total", r.builds.size()},
          {"notes", r.notes}};
}

}  // namespace

std::string render_restart_text(const RestartReport& report) {
  const auto& p = report.proof;
  std::string out = fmt::format("== restart proof: lane {}, cold run '{}' -> warm run '{}'\n",
                                safe(report.lane), safe(report.cold_run), safe(report.warm_run));
  out += fmt::format("   {}\n", safe(shout_verdict(p.headline)));
  if (!p.findings.empty()) {
    out += "\n   evidence\n";
    for (const auto& f : p.findings) {
      out += fmt::format("     {}: {}\n", safe(f.what), safe(f.text));
      if (!f.cold_evidence.empty())
        out += fmt::format("         cold: {}\n", safe(f.cold_evidence));
      if (!f.warm_evidence.empty())
        out += fmt::format("         warm: {}\n", safe(f.warm_evidence));
    }
  }
  if (!p.rebuilt.empty()) {
    out += fmt::format("\n   programs rebuilt in the warm run ({})\n", p.rebuilt.size());
    for (size_t i = 0; i < p.rebuilt.size() && i < kRestartListed; ++i) {
      const auto& r = p.rebuilt[i];
      out += fmt::format("     {} at {}{}  [{}]\n", safe(r.build.program_key), safe(r.build.site),
                         r.build.step ? fmt::format(", step {}", *r.build.step) : "",
                         analysis::rebuild_kind_name(r.kind));
      out += fmt::format("         why: {}\n", safe(r.why));
      out += fmt::format("         evidence: {}\n", safe(r.build.where));
    }
    if (p.rebuilt.size() > kRestartListed)
      out += fmt::format(
          "     ... {} more not listed (the compiles view of the warm run has every one)\n",
          p.rebuilt.size() - kRestartListed);
  }
  if (!p.to_enable.empty()) {
    out += "\n   to decide, enable\n";
    for (const auto& e : p.to_enable) out += fmt::format("     - {}\n", safe(e));
  }
  return out;
}

std::string render_restart_json(const RestartReport& report) {
  const auto& p = report.proof;
  json findings = json::array();
  for (const auto& f : p.findings)
    findings.push_back({{"what", f.what},
                        {"text", f.text},
                        {"cold_evidence", f.cold_evidence},
                        {"warm_evidence", f.warm_evidence}});
  json rebuilt = json::array();
  for (const auto& r : p.rebuilt) {
    if (rebuilt.size() >= kRestartListed) break;
    rebuilt.push_back({{"program_key", r.build.program_key},
                       {"site", r.build.site},
                       {"step", r.build.step ? json(*r.build.step) : json(nullptr)},
                       {"kind", analysis::rebuild_kind_name(r.kind)},
                       {"cold_program_key",
                        r.cold_program_key.empty() ? json(nullptr) : json(r.cold_program_key)},
                       {"why", r.why},
                       {"evidence", r.build.where}});
  }
  json j = {{"schema_version", kRestartJsonVersion},
            {"lane", report.lane},
            {"verdict", analysis::restart_verdict_name(p.verdict)},
            {"proven", p.verdict == RestartVerdict::kProven},
            {"headline", p.headline},
            {"cold", run_json(report.cold_run, p.cold)},
            {"warm", run_json(report.warm_run, p.warm)},
            {"findings", findings},
            {"rebuilt", rebuilt},
            {"rebuilt_total", p.rebuilt.size()},
            {"to_enable", p.to_enable}};
  // Sites and evidence come from logs: invalid UTF-8 in them becomes U+FFFD instead of throwing.
  return j.dump(2, ' ', false, json::error_handler_t::replace) + "\n";
}

}  // namespace rcf::report
