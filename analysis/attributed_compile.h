// A canonical compile of a run with its attribution, whatever the runtime (Dynamo, torch_xla,
// JAX): what analysis hands to the store's compile writer (store/compile_result_writer.h).
#pragma once

#include <string_view>

#include "store/derived_rows.h"

namespace rcf::analysis {

// Plain rows, defined where the store writes them (store/derived_rows.h).
using DynamoKey = store::DynamoKey;
using AttributedCompile = store::AttributedCompile;

// Texts of the attribution that decide which remedy a cause group shows (remedy_variant in
// analysis/run_rollup.h): the subject of an alternation, and the phrase a resume function's
// detail carries when the graph break that made it is not a host sync.
inline constexpr std::string_view kSubjectAlternatingPrograms = "alternating programs";
inline constexpr std::string_view kBreakNotAHostSync =
    "the break is not a host sync (.item()/data-dependent) but still splits the graph";

}  // namespace rcf::analysis
