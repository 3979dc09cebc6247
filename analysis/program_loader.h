// Loads what analysis compares between programs (analysis/program_diff.h) from the HLO rows of
// one run (store/hlo_module_queries.h): per HLO module, its entry parameters, constants, op
// histogram and fingerprints. Only modules a compile can link to are loaded (modules embedded in
// saved graphs, and dump modules before optimizations or of unknown stage), so memory follows the
// number of distinct programs; which modules need their constants is decided here.
#pragma once

#include <cstdint>
#include <map>
#include <string_view>

#include "analysis/program_diff.h"
#include "store/database.h"

namespace rcf::analysis {

// hlo_module_id -> program (program_key left empty; has_hlo true).
std::map<int64_t, ProgramView> load_hlo_programs(store::Database& db, int64_t run_id);

// Parses a JAX argument signature ("[ShapedArray(float32[8,128]), ShapedArray(int32[])]", also the
// older "(ShapedArray(...), ...)" wording) into parameters with HLO-style dtypes (f32, s32, ...).
// Returns false when the text holds no ShapedArray (then nothing is comparable).
bool parse_jax_signature(std::string_view signature, std::vector<ProgramParameter>& out);

}  // namespace rcf::analysis
