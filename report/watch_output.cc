#include "report/watch_output.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "util/safe_text.h"

namespace rcf::report {

std::string render_alert_text(const analysis::Alert& a, const std::string& lane,
                              const std::string& run) {
  std::string text = fmt::format("[{}] {}/{}", analysis::alert_kind_name(a.kind),
                                 util::field_text(lane), util::field_text(run));
  if (a.step) text += fmt::format(" step {}", *a.step);
  if (!a.site.empty()) text += " at " + util::field_text(a.site);
  text += ": ";
  if (!a.cause.empty()) text += util::field_text(a.cause) + ": ";
  text += util::field_text(a.detail);
  if (!a.source.empty()) text += fmt::format(" ({}:{})", util::field_text(a.source), a.line);
  return text + "\n";
}

std::string render_alert_json(const analysis::Alert& a, const std::string& lane,
                              const std::string& run) {
  nlohmann::ordered_json doc = {
      {"kind", analysis::alert_kind_name(a.kind)},
      {"lane", lane},
      {"run", run},
      {"step", a.step ? nlohmann::ordered_json(*a.step) : nlohmann::ordered_json(nullptr)},
      {"site", a.site},
      {"cause", a.cause},
      {"detail", a.detail},
      {"source", a.source},
      {"line", a.source.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(a.line)},
  };
  return doc.dump(-1, ' ', /*ensure_ascii=*/true,
                  nlohmann::ordered_json::error_handler_t::replace) +
         "\n";
}

std::string render_watch_status(const analysis::RunStatus& s, const std::string& lane,
                                const std::string& run) {
  std::string text = fmt::format("{}/{}: {} program{}, {} recompile{}", util::field_text(lane),
                                 util::field_text(run), s.programs, s.programs == 1 ? "" : "s",
                                 s.recompiles, s.recompiles == 1 ? "" : "s");
  if (s.last_step) text += fmt::format(", step {}", *s.last_step);
  if (s.recent_compile_share)
    text += fmt::format(", compile share {:.0f} % (recent steps)", *s.recent_compile_share * 100);
  if (!s.last_cause.empty()) text += ", last cause " + util::field_text(s.last_cause);
  return text;
}

}  // namespace rcf::report
