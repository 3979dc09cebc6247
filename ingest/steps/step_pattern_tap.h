// `rcf ingest --step-pattern`: a user RE2 pattern applied to every line of every input before
// the format's importer sees it, so step timings can come from any training log.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "ingest/events.h"

namespace re2 {
class RE2;
}

namespace rcf::ingest {

class StepPatternTap {
 public:
  // Returns nullptr and sets *error when the pattern does not compile or lacks a `step` group.
  static std::unique_ptr<StepPatternTap> create(const std::string& pattern, std::string* error);
  ~StepPatternTap();
  // A StepTiming when `line` matches (`step` must parse as a number), else nullopt. A match
  // with a number out of range (util/plausible.h) is no timing either: nullopt, and
  // `*implausible` (when given) names why: `reason::kImplausibleStepRejected`, or the rejected
  // `implausible_duration` or `implausible_timestamp` entry, for the caller to note
  // (docs/reasons.md).
  std::optional<StepTiming> match(std::string_view line, int64_t line_no,
                                  const LineReason** implausible = nullptr) const;

 private:
  StepPatternTap() = default;
  std::unique_ptr<re2::RE2> re_;
  int step_group_ = -1, ms_group_ = -1, compile_group_ = -1, ts_group_ = -1;
};

}  // namespace rcf::ingest
