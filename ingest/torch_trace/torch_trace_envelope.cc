// TORCH_TRACE glog prefix, envelope and event-kind helpers. Format: docs/torch_trace.md.
#include "ingest/torch_trace/torch_trace_envelope.h"

#include <unordered_map>

namespace rcf::ingest::torch_trace {

using std::string_view_literals::operator""sv;

// The process id of a glog prefix already checked by envelope_offset (the digits at 22), or -1.
int64_t glog_pid(std::string_view line) {
  int64_t pid = 0;
  size_t i = 22;
  for (; i < line.size() && i < 40 && is_digit(line[i]); ++i) pid = pid * 10 + (line[i] - '0');
  return i > 22 ? pid : -1;
}

// Offset of the JSON envelope in a line that starts with the TORCH_TRACE glog prefix
// `V0721 16:11:45.673000 98102 torch/_dynamo/convert_frame.py:1123] `, or kNpos. Equivalent to
// the anchored `([VIWEC])\d{4} \d\d:\d\d:\d\d\.\d{6} \d+ (.+?):\d+\] `.
size_t envelope_offset(std::string_view line) {
  if (line.size() < 26) return kNpos;
  switch (line[0]) {
    case 'V':
    case 'I':
    case 'W':
    case 'E':
    case 'C':
      break;
    default:
      return kNpos;
  }
  if (!digits_at(line, 1, 4) || line[5] != ' ' || !digits_at(line, 6, 2) || line[8] != ':' ||
      !digits_at(line, 9, 2) || line[11] != ':' || !digits_at(line, 12, 2) || line[14] != '.' ||
      !digits_at(line, 15, 6) || line[21] != ' ')
    return kNpos;
  size_t pos = 22;
  const size_t thread_start = pos;
  while (pos < line.size() && is_digit(line[pos])) ++pos;
  if (pos == thread_start || pos >= line.size() || line[pos] != ' ') return kNpos;
  const size_t path_start = ++pos;
  // PATH ':' LINE '] ': the first ']' that follows ":<digits>" after a non-empty path.
  while (true) {
    size_t close = line.find(']', pos);
    if (close == kNpos) return kNpos;
    size_t digits = close;
    while (digits > path_start && is_digit(line[digits - 1])) --digits;
    if (digits < close && digits > path_start + 1 && line[digits - 1] == ':' &&
        close + 1 < line.size() && line[close + 1] == ' ')
      return close + 2;
    pos = close + 1;
  }
}

// The event key when the envelope starts with the literal `{"<key>"`, else "".
std::string_view literal_first_key(std::string_view envelope) {
  if (envelope.size() < 4 || envelope[0] != '{' || envelope[1] != '"') return {};
  size_t end = envelope.find('"', 2);
  if (end == kNpos) return {};
  return envelope.substr(2, end - 2);
}

// Value of the first `"<key>": "<value>"` in `text` (no unescaping), or nullopt.
std::optional<std::string_view> scan_string_value(std::string_view text,
                                                  std::string_view quoted_key, bool from_end) {
  size_t k = from_end ? text.rfind(quoted_key) : text.find(quoted_key);
  if (k == kNpos) return std::nullopt;
  size_t p = k + quoted_key.size();
  while (p < text.size() && text[p] == ' ') ++p;
  if (p >= text.size() || text[p] != ':') return std::nullopt;
  ++p;
  while (p < text.size() && text[p] == ' ') ++p;
  if (p >= text.size() || text[p] != '"') return std::nullopt;
  size_t end = text.find('"', p + 1);
  if (end == kNpos) return text.substr(p + 1);  // malformed: take the rest
  return text.substr(p + 1, end - p - 1);
}

Kind kind_of_key(std::string_view key) {
  static const std::unordered_map<std::string_view, Kind> kKinds = {
      {"str", Kind::kString},
      {"dynamo_start", Kind::kDynamoStart},
      {"compilation_metrics", Kind::kForwardMetrics},
      {"bwd_compilation_metrics", Kind::kBackwardMetrics},
      {"aot_autograd_backward_compilation_metrics", Kind::kBackwardMetrics},
      {"compilation_metrics_runtime", Kind::kRuntimeMetrics},
      {"artifact", Kind::kArtifact},
      {"dynamo_guards", Kind::kDynamoGuards},
      {"dynamo_cpp_guards_str", Kind::kCppGuards},
      {"chromium_event", Kind::kChromium},
      {"describe_tensor", Kind::kDescribeTensor},
      {"describe_source", Kind::kDescribeSource},
      // Known kinds that carry nothing for recompile forensics.
      {"dynamo_output_graph", Kind::kIgnored},
      {"aot_forward_graph", Kind::kIgnored},
      {"aot_backward_graph", Kind::kIgnored},
      {"aot_inference_graph", Kind::kIgnored},
      {"aot_joint_graph", Kind::kIgnored},
      {"inductor_pre_grad_graph", Kind::kIgnored},
      {"inductor_post_grad_graph", Kind::kIgnored},
      {"compiled_autograd_graph", Kind::kIgnored},
      {"optimize_ddp_split_graph", Kind::kIgnored},
      {"optimize_ddp_split_child", Kind::kIgnored},
      {"graph_dump", Kind::kIgnored},
      {"inductor_output_code", Kind::kOutputCode},
      {"link", Kind::kIgnored},
      {"dump_file", Kind::kIgnored},
      {"describe_storage", Kind::kIgnored},
      {"symbolic_shape_specialization", Kind::kIgnored},
      {"guard_added_fast", Kind::kIgnored},
      {"exported_program", Kind::kIgnored},
      {"guard_added", Kind::kIgnored},
      {"propagate_real_tensors_provenance", Kind::kIgnored},
      {"expression_created", Kind::kIgnored},
      {"create_unbacked_symbol", Kind::kIgnored},
      {"missing_fake_kernel", Kind::kIgnored},
      {"mismatched_fake_kernel", Kind::kIgnored},
  };
  auto it = kKinds.find(key);
  return it == kKinds.end() ? Kind::kUnknown : it->second;
}

ArtifactUse artifact_use(std::string_view name) {
  if (name == "recompile_reasons") return ArtifactUse::kRecompileReasons;
  if (name == "dynamo_graph_break_reason") return ArtifactUse::kGraphBreakReason;
  if (name == "dynamo_error") return ArtifactUse::kDynamoError;
  if (name == "fx_graph_cache_hit" || name == "fx_graph_cache_miss" ||
      name == "fx_graph_cache_bypass")
    return ArtifactUse::kFxGraphCache;
  if (name == "aotautograd_cache_hit" || name == "aotautograd_cache_miss" ||
      name == "aotautograd_cache_bypass")
    return ArtifactUse::kAotAutogradCache;
  if (name == "inductor_collective_schedule") return ArtifactUse::kCollectiveSchedule;
  if (name == "inductor_runtime_and_tensor_meta") return ArtifactUse::kTensorMeta;
  if (name == "graph_execution") return ArtifactUse::kExecutionOrder;
  return ArtifactUse::kNone;
}

bool is_context_key(std::string_view key) {
  return key == "frame_id" || key == "frame_compile_id" || key == "attempt" ||
         key == "compiled_autograd_id" || key == "rank" || key == "has_payload" || key == "stack";
}

// "hit" / "miss" / "bypass" from a name ending in `cache_hit` etc., or "".
std::string_view cache_state_suffix(std::string_view name) {
  for (std::string_view state : {"hit"sv, "miss"sv, "bypass"sv}) {
    if (name.size() > state.size() + 6 && name.ends_with(state) &&
        name.substr(0, name.size() - state.size()).ends_with("cache_"))
      return state;
  }
  return {};
}

CompileKey key_of(const CompileRef& ref) {
  return {ref.rank, ref.epoch, ref.id.compiled_autograd, ref.id.frame, ref.id.compile};
}

}  // namespace rcf::ingest::torch_trace
