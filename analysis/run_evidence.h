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

}  // namespace rcf::analysis
