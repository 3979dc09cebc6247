// The range checks a compile's times pass before they count (docs/bad_input.md): a wall time that
// is negative, not finite or longer than a year, or a start before 2000 or after 2100, is no
// evidence. Shared by the TORCH_TRACE and Dynamo text importers, which read the same
// CompilationMetrics fields.
#pragma once

#include <cstdint>
#include <string_view>

#include "ingest/events.h"

namespace rcf::ingest {

// Drops `compile`'s duration or start time when out of range (util/plausible.h), noting each as a
// warning (`implausible_duration`, `implausible_timestamp`) at `line` with `excerpt`; the compile
// itself is kept.
void drop_implausible_times(DynamoCompile& compile, EventSink& sink, int64_t line,
                            std::string_view excerpt);

}  // namespace rcf::ingest
