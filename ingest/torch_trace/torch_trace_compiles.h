// The compile lifecycle of a TORCH_TRACE log (docs/torch_trace.md): dynamo_start opens a compile
// (and, on a reused id, a new reset epoch), compilation_metrics closes it into a DynamoCompile
// with its side events, and compiles never closed are emitted as incomplete at the end. Also
// the `str` intern table the dynamo_start stacks use and the stack versions. Owned by the
// TORCH_TRACE importer (ingest/torch_trace/torch_trace_importer.cc).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "ingest/events.h"
#include "ingest/importer.h"
#include "ingest/torch_trace/torch_trace_record.h"

namespace rcf::ingest::torch_trace {

class CompileTracker {
 public:
  explicit CompileTracker(EventSink& sink) : sink_(sink) {}

  // The compile a record belongs to, in the current reset epoch.
  CompileRef ref_for(const EnvelopeIds& ids) const { return {ids.rank, epoch_, ids.id}; }

  void handle_string(const Record& r);
  void handle_dynamo_start(const Record& r);
  void handle_metrics(const Record& r, const char* kind);
  void read_torch_version(std::string_view content, int64_t line_no);
  // A recompile_reasons artifact listed this compile's reasons.
  void note_reasons(const CompileKey& key) { reasons_seen_.insert(key); }
  // The traceback summary of a compile's dynamo_error artifact.
  void note_dynamo_error(const CompileKey& key, std::string summary) {
    dynamo_errors_[key] = std::move(summary);
  }
  void flush_incomplete_compiles();

 private:
  struct StartedCompile {
    int64_t line = 0;
    CompileRef ref;
    std::vector<StackFrame> user_stack;
    std::string compiled_function;  // last raw stack frame when it is user code
    std::string compiled_file;
    int64_t compiled_line = -1;
  };

  // The fields of a compilation_metrics record that DynamoCompile does not hold as they are.
  struct MetricsFields {
    std::string compile_id_field, cudagraph_skip_reason;
    std::optional<double> start_time_s, duration_us, frame_compile_time_s, dynamo_cumulative_us;
  };

  std::string resolve_filename(const json* filename) const;
  std::vector<StackFrame> stack_from_json(const json* stack) const;
  MetricsFields read_metrics(const Record& r, DynamoCompile& compile);
  void settle_metrics(const Record& r, const MetricsFields& f, DynamoCompile& compile);
  static void settle_duration(const MetricsFields& f, DynamoCompile& compile);
  void settle_compile_id(const Record& r, const MetricsFields& f, DynamoCompile& compile);
  void attach_started(const CompileKey& key, DynamoCompile& compile);
  void emit_metrics_side_events(const Record& r, const CompileKey& key, const MetricsFields& f,
                                const DynamoCompile& compile);
  void emit_version(int64_t line_no, const char* key, std::string value);

  EventSink& sink_;
  int32_t epoch_ = 0;
  std::set<CompileKey> started_in_epoch_;  // (rank, F, C) with epoch 0: dynamo_starts this epoch
  std::map<CompileKey, StartedCompile> started_;  // dynamo_start seen, metrics not yet
  std::set<CompileKey> reasons_seen_;             // compiles with a recompile_reasons artifact
  std::map<CompileKey, std::string> dynamo_errors_;
  std::unordered_map<int64_t, std::string> strings_;             // `str` intern table
  std::set<std::pair<std::string, std::string>> versions_seen_;  // (key, value) emitted
};

}  // namespace rcf::ingest::torch_trace
