// TORCH_TRACE line and envelope helpers (docs/torch_trace.md): the glog prefix, the literal
// event key that starts an envelope, the event kinds and artifact names the importer uses, and the
// compile identity read from the envelope's context keys. Used by
// ingest/torch_trace/torch_trace_importer.cc.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

#include "ingest/events.h"
#include "ingest/reading/text_util.h"

namespace rcf::ingest::torch_trace {

// ---------------------------------------------------------------------------------------------
// Text helpers: is_digit, digits_at, trim and rtrim are ingest/reading/text_util.h's.

// Calls `fn(line)` for each '\n'-separated line of `text` (views into `text`).
template <typename Fn>
void for_each_line(std::string_view text, Fn&& fn) {
  size_t pos = 0;
  while (pos <= text.size()) {
    size_t nl = text.find('\n', pos);
    if (nl == kNpos) nl = text.size();
    fn(text.substr(pos, nl - pos));
    pos = nl + 1;
  }
}

// ---------------------------------------------------------------------------------------------
// Glog prefix and envelope

// The process id of a glog prefix already checked by envelope_offset (the digits at 22), or -1.
int64_t glog_pid(std::string_view line);

// Offset of the JSON envelope in a line that starts with the TORCH_TRACE glog prefix
// `V0721 16:11:45.673000 98102 torch/_dynamo/convert_frame.py:1123] `, or kNpos. Equivalent to
// the anchored `([VIWEC])\d{4} \d\d:\d\d:\d\d\.\d{6} \d+ (.+?):\d+\] `.
size_t envelope_offset(std::string_view line);

// The event key when the envelope starts with the literal `{"<key>"`, else "".
std::string_view literal_first_key(std::string_view envelope);

// Value of the first `"<key>": "<value>"` in `text` (no unescaping), or nullopt.
std::optional<std::string_view> scan_string_value(std::string_view text,
                                                  std::string_view quoted_key, bool from_end);

// ---------------------------------------------------------------------------------------------
// Event kinds

enum class Kind : uint8_t {
  kUnknown,  // not a TORCH_TRACE event key we know
  kIgnored,  // known, nothing to emit (graphs, code, links, export events, ...)
  kString,
  kDynamoStart,
  kForwardMetrics,
  kBackwardMetrics,
  kRuntimeMetrics,
  kArtifact,  // an artifact whose name is one we use (see ArtifactUse)
  kDynamoGuards,
  kCppGuards,
  kChromium,
  kDescribeTensor,
  kDescribeSource,
  kOutputCode,  // inductor_output_code: read for its collective calls
};

enum class ArtifactUse : uint8_t {
  kNone,
  kRecompileReasons,
  kGraphBreakReason,
  kFxGraphCache,
  kAotAutogradCache,
  kDynamoError,
  kCollectiveSchedule,  // GraphFacts (docs/rank_divergence.md)
  kTensorMeta,
  kExecutionOrder,
};

Kind kind_of_key(std::string_view key);
ArtifactUse artifact_use(std::string_view name);
// The envelope keys shared by all events (frame_id, rank, has_payload, ...).
bool is_context_key(std::string_view key);
// "hit" / "miss" / "bypass" from a name ending in `cache_hit` etc., or "".
std::string_view cache_state_suffix(std::string_view name);

// ---------------------------------------------------------------------------------------------
// Compile identity

struct EnvelopeIds {
  int32_t rank = -1;
  CompileId id;
};

// Identifies one compile (F, C) in one reset epoch, across its restart attempts.
struct CompileKey {
  int32_t rank = -1;
  int32_t epoch = 0;
  int32_t compiled_autograd = -1;
  int32_t frame = -1;
  int32_t compile = -1;
  auto operator<=>(const CompileKey&) const = default;
};

CompileKey key_of(const CompileRef& ref);

}  // namespace rcf::ingest::torch_trace
