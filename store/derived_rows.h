// The rows analysis derives from a run's raw rows, as the derived-results writer takes them
// (store/derived_results_writer.h, store/compile_result_writer.h). Plain data: analysis builds
// them (analysis/attributed_compile.h, analysis/xla_compiles.h and analysis/run_rollup.h name them
// with `using`), the store writes them, so that no SQL runs in analysis/ (docs/architecture.md).
#pragma once

#include <compare>
#include <cstdint>
#include <optional>
#include <string>

namespace rcf::store {

// Identity of a Dynamo compile inside a run. A trace file is one process, so the source is part
// of the identity; rank distinguishes the ranks that share one text log.
// 32-bit ids (compile ids are 32-bit in the logs; a store holds far fewer than 2^31 sources):
// a run holds one key per compile record, reason and graph break.
struct DynamoKey {
  int32_t source_id = 0;
  int32_t rank = -1;
  int32_t epoch = 0;
  int32_t ca_id = -1;
  int32_t frame_id = -1;
  int32_t frame_compile_id = -1;
  int64_t line_if_no_id = 0;  // text logs of eras without compile ids: one compile per block
  auto operator<=>(const DynamoKey&) const = default;
};

// A canonical compile of a run with its attribution: one compile_event row and its attribution
// row, whatever the runtime (Dynamo, torch_xla, JAX).
struct AttributedCompile {
  DynamoKey key;
  int64_t ordinal = 0;
  int64_t attempt = 0;
  int64_t line = 0;
  int64_t rank = -1;  // display rank
  std::string site;
  // The producer's number for `site` (1, 2, ... over a run; 0 when it does not number them): the
  // writer interns, and the rollup hashes, each numbered site once instead of once per compile.
  // Only the Dynamo side numbers its sites, so two sites of a run never share a number.
  uint32_t site_number = 0;
  std::string program_key;
  std::string kind;  // dynamo, dynamo_failed
  std::string cause_reported;
  std::optional<double> compile_ms;
  std::string cache;
  std::string evidence_kind;  // compilation_metrics, recompile_block, referenced
  std::optional<int64_t> start_us;
  std::optional<int64_t> step;  // training step, when the logs give one
  // A resume function's first compile: the compile whose graph break made it. It runs in the
  // same call, so in the same training step, as that compile's break.
  std::optional<DynamoKey> split_from;
  // Links to the program's artifacts (XLA side), when found.
  std::optional<int64_t> hlo_module_id;
  std::optional<int64_t> saved_graph_source_id, saved_graph_line;
  // Attribution.
  std::string cause;
  std::string prev_program_key;
  std::string detail;
  std::string confidence;
  std::string evidence;
  std::string subject;
  std::string primary_reason;
  std::optional<int64_t> primary_reason_sid;  // its strings.string_id when known (else interned)
  int other_reasons = 0;

  bool operator==(const AttributedCompile&) const = default;

  // Back to a default compile, keeping the strings' buffers: a producer that fills one object
  // per compile, and exchanges it with the writer's consumed ones, then allocates nothing for the
  // texts that fit. A copy of a default compile: every field is reset, and a string assigned an
  // empty one keeps its buffer (where moving a default compile in would free it).
  void reset() {
    static const AttributedCompile kDefault;
    *this = kDefault;
  }
};

// One point of a run's convergence curve: a convergence_point row.
struct ConvergencePoint {
  int64_t step = 0;
  int64_t programs_cached = 0;
  int64_t compiles_in_step = 0;
  std::optional<double> compile_ms;  // see convergence_point.compile_ms in sql/schema.sql
  std::optional<double> wall_ms;
  bool operator==(const ConvergencePoint&) const = default;
};

// How many compiles a runtime counter says the run did, whether or not records name them
// (docs/xla_formats.md): a metrics report alone gives a count and nothing else.
struct CountedCompiles {
  int64_t count = 0;
  std::string counted_by;  // "metrics CompileTime TotalSamples at report.txt:3"
};

// A site x cause group of a run's recompiles, ranked for the fix-first list: a cause_group row.
struct CauseGroup {
  std::string site;
  int64_t site_sid = 0;  // strings.string_id of `site` when the builder was told it, else 0
  std::string cause;
  int64_t recompiles = 0;
  std::optional<double> compile_ms_lost;  // NULL when no compile time of the group is known
  std::string compile_ms_basis;           // measured, step_share or unknown
  std::optional<int64_t> first_step, last_step;
  std::string detail;          // detail of the group's latest recompile
  std::string subject;         // most frequent subject (ties: smallest)
  std::string remedy_variant;  // remedy_variant(cause, subject, detail) of analysis/run_rollup.h
  // A compile added after the analysis' checkpoint changed it: the next analysis that goes on
  // from that checkpoint hands it again (analysis/run_rollup.h, RollupBuilder::hand_again).
  bool after_checkpoint = false;
};

}  // namespace rcf::store
