// Whether a run holds evidence: at least one source read as a log in a known format. A run
// without one (no file ingested into it, or only empty, unreadable or unrecognised files) says
// nothing about recompiles: the gate, diff and reports call it "no evidence", never a pass.
#pragma once

#include <cstdint>
#include <string>

#include "store/database.h"

namespace rcf::analysis {

// Why run `run_id` holds no evidence ("no log was ingested into it", "none of its 2 files is a
// log in a known format (empty 1, unrecognized 1)"), or "" when it holds some.
std::string no_evidence_reason(store::Database& db, int64_t run_id);

// What a run read as Dynamo text logs cannot show (docs/dynamo_text.md, "Logs with nothing to
// count"), and which TORCH_LOGS would: "" unless it has a Dynamo text source and nothing that
// shows a frame compiled again (a recompile header, a later compile id, a guard failure, a limit
// hit).
std::string missing_recompile_record(store::Database& db, int64_t run_id);

}  // namespace rcf::analysis
