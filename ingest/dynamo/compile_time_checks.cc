#include "ingest/dynamo/compile_time_checks.h"

#include "util/plausible.h"

namespace rcf::ingest {

void drop_implausible_times(DynamoCompile& compile, EventSink& sink, int64_t line,
                            std::string_view excerpt) {
  if (compile.duration_ms && !util::plausible_duration_ms(*compile.duration_ms)) {
    sink.note(line, reason::kImplausibleDurationWarning, excerpt);
    compile.duration_ms.reset();
  }
  if (compile.start_time_us &&
      !util::plausible_epoch_s(static_cast<double>(*compile.start_time_us) / 1e6)) {
    sink.note(line, reason::kImplausibleTimestampWarning, excerpt);
    compile.start_time_us.reset();
  }
}

}  // namespace rcf::ingest
