// Loads the XLA side of one run into XlaRunInputs (analysis/xla_compiles.h): compile blocks with
// their steps, JAX records, saved graphs, HLO modules, CompileTime samples. The rows come from
// store/xla_row_reader.h; what they mean (a block's step, the run's compile count, which sources
// are copies) is decided here. Memory follows the number of compiles and programs, never the
// number of executions.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "analysis/xla_compiles.h"
#include "store/database.h"
#include "store/run_tables.h"

namespace rcf::analysis {

// A JSON list of {file, line, function} as stored in frames_sid (innermost first).
std::vector<FrameRecord> parse_frames(std::string_view json_text);

// `tables`: which of the run's tables hold rows; the queries of the others are skipped.
XlaRunInputs load_xla_run(store::Database& db, int64_t run_id,
                          const std::vector<std::pair<int64_t, std::string>>& source_names,
                          const store::RunTables& tables = {});

}  // namespace rcf::analysis
