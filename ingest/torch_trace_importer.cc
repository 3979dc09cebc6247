// TORCH_TRACE structured-log importer. Format: docs/torch_trace.md.
//
// Throughput: every payload byte must be MD5-checked; the bytes are copied into chunks that a
// second thread hashes (ingest/payload_checksums.h), so the check costs the parsing thread a copy;
// only payloads of the kinds that feed events are kept.
// The glog prefix is parsed by hand, and the event kind is read from the literal `{"<key>"` that
// starts the envelope, so the envelopes of kinds nothing here uses (graphs, generated code, links,
// export events, ...) are never parsed: only `has_payload` is looked up. Envelopes and payloads
// of the kinds that are used are validated and read with the JSON skimmer (json_skim.h), which
// pulls a few fields out of large records (chromium events whose args copy all compilation
// metrics, cache artifacts listing every key component, compilation_metrics with two embedded
// config dumps) without building a DOM; nlohmann::json (without exceptions) is used only for the
// small structured parts: str, dynamo_start stacks, describe_*, recompile_reasons, dynamo_guards.
#include "ingest/torch_trace_importer.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <tuple>
#include <unordered_map>
#include <utility>
#include <vector>

#include "ingest/dynamo_graph_break.h"
#include "ingest/inductor_cudagraph_skip.h"
#include "ingest/inductor_graph_facts.h"
#include "ingest/json_skim.h"
#include "ingest/md5.h"
#include "ingest/payload_checksums.h"
#include "ingest/sync_signature.h"
#include "ingest/wall_time.h"
#include "util/json_depth.h"

namespace rcf::ingest {
namespace {

using json = nlohmann::json;
using std::string_view_literals::operator""sv;

constexpr size_t kNpos = std::string_view::npos;
// A kept payload (the few kinds whose payload is parsed) stops growing here; the MD5 still covers
// every byte. Guards against pathological inputs, far above anything PyTorch writes.
constexpr size_t kMaxKeptPayloadBytes = size_t{64} << 20;
// Excerpt stored with a pending record for notes made after its line is gone.
constexpr size_t kExcerptBytes = 200;

// ---------------------------------------------------------------------------------------------
// Text helpers

bool is_digit(char c) {
  return c >= '0' && c <= '9';
}

bool digits_at(std::string_view s, size_t pos, size_t count) {
  for (size_t i = 0; i < count; ++i)
    if (!is_digit(s[pos + i])) return false;
  return true;
}

std::string_view rtrim(std::string_view s) {
  while (!s.empty() &&
         (s.back() == ' ' || s.back() == '\t' || s.back() == '\n' || s.back() == '\r'))
    s.remove_suffix(1);
  return s;
}

std::string_view trim(std::string_view s) {
  s = rtrim(s);
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  return s;
}

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

// ---------------------------------------------------------------------------------------------
// JSON helpers. Small records go through nlohmann::json (parsed without exceptions); big ones are
// walked with json_skim. Neither throws on bad input, both refuse nesting deeper than
// util::kMaxJsonDepth, and both tolerate missing keys and wrong types.

json parse_json(std::string_view text) {
  return util::parse_json_bounded(text);
}

const json* member(const json& object, std::string_view key) {
  if (!object.is_object()) return nullptr;
  auto it = object.find(key);
  return it == object.end() ? nullptr : &*it;
}

std::optional<int64_t> as_int(const json* value) {
  if (!value) return std::nullopt;
  if (value->is_number_unsigned()) {
    uint64_t u = value->get<uint64_t>();
    if (u > uint64_t(std::numeric_limits<int64_t>::max())) return std::nullopt;
    return int64_t(u);
  }
  if (value->is_number_integer()) return value->get<int64_t>();
  if (value->is_number_float()) {
    double d = value->get<double>();
    if (!std::isfinite(d) || std::fabs(d) > 9.0e18) return std::nullopt;
    return int64_t(std::llround(d));
  }
  return std::nullopt;
}

std::optional<int64_t> int_member(const json& object, std::string_view key) {
  return as_int(member(object, key));
}

std::optional<bool> bool_member(const json& object, std::string_view key) {
  const json* value = member(object, key);
  if (!value || !value->is_boolean()) return std::nullopt;
  return value->get<bool>();
}

std::string string_member(const json& object, std::string_view key) {
  const json* value = member(object, key);
  if (!value || !value->is_string()) return {};
  return value->get<std::string>();
}

// Skimmed raw value -> string ("" unless a JSON string).
std::string skim_string(std::string_view raw) {
  return raw.empty() || raw.front() != '"' ? std::string() : json_skim::to_string(raw).value_or("");
}

std::optional<int32_t> skim_small_int(std::string_view raw) {
  std::optional<int64_t> v = json_skim::to_int(raw);
  if (!v || *v < 0 || *v > std::numeric_limits<int32_t>::max()) return std::nullopt;
  return int32_t(*v);
}

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

CompileKey key_of(const CompileRef& ref) {
  return {ref.rank, ref.epoch, ref.id.compiled_autograd, ref.id.frame, ref.id.compile};
}

// Splits a recompile reason `"<old compile id>: <reason>"`; old id "" when it does not start with
// a compile id. The reason is right-trimmed (the runtime pads some with spaces).
std::pair<std::string, std::string> split_reason(std::string_view item) {
  size_t colon = item.find(": ");
  if (colon != kNpos && CompileId::parse(item.substr(0, colon)))
    return {std::string(item.substr(0, colon)), std::string(rtrim(item.substr(colon + 2)))};
  return {std::string(), std::string(rtrim(item))};
}

// A user-stack frame inside PyTorch itself (eval_frame / convert_frame wrappers, nn.Module call
// plumbing): trailing ones are dropped from dynamo_start stacks, as tlparse does.
bool is_torch_internal_file(std::string_view file) {
  return file.find("/torch/_") != kNpos || file.ends_with("/torch/nn/modules/module.py");
}

// Parses the text of a graph-break report (`dynamo_graph_break_reason` artifact; same text as the
// `graph_breaks` log, docs/dynamo_text.md). Falls back to the whole text as the reason.
void parse_graph_break_text(std::string_view text, GraphBreak* out) {
  enum class Section { kHeader, kReason, kTraceback } section = Section::kHeader;
  std::string reason;
  bool saw_reason = false;
  for_each_line(text, [&](std::string_view line) {
    std::string_view stripped = rtrim(line);
    if (section != Section::kTraceback && stripped.starts_with("User code traceback:")) {
      section = Section::kTraceback;
      return;
    }
    if (section == Section::kHeader) {
      if (stripped.starts_with("Graph break") && out->user_file.empty()) {
        constexpr std::string_view kAt = " in user code at ";
        if (size_t at = stripped.find(kAt); at != kNpos) {
          std::string_view location = stripped.substr(at + kAt.size());
          size_t colon = location.rfind(':');
          if (colon != kNpos && colon + 1 < location.size() &&
              std::all_of(location.begin() + colon + 1, location.end(), is_digit)) {
            out->user_file = std::string(location.substr(0, colon));
            out->user_line =
                std::strtoll(std::string(location.substr(colon + 1)).c_str(), nullptr, 10);
          } else {
            out->user_file = std::string(location);
          }
        }
        if (stripped.find("suppressed") != kNpos) out->suppressed = true;
        return;
      }
      for (std::string_view prefix : {"Graph Break Reason: "sv, "Reason: "sv}) {
        if (stripped.starts_with(prefix)) {
          std::string_view first = stripped.substr(prefix.size());
          if (prefix.front() == 'G') out->gb_type = std::string(first);
          reason.assign(first);
          saw_reason = true;
          section = Section::kReason;
          return;
        }
      }
      return;
    }
    if (section == Section::kReason) {
      reason += '\n';
      reason += line;
      return;
    }
    // Traceback: `  File "<file>", line <n>, in <fn>` followed by the source line.
    std::string_view t = trim(line);
    if (t.starts_with("File \"")) {
      size_t quote = t.find('"', 6);
      if (quote == kNpos) return;
      StackFrame frame;
      frame.file = std::string(t.substr(6, quote - 6));
      std::string_view rest = t.substr(quote + 1);
      if (size_t ln = rest.find(", line "); ln != kNpos)
        frame.line = std::strtoll(std::string(rest.substr(ln + 7, 20)).c_str(), nullptr, 10);
      if (size_t in = rest.find(", in "); in != kNpos)
        frame.function = std::string(rest.substr(in + 5));
      out->user_stack.push_back(std::move(frame));
    } else if (!t.empty() && !out->user_stack.empty() && out->user_stack.back().code.empty()) {
      out->user_stack.back().code = std::string(t);
    }
  });
  out->reason = saw_reason ? std::string(rtrim(reason)) : std::string(trim(text));
  // The registry type, when the reason has one, names the break better than its first line
  // (2.8+: a generic `Encountered graph break when attempting to trace ...` comes first).
  if (std::string_view type = registry_gb_type(out->reason); !type.empty())
    out->gb_type = std::string(type);
  if (!out->user_stack.empty()) out->user_function = out->user_stack.back().function;
  out->sync_signature = has_sync_signature(out->reason);
}

// The exception lines at the end of a Python traceback (after the last indented line, up to the
// first blank line): "torch._dynamo.exc.BackendCompilerFailed: ...\nRuntimeError: ...".
std::string traceback_summary(std::string_view text) {
  std::vector<std::string_view> lines;
  for_each_line(text, [&](std::string_view line) { lines.push_back(rtrim(line)); });
  size_t start = 0;
  for (size_t i = 0; i < lines.size(); ++i)
    if (!lines[i].empty() && lines[i].front() == ' ') start = i + 1;
  std::string summary;
  for (size_t i = start; i < lines.size() && !lines[i].empty(); ++i) {
    if (!summary.empty()) summary += '\n';
    summary += lines[i];
  }
  return summary;
}

// ---------------------------------------------------------------------------------------------
// The importer

class TorchTraceImporter : public Importer {
 public:
  explicit TorchTraceImporter(EventSink& sink) : sink_(sink) {}

  void on_line(std::string_view line, int64_t line_no) override {
    try {
      dispatch_line(line, line_no);
    } catch (const std::exception& e) {
      // Defensive: the JSON helpers do not throw, but an allocation failure on absurd input
      // must not escape the importer.
      pending_active_ = false;
      payload_owner_ = PayloadOwner::kRejectedRecord;
      sink_.note(line_no, LineFate::kWarning, "internal_error", e.what());
    }
  }

  void finish() override {
    try {
      finish_pending();
      for (const PayloadChecksums::Mismatch& m : checksums_.finish())
        sink_.note(m.line, LineFate::kWarning, "payload_md5_mismatch", m.excerpt);
      flush_incomplete_compiles();
      flush_chromium_cache_outcomes();
    } catch (const std::exception& e) {
      sink_.note(0, LineFate::kWarning, "internal_error", e.what());
    }
  }

 private:
  // Who owns the TAB lines that follow the current record line.
  enum class PayloadOwner : uint8_t {
    kNone,            // TAB lines here are orphans
    kPending,         // pending_ collects them
    kRejectedRecord,  // they belong to an envelope we rejected: skipped with it
  };

  // A record whose payload lines are still arriving (or which has none, while being handled).
  struct Record {
    Kind kind = Kind::kUnknown;
    ArtifactUse artifact = ArtifactUse::kNone;
    int64_t line = 0;
    std::string event_key;
    std::string artifact_name;
    std::string excerpt;  // start of the envelope line (the line's view dies with on_line)
    // Raw JSON of the event key's value (the event metadata), for kinds that feed events. Points
    // into the current line while a record without payload is handled inside on_line(), and into
    // meta_storage for a record waiting for its payload.
    std::string_view meta;
    std::string meta_storage;
    EnvelopeIds ids;
    int64_t pid = -1;                // the glog prefix's process id
    std::optional<GlogClock> clock;  // the glog prefix's local clock
    bool has_payload = false;
    bool expected_md5_valid = false;
    Md5Digest expected_md5{};
    bool keep_payload = false;
    bool payload_overflow = false;
    bool version_lines = false;  // fx_graph_runnable: its header prints the torch versions
    int64_t payload_lines = 0;
    std::string payload;  // '\n'-joined payload, only when keep_payload
  };

  struct OpenPhase {
    int64_t line;
    double ts_us;
  };

  struct StartedCompile {
    int64_t line = 0;
    CompileRef ref;
    std::vector<StackFrame> user_stack;
    std::string compiled_function;  // last raw stack frame when it is user code
    std::string compiled_file;
    int64_t compiled_line = -1;
  };

  struct PendingTensor {
    int64_t line = 0;
    InputTensor tensor;
  };

  struct ChromiumCacheOutcome {
    CompileKey compile;
    CacheOutcome outcome;
  };

  // ------------------------------------------------------------------------------------------
  // Line dispatch

  void dispatch_line(std::string_view line, int64_t line_no) {
    if (line.empty()) {
      sink_.note(line_no, LineFate::kSkipped, "blank", line);
      return;
    }
    if (line.front() == '\t') {
      switch (payload_owner_) {
        case PayloadOwner::kPending:
          append_payload_line(line.substr(1), line_no);
          return;
        case PayloadOwner::kRejectedRecord:
          sink_.note(line_no, LineFate::kSkipped, "payload_of_rejected_record", line);
          return;
        case PayloadOwner::kNone:
          sink_.note(line_no, LineFate::kRejected, "orphan_payload", line);
          return;
      }
    }
    finish_pending();
    payload_owner_ = PayloadOwner::kNone;
    on_record_line(line, line_no);
  }

  void append_payload_line(std::string_view content, int64_t line_no) {
    Record& r = pending_;
    if (r.payload_lines++ > 0) checksums_.append("\n");
    checksums_.append(content);
    if (r.version_lines && content.starts_with("# torch ")) read_torch_version(content, line_no);
    if (!r.keep_payload) return;
    if (r.payload.size() + content.size() + 1 > kMaxKeptPayloadBytes) {
      r.payload_overflow = true;
      return;
    }
    if (r.payload_lines > 1) r.payload += '\n';
    r.payload.append(content);
  }

  void on_record_line(std::string_view line, int64_t line_no) {
    size_t offset = envelope_offset(line);
    if (offset == kNpos) {
      sink_.note(line_no, LineFate::kRejected, "no_glog_prefix", line);
      return;
    }
    std::string_view envelope = rtrim(line.substr(offset));
    if (envelope.size() < 2 || envelope.front() != '{' || envelope.back() != '}') {
      reject_bad_json(envelope, line, line_no);
      return;
    }

    Record& r = pending_;
    r.kind = Kind::kUnknown;
    r.artifact = ArtifactUse::kNone;
    r.line = line_no;
    r.event_key.clear();
    r.artifact_name.clear();
    r.meta = {};
    r.ids = EnvelopeIds{};
    r.pid = glog_pid(line);
    r.clock = read_glog_clock(line);
    r.has_payload = false;
    r.expected_md5_valid = false;
    r.keep_payload = false;
    r.payload_overflow = false;
    r.version_lines = false;
    r.payload_lines = 0;
    r.payload.clear();

    std::string_view key = literal_first_key(envelope);
    if (is_context_key(key)) key = {};  // context keys first: let the skimmer find the event key
    bool full_parse = false;
    if (key.empty()) {
      full_parse = true;  // unusual layout: the skimmer finds the event key
    } else {
      r.event_key.assign(key);
      r.kind = kind_of_key(key);
      if (r.kind == Kind::kArtifact) {
        std::optional<std::string_view> name = scan_string_value(envelope, "\"name\"", false);
        if (name) r.artifact_name.assign(*name);
        r.artifact = artifact_use(r.artifact_name);
        if (r.artifact == ArtifactUse::kNone) r.kind = Kind::kIgnored;
      }
      full_parse = r.kind != Kind::kIgnored && r.kind != Kind::kUnknown;
    }

    std::optional<std::string> md5_text;
    bool has_payload = false;
    if (full_parse) {
      if (!parse_envelope(envelope, &r, &has_payload, &md5_text)) {
        reject_bad_json(envelope, line, line_no);
        return;
      }
    } else if (envelope.find("\"has_payload\"") != kNpos) {
      // Cheap path: only whether a payload follows and its checksum.
      if (std::optional<std::string_view> text =
              scan_string_value(envelope, "\"has_payload\"", true)) {
        has_payload = true;
        md5_text.emplace(*text);
      }
    }

    if (r.kind == Kind::kUnknown) sink_.note(line_no, LineFate::kSkipped, "unknown_event", line);
    r.version_lines = r.event_key == "artifact" && r.artifact_name == "fx_graph_runnable";

    r.has_payload = has_payload;
    if (md5_text) r.expected_md5_valid = Md5::parse_hex(*md5_text, &r.expected_md5);
    if (!has_payload) {
      handle_record(r);  // r.meta points into `line`, valid for this call
      r.meta = {};
      return;
    }
    r.excerpt.assign(line.substr(0, std::min(line.size(), kExcerptBytes)));
    r.meta_storage.assign(r.meta);
    r.meta = r.meta_storage;
    r.keep_payload = r.kind != Kind::kIgnored && r.kind != Kind::kUnknown;
    checksums_.begin_record();
    pending_active_ = true;
    payload_owner_ = PayloadOwner::kPending;
  }

  // Validates the envelope and reads the shared context keys, the event key (the first key that
  // is not a context key) and the raw event metadata. False when the envelope is not valid JSON.
  bool parse_envelope(std::string_view envelope, Record* r, bool* has_payload,
                      std::optional<std::string>* md5_text) {
    std::optional<int32_t> frame, compile, attempt, autograd;
    bool event_key_from_literal = !r->event_key.empty();
    bool found_event = false;
    bool valid =
        json_skim::for_each_member(envelope, [&](std::string_view key, std::string_view value) {
          if (key == "frame_id") {
            frame = skim_small_int(value);
          } else if (key == "frame_compile_id") {
            compile = skim_small_int(value);
          } else if (key == "attempt") {
            attempt = skim_small_int(value);
          } else if (key == "compiled_autograd_id") {
            autograd = skim_small_int(value);
          } else if (key == "rank") {
            if (std::optional<int32_t> rank = skim_small_int(value)) r->ids.rank = *rank;
          } else if (key == "has_payload") {
            if (!json_skim::is_null(value)) {
              *has_payload = true;
              if (std::optional<std::string> text = json_skim::to_string(value)) *md5_text = *text;
            }
          } else if (!found_event && !is_context_key(key)) {
            found_event = true;
            if (!event_key_from_literal) r->event_key.assign(key);
            r->meta = value;
          }
        });
    if (!valid) return false;
    if (frame && compile) {
      r->ids.id.frame = *frame;
      r->ids.id.compile = *compile;
      r->ids.id.attempt = attempt.value_or(0);  // absent on runtime events
    }
    if (autograd) r->ids.id.compiled_autograd = *autograd;
    if (!event_key_from_literal) {
      r->kind = kind_of_key(r->event_key);
      if (r->kind == Kind::kArtifact) {
        json meta = parse_json(r->meta);
        r->artifact_name = string_member(meta, "name");
        r->artifact = artifact_use(r->artifact_name);
        if (r->artifact == ArtifactUse::kNone) r->kind = Kind::kIgnored;
      }
    }
    return true;
  }

  void reject_bad_json(std::string_view envelope, std::string_view line, int64_t line_no) {
    bool too_deep = util::json_too_deep_at(envelope) != kNpos;
    sink_.note(line_no, LineFate::kRejected, too_deep ? "json_too_deep" : "bad_json", line);
    // Its payload lines (if it announced any) go down with it instead of becoming orphans.
    if (envelope.find("\"has_payload\"") != kNpos) payload_owner_ = PayloadOwner::kRejectedRecord;
  }

  // Completes the pending record: checks the MD5, then handles it.
  void finish_pending() {
    if (!pending_active_) return;
    pending_active_ = false;
    payload_owner_ = PayloadOwner::kNone;
    Record& r = pending_;
    checksums_.end_record(r.line, r.excerpt, r.expected_md5_valid ? &r.expected_md5 : nullptr);
    if (r.payload_overflow) sink_.note(r.line, LineFate::kWarning, "payload_too_large", r.excerpt);
    handle_record(r);
  }

  // ------------------------------------------------------------------------------------------
  // Record handlers

  CompileRef ref_for(const EnvelopeIds& ids) const { return {ids.rank, epoch_, ids.id}; }

  // The event metadata as a DOM, for the small kinds (null when absent or malformed).
  static json metadata(const Record& r) { return r.meta.empty() ? json() : parse_json(r.meta); }

  void handle_record(Record& r) {
    switch (r.kind) {
      case Kind::kUnknown:
      case Kind::kIgnored:
        return;
      case Kind::kString:
        return handle_string(r);
      case Kind::kDynamoStart:
        return handle_dynamo_start(r);
      case Kind::kForwardMetrics:
        return handle_metrics(r, "forward");
      case Kind::kBackwardMetrics:
        return handle_metrics(r, "backward");
      case Kind::kRuntimeMetrics:
        return handle_metrics(r, "runtime");
      case Kind::kArtifact:
        return handle_artifact(r);
      case Kind::kDynamoGuards:
        return handle_dynamo_guards(r);
      case Kind::kCppGuards:
        return handle_cpp_guards(r);
      case Kind::kChromium:
        return handle_chromium(r);
      case Kind::kDescribeTensor:
        return handle_describe_tensor(r);
      case Kind::kDescribeSource:
        return handle_describe_source(r);
      case Kind::kOutputCode:
        if (auto calls = code_collective_items(r.payload))
          emit_graph_fact(r, "code_collectives", std::move(calls));
        return;
    }
  }

  // Items nullopt: the payload was not what its name promises.
  void emit_graph_fact(const Record& r, const char* kind,
                       std::optional<std::vector<std::string>> items) {
    if (!items) return sink_.note(r.line, LineFate::kWarning, "bad_payload_json", r.excerpt);
    sink_.emit(GraphFact{r.line, ref_for(r.ids), kind, std::move(*items)});
  }

  // {"str": ["<path>", <id>]}
  void handle_string(const Record& r) {
    const json& entry = metadata(r);
    if (!entry.is_array() || entry.size() < 2 || !entry[0].is_string()) return;
    std::optional<int64_t> id = as_int(&entry[1]);
    if (id) strings_[*id] = entry[0].get<std::string>();
  }

  std::string resolve_filename(const json* filename) const {
    if (!filename) return {};
    if (filename->is_string()) return filename->get<std::string>();
    if (std::optional<int64_t> id = as_int(filename)) {
      auto it = strings_.find(*id);
      return it != strings_.end() ? it->second : std::to_string(*id);  // unknown id stays a number
    }
    return {};
  }

  std::vector<StackFrame> stack_from_json(const json* stack) const {
    std::vector<StackFrame> frames;
    if (!stack || !stack->is_array()) return frames;
    frames.reserve(stack->size());
    for (const json& item : *stack) {
      if (!item.is_object()) continue;
      StackFrame frame;
      frame.file = resolve_filename(member(item, "filename"));
      frame.line = int_member(item, "line").value_or(0);
      frame.function = string_member(item, "name");
      frame.code = string_member(item, "loc");
      frames.push_back(std::move(frame));
    }
    return frames;
  }

  void handle_dynamo_start(const Record& r) {
    const EnvelopeIds& ids = r.ids;
    if (ids.id.known()) {
      // torch._dynamo.reset() restarts compile ids: a first attempt of an (F, C) already started
      // in this epoch opens a new epoch.
      CompileKey seen{ids.rank, 0, ids.id.compiled_autograd, ids.id.frame, ids.id.compile};
      if (ids.id.attempt == 0 && !started_in_epoch_.insert(seen).second) {
        ++epoch_;
        started_in_epoch_.clear();
        started_in_epoch_.insert(seen);
      }
    }
    StartedCompile started;
    started.line = r.line;
    started.ref = ref_for(ids);
    started.user_stack = stack_from_json(member(metadata(r), "stack"));
    if (!started.user_stack.empty() && !is_torch_internal_file(started.user_stack.back().file)) {
      // Newer PyTorch ends the stack with the compiled function itself.
      started.compiled_function = started.user_stack.back().function;
      started.compiled_file = started.user_stack.back().file;
      started.compiled_line = started.user_stack.back().line;
    }
    while (!started.user_stack.empty() && is_torch_internal_file(started.user_stack.back().file))
      started.user_stack.pop_back();
    if (!ids.id.known()) return;  // cannot be matched with its metrics
    started_.try_emplace(key_of(started.ref), std::move(started));
  }

  void handle_metrics(const Record& r, const char* kind) {
    DynamoCompile compile;
    compile.line = r.line;
    compile.kind = kind;
    compile.ref = ref_for(r.ids);
    compile.pid = r.pid;
    const MetricsFields f = read_metrics(r, compile);
    settle_metrics(r, f, compile);
    const CompileKey key = key_of(compile.ref);
    attach_started(key, compile);
    emit_metrics_side_events(r, key, f, compile);
    sink_.emit(std::move(compile));
  }

  // The fields of a compilation_metrics record that DynamoCompile does not hold as they are.
  struct MetricsFields {
    std::string compile_id_field, cudagraph_skip_reason;
    std::optional<double> start_time_s, duration_us, frame_compile_time_s, dynamo_cumulative_us;
  };

  // Reads the record into `compile` (and emits the stack versions it names) in one pass over the
  // (large) metrics object; values we do not use are only skimmed.
  MetricsFields read_metrics(const Record& r, DynamoCompile& compile) {
    MetricsFields f;
    json_skim::for_each_member(r.meta, [&](std::string_view key, std::string_view value) {
      if (key == "compile_id") {
        f.compile_id_field = skim_string(value);
      } else if (key == "co_name") {
        compile.co_name = skim_string(value);
      } else if (key == "co_filename") {
        compile.co_filename = skim_string(value);
      } else if (key == "co_firstlineno") {
        compile.co_firstlineno = json_skim::to_int(value).value_or(-1);
      } else if (key == "start_time_us") {
        compile.start_time_us = json_skim::to_int(value);
      } else if (key == "start_time") {
        f.start_time_s = json_skim::to_double(value);
      } else if (key == "duration_us") {
        f.duration_us = json_skim::to_double(value);
      } else if (key == "entire_frame_compile_time_s") {
        f.frame_compile_time_s = json_skim::to_double(value);
      } else if (key == "dynamo_cumulative_compile_time_us") {
        f.dynamo_cumulative_us = json_skim::to_double(value);
      } else if (key == "cache_size") {
        compile.cache_size = json_skim::to_int(value);
      } else if (key == "accumulated_cache_size") {
        compile.accumulated_cache_size = json_skim::to_int(value);
      } else if (key == "guard_count") {
        compile.guard_count = json_skim::to_int(value);
      } else if (key == "shape_env_guard_count") {
        compile.shape_env_guard_count = json_skim::to_int(value);
      } else if (key == "graph_op_count") {
        compile.graph_op_count = json_skim::to_int(value);
      } else if (key == "graph_node_count") {
        compile.graph_node_count = json_skim::to_int(value);
      } else if (key == "graph_input_count") {
        compile.graph_input_count = json_skim::to_int(value);
      } else if (key == "has_guarded_code") {
        compile.has_guarded_code = json_skim::to_bool(value);
      } else if (key == "fail_type") {
        compile.fail_type = skim_string(value);
      } else if (key == "fail_reason") {
        compile.fail_reason = skim_string(value);
      } else if (key == "recompile_reason") {
        compile.recompile_reason = skim_string(value);
      } else if (key == "cudagraph_skip_reason") {
        f.cudagraph_skip_reason = skim_string(value);
      } else if (key == "restart_reasons") {
        json_skim::for_each_element(value, [&](std::string_view item) {
          if (std::optional<std::string> reason = json_skim::to_string(item))
            compile.restart_reasons.push_back(std::move(*reason));
        });
      } else if (key == "dynamo_config") {
        read_dynamo_config(value, &compile);
      } else if (key == "python_version") {
        // "3.12.11 | packaged by Anaconda, Inc. | (main, ...)": the version is the first word.
        std::string text = skim_string(value);
        emit_version(r.line, "python", text.substr(0, text.find(' ')));
      } else if (key == "cuda_version") {
        emit_version(r.line, "cuda", skim_string(value));
      } else if (key == "triton_version") {
        emit_version(r.line, "triton", skim_string(value));
      }
    });
    return f;
  }

  // Start time, wall time and compile id from the fields each PyTorch version writes.
  void settle_metrics(const Record& r, const MetricsFields& f, DynamoCompile& compile) {
    if (!compile.start_time_us && f.start_time_s && std::fabs(*f.start_time_s) < 9.0e12)
      compile.start_time_us = int64_t(std::llround(*f.start_time_s * 1e6));
    settle_duration(f, compile);
    // The record is logged as the compile ends: its local glog clock against that epoch time
    // tells the writer's zone, which zone-less times of the same machine need (progress lines).
    if (r.clock && compile.start_time_us && compile.duration_ms)
      compile.clock_offset_s = clock_offset_s(
          *r.clock, static_cast<double>(*compile.start_time_us) / 1e6 + *compile.duration_ms / 1e3);
    settle_compile_id(r, f, compile);
  }

  // Wall time of the compile: duration_us (newest), else the legacy seconds, else the µs counter
  // that some versions write alone (entire_frame_compile_time_s = it / 1e6).
  static void settle_duration(const MetricsFields& f, DynamoCompile& compile) {
    if (f.duration_us) {
      compile.duration_ms = *f.duration_us / 1000.0;
    } else if (f.frame_compile_time_s) {
      compile.duration_ms = *f.frame_compile_time_s * 1000.0;
    } else if (f.dynamo_cumulative_us) {
      compile.duration_ms = *f.dynamo_cumulative_us / 1000.0;
    }
  }

  // The compile id: the envelope's, checked against the record's own field.
  void settle_compile_id(const Record& r, const MetricsFields& f, DynamoCompile& compile) {
    // The envelope id wins over the `compile_id` field: every other record of the compile is
    // keyed by its envelope, and hand-edited corpus files disagree (multi_rank_runtime).
    if (std::optional<CompileId> parsed = CompileId::parse(f.compile_id_field)) {
      if (!compile.ref.id.known()) {
        compile.ref.id = *parsed;
      } else if (!(*parsed == compile.ref.id)) {
        sink_.note(
            r.line, LineFate::kWarning, "compile_id_mismatch",
            "compile_id " + f.compile_id_field + " in an envelope of " + compile.ref.id.text());
      }
    }
  }

  // A forward compile takes the user stack of its dynamo_start and, when it failed without a
  // reason, the error of its dynamo_error artifact.
  void attach_started(const CompileKey& key, DynamoCompile& compile) {
    if (compile.kind == "forward") {
      if (auto it = started_.find(key); it != started_.end()) {
        compile.user_stack = std::move(it->second.user_stack);
        started_.erase(it);
      }
      if (compile.fail_reason.empty() && !compile.fail_type.empty()) {
        if (auto it = dynamo_errors_.find(key); it != dynamo_errors_.end())
          compile.fail_reason = it->second;
      }
    }
    dynamo_errors_.erase(key);
  }

  // What a metrics record says besides the compile: why CUDA graphs were skipped, the first
  // recompile reason (for a compile no recompile_reasons artifact listed) and the restart reasons
  // as graph breaks.
  void emit_metrics_side_events(const Record& r, const CompileKey& key, const MetricsFields& f,
                                const DynamoCompile& compile) {
    const bool is_forward = compile.kind == "forward";
    // Why Inductor did not use CUDA graphs for this compile (docs/cudagraph_skips.md).
    if (std::optional<CudagraphSkip> skip = parse_cudagraph_skip_text(f.cudagraph_skip_reason)) {
      skip->line = r.line;
      skip->ref = compile.ref;
      skip->origin = "trace_compilation_metrics";
      sink_.emit(std::move(*skip));
    }

    // Reasons: the recompile_reasons artifact lists them all; the metrics field only the first,
    // so it is used only for compiles that had no artifact.
    if (is_forward && !compile.recompile_reason.empty() && !reasons_seen_.count(key)) {
      GuardFailure failure;
      failure.line = r.line;
      failure.ref = compile.ref;
      failure.entry_index = 0;
      std::tie(failure.old_compile_id, failure.reason) = split_reason(compile.recompile_reason);
      failure.origin = "trace_recompile_reason";
      sink_.emit(std::move(failure));
    }
    if (compile.kind != "runtime") {
      for (const std::string& restart : compile.restart_reasons) {
        GraphBreak graph_break;
        graph_break.line = r.line;
        graph_break.ref = compile.ref;
        graph_break.pid = r.pid;
        std::string_view text = restart;
        if (text.size() >= 2 && text.front() == '\'' && text.back() == '\'')
          text = text.substr(1, text.size() - 2);
        parse_graph_break_text(text, &graph_break);
        graph_break.origin = "trace_restart";
        sink_.emit(std::move(graph_break));
      }
    }
  }

  // The header of an fx_graph_runnable repro script: `# torch version: 2.6.0a0+giteece9ec`,
  // `# torch cuda version: 12.2` (None on CPU builds), `# torch git version: <sha>`.
  void read_torch_version(std::string_view content, int64_t line_no) {
    static constexpr std::pair<std::string_view, const char*> kHeaders[] = {
        {"# torch version: ", "torch"},
        {"# torch cuda version: ", "cuda"},
        {"# torch git version: ", "torch_git"},
    };
    for (const auto& [prefix, key] : kHeaders)
      if (content.starts_with(prefix))
        return emit_version(line_no, key, std::string(rtrim(content.substr(prefix.size()))));
  }

  // Each distinct version once per source; empty and None values say nothing.
  void emit_version(int64_t line_no, const char* key, std::string value) {
    if (value.empty() || value == "None" || value.size() > 200) return;
    if (!versions_seen_.insert({key, value}).second) return;
    sink_.emit(StackVersion{line_no, key, std::move(value)});
  }

  // dynamo_config is a JSON object serialized into a string: decoded, then skimmed again.
  static void read_dynamo_config(std::string_view raw, DynamoCompile* compile) {
    std::string decoded;
    std::string_view config = raw;
    if (!raw.empty() && raw.front() == '"') {
      std::optional<std::string> text = json_skim::to_string(raw);
      if (!text) return;
      decoded = std::move(*text);
      config = decoded;
    }
    std::optional<int64_t> recompile_limit, cache_size_limit, accumulated_limit,
        accumulated_cache_size_limit;
    json_skim::for_each_member(config, [&](std::string_view key, std::string_view value) {
      if (key == "recompile_limit") {
        recompile_limit = json_skim::to_int(value);
      } else if (key == "cache_size_limit") {  // older name of recompile_limit
        cache_size_limit = json_skim::to_int(value);
      } else if (key == "accumulated_recompile_limit") {
        accumulated_limit = json_skim::to_int(value);
      } else if (key == "accumulated_cache_size_limit") {
        accumulated_cache_size_limit = json_skim::to_int(value);
      }
    });
    compile->recompile_limit = recompile_limit ? recompile_limit : cache_size_limit;
    compile->accumulated_recompile_limit =
        accumulated_limit ? accumulated_limit : accumulated_cache_size_limit;
  }

  void handle_artifact(Record& r) {
    switch (r.artifact) {
      case ArtifactUse::kNone:
        return;
      case ArtifactUse::kRecompileReasons:
        return handle_recompile_reasons(r);
      case ArtifactUse::kGraphBreakReason: {
        GraphBreak graph_break;
        graph_break.line = r.line;
        graph_break.ref = ref_for(r.ids);
        graph_break.pid = r.pid;
        parse_graph_break_text(r.payload, &graph_break);
        graph_break.origin = "trace_artifact";
        sink_.emit(std::move(graph_break));
        return;
      }
      case ArtifactUse::kFxGraphCache:
        return handle_cache_artifact(r, "fx_graph");
      case ArtifactUse::kAotAutogradCache:
        return handle_cache_artifact(r, "aotautograd");
      case ArtifactUse::kDynamoError:
        if (r.ids.id.known()) dynamo_errors_[key_of(ref_for(r.ids))] = traceback_summary(r.payload);
        return;
      case ArtifactUse::kCollectiveSchedule:
        return emit_graph_fact(r, "collective_schedule", collective_schedule_items(r.payload));
      case ArtifactUse::kTensorMeta:
        return emit_graph_fact(r, "tensor_meta", tensor_meta_items(r.payload));
      case ArtifactUse::kExecutionOrder:
        return emit_graph_fact(r, "execution_order", execution_order_items(r.payload));
    }
  }

  // A payload as a DOM: one nested deeper than util::kMaxJsonDepth is noted and then read like a
  // malformed one.
  json parse_payload(const Record& r) {
    if (util::json_too_deep_at(r.payload) == kNpos) return parse_json(r.payload);
    sink_.note(r.line, LineFate::kWarning, "json_too_deep", r.excerpt);
    return json(json::value_t::discarded);
  }

  void handle_recompile_reasons(const Record& r) {
    const CompileRef ref = ref_for(r.ids);
    std::vector<std::string> items;
    json parsed = parse_payload(r);
    if (parsed.is_string()) {  // current PyTorch writes a bare string for a single reason
      items.push_back(parsed.get<std::string>());
    } else if (parsed.is_array()) {
      for (const json& item : parsed)
        if (item.is_string()) items.push_back(item.get<std::string>());
    } else {
      // Unparseable (e.g. cut off): one item per line, each line a JSON string if it parses.
      sink_.note(r.line, LineFate::kWarning, "bad_payload_json", r.excerpt);
      for_each_line(r.payload, [&](std::string_view line) {
        std::string_view t = trim(line);
        if (t.ends_with(',')) t.remove_suffix(1);
        if (t.empty() || t == "[" || t == "]") return;
        json one = parse_json(t);
        items.push_back(one.is_string() ? one.get<std::string>() : std::string(t));
      });
    }
    reasons_seen_.insert(key_of(ref));
    for (size_t i = 0; i < items.size(); ++i) {
      GuardFailure failure;
      failure.line = r.line;
      failure.ref = ref;
      failure.entry_index = int32_t(i);
      std::tie(failure.old_compile_id, failure.reason) = split_reason(items[i]);
      failure.origin = "trace_recompile_reasons";
      sink_.emit(std::move(failure));
    }
  }

  void handle_cache_artifact(const Record& r, const char* cache) {
    CacheOutcome outcome;
    outcome.line = r.line;
    outcome.ref = ref_for(r.ids);
    outcome.cache = cache;
    outcome.state = std::string(cache_state_suffix(r.artifact_name));
    bool valid =
        json_skim::for_each_member(r.payload, [&](std::string_view key, std::string_view value) {
          if (key == "key") {
            outcome.key = skim_string(value);
          } else if (key == "cache_bypass_reason") {
            outcome.detail = skim_string(value);
          }
        });
    if (!valid) sink_.note(r.line, LineFate::kWarning, "bad_payload_json", r.excerpt);
    cache_artifacts_seen_.insert({key_of(outcome.ref), outcome.cache});
    sink_.emit(std::move(outcome));
  }

  void handle_dynamo_guards(const Record& r) {
    GuardSet guard_set;
    guard_set.line = r.line;
    guard_set.ref = ref_for(r.ids);
    guard_set.format = "dynamo_guards";
    json parsed = parse_payload(r);
    if (parsed.is_array()) {
      for (const json& item : parsed) {
        if (item.is_string()) {
          guard_set.guards.push_back(item.get<std::string>());
        } else if (std::string code = string_member(item, "code"); !code.empty()) {
          guard_set.guards.push_back(std::move(code));
        }
      }
    } else {
      sink_.note(r.line, LineFate::kWarning, "bad_guards_json", r.excerpt);
      for_each_line(r.payload, [&](std::string_view line) {
        std::string_view t = trim(line);
        if (t.ends_with(',')) t.remove_suffix(1);
        if (t.empty() || t == "[" || t == "]") return;
        json one = parse_json(t);
        std::string code = string_member(one, "code");
        guard_set.guards.push_back(code.empty() ? std::string(t) : std::move(code));
      });
    }
    sink_.emit(std::move(guard_set));
  }

  // Text tree of the C++ guard manager: one guard per leaf line `| | +- KIND: code  # comment`;
  // manager (structure) lines are skipped and the source comment is dropped.
  void handle_cpp_guards(const Record& r) {
    GuardSet guard_set;
    guard_set.line = r.line;
    guard_set.ref = ref_for(r.ids);
    guard_set.format = "dynamo_cpp_guards_str";
    for_each_line(r.payload, [&](std::string_view line) {
      size_t i = 0;
      while (i + 1 < line.size() && line[i] == '|' && line[i + 1] == ' ') i += 2;
      if (line.substr(i, 3) != "+- ") return;
      std::string_view guard = rtrim(line.substr(i + 3));
      std::string_view guard_kind = guard.substr(0, guard.find(':'));
      if (guard_kind.ends_with("Manager")) return;  // GuardManager, DictGuardManager, ...
      // The first "  # " starts the source comments (a source line, then a file:line).
      if (size_t comment = guard.find("  # "); comment != kNpos && comment > guard_kind.size())
        guard = rtrim(guard.substr(0, comment));
      guard_set.guards.emplace_back(guard);
    });
    sink_.emit(std::move(guard_set));
  }

  void handle_chromium(Record& r) {
    // Older writers put the event in the envelope metadata and write no payload.
    std::string_view event = r.has_payload ? std::string_view(r.payload) : r.meta;
    std::string name, phase, args_compile_id, cache_key, bypass_reason;
    std::optional<double> ts, duration;
    bool valid = json_skim::for_each_member(event, [&](std::string_view key,
                                                       std::string_view value) {
      if (key == "name") {
        name = skim_string(value);
      } else if (key == "ph") {
        phase = skim_string(value);
      } else if (key == "ts") {
        ts = json_skim::to_double(value);
      } else if (key == "dur") {
        duration = json_skim::to_double(value);
      } else if (key == "args") {
        json_skim::for_each_member(value, [&](std::string_view arg, std::string_view arg_value) {
          if (arg == "compile_id") {
            args_compile_id = skim_string(arg_value);
          } else if (arg == "key") {
            cache_key = skim_string(arg_value);
          } else if (arg == "cache_bypass_reason") {
            bypass_reason = skim_string(arg_value);
          }
        });
      }
    });
    if (!valid) {
      if (r.has_payload) sink_.note(r.line, LineFate::kRejected, "bad_payload_json", r.excerpt);
      return;
    }
    CompileRef ref = ref_for(r.ids);
    // The envelope id wins (as for compilation_metrics); args.compile_id names the compile of
    // runtime events logged outside a compile context ("None" outside any compile).
    if (!ref.id.known()) {
      if (std::optional<CompileId> id = CompileId::parse(args_compile_id)) ref.id = *id;
    }

    if (phase == "B" || phase == "E") {
      if (!ts) return;
      std::string key = name;
      key += '\x1f';
      key += ref.id.text();
      if (phase == "B") {
        open_phases_[key].push_back({r.line, *ts});
        return;
      }
      auto it = open_phases_.find(key);
      if (it == open_phases_.end() || it->second.empty()) return;  // unmatched end: ignore
      OpenPhase begin = it->second.back();
      it->second.pop_back();
      if (it->second.empty()) open_phases_.erase(it);
      emit_phase(begin.line, ref, std::move(name), begin.ts_us, *ts - begin.ts_us);
      return;
    }
    if (phase == "X") {
      if (ts && duration) emit_phase(r.line, ref, std::move(name), *ts, *duration);
      return;
    }
    std::string_view state = cache_state_suffix(name);
    if (state.empty()) return;
    // Cache outcomes: the fx_graph_cache_* / aotautograd_cache_* artifacts are authoritative.
    // A chromium instant is kept (emitted at finish()) only for a (compile, cache) that had no
    // artifact anywhere in the file, so the same outcome is never counted twice.
    std::string_view name_view = name;
    std::string cache;
    if (name_view.starts_with("fx_graph_cache_")) {
      cache = "fx_graph";
    } else if (name_view.starts_with("autograd_cache_") ||
               name_view.starts_with("aotautograd_cache_")) {
      cache = "aotautograd";
    } else {
      cache = std::string(name_view.substr(0, name_view.size() - state.size() - 7));
    }
    ChromiumCacheOutcome pending;
    pending.outcome.line = r.line;
    pending.outcome.ref = ref;
    pending.outcome.cache = std::move(cache);
    pending.outcome.state = std::string(state);
    pending.outcome.key = std::move(cache_key);
    pending.outcome.detail = std::move(bypass_reason);
    pending.compile = key_of(ref);
    chromium_cache_outcomes_.push_back(std::move(pending));
  }

  void emit_phase(int64_t line, const CompileRef& ref, std::string name, double start_us,
                  double duration_us) {
    if (!std::isfinite(start_us) || !std::isfinite(duration_us) || std::fabs(start_us) > 9.0e18 ||
        std::fabs(duration_us) > 9.0e18)
      return;
    PhaseTiming phase;
    phase.line = line;
    phase.ref = ref;
    phase.name = std::move(name);
    phase.start_us = int64_t(std::llround(start_us));
    phase.duration_us = int64_t(std::llround(duration_us));
    sink_.emit(std::move(phase));
  }

  void handle_describe_tensor(const Record& r) {
    const json& meta = metadata(r);
    std::optional<int64_t> describer = int_member(meta, "describer_id");
    std::optional<int64_t> id = int_member(meta, "id");
    if (!describer || !id) return;
    PendingTensor& pending = tensors_[{*describer, *id}];
    pending.line = r.line;
    InputTensor& t = pending.tensor;
    t = InputTensor{};
    t.dtype = string_member(meta, "dtype");
    t.device = string_member(meta, "device");
    auto read_ints = [&](std::string_view key, std::vector<int64_t>* out) {
      const json* list = member(meta, key);
      if (!list || !list->is_array()) return;
      for (const json& v : *list) out->push_back(as_int(&v).value_or(-1));  // -1: symbolic
    };
    read_ints("size", &t.sizes);
    read_ints("stride", &t.strides);
    t.requires_grad = bool_member(meta, "requires_grad");
  }

  void handle_describe_source(const Record& r) {
    const json& meta = metadata(r);
    std::optional<int64_t> describer = int_member(meta, "describer_id");
    std::optional<int64_t> id = int_member(meta, "id");
    if (!describer || !id) return;
    auto it = tensors_.find({*describer, *id});
    if (it == tensors_.end()) return;
    InputTensor tensor = it->second.tensor;
    tensor.line = it->second.line;
    tensor.ref = ref_for(r.ids);
    tensor.source = string_member(meta, "source");
    sink_.emit(std::move(tensor));
  }

  // ------------------------------------------------------------------------------------------
  // End of input

  // Compiles that started but never reported compilation_metrics (process killed, file cut).
  void flush_incomplete_compiles() {
    std::vector<StartedCompile*> open;
    for (auto& [key, started] : started_) open.push_back(&started);
    std::sort(open.begin(), open.end(),
              [](const StartedCompile* a, const StartedCompile* b) { return a->line < b->line; });
    for (StartedCompile* started : open) {
      DynamoCompile compile;
      compile.line = started->line;
      compile.ref = started->ref;
      compile.kind = "forward";
      compile.co_name = started->compiled_function;
      compile.co_filename = started->compiled_file;
      compile.co_firstlineno = started->compiled_line;
      compile.fail_type = "incomplete";
      if (auto it = dynamo_errors_.find(key_of(started->ref)); it != dynamo_errors_.end())
        compile.fail_reason = it->second;
      compile.user_stack = std::move(started->user_stack);
      sink_.note(started->line, LineFate::kWarning, "truncated_compile",
                 "dynamo_start of " + started->ref.id.text() + " without compilation_metrics");
      sink_.emit(std::move(compile));
    }
    started_.clear();
  }

  void flush_chromium_cache_outcomes() {
    for (ChromiumCacheOutcome& pending : chromium_cache_outcomes_) {
      if (cache_artifacts_seen_.count({pending.compile, pending.outcome.cache})) continue;
      sink_.emit(std::move(pending.outcome));
    }
    chromium_cache_outcomes_.clear();
  }

  EventSink& sink_;

  Record pending_;  // reused between records so its buffers keep their capacity
  bool pending_active_ = false;
  PayloadOwner payload_owner_ = PayloadOwner::kNone;
  PayloadChecksums checksums_;  // payloads' MD5s, checked on a thread of their own

  int32_t epoch_ = 0;
  std::set<CompileKey> started_in_epoch_;  // (rank, F, C) with epoch 0: dynamo_starts this epoch
  std::map<CompileKey, StartedCompile> started_;  // dynamo_start seen, metrics not yet
  std::set<CompileKey> reasons_seen_;             // compiles with a recompile_reasons artifact
  std::map<CompileKey, std::string> dynamo_errors_;
  std::unordered_map<int64_t, std::string> strings_;           // `str` intern table
  std::map<std::string, std::vector<OpenPhase>> open_phases_;  // "<name>\x1f<compile id>"
  std::set<std::pair<CompileKey, std::string>> cache_artifacts_seen_;
  std::vector<ChromiumCacheOutcome> chromium_cache_outcomes_;
  std::map<std::pair<int64_t, int64_t>, PendingTensor> tensors_;  // (describer_id, id)
  std::set<std::pair<std::string, std::string>> versions_seen_;   // (key, value) emitted
};

int sniff_torch_trace(std::string_view head) {
  int score = 0;
  for_each_line(head, [&](std::string_view line) {
    if (score > 0 || line.empty() || line.front() == '\t') return;
    size_t offset = envelope_offset(line);
    if (offset != kNpos && line.substr(offset).starts_with("{\"")) score = 90;
  });
  return score;
}

}  // namespace

ImporterInfo torch_trace_importer_info() {
  return {"torch_trace",
          "PyTorch TORCH_TRACE structured log (glog prefix + JSON envelope + TAB payload lines)",
          &sniff_torch_trace, [](EventSink& sink) -> std::unique_ptr<Importer> {
            return std::make_unique<TorchTraceImporter>(sink);
          }};
}

}  // namespace rcf::ingest
