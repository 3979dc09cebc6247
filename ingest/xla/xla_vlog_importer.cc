// torch_xla VLOG importer (docs/xla_formats.md): the graph lines of TF_CPP_VMODULE=tensor=5
// (before 2023) or xla_graph_executor=5, of every era (2019 decimal hashes without thread ids,
// 2021 absolute source paths, per-device threads interleaved).
//
// A compile is one `Compiling IR graph hash <h> on device <d> ...` line. Its `... done!` line
// (same hash and device) gives the compile time from the two timestamps and is emitted with it,
// so the compile is emitted when it finishes (or at the end of the input, noted kWarning
// "compile_not_finished"). A done line whose start was cut off is a compile of its own.
//
// Line fates: graph records are parsed; `Executing ... done!` lines are skipped "execute_done",
// device-barrier lines "device_barrier", other VLOG messages "other_vlog_message", lines with no
// VLOG prefix (user prints, a pdb session) "other_output", blank lines "blank"; a graph message
// whose hash or count does not parse is rejected "bad_vlog_graph_line".
#include "ingest/xla/xla_vlog_importer.h"

#include <memory>
#include <string>
#include <vector>

#include "ingest/reading/text_util.h"
#include "ingest/xla/xla_vlog_line.h"

namespace rcf::ingest {
namespace {

// Compiles in flight at once: one per device thread, a few hundred at most on a pod.
constexpr size_t kMaxOpenCompiles = 4096;

struct OpenCompile {
  XlaVlogRecord record;
  std::optional<double> start_s;
};

const char* kind_name(VlogKind kind) {
  switch (kind) {
    case VlogKind::kExecuteStart:
      return "execute";
    case VlogKind::kTensorsGraph:
      return "tensors_graph";
    case VlogKind::kParameterSequence:
      return "parameter_sequence";
    case VlogKind::kCacheHit:
      return "cache_hit";
    case VlogKind::kGetTensor:
      return "get_tensor";
    case VlogKind::kGraphSize:
      return "graph_size";
    default:
      return "compile";
  }
}

class XlaVlogImporter : public Importer {
 public:
  explicit XlaVlogImporter(EventSink& sink) : sink_(sink) {}

  void on_line(std::string_view line, int64_t line_no) override {
    VlogLine v;
    if (!split_vlog_line(line, &v)) {
      sink_.note(line_no, is_blank(line) ? reason::kBlank : reason::kOtherOutput, line);
      return;
    }
    VlogMessage m = classify_vlog_message(v.message);
    switch (m.kind) {
      case VlogKind::kNone:
        return sink_.note(line_no, reason::kOtherVlogMessage, line);
      case VlogKind::kBadHash:
        return sink_.note(line_no, reason::kBadVlogGraphLine, line);
      case VlogKind::kDeviceBarrier:
        return sink_.note(line_no, reason::kDeviceBarrier, line);
      case VlogKind::kExecuteDone:
        return sink_.note(line_no, reason::kExecuteDone, line);
      case VlogKind::kCompileStart:
        return open_compile(m, v, line_no);
      case VlogKind::kCompileDone:
        return finish_compile(m, v, line_no);
      default:
        return emit_record(m, v, line_no);
    }
  }

  // Every member is a value (ingest/importer.h).
  std::unique_ptr<Importer> clone() const override {
    return std::make_unique<XlaVlogImporter>(*this);
  }

  void finish() override {
    for (OpenCompile& c : open_) {
      sink_.note(c.record.line, reason::kCompileNotFinished, c.record.graph_hash);
      sink_.emit(std::move(c.record));
    }
    open_.clear();
  }

 private:
  static XlaVlogRecord record_of(const VlogMessage& m, const VlogLine& v, int64_t line_no) {
    XlaVlogRecord r;
    r.line = line_no;
    r.kind = kind_name(m.kind);
    r.graph_hash = std::string(m.hash);
    r.device = std::string(m.device);
    r.thread = v.thread;
    if (m.kind == VlogKind::kGetTensor || m.kind == VlogKind::kGraphSize) r.count = m.count;
    return r;
  }

  void emit_record(const VlogMessage& m, const VlogLine& v, int64_t line_no) {
    sink_.emit(record_of(m, v, line_no));
  }

  // The open compile of (hash, device), or open_.end().
  std::vector<OpenCompile>::iterator find_open(const VlogMessage& m) {
    for (auto it = open_.begin(); it != open_.end(); ++it)
      if (it->record.graph_hash == m.hash && it->record.device == m.device) return it;
    return open_.end();
  }

  void open_compile(const VlogMessage& m, const VlogLine& v, int64_t line_no) {
    // The same graph started again on the device before it finished: the first start was cut off.
    if (auto it = find_open(m); it != open_.end()) close_unfinished(it);
    if (open_.size() >= kMaxOpenCompiles) close_unfinished(open_.begin());
    open_.push_back({record_of(m, v, line_no), v.clock_s});
  }

  void finish_compile(const VlogMessage& m, const VlogLine& v, int64_t line_no) {
    auto it = find_open(m);
    if (it == open_.end()) {  // its start is not in the input: the done line is the record
      XlaVlogRecord r = record_of(m, v, line_no);
      r.finished = true;
      sink_.emit(std::move(r));
      return;
    }
    XlaVlogRecord r = std::move(it->record);
    r.finished = true;
    if (it->start_s && v.clock_s && *v.clock_s >= *it->start_s)
      r.compile_ms = (*v.clock_s - *it->start_s) * 1000.0;
    open_.erase(it);
    sink_.emit(std::move(r));
  }

  void close_unfinished(std::vector<OpenCompile>::iterator it) {
    sink_.note(it->record.line, reason::kCompileNotFinished, it->record.graph_hash);
    sink_.emit(std::move(it->record));
    open_.erase(it);
  }

  EventSink& sink_;
  std::vector<OpenCompile> open_;
};

// A head line that is a VLOG graph line.
bool has_vlog_graph_line(std::string_view head) {
  static constexpr std::string_view kMarkers[] = {
      " IR graph hash ", "Tensors graph hash ", "Parameter sequence graph hash ",
      "Trying to get the value of ", "SyncTensorsGraphSize="};
  for (std::string_view marker : kMarkers) {
    for (size_t at = find_in_head(head, marker); at != std::string_view::npos;
         at = find_in_head(head, marker, at + 1)) {
      size_t start = head.rfind('\n', at);
      start = start == std::string_view::npos ? 0 : start + 1;
      size_t end = head.find('\n', at);
      std::string_view line = head.substr(start, end == std::string_view::npos ? end : end - start);
      VlogLine v;
      if (split_vlog_line(line, &v) && classify_vlog_message(v.message).kind != VlogKind::kNone)
        return true;
    }
  }
  return false;
}

// The score of a head with a VLOG graph line (the only one it gives).
constexpr int kVlogScore = 80;

int sniff_xla_vlog(std::string_view head) {
  return has_vlog_graph_line(head) ? kVlogScore : 0;
}

}  // namespace

ImporterInfo xla_vlog_importer_info() {
  return {"xla_vlog",
          "torch_xla VLOG graph lines (TF_CPP_VMODULE=tensor=5 / xla_graph_executor=5): "
          "Compiling / Executing IR graph hash, Tensors graph hash, GetTensor",
          sniff_xla_vlog,
          [](EventSink& sink) -> std::unique_ptr<Importer> {
            return std::make_unique<XlaVlogImporter>(sink);
          },
          kVlogScore};
}

}  // namespace rcf::ingest
