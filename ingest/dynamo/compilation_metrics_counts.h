// The integer counts a CompilationMetrics record carries under the same names in each of its
// forms (TORCH_TRACE JSON, ingest/torch_trace/torch_trace_compiles.h; the Python repr text logs
// print, ingest/dynamo/compilation_metrics_repr.h): one table, so that both readers read the same
// counts.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "ingest/events.h"

namespace rcf::ingest {

// The DynamoCompile member a count named `key` goes to; nullptr for any other key.
std::optional<int64_t> DynamoCompile::*compilation_metrics_count(std::string_view key);

}  // namespace rcf::ingest
