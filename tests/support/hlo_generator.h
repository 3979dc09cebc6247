// Synthetic HLO text for tests and benchmarks.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace rcf::testing {

// A realistic long-style (`%name`, operand shapes) torch_xla-like module of about `approx_bytes`
// (at least one small module): `HloModule SyncTensorsGraph.<N>` with entry_computation_layout,
// a reducer computation, then an ENTRY computation with parameters, scalar and elided constants
// and elementwise / broadcast / reshape / dot / reduce ops, each with XLA_HLO_DEBUG metadata.
// Deterministic for (module_index, approx_bytes, seed); ends with "}\n".
std::string make_hlo_module_text(int module_index, size_t approx_bytes, uint32_t seed);

}  // namespace rcf::testing
