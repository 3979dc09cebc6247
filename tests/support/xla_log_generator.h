// Synthetic PT_XLA_DEBUG_LEVEL=2 logs for tests and the ingest benchmark.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace rcf::testing {

// What make_pt_xla_debug_log wrote, so tests can check an importer's counts.
struct XlaLogStats {
  int64_t lines = 0;
  int64_t execute_blocks = 0;
  int64_t compile_blocks = 0;              // every one followed by a Post Compilation block
  int64_t tensor_value_access_blocks = 0;  // compile blocks with the sync-fragment cause
  int64_t post_compiles = 0;
  int64_t computation_hashes = 0;  // post compiles preceded by `Computation hash:`
  int64_t profiler_notes = 0;      // `pt-xla-profiler: ... too frequent` lines
  int64_t step_markers = 0;        // XLA_EMIT_STEPLOG lines
  int64_t other_lines = 0;         // training output (non-blank)
  int64_t blank_lines = 0;
};

// A realistic level-2 log of about `approx_bytes` (it stops after the first step that reaches
// it): ~95% Execution blocks over a few graph hashes, Compilation blocks (step end and
// tensor_value_access causes) each followed by Post Compilation Analysis, profiler lines, step
// markers and interleaved training output. Deterministic for a given seed.
std::string make_pt_xla_debug_log(size_t approx_bytes, uint32_t seed, XlaLogStats* stats = nullptr);

}  // namespace rcf::testing
