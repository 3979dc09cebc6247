// What the runtime reported about a run's compiles besides the compiles themselves: recompile
// limit hits, graph breaks and the reasons CUDA graphs were not used, as plain structs for
// `rcf explain` and the reports. Every text comes from the logs: sanitise it before output.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "store/database.h"

namespace rcf::store {

struct LimitHitRow {
  std::string function, file;  // the frame that hit the limit ("" when not printed)
  std::optional<int64_t> firstlineno;
  std::string limit_type;
  std::optional<int64_t> limit_value;
  std::string last_reason;  // "" when this PyTorch version does not print it
  bool hard_failure = false;
  int64_t frame_id = -1, frame_compile_id = -1;  // frame_id < 0: no compile id in the message
  std::string source;                            // path of the log
  int64_t line = 0;
};

// The run's recompile_limit_hit rows by source and line.
std::vector<LimitHitRow> limit_hits_of_run(Database& db, int64_t run_id);

// The graph_breaks view of a run grouped by user location and break type (or reason).
struct GraphBreakGroupRow {
  std::optional<std::string> user_file;  // nullopt when the log did not say
  std::optional<int64_t> user_line;
  std::string gb_type, reason;  // as printed; either may be ""
  bool sync_signature = false;  // any break of the group looks like a host sync
  int64_t count = 0;            // records
};

std::vector<GraphBreakGroupRow> graph_break_groups_of_run(Database& db, int64_t run_id);

// One cudagraph_skips row (docs/cudagraph_skips.md).
struct CudagraphSkipRow {
  std::string kind, reason;
  std::string program_key;  // the compile's key, else "frame/compile" from the message, else ""
  std::string site;         // "" when the run does not have the compile
  std::string user_file;    // "" when no `Found from :` frame
  std::optional<int64_t> user_line;
  std::string user_function;
  std::string source;  // path of the log
  int64_t line = 0;
};

// The run's rows by source and line.
std::vector<CudagraphSkipRow> cudagraph_skips_of_run(Database& db, int64_t run_id);

}  // namespace rcf::store
