// The rows that tell whether a Dynamo text log and a TORCH_TRACE log of a run are one process
// (docs/dynamo_text.md, "One process, several logs"), as analysis/same_process_sources.h reads
// them: the compiles each log names with their glog pid and compile id. Which pairs are one
// process is decided in analysis/.
//
// The compiles come from the internal dynamo_compile_raw and graph_break tables: the public views
// hold compiles already merged, without the pid or the source format a pair is found by.
#pragma once

#include <cstdint>
#include <functional>
#include <string_view>

#include "store/database.h"

namespace rcf::store {

// Whether the run has both a Dynamo text log and a TORCH_TRACE log: only then is there a pair to
// compare, and a trace of a million compiles alone is not scanned.
bool has_dynamo_text_and_trace_sources(Database& db, int64_t run_id);

// A compile as one log names it. A text log of a run without recompiles may show only graph
// breaks: each names the compile it was traced in, with no function (co_name empty: the break's
// frame may be an inlined one).
struct NamedCompileRow {
  int64_t source_id = 0;
  std::string_view format;  // the source's format: dynamo_text or torch_trace
  int64_t pid = 0;
  int64_t epoch = 0, ca_id = 0, frame_id = 0, frame_compile_id = 0;
  int64_t rank = 0;
  std::string_view co_name;
};

// The named compiles of the run's sources that logged pids: forward and recompile-block records
// of every source, and the graph breaks of text logs. Row by row (a trace can hold a million
// compiles); the string_views are valid during the call only.
void for_each_named_compile(Database& db, int64_t run_id,
                            const std::function<void(const NamedCompileRow&)>& visit);

}  // namespace rcf::store
