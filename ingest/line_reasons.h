// The catalogue of line-note reasons, in the manner of Perfetto's `stats.h`: every reason an
// importer can note for a line that did not become (part of) an event is one entry of
// RCF_LINE_REASONS, with the fate it is noted under and its snake_case name, the text stored in
// `line_note` and `rejected_line`. docs/reasons.md has one row per name, saying what it means;
// tests/reason_catalogue_test.cc checks the two against each other and fails on a reason passed
// to a note as a string literal.
//
// A reason noted under two fates (`json_too_deep`: a rejected envelope, a warned payload) has one
// entry per fate, the fate ending its identifier. An entry whose name ends in `_*` is a family
// whose names are composed at run time from its stem and tokens (`wrapper_reply_quote`,
// ingest/reading/line_frame.h): `family_stem` gives the stem.
#pragma once

#include <cstddef>
#include <iterator>
#include <span>
#include <string_view>

namespace rcf::ingest {

// What happened to an input line that did not become (part of) an event.
enum class LineFate {
  kSkipped,   // understood and irrelevant (other loggers, user prints, blank lines, ...)
  kRejected,  // malformed: counted with file:line and reason; ingestion continues
  kWarning,   // the record was used but something was off (MD5 mismatch, truncated block)
  kFramed,    // read after line framing removed a wrapper or glue (ingest/reading/line_frame.h);
              // counted per reason, apart from the fates that add up to the lines
};

// The fate's name as stored in `line_note.fate`: "skipped", "rejected", "warning", "framed".
constexpr std::string_view fate_name(LineFate fate) {
  switch (fate) {
    case LineFate::kSkipped:
      return "skipped";
    case LineFate::kRejected:
      return "rejected";
    case LineFate::kFramed:
      return "framed";
    case LineFate::kWarning:
      break;
  }
  return "warning";
}

// F(identifier, fate, name), grouped as docs/reasons.md is.
#define RCF_LINE_REASONS(F)                                               \
  /* Any format: reading and framing */                                   \
  F(kLineTooLong, kRejected, "line_too_long")                             \
  F(kReadError, kWarning, "read_error")                                   \
  F(kNoFinalNewline, kWarning, "no_final_newline")                        \
  F(kUnrecognizedFormat, kSkipped, "unrecognized_format")                 \
  F(kGluedText, kFramed, "glued_text")                                    \
  F(kWrapperFamily, kFramed, "wrapper_*")                                 \
  F(kRejoinedHardWrap, kFramed, "rejoined_hard_wrap")                     \
  F(kRejoinedWordWrap, kFramed, "rejoined_word_wrap")                     \
  F(kRejoinedCutRecord, kFramed, "rejoined_cut_record")                   \
  F(kRejoinedPrefixLine, kFramed, "rejoined_prefix_line")                 \
  /* TORCH_TRACE */                                                       \
  F(kBlank, kSkipped, "blank")                                            \
  F(kNoGlogPrefix, kRejected, "no_glog_prefix")                           \
  F(kBadJson, kRejected, "bad_json")                                      \
  F(kJsonTooDeepRejected, kRejected, "json_too_deep")                     \
  F(kJsonTooDeepWarning, kWarning, "json_too_deep")                       \
  F(kOrphanPayload, kRejected, "orphan_payload")                          \
  F(kPayloadOfRejectedRecord, kSkipped, "payload_of_rejected_record")     \
  F(kUnknownEvent, kSkipped, "unknown_event")                             \
  F(kPayloadMd5Mismatch, kWarning, "payload_md5_mismatch")                \
  F(kPayloadTooLarge, kWarning, "payload_too_large")                      \
  F(kBadPayloadJsonWarning, kWarning, "bad_payload_json")                 \
  F(kBadPayloadJsonRejected, kRejected, "bad_payload_json")               \
  F(kBadGuardsJson, kWarning, "bad_guards_json")                          \
  F(kCompileIdMismatch, kWarning, "compile_id_mismatch")                  \
  F(kTruncatedCompile, kWarning, "truncated_compile")                     \
  F(kInternalError, kWarning, "internal_error")                           \
  /* Dynamo text */                                                       \
  F(kOtherLogger, kSkipped, "other_logger")                               \
  F(kUnprefixedText, kSkipped, "unprefixed_text")                         \
  F(kUnusedDynamoMessage, kSkipped, "unused_dynamo_message")              \
  F(kBlockTooLong, kRejected, "block_too_long")                           \
  F(kTruncatedBlock, kWarning, "truncated_block")                         \
  F(kBadRecompileHeader, kRejected, "bad_recompile_header")               \
  F(kBadRecompileLine, kRejected, "bad_recompile_line")                   \
  F(kBadRecompileTuple, kRejected, "bad_recompile_tuple")                 \
  F(kBadGuardFailRepr, kRejected, "bad_guard_fail_repr")                  \
  F(kBadLimitHeader, kRejected, "bad_limit_header")                       \
  F(kBadLimitFunctionLine, kRejected, "bad_limit_function_line")          \
  F(kBadReasonsList, kRejected, "bad_reasons_list")                       \
  F(kBadLimitLine, kRejected, "bad_limit_line")                           \
  F(kBadGraphBreakLocation, kRejected, "bad_graph_break_location")        \
  F(kBadCompilationMetrics, kRejected, "bad_compilation_metrics")         \
  F(kBadCompileTimesRow, kRejected, "bad_compile_times_row")              \
  F(kEmptyCompileTimes, kSkipped, "empty_compile_times")                  \
  F(kBadCompileProfilerRow, kRejected, "bad_compile_profiler_row")        \
  F(kEmptyCompileProfilerTable, kSkipped, "empty_compile_profiler_table") \
  F(kExplainWithoutBreaks, kSkipped, "explain_without_breaks")            \
  F(kBadCudagraphSkip, kRejected, "bad_cudagraph_skip")                   \
  F(kCudagraphPartitionSummary, kSkipped, "cudagraph_partition_summary")  \
  F(kGuardEvalErrorContext, kSkipped, "guard_eval_error_context")         \
  F(kGuardSanityContext, kSkipped, "guard_sanity_context")                \
  F(kBadVerboseCodeParts, kRejected, "bad_verbose_code_parts")            \
  F(kGuardDumpStructure, kSkipped, "guard_dump_structure")                \
  /* PT_XLA_DEBUG */                                                      \
  F(kOtherOutput, kSkipped, "other_output")                               \
  F(kGluedOutput, kWarning, "glued_output")                               \
  F(kHeadlessBlock, kWarning, "headless_block")                           \
  F(kUnexpectedBlockLine, kRejected, "unexpected_block_line")             \
  F(kLineAfterBlockEnd, kRejected, "line_after_block_end")                \
  F(kExtraCauseLine, kRejected, "extra_cause_line")                       \
  F(kBadFrame, kRejected, "bad_frame")                                    \
  F(kBadGraphHash, kRejected, "bad_graph_hash")                           \
  F(kBadCount, kRejected, "bad_count")                                    \
  F(kBadSize, kRejected, "bad_size")                                      \
  F(kBadComputationHash, kRejected, "bad_computation_hash")               \
  F(kBadProfilerLine, kRejected, "bad_profiler_line")                     \
  F(kUnknownProfilerMessage, kRejected, "unknown_profiler_message")       \
  F(kSummaryDecoration, kSkipped, "summary_decoration")                   \
  F(kUnexpectedSummaryLine, kRejected, "unexpected_summary_line")         \
  F(kBadFrameCount, kWarning, "bad_frame_count")                          \
  /* XLA metrics reports */                                               \
  F(kBadStepHeader, kRejected, "bad_step_header")                         \
  F(kBadBlockName, kRejected, "bad_block_name")                           \
  F(kUnknownField, kRejected, "unknown_field")                            \
  F(kOrphanField, kSkipped, "orphan_field")                               \
  F(kFieldOfOtherKind, kRejected, "field_of_other_kind")                  \
  F(kBadMetricValue, kRejected, "bad_metric_value")                       \
  /* Saved graphs */                                                      \
  F(kUnknownGraphFormat, kRejected, "unknown_graph_format")               \
  F(kBadHashes, kRejected, "bad_hashes")                                  \
  F(kTooManyFrames, kRejected, "too_many_frames")                         \
  F(kBadHloLine, kRejected, "bad_hlo_line")                               \
  F(kBadIrLine, kRejected, "bad_ir_line")                                 \
  F(kGraphTrailerWithoutBlock, kRejected, "graph_trailer_without_block")  \
  F(kGrabGraphsSummary, kSkipped, "grab_graphs_summary")                  \
  /* HLO text and dump listings */                                        \
  F(kNotHlo, kSkipped, "not_hlo")                                         \
  F(kBadInstruction, kRejected, "bad_instruction")                        \
  F(kBadComputationHeader, kRejected, "bad_computation_header")           \
  F(kUnexpectedText, kRejected, "unexpected_text")                        \
  F(kTruncatedModule, kWarning, "truncated_module")                       \
  F(kNotDumpFileName, kSkipped, "not_dump_file_name")                     \
  /* torch_xla VLOG lines */                                              \
  F(kOtherVlogMessage, kSkipped, "other_vlog_message")                    \
  F(kBadVlogGraphLine, kRejected, "bad_vlog_graph_line")                  \
  F(kDeviceBarrier, kSkipped, "device_barrier")                           \
  F(kExecuteDone, kSkipped, "execute_done")                               \
  F(kCompileNotFinished, kWarning, "compile_not_finished")                \
  /* JAX */                                                               \
  F(kOtherJaxMessage, kSkipped, "other_jax_message")                      \
  F(kPytestNoise, kSkipped, "pytest_noise")                               \
  F(kLruCacheDetail, kSkipped, "lru_cache_detail")                        \
  F(kBadJaxCompileLine, kRejected, "bad_jax_compile_line")                \
  F(kBadPersistentCacheLine, kRejected, "bad_persistent_cache_line")      \
  F(kBadCacheMissHeader, kRejected, "bad_cache_miss_header")              \
  F(kCutCacheMissHeader, kWarning, "cut_cache_miss_header")               \
  /* Step timings and plain text */                                       \
  F(kComment, kSkipped, "comment")                                        \
  F(kNoStepHeader, kRejected, "no_step_header")                           \
  F(kBadStepRow, kRejected, "bad_step_row")                               \
  F(kImplausibleCountRejected, kRejected, "implausible_count")            \
  F(kImplausibleCountWarning, kWarning, "implausible_count")              \
  F(kImplausibleStepRejected, kRejected, "implausible_step")              \
  F(kImplausibleStepWarning, kWarning, "implausible_step")                \
  F(kImplausibleDurationRejected, kRejected, "implausible_duration")      \
  F(kImplausibleDurationWarning, kWarning, "implausible_duration")        \
  F(kImplausibleTimestampRejected, kRejected, "implausible_timestamp")    \
  F(kImplausibleTimestampWarning, kWarning, "implausible_timestamp")      \
  F(kImplausibleTimestampSkipped, kSkipped, "implausible_timestamp")      \
  F(kNoStepKey, kSkipped, "no_step_key")                                  \
  F(kPlainText, kSkipped, "plain_text")

// One catalogue entry: the reason's name and the fate it is noted under.
struct LineReason {
  std::string_view name;
  LineFate fate = LineFate::kSkipped;
  friend constexpr bool operator==(const LineReason&, const LineReason&) = default;
};

// rcf::ingest::reason::kBlank and the rest, one constant per entry.
namespace reason {
#define RCF_LINE_REASON_CONSTANT(id, fate, name) \
  inline constexpr LineReason id{name, LineFate::fate};
RCF_LINE_REASONS(RCF_LINE_REASON_CONSTANT)
#undef RCF_LINE_REASON_CONSTANT
}  // namespace reason

namespace line_reasons_internal {
#define RCF_LINE_REASON_ROW(id, fate, name) reason::id,
inline constexpr LineReason kTable[] = {RCF_LINE_REASONS(RCF_LINE_REASON_ROW)};
#undef RCF_LINE_REASON_ROW

constexpr bool each_entry_once() {
  for (size_t i = 0; i < std::size(kTable); ++i)
    for (size_t j = i + 1; j < std::size(kTable); ++j)
      if (kTable[i] == kTable[j]) return false;
  return true;
}
static_assert(each_entry_once(), "a (name, fate) pair is in RCF_LINE_REASONS twice");
}  // namespace line_reasons_internal

// Every entry, in catalogue order.
constexpr std::span<const LineReason> line_reason_table() {
  return line_reasons_internal::kTable;
}

// True for a family entry (`wrapper_*`), whose names are composed at run time.
constexpr bool is_reason_family(LineReason r) {
  return r.name.ends_with("_*");
}

// The stem of a family's names: "wrapper" for `wrapper_*`.
constexpr std::string_view family_stem(LineReason family) {
  return family.name.substr(0, family.name.size() - 2);
}

}  // namespace rcf::ingest
