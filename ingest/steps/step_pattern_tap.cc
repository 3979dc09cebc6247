#include "ingest/steps/step_pattern_tap.h"

#include <re2/re2.h>

#include <vector>

#include "ingest/reading/text_util.h"
#include "ingest/steps/step_timing_importer.h"
#include "util/plausible.h"

namespace rcf::ingest {
namespace {

// Why a matched step number is no step (util/plausible.h), or nullptr. Judged on the double:
// converting one outside int64_t's range (`1e30`, `nan`) would be undefined.
const LineReason* implausible_step_number_reason(double step) {
  if (step >= 0 && step <= static_cast<double>(util::kMaxId)) return nullptr;
  return &reason::kImplausibleStepRejected;
}

}  // namespace

std::unique_ptr<StepPatternTap> StepPatternTap::create(const std::string& pattern,
                                                       std::string* error) {
  std::unique_ptr<StepPatternTap> tap(new StepPatternTap());
  tap->re_ = std::make_unique<re2::RE2>(pattern, re2::RE2::Quiet);
  if (!tap->re_->ok()) {
    *error = "--step-pattern does not compile: " + tap->re_->error();
    return nullptr;
  }
  const auto& groups = tap->re_->NamedCapturingGroups();
  auto index = [&](const char* name) {
    auto it = groups.find(name);
    return it == groups.end() ? -1 : it->second;
  };
  tap->step_group_ = index("step");
  tap->ms_group_ = index("ms");
  tap->compile_group_ = index("compile_ms");
  tap->ts_group_ = index("ts");
  if (tap->step_group_ < 0) {
    *error = "--step-pattern needs a named group (?P<step>...) (optional: ms, compile_ms, ts)";
    return nullptr;
  }
  return tap;
}

StepPatternTap::~StepPatternTap() = default;

std::optional<StepTiming> StepPatternTap::match(std::string_view line, int64_t line_no,
                                                const LineReason** implausible) const {
  int groups = re_->NumberOfCapturingGroups() + 1;
  std::vector<re2::StringPiece> m(groups);
  if (!re_->Match(re2::StringPiece(line.data(), line.size()), 0, line.size(), re2::RE2::UNANCHORED,
                  m.data(), groups))
    return std::nullopt;
  auto group = [&](int i) -> std::optional<double> {
    if (i < 0 || m[i].data() == nullptr) return std::nullopt;
    return parse_double(std::string_view(m[i].data(), m[i].size()));
  };
  auto step = group(step_group_);
  if (!step) return std::nullopt;
  const LineReason* why = implausible_step_number_reason(*step);
  StepTiming t;
  t.line = line_no;
  if (!why) {
    t.step = static_cast<int64_t>(*step);
    t.wall_ms = group(ms_group_);
    t.compile_ms = group(compile_group_);
    t.timestamp_s = group(ts_group_);
    why = implausible_step_timing_reason(t);
  }
  if (!why) return t;
  if (implausible) *implausible = why;
  return std::nullopt;
}

}  // namespace rcf::ingest
