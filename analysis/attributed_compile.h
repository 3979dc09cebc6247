// A canonical compile of a run with its attribution: what analysis writes to compile_event and
// attribution, whatever the runtime (Dynamo, torch_xla, JAX).
#pragma once

#include <compare>
#include <cstdint>
#include <iterator>
#include <optional>
#include <string>
#include <string_view>

namespace rcf::analysis {

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

// Texts of the attribution that decide which remedy a cause group shows (remedy_variant in
// analysis/run_rollup.h): the subject of an alternation, and the phrase a resume function's
// detail carries when the graph break that made it is not a host sync.
inline constexpr std::string_view kSubjectAlternatingPrograms = "alternating programs";
inline constexpr std::string_view kBreakNotAHostSync =
    "the break is not a host sync (.item()/data-dependent) but still splits the graph";

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

}  // namespace rcf::analysis
