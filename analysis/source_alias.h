// A source of a run read as the same process as another source of that run, so that each compile
// is counted once (analysis/same_process_sources.h for Dynamo text logs,
// analysis/xla_same_process.h for PT_XLA_DEBUG copies). Recorded in the merged_sources view.
#pragma once

#include <cstdint>
#include <string>

namespace rcf::analysis {

struct SourceAlias {
  int32_t source_id = 0;     // the source read as another's
  int32_t to_source_id = 0;  // the source whose process it describes
  int32_t to_rank = -1;      // Dynamo: the rank its records take
  std::string evidence;      // e.g. "pid 4242, 14 compiles with the same id and function"
};

}  // namespace rcf::analysis
