// One TORCH_TRACE record (docs/torch_trace.md): the envelope's event key, kind, compile ids and
// raw metadata, and the payload lines that followed it. Built by
// ingest/torch_trace/torch_trace_importer.cc and read by its handlers.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "ingest/reading/md5.h"
#include "ingest/reading/wall_time.h"
#include "ingest/torch_trace/torch_trace_envelope.h"
#include "ingest/torch_trace/torch_trace_json.h"

namespace rcf::ingest::torch_trace {

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
  // The '\n'-joined payload, only when keep_payload, while the record is handled: a view of the
  // checksums' chunk that holds it (ingest/torch_trace/payload_checksums.h), or of payload_storage
  // once it outgrew what a chunk holds (payload_held false).
  std::string_view payload;
  bool payload_held = false;
  std::string payload_storage;
};

// The event metadata as a DOM, for the small kinds (null when absent or malformed).
inline json metadata(const Record& r) {
  return r.meta.empty() ? json() : parse_json(r.meta);
}

}  // namespace rcf::ingest::torch_trace
