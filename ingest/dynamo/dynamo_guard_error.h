// Guard failures that are not recompiles (docs/dynamo_text.md, "Guard failures without a
// compile"): a guard that raised while being evaluated (`ERROR RUNNING GUARDS` and its
// traceback), a guard that failed on the frame that had just installed it (`Guard failed on the
// same frame it was created`), and a recompile refused under `set_stance("fail_on_recompile")`
// (its `GuardDebugInfo(... verbose_code_parts=[...])`). Each yields a GuardFailure whose origin
// says which; none yields a compile, so none is counted as a recompile.
#pragma once

#include <cstdint>
#include <string_view>

#include "ingest/events.h"

namespace rcf::ingest {

class GuardErrorReader {
 public:
  explicit GuardErrorReader(EventSink& sink) : sink_(sink) {}
  // Reads one line's text (prefix already removed). True when the line belongs to one of these
  // records (the line is then accounted for: emitted or noted).
  bool read(std::string_view text, int32_t rank, std::string_view line, int64_t line_no);

 private:
  void emit(std::string_view reason, std::string_view old_id, const char* origin, int32_t rank,
            int64_t line_no);

  EventSink& sink_;
  // Line of the open `ERROR RUNNING GUARDS` record, whose exception line ends it; 0 = none.
  int64_t guard_error_line_ = 0;
};

}  // namespace rcf::ingest
