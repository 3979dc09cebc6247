// TORCH_TRACE structured-log importer. Format: docs/torch_trace.md.
// This file holds the line dispatch, the pending record (torch_trace_record.h) and the handlers
// that need the importer's state; the compile lifecycle is in torch_trace_compiles.h, the glog
// prefix / envelope helpers in torch_trace_envelope.h, the JSON helpers in torch_trace_json.h and
// the stateless payload readers in torch_trace_payloads.h.
//
// Throughput: every payload byte must be MD5-checked; the bytes are copied into chunks that a
// second thread hashes (ingest/torch_trace/payload_checksums.h), so the check costs the parsing
// thread a copy; only payloads of the kinds that feed events are kept, and those are read from that
// copy (the chunk is held until the record is handled) rather than copied twice. The glog prefix is
// parsed by hand, and the event kind is read from the literal `{"<key>"` that starts the envelope,
// so the envelopes of kinds nothing here uses (graphs, generated code, links, export events, ...)
// are never parsed: only `has_payload` is looked up. Envelopes and payloads of the kinds that are
// used are validated and read with the JSON skimmer (json_skim.h), which pulls a few fields out of
// large records (chromium events whose args copy all compilation metrics, cache artifacts listing
// every key component, compilation_metrics with two embedded config dumps) without building a DOM;
// nlohmann::json (without exceptions) is used only for the small structured parts: str,
// dynamo_start stacks, describe_*, recompile_reasons, dynamo_guards.
#include "ingest/torch_trace/torch_trace_importer.h"

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

#include "ingest/reading/md5.h"
#include "ingest/reading/wall_time.h"
#include "ingest/torch_trace/inductor_graph_facts.h"
#include "ingest/torch_trace/json_skim.h"
#include "ingest/torch_trace/payload_checksums.h"
#include "ingest/torch_trace/torch_trace_compiles.h"
#include "ingest/torch_trace/torch_trace_envelope.h"
#include "ingest/torch_trace/torch_trace_json.h"
#include "ingest/torch_trace/torch_trace_payloads.h"
#include "ingest/torch_trace/torch_trace_record.h"
#include "util/json_depth.h"

namespace rcf::ingest {
namespace {

// A kept payload (the few kinds whose payload is parsed) stops growing here; the MD5 still covers
// every byte. Guards against pathological inputs, far above anything PyTorch writes.
constexpr size_t kMaxKeptPayloadBytes = size_t{64} << 20;
// Excerpt stored with a pending record for notes made after its line is gone.
constexpr size_t kExcerptBytes = 200;
// A kept payload up to this size is read from the checksums' chunk
// (ingest/torch_trace/payload_checksums.h); a larger one is copied out, so that a chunk never holds
// more than about twice its size.
constexpr size_t kHeldPayloadBytes = size_t{1} << 20;

// Helpers of this format: ingest/torch_trace_{envelope,json,payloads,record,compiles}.h.
using torch_trace::artifact_use;
using torch_trace::ArtifactUse;
using torch_trace::as_int;
using torch_trace::bool_member;
using torch_trace::cache_state_suffix;
using torch_trace::chromium_cache_name;
using torch_trace::ChromiumEvent;
using torch_trace::CompileKey;
using torch_trace::CompileTracker;
using torch_trace::cpp_guard_lines;
using torch_trace::envelope_offset;
using torch_trace::EnvelopeIds;
using torch_trace::for_each_line;
using torch_trace::glog_pid;
using torch_trace::int_member;
using torch_trace::is_context_key;
using torch_trace::json;
using torch_trace::key_of;
using torch_trace::Kind;
using torch_trace::kind_of_key;
using torch_trace::literal_first_key;
using torch_trace::member;
using torch_trace::metadata;
using torch_trace::parse_graph_break_text;
using torch_trace::parse_json;
using torch_trace::read_chromium_event;
using torch_trace::Record;
using torch_trace::scan_string_value;
using torch_trace::skim_small_int;
using torch_trace::skim_string;
using torch_trace::split_reason;
using torch_trace::string_member;
using torch_trace::traceback_summary;

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
      sink_.note(line_no, reason::kInternalError, e.what());
    }
  }

  // Member by member (the checksums wait for their worker, PayloadChecksums); the pending
  // record's metadata views the copy's own storage.
  std::unique_ptr<Importer> clone() const override {
    auto copy = std::make_unique<TorchTraceImporter>(*this);
    if (pending_.meta.data() == pending_.meta_storage.data())
      copy->pending_.meta = copy->pending_.meta_storage;
    return copy;
  }

  void finish() override {
    try {
      finish_pending();
      for (const PayloadChecksums::Mismatch& m : checksums_.finish())
        sink_.note(m.line, reason::kPayloadMd5Mismatch, m.excerpt);
      compiles_.flush_incomplete_compiles();
      flush_chromium_cache_outcomes();
    } catch (const std::exception& e) {
      sink_.note(0, reason::kInternalError, e.what());
    }
  }

 private:
  // Who owns the TAB lines that follow the current record line.
  enum class PayloadOwner : uint8_t {
    kNone,            // TAB lines here are orphans
    kPending,         // pending_ collects them
    kRejectedRecord,  // they belong to an envelope we rejected: skipped with it
  };

  struct OpenPhase {
    int64_t line;
    double ts_us;
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
      sink_.note(line_no, reason::kBlank, line);
      return;
    }
    if (line.front() == '\t') {
      switch (payload_owner_) {
        case PayloadOwner::kPending:
          append_payload_line(line.substr(1), line_no);
          return;
        case PayloadOwner::kRejectedRecord:
          sink_.note(line_no, reason::kPayloadOfRejectedRecord, line);
          return;
        case PayloadOwner::kNone:
          sink_.note(line_no, reason::kOrphanPayload, line);
          return;
      }
    }
    finish_pending();
    payload_owner_ = PayloadOwner::kNone;
    on_record_line(line, line_no);
  }

  void append_payload_line(std::string_view content, int64_t line_no) {
    Record& r = pending_;
    const bool first = r.payload_lines++ == 0;
    if (r.keep_payload) keep_payload_line(r, content, first);
    checksums_.append_line(content, first);
    if (r.version_lines && content.starts_with("# torch "))
      compiles_.read_torch_version(content, line_no);
  }

  // Keeps a line of a kept payload, before its bytes go to the checksums: while the record is
  // held there, its bytes are the payload (one copy of them, not two); past kHeldPayloadBytes, or
  // at the first line that would pass kMaxKeptPayloadBytes, the payload so far is copied out and
  // kept lines are appended to payload_storage instead.
  void keep_payload_line(Record& r, std::string_view content, bool first) {
    const size_t kept = r.payload_held ? checksums_.open_record().size() : r.payload_storage.size();
    const bool overflows = kept + content.size() + 1 > kMaxKeptPayloadBytes;
    if (r.payload_held && (overflows || kept + content.size() + 1 > kHeldPayloadBytes)) {
      r.payload_storage.assign(checksums_.open_record());
      r.payload_held = false;
      checksums_.hold_record(false);
    }
    if (overflows) {
      r.payload_overflow = true;
      return;
    }
    if (r.payload_held) return;
    if (!first) r.payload_storage += '\n';
    r.payload_storage.append(content);
  }

  void on_record_line(std::string_view line, int64_t line_no) {
    size_t offset = envelope_offset(line);
    if (offset == kNpos) {
      sink_.note(line_no, reason::kNoGlogPrefix, line);
      return;
    }
    std::string_view envelope = rtrim(line.substr(offset));
    if (envelope.size() < 2 || envelope.front() != '{' || envelope.back() != '}') {
      reject_bad_json(envelope, line, line_no);
      return;
    }

    Record& r = pending_;
    start_record(line, line_no, &r);
    const bool full_parse = read_event_key(envelope, &r);

    // A view into the envelope, or into md5_decoded_ when the JSON string had escapes.
    std::optional<std::string_view> md5_text;
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

    if (r.kind == Kind::kUnknown) sink_.note(line_no, reason::kUnknownEvent, line);
    r.version_lines = r.event_key == "artifact" && r.artifact_name == "fx_graph_runnable";

    r.has_payload = has_payload;
    if (md5_text) r.expected_md5_valid = Md5::parse_hex(*md5_text, &r.expected_md5);
    if (!has_payload) {
      handle_record(r);  // r.meta points into `line`, valid for this call
      r.meta = {};
      return;
    }
    await_payload(line, &r);
  }

  // Resets the pending record for the record line `line`.
  void start_record(std::string_view line, int64_t line_no, Record* r) {
    r->kind = Kind::kUnknown;
    r->artifact = ArtifactUse::kNone;
    r->line = line_no;
    r->event_key.clear();
    r->artifact_name.clear();
    r->meta = {};
    r->ids = EnvelopeIds{};
    r->pid = glog_pid(line);
    r->clock = read_glog_clock(line);
    r->has_payload = false;
    r->expected_md5_valid = false;
    r->keep_payload = false;
    r->payload_overflow = false;
    r->version_lines = false;
    r->payload_lines = 0;
    r->payload = {};
    r->payload_held = false;
    r->payload_storage.clear();
  }

  // The event key when the envelope's first key is a literal one, and the record's kind from it.
  // Returns whether the envelope must be parsed in full (its kind is wanted, or its layout is
  // unusual and only the skimmer finds the key).
  bool read_event_key(std::string_view envelope, Record* r) {
    std::string_view key = literal_first_key(envelope);
    if (is_context_key(key)) key = {};  // context keys first: let the skimmer find the event key
    if (key.empty()) return true;
    r->event_key.assign(key);
    r->kind = kind_of_key(key);
    if (r->kind == Kind::kArtifact) {
      std::optional<std::string_view> name = scan_string_value(envelope, "\"name\"", false);
      if (name) r->artifact_name.assign(*name);
      r->artifact = artifact_use(r->artifact_name);
      if (r->artifact == ArtifactUse::kNone) r->kind = Kind::kIgnored;
    }
    return r->kind != Kind::kIgnored && r->kind != Kind::kUnknown;
  }

  // The record's payload lines follow: keep what the record needs past `line`'s lifetime.
  void await_payload(std::string_view line, Record* r) {
    r->excerpt.assign(line.substr(0, std::min(line.size(), kExcerptBytes)));
    r->meta_storage.assign(r->meta);
    r->meta = r->meta_storage;
    r->keep_payload = r->kind != Kind::kIgnored && r->kind != Kind::kUnknown;
    checksums_.begin_record();
    r->payload_held = r->keep_payload;
    checksums_.hold_record(r->payload_held);
    pending_active_ = true;
    payload_owner_ = PayloadOwner::kPending;
  }

  // Validates the envelope and reads the shared context keys, the event key (the first key that
  // is not a context key) and the raw event metadata. False when the envelope is not valid JSON.
  bool parse_envelope(std::string_view envelope, Record* r, bool* has_payload,
                      std::optional<std::string_view>* md5_text) {
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
              *md5_text = string_value(value);
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

  // A JSON string value's text: a view of it where it holds no escape (a checksum is 32 hex
  // digits: no allocation per record), else decoded into md5_decoded_. nullopt if not a string.
  std::optional<std::string_view> string_value(std::string_view value) {
    if (value.size() >= 2 && value.front() == '"' && value.back() == '"' &&
        value.find('\\') == std::string_view::npos)
      return value.substr(1, value.size() - 2);
    std::optional<std::string> decoded = json_skim::to_string(value);
    if (!decoded) return std::nullopt;
    md5_decoded_ = std::move(*decoded);
    return std::string_view(md5_decoded_);
  }

  void reject_bad_json(std::string_view envelope, std::string_view line, int64_t line_no) {
    bool too_deep = util::json_too_deep_at(envelope) != kNpos;
    sink_.note(line_no, too_deep ? reason::kJsonTooDeepRejected : reason::kBadJson, line);
    // Its payload lines (if it announced any) go down with it instead of becoming orphans.
    if (envelope.find("\"has_payload\"") != kNpos) payload_owner_ = PayloadOwner::kRejectedRecord;
  }

  // Completes the pending record: checks the MD5, then handles it.
  void finish_pending() {
    if (!pending_active_) return;
    pending_active_ = false;
    payload_owner_ = PayloadOwner::kNone;
    Record& r = pending_;
    if (r.keep_payload) r.payload = r.payload_held ? checksums_.open_record() : r.payload_storage;
    // A held payload stays where it is until the hold ends, end_record() included.
    checksums_.end_record(r.line, r.excerpt, r.expected_md5_valid ? &r.expected_md5 : nullptr);
    if (r.payload_overflow) sink_.note(r.line, reason::kPayloadTooLarge, r.excerpt);
    handle_record(r);
    r.payload = {};
    checksums_.hold_record(false);
  }

  // ------------------------------------------------------------------------------------------
  // Record handlers

  CompileRef ref_for(const EnvelopeIds& ids) const { return compiles_.ref_for(ids); }

  void handle_record(Record& r) {
    switch (r.kind) {
      case Kind::kUnknown:
      case Kind::kIgnored:
        return;
      case Kind::kString:
        return compiles_.handle_string(r);
      case Kind::kDynamoStart:
        return compiles_.handle_dynamo_start(r);
      case Kind::kForwardMetrics:
        return compiles_.handle_metrics(r, "forward");
      case Kind::kBackwardMetrics:
        return compiles_.handle_metrics(r, "backward");
      case Kind::kRuntimeMetrics:
        return compiles_.handle_metrics(r, "runtime");
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
    if (!items) return sink_.note(r.line, reason::kBadPayloadJsonWarning, r.excerpt);
    sink_.emit(GraphFact{r.line, ref_for(r.ids), kind, std::move(*items)});
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
        if (r.ids.id.known())
          compiles_.note_dynamo_error(key_of(ref_for(r.ids)), traceback_summary(r.payload));
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
    sink_.note(r.line, reason::kJsonTooDeepWarning, r.excerpt);
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
      sink_.note(r.line, reason::kBadPayloadJsonWarning, r.excerpt);
      for_each_line(r.payload, [&](std::string_view line) {
        std::string_view t = trim(line);
        if (t.ends_with(',')) t.remove_suffix(1);
        if (t.empty() || t == "[" || t == "]") return;
        json one = parse_json(t);
        items.push_back(one.is_string() ? one.get<std::string>() : std::string(t));
      });
    }
    compiles_.note_reasons(key_of(ref));
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
    if (!valid) sink_.note(r.line, reason::kBadPayloadJsonWarning, r.excerpt);
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
      sink_.note(r.line, reason::kBadGuardsJson, r.excerpt);
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
    guard_set.guards = cpp_guard_lines(r.payload);
    sink_.emit(std::move(guard_set));
  }

  void handle_chromium(Record& r) {
    // Older writers put the event in the envelope metadata and write no payload.
    std::string_view event = r.has_payload ? std::string_view(r.payload) : r.meta;
    ChromiumEvent e;
    bool valid = read_chromium_event(event, &e);
    if (!valid) {
      if (r.has_payload) sink_.note(r.line, reason::kBadPayloadJsonRejected, r.excerpt);
      return;
    }
    CompileRef ref = ref_for(r.ids);
    // The envelope id wins (as for compilation_metrics); args.compile_id names the compile of
    // runtime events logged outside a compile context ("None" outside any compile).
    if (!ref.id.known()) {
      if (std::optional<CompileId> id = CompileId::parse(e.args_compile_id)) ref.id = *id;
    }

    if (e.phase == "B" || e.phase == "E") {
      if (!e.ts) return;
      std::string key = e.name;
      key += '\x1f';
      key += ref.id.text();
      if (e.phase == "B") {
        open_phases_[key].push_back({r.line, *e.ts});
        return;
      }
      auto it = open_phases_.find(key);
      if (it == open_phases_.end() || it->second.empty()) return;  // unmatched end: ignore
      OpenPhase begin = it->second.back();
      it->second.pop_back();
      if (it->second.empty()) open_phases_.erase(it);
      emit_phase(begin.line, ref, std::move(e.name), begin.ts_us, *e.ts - begin.ts_us);
      return;
    }
    if (e.phase == "X") {
      if (e.ts && e.duration) emit_phase(r.line, ref, std::move(e.name), *e.ts, *e.duration);
      return;
    }
    std::string_view state = cache_state_suffix(e.name);
    if (state.empty()) return;
    // Cache outcomes: the fx_graph_cache_* / aotautograd_cache_* artifacts are authoritative.
    // A chromium instant is kept (emitted at finish()) only for a (compile, cache) that had no
    // artifact anywhere in the file, so the same outcome is never counted twice.
    ChromiumCacheOutcome pending;
    pending.outcome.line = r.line;
    pending.outcome.ref = ref;
    pending.outcome.cache = chromium_cache_name(e.name, state);
    pending.outcome.state = std::string(state);
    pending.outcome.key = std::move(e.cache_key);
    pending.outcome.detail = std::move(e.bypass_reason);
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

  void flush_chromium_cache_outcomes() {
    for (ChromiumCacheOutcome& pending : chromium_cache_outcomes_) {
      if (cache_artifacts_seen_.count({pending.compile, pending.outcome.cache})) continue;
      sink_.emit(std::move(pending.outcome));
    }
    chromium_cache_outcomes_.clear();
  }

  EventSink& sink_;

  Record pending_;           // reused between records so its buffers keep their capacity
  std::string md5_decoded_;  // string_value()'s decoded text, until the next envelope
  bool pending_active_ = false;
  PayloadOwner payload_owner_ = PayloadOwner::kNone;
  PayloadChecksums checksums_;      // payloads' MD5s, checked on a thread of their own
  CompileTracker compiles_{sink_};  // dynamo_start .. compilation_metrics, str table, versions

  std::map<std::string, std::vector<OpenPhase>> open_phases_;  // "<name>\x1f<compile id>"
  std::set<std::pair<CompileKey, std::string>> cache_artifacts_seen_;
  std::vector<ChromiumCacheOutcome> chromium_cache_outcomes_;
  std::map<std::pair<int64_t, int64_t>, PendingTensor> tensors_;  // (describer_id, id)
};

// The score of a head with a JSON envelope after a glog prefix (the highest it gives).
constexpr int kTraceScore = 90;

int sniff_torch_trace(std::string_view head) {
  int score = 0;
  for_each_line(head, [&](std::string_view line) {
    if (score > 0 || line.empty() || line.front() == '\t') return;
    size_t offset = envelope_offset(line);
    if (offset != kNpos && line.substr(offset).starts_with("{\"")) score = kTraceScore;
  });
  return score;
}

}  // namespace

ImporterInfo torch_trace_importer_info() {
  return {"torch_trace",
          "PyTorch TORCH_TRACE structured log (glog prefix + JSON envelope + TAB payload lines)",
          &sniff_torch_trace,
          [](EventSink& sink) -> std::unique_ptr<Importer> {
            return std::make_unique<TorchTraceImporter>(sink);
          },
          kTraceScore};
}

}  // namespace rcf::ingest
