#include "store/ingest_writer.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <ctime>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "ingest/batching_sink.h"
#include "store/batch_insert.h"
#include "store/delete_source.h"
#include "store/duplicate_source.h"
#include "store/hlo_instruction_text.h"
#include "store/run_bundle.h"
#include "store/source_resume.h"
#include "store/step_marker_series.h"
#include "store/string_interner.h"
#include "util/error.h"

namespace rcf::store {
namespace {

constexpr size_t kBatchEvents = 2048;
constexpr size_t kMaxQueuedBatches = 4;

std::string utc_now() {
  std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

// Appends `text` as a JSON string. Bytes that are not valid UTF-8 become U+FFFD, as nlohmann's
// `replace` handler does, so the output always parses.
void append_json_string(std::string& out, std::string_view text) {
  out.push_back('"');
  for (size_t i = 0; i < text.size();) {
    unsigned char c = static_cast<unsigned char>(text[i]);
    if (c == '"' || c == '\\') {
      out.push_back('\\');
      out.push_back(static_cast<char>(c));
      ++i;
    } else if (c < 0x20) {
      out += fmt::format("\\u{:04x}", c);
      ++i;
    } else if (c < 0x80) {
      out.push_back(static_cast<char>(c));
      ++i;
    } else {
      size_t len = (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xe ? 3 : (c >> 3) == 0x1e ? 4 : 0;
      bool valid = len > 0 && i + len <= text.size();
      for (size_t k = 1; valid && k < len; ++k)
        valid = (static_cast<unsigned char>(text[i + k]) & 0xc0) == 0x80;
      if (valid) {
        out.append(text.data() + i, len);
        i += len;
      } else {
        out += "\xef\xbf\xbd";
        ++i;
      }
    }
  }
  out.push_back('"');
}

// Frames as a JSON list of {file, line, function[, code]}; hand-written because it runs once
// per execution block of a level-2 log (nlohmann's tree building dominated the profile).
std::string frames_json(const std::vector<ingest::StackFrame>& frames) {
  std::string out = "[";
  for (const auto& f : frames) {
    if (out.size() > 1) out.push_back(',');
    out += "{\"file\":";
    append_json_string(out, f.file);
    out += fmt::format(",\"line\":{},\"function\":", f.line);
    append_json_string(out, f.function);
    if (!f.code.empty()) {
      out += ",\"code\":";
      append_json_string(out, f.code);
    }
    out.push_back('}');
  }
  out.push_back(']');
  return out;
}

std::vector<std::string> with_ref(std::vector<std::string> tail) {
  std::vector<std::string> cols = {"run_id",   "source_id",        "line",    "rank", "epoch",
                                   "frame_id", "frame_compile_id", "attempt", "ca_id"};
  cols.insert(cols.end(), tail.begin(), tail.end());
  return cols;
}

std::vector<std::string> with_src(std::vector<std::string> tail) {
  std::vector<std::string> cols = {"run_id", "source_id", "line"};
  cols.insert(cols.end(), tail.begin(), tail.end());
  return cols;
}

// The columns of the two widest raw tables, in the order EventRowWriter binds them.
std::vector<std::string> dynamo_compile_columns() {
  return with_ref({"kind",
                   "co_name_sid",
                   "co_filename_sid",
                   "co_firstlineno",
                   "start_us",
                   "duration_ms",
                   "cache_size",
                   "accumulated_cache_size",
                   "guard_count",
                   "shape_env_guard_count",
                   "graph_op_count",
                   "graph_node_count",
                   "graph_input_count",
                   "has_guarded_code",
                   "recompile_limit",
                   "accumulated_recompile_limit",
                   "fail_type_sid",
                   "fail_reason_sid",
                   "recompile_reason_sid",
                   "restart_reasons",
                   "user_stack",
                   "pid",
                   "clock_offset_s"});
}

std::vector<std::string> hlo_module_columns() {
  return {"hlo_module_id",
          "run_id",
          "source_id",
          "line",
          "module_name_sid",
          "module_id",
          "stage",
          "file_name",
          "entry_layout_sid",
          "instruction_count",
          "structure_fingerprint",
          "full_fingerprint",
          "skeleton_fingerprint",
          "op_histogram",
          "truncated",
          "graph_hash"};
}

}  // namespace

// Turns events into rows. Used only by the writer thread (or by the caller's thread while the
// writer thread is idle).
class EventRowWriter {
 public:
  explicit EventRowWriter(Database& db) : db_(db), strings_(db) {
    auto next = db.prepare("SELECT coalesce(max(hlo_module_id), 0) + 1 FROM hlo_module");
    next.step();
    next_hlo_id_ = next.int64(0);
    auto group = db.prepare("SELECT coalesce(max(group_id), 0) + 1 FROM xla_execution_group");
    group.step();
    next_group_id_ = group.int64(0);
  }

  // `group_base` >= 0: the source goes on where an earlier transaction left it, with its
  // execution groups numbered from that base as they were then.
  // `series`: the progress lines the source's last piece left as a series still open; its row,
  // written at the end of that piece, is taken back so that the series goes on.
  // `series_row_kept`: the series' row is still in the store (the end of a watch's batch wrote
  // it), not taken back with the rows of the source's end (store/source_resume.h).
  void set_source(int64_t run_id, int64_t source_id, int64_t group_base = -1,
                  const StepMarkerSeries& series = {}, bool series_row_kept = true) {
    end_step_series();
    run_id_ = run_id;
    source_id_ = source_id;
    group_base_ = group_base >= 0 ? group_base : next_group_id_;
    step_series_ = series;
    read_end_.reset();
    if (auto open = series.peek(); open && series_row_kept) take_back_series_row(*open);
  }
  const StepMarkerSeries& step_series() const { return step_series_; }
  int64_t group_base() const { return group_base_; }

  void write(const ingest::Event& event) {
    std::visit([this](const auto& e) { this->row(e); }, event);
  }

  void flush() {
    end_step_series();
    for (BatchInsert* b : all_) b->flush();
  }

  // Whether the rows of a source in `table` are written here (those a read on may take back).
  bool takes_back(const std::string& table) const {
    return std::any_of(all_.begin(), all_.end(), [&](const BatchInsert* b) {
      return b->table() == table && b->has_column("source_id");
    });
  }

  // Where the current source's read stopped, with the rows its end wrote since (call after
  // flush()); nullopt when it did not say (ingest::SourceReadEnd) or its end wrote what cannot
  // be taken back (a row without its source's id, a version in the run's bundle).
  std::optional<SourceResume> take_read_end() {
    std::optional<ReadEnd> end = std::exchange(read_end_, std::nullopt);
    if (!end || !end->takes_back) return std::nullopt;
    SourceResume point;
    point.source_id = source_id_;
    point.line = end->at.line;
    point.bytes = end->at.bytes;
    point.step_pattern = end->at.step_pattern;
    point.group_base = end->group_base;
    point.series = end->series;
    for (size_t i = 0; i < all_.size(); ++i) {
      const int64_t rows = all_[i]->rows_appended() - end->rows_before[i];
      if (rows == 0) continue;
      if (!all_[i]->has_column("source_id")) return std::nullopt;
      point.end_rows.emplace_back(all_[i]->table(), rows);
    }
    std::sort(point.end_rows.begin(), point.end_rows.end());
    return point;
  }

 private:
  BatchInsert& ref(BatchInsert& b, int64_t line, const ingest::CompileRef& r) {
    return b.val(run_id_)
        .val(source_id_)
        .val(line)
        .val(r.rank)
        .val(r.epoch)
        .val(r.id.frame)
        .val(r.id.compile)
        .val(r.id.attempt)
        .val(r.id.compiled_autograd);
  }

  void row(const ingest::DynamoCompile& c) {
    ref(compile_, c.line, c.ref)
        .val(c.kind)
        .val(strings_.id_or_null(c.co_name))
        .val(strings_.id_or_null(c.co_filename))
        .val(c.co_firstlineno >= 0 ? std::optional<int64_t>(c.co_firstlineno) : std::nullopt)
        .val(c.start_time_us)
        .val(c.duration_ms)
        .val(c.cache_size)
        .val(c.accumulated_cache_size)
        .val(c.guard_count)
        .val(c.shape_env_guard_count)
        .val(c.graph_op_count)
        .val(c.graph_node_count)
        .val(c.graph_input_count)
        .val(c.has_guarded_code)
        .val(c.recompile_limit)
        .val(c.accumulated_recompile_limit)
        .val(strings_.id_or_null(c.fail_type))
        .val(strings_.id_or_null(c.fail_reason))
        .val(strings_.id_or_null(c.recompile_reason));
    if (c.restart_reasons.empty())
      compile_.null();
    else
      compile_.val(nlohmann::json(c.restart_reasons)
                       .dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
    if (c.user_stack.empty())
      compile_.null();
    else
      compile_.val(frames_json(c.user_stack));
    compile_.val(c.pid >= 0 ? std::optional<int64_t>(c.pid) : std::nullopt);
    compile_.val(c.clock_offset_s);
  }

  void row(const ingest::GuardFailure& g) {
    ref(failure_, g.line, g.ref)
        .val(g.entry_index)
        .val(g.verbose_group)
        .val(g.old_compile_id)
        .val(strings_.id(g.reason))
        .val(g.origin);
  }

  void row(const ingest::GraphBreak& g) {
    ref(graph_break_, g.line, g.ref)
        .val(strings_.id_or_null(g.user_file))
        .val(g.user_line >= 0 ? std::optional<int64_t>(g.user_line) : std::nullopt)
        .val(strings_.id_or_null(g.user_function))
        .val(strings_.id_or_null(g.gb_type))
        .val(strings_.id_or_null(g.reason))
        .val(g.suppressed)
        .val(g.sync_signature);
    if (g.user_stack.empty())
      graph_break_.null();
    else
      graph_break_.val(frames_json(g.user_stack));
    graph_break_.val(g.origin);
    graph_break_.val(g.pid >= 0 ? std::optional<int64_t>(g.pid) : std::nullopt);
  }

  void row(const ingest::RecompileLimitHit& h) {
    ref(limit_, h.line, h.ref)
        .val(h.limit_type)
        .val(h.limit_value >= 0 ? std::optional<int64_t>(h.limit_value) : std::nullopt)
        .val(strings_.id_or_null(h.function))
        .val(strings_.id_or_null(h.file))
        .val(h.firstlineno >= 0 ? std::optional<int64_t>(h.firstlineno) : std::nullopt)
        .val(strings_.id_or_null(h.last_reason))
        .val(h.hard_failure)
        .val(h.origin);
  }

  void row(const ingest::CudagraphSkip& k) {
    ref(cudagraph_skip_, k.line, k.ref).val(k.kind).val(strings_.id(k.reason));
    if (k.user_stack.empty()) {
      cudagraph_skip_.null().null().null().null();
    } else {
      const ingest::StackFrame& inner = k.user_stack.back();
      cudagraph_skip_.val(strings_.id_or_null(inner.file))
          .val(inner.line)
          .val(strings_.id_or_null(inner.function))
          .val(frames_json(k.user_stack));
    }
    cudagraph_skip_.val(k.origin);
  }

  void row(const ingest::GuardSet& s) {
    int64_t ordinal = 0;
    for (const auto& code : s.guards)
      ref(guard_, s.line, s.ref).val(s.format).val(ordinal++).val(strings_.id(code));
  }

  void row(const ingest::PhaseTiming& p) {
    ref(phase_, p.line, p.ref).val(strings_.id(p.name)).val(p.start_us).val(p.duration_us);
  }

  void row(const ingest::CacheOutcome& c) {
    ref(cache_, c.line, c.ref)
        .val(c.cache)
        .val(c.state)
        .val(strings_.id_or_null(c.key))
        .val(strings_.id_or_null(c.detail));
  }

  void row(const ingest::GraphFact& f) {
    std::string items = "[";
    for (const std::string& item : f.items) {
      if (items.size() > 1) items.push_back(',');
      append_json_string(items, item);
    }
    items.push_back(']');
    ref(graph_fact_, f.line, f.ref).val(f.kind).val(std::move(items));
  }

  void row(const ingest::InputTensor& t) {
    ref(input_, t.line, t.ref)
        .val(strings_.id_or_null(t.source))
        .val(t.dtype)
        .val(t.device)
        .val(nlohmann::json(t.sizes).dump())
        .val(nlohmann::json(t.strides).dump())
        .val(t.requires_grad);
  }

  void row(const ingest::CompileTimesRow& r) {
    double total = 0;
    for (double v : r.seconds) total += v;
    times_.val(run_id_)
        .val(source_id_)
        .val(r.line)
        .val(strings_.id(r.function))
        .val(total)
        .val(nlohmann::json(r.seconds).dump());
  }

  // ---- XLA side ----
  static std::string frames_or_null(const std::vector<ingest::StackFrame>& frames) {
    return frames.empty() ? std::string() : frames_json(frames);
  }
  BatchInsert& src(BatchInsert& b, int64_t line) {
    return b.val(run_id_).val(source_id_).val(line);
  }
  static std::optional<std::string> opt_text(const std::string& s) {
    if (s.empty()) return std::nullopt;
    return s;
  }

  // The columns xla_block and xla_execution share, from `kind` to `truncated`.
  void block_columns(BatchInsert& b, const ingest::XlaAnalysisBlock& block) {
    b.val(block.kind)
        .val(strings_.id_or_null(block.cause))
        .val(block.cause_class)
        .val(strings_.id_or_null(block.graph_name))
        .val(opt_text(block.graph_hash))
        .val(block.inputs)
        .val(block.outputs)
        .val(strings_.id_or_null(frames_or_null(block.frames)))
        .val(block.frames_cut)
        .val(block.truncated);
  }
  void row(const ingest::XlaAnalysisBlock& b) {
    block_columns(src(xla_block_, b.line), b);
    xla_block_.val(b.markers_before).val(b.step_ends_before);
  }
  void row(const ingest::XlaExecutionGroup& g) {
    int64_t id = group_base_ + g.group;
    next_group_id_ = std::max(next_group_id_, id + 1);
    block_columns(xla_execution_group_.val(id).val(run_id_).val(source_id_).val(g.block.line),
                  g.block);
  }
  void row(const ingest::XlaExecutions& e) {
    xla_execution_.val(run_id_)
        .val(source_id_)
        .val(group_base_ + e.group)
        .val(e.markers_before)
        .val(e.step_ends_before)
        .val(e.first_line)
        .val(e.last_line)
        .val(e.count);
  }
  void row(const ingest::XlaPostCompile& p) {
    src(xla_post_, p.line)
        .val(opt_text(p.computation_hash))
        .val(p.input_gb)
        .val(p.output_gb)
        .val(p.aliased_gb)
        .val(p.intermediate_gb)
        .val(p.program_gb);
  }
  void row(const ingest::XlaProfilerNote& n) {
    src(xla_profiler_, n.line)
        .val(n.kind)
        .val(opt_text(n.metric))
        .val(n.count)
        .val(n.steps)
        .val(n.seconds)
        .val(strings_.id_or_null(n.text));
  }
  void row(const ingest::MetricSample& m) {
    src(metric_, m.line)
        .val(m.step)
        .val(m.report_index)
        .val(strings_.id(m.name))
        .val(m.kind)
        .val(m.field)
        .val(m.value)
        .val(m.unit);
  }
  void row(const ingest::StepMarker& m) {
    if (m.origin == "step_line" && m.step && !m.time_s && !m.shape.empty()) {
      if (auto done = step_series_.add(m.line, *m.step, strings_.id(m.shape))) write_series(*done);
      return;
    }
    src(step_marker_, m.line)
        .val(m.step)
        .val(m.origin)
        .val(strings_.id_or_null(m.shape))
        .val(m.time_s)
        .val(m.time_zoned)
        .val(m.time_on_arrival)
        .val(int64_t{1})
        .val(int64_t{0})
        .val(int64_t{0});
  }
  void write_series(const StepMarkerSeries::Row& r) {
    src(step_marker_, r.line)
        .val(r.step)
        .val_unowned("step_line")
        .val(r.shape_sid)
        .null()
        .val(false)
        .val(false)
        .val(r.repeats)
        .val(r.line_stride)
        .val(r.step_stride);
  }
  void end_step_series() {
    if (auto done = step_series_.take()) write_series(*done);
  }
  void take_back_series_row(const StepMarkerSeries::Row& r) {
    auto del = db_.prepare(
        "DELETE FROM step_marker WHERE rowid = (SELECT rowid FROM step_marker WHERE source_id=? "
        "AND line=? AND step=? AND origin='step_line' AND shape_sid=? AND time_s IS NULL AND "
        "repeats=? AND line_stride=? AND step_stride=? LIMIT 1)");
    del.bind(1, source_id_)
        .bind(2, r.line)
        .bind(3, r.step)
        .bind(4, r.shape_sid)
        .bind(5, r.repeats)
        .bind(6, r.line_stride)
        .bind(7, r.step_stride);
    del.run();
  }
  void row(const ingest::HloModule& m) {
    int64_t id = next_hlo_id_++;
    hlo_module_.val(id)
        .val(run_id_)
        .val(source_id_)
        .val(m.line)
        .val(strings_.id(m.module_name))
        .val(m.module_id)
        .val(opt_text(m.stage))
        .val(opt_text(m.file_name))
        .val(strings_.id_or_null(m.entry_layout))
        .val(m.instruction_count)
        .val(m.structure_fingerprint)
        .val(m.full_fingerprint)
        .val(m.skeleton_fingerprint)
        .val(nlohmann::json(m.op_histogram).dump())
        .val(m.truncated)
        .val(opt_text(m.graph_hash));
    for (const auto& p : m.parameters)
      hlo_param_.val(id)
          .val(p.number)
          .val(opt_text(p.name))
          .val(p.dtype)
          .val(nlohmann::json(p.dims).dump())
          .val(opt_text(p.layout))
          .val(p.shape_text);
    int64_t ordinal = 0;
    for (const auto& c : m.constants)
      hlo_const_.val(id)
          .val(ordinal++)
          .val(opt_text(c.name))
          .val(c.shape_text)
          .val(strings_.id(c.value_text))
          .val(c.elided)
          .val(opt_text(c.user_op))
          .val(strings_.id_or_null(c.op_name))
          .val(strings_.id_or_null(c.source_file))
          .val(c.source_line >= 0 ? std::optional<int64_t>(c.source_line) : std::nullopt);
    hlo_text_.val(id).val(m.instruction_text);
  }
  void row(const ingest::SavedGraph& g) {
    std::string frames = frames_or_null(g.frames);
    src(saved_graph_, g.line)
        .val(g.format)
        .val(g.header_kind)
        .val(opt_text(g.graph_hash))
        .val(g.root_hashes.empty()
                 ? std::optional<std::string>()
                 : std::optional<std::string>(nlohmann::json(g.root_hashes).dump()))
        .val(strings_.id_or_null(g.graph_name))
        .val(g.dynamo)
        .val(opt_text(frames))
        .val(g.ir_node_count)
        .val(g.truncated);
  }
  void row(const ingest::GrabGraphsFrame& g) {
    src(grab_frame_, g.line)
        .val(g.graphs)
        .val(g.unique)
        .val(opt_text(frames_or_null(g.frames)))
        .val(g.frames_cut);
  }
  void row(const ingest::JaxCompile& j) {
    src(jax_compile_, j.line)
        .val(strings_.id(j.function))
        .val(j.phase)
        .val(j.seconds)
        .val(strings_.id_or_null(j.signature))
        .val(strings_.id_or_null(j.raw));
  }
  void row(const ingest::JaxCacheMiss& j) {
    src(jax_miss_, j.line)
        .val(strings_.id_or_null(j.function))
        .val(opt_text(j.location))
        .val(j.cause_class)
        .val(strings_.id_or_null(j.detail));
  }
  void row(const ingest::JaxPersistentCache& j) {
    src(jax_pcache_, j.line)
        .val(j.event)
        .val(strings_.id_or_null(j.key))
        .val(strings_.id_or_null(j.function))
        .val(j.seconds);
  }
  void row(const ingest::StepTiming& t) {
    src(step_timing_, t.line).val(t.step).val(t.wall_ms).val(t.compile_ms).val(t.timestamp_s);
  }

  void row(const ingest::XlaVlogRecord& r) {
    src(xla_vlog_, r.line)
        .val(r.kind)
        .val(opt_text(r.graph_hash))
        .val(opt_text(r.device))
        .val(r.thread >= 0 ? std::optional<int64_t>(r.thread) : std::nullopt)
        .val(r.count)
        .val(r.compile_ms)
        .val(r.finished);
  }
  void row(const ingest::XlaDumpFile& f) {
    src(xla_dump_file_, f.line)
        .val(f.module_id)
        .val(strings_.id_or_null(f.module_name))
        .val(opt_text(f.stage))
        .val(f.file_name);
  }

  // A handful per source: written straight into the run's bundle (inside the source's savepoint,
  // so a duplicate source leaves no trace).
  void row(const ingest::StackVersion& v) {
    add_logged_version(db_, run_id_, v.key, v.value);
    if (read_end_) read_end_->takes_back = false;  // the run's bundle keeps it: no row to take back
  }

  // Where the current source's read stopped for good: what the rows are then, so that those the
  // end of the source writes after it are known (store/source_resume.h).
  void row(const ingest::SourceReadEnd& e) {
    read_end_ = ReadEnd{e, group_base_, step_series_.peek(), {}, true};
    for (const BatchInsert* b : all_) read_end_->rows_before.push_back(b->rows_appended());
  }

  struct ReadEnd {
    ingest::SourceReadEnd at;
    int64_t group_base = 0;
    std::optional<StepMarkerSeries::Row> series;
    std::vector<int64_t> rows_before;  // rows_appended() of each of all_
    bool takes_back = true;
  };

  Database& db_;
  StringInterner strings_;
  std::vector<BatchInsert*> all_;  // every inserter below, in declaration order
  // One inserter a raw table, with the columns it binds, in the order rows are flushed (each adds
  // itself to all_; the xla_vlog and xla_dump_file tables: docs/xla_formats.md).
  BatchInsert compile_{db_, "dynamo_compile_raw", dynamo_compile_columns(), &all_};
  BatchInsert failure_{
      db_, "guard_failure",
      with_ref({"entry_index", "verbose_group", "old_compile_id", "reason_sid", "origin"}), &all_};
  BatchInsert graph_break_{
      db_, "graph_break",
      with_ref({"user_file_sid", "user_line", "user_function_sid", "gb_type_sid", "reason_sid",
                "suppressed", "sync_signature", "user_stack", "origin", "pid"}),
      &all_};
  BatchInsert limit_{db_, "recompile_limit_hit",
                     with_ref({"limit_type", "limit_value", "function_sid", "file_sid",
                               "firstlineno", "last_reason_sid", "hard_failure", "origin"}),
                     &all_};
  BatchInsert cudagraph_skip_{db_, "cudagraph_skip",
                              with_ref({"kind", "reason_sid", "user_file_sid", "user_line",
                                        "user_function_sid", "user_stack", "origin"}),
                              &all_};
  BatchInsert guard_{db_, "guard", with_ref({"format", "ordinal", "code_sid"}), &all_};
  BatchInsert phase_{db_, "phase_timing", with_ref({"name_sid", "start_us", "duration_us"}), &all_};
  BatchInsert cache_{db_, "cache_outcome", with_ref({"cache", "state", "key_sid", "detail_sid"}),
                     &all_};
  BatchInsert input_{
      db_, "input_tensor",
      with_ref({"source_expr_sid", "dtype", "device", "sizes", "strides", "requires_grad"}), &all_};
  BatchInsert graph_fact_{db_, "graph_fact", with_ref({"kind", "items"}), &all_};
  BatchInsert times_{db_,
                     "compile_times",
                     {"run_id", "source_id", "line", "function_sid", "total_s", "values_s"},
                     &all_};
  BatchInsert xla_block_{db_, "xla_block",
                         with_src({"kind", "cause_sid", "cause_class", "graph_name_sid",
                                   "graph_hash", "inputs", "outputs", "frames_sid", "frames_cut",
                                   "truncated", "markers_before", "step_ends_before"}),
                         &all_};
  BatchInsert xla_execution_group_{db_,
                                   "xla_execution_group",
                                   {"group_id", "run_id", "source_id", "first_line", "kind",
                                    "cause_sid", "cause_class", "graph_name_sid", "graph_hash",
                                    "inputs", "outputs", "frames_sid", "frames_cut", "truncated"},
                                   &all_};
  BatchInsert xla_execution_{db_,
                             "xla_execution",
                             {"run_id", "source_id", "group_id", "markers_before",
                              "step_ends_before", "first_line", "last_line", "executions"},
                             &all_};
  BatchInsert xla_post_{db_, "xla_post_compile",
                        with_src({"computation_hash", "input_gb", "output_gb", "aliased_gb",
                                  "intermediate_gb", "program_gb"}),
                        &all_};
  BatchInsert xla_profiler_{db_, "xla_profiler_note",
                            with_src({"kind", "metric", "count", "steps", "seconds", "text_sid"}),
                            &all_};
  BatchInsert metric_{
      db_, "metric_sample",
      with_src({"step", "report_index", "name_sid", "kind", "field", "value", "unit"}), &all_};
  BatchInsert step_marker_{db_, "step_marker",
                           with_src({"step", "origin", "shape_sid", "time_s", "time_zoned",
                                     "time_on_arrival", "repeats", "line_stride", "step_stride"}),
                           &all_};
  BatchInsert hlo_module_{db_, "hlo_module", hlo_module_columns(), &all_};
  BatchInsert hlo_param_{
      db_,
      "hlo_parameter",
      {"hlo_module_id", "number", "name", "dtype", "dims", "layout", "shape_text"},
      &all_};
  BatchInsert hlo_const_{db_,
                         "hlo_constant",
                         {"hlo_module_id", "ordinal", "name", "shape_text", "value_sid", "elided",
                          "user_op", "op_name_sid", "source_file_sid", "source_line"},
                         &all_};
  // One row a statement: a module's instructions can be megabytes.
  BatchInsert hlo_text_{db_, "hlo_instruction_text", {"hlo_module_id", "instructions"}, &all_, 1};
  BatchInsert saved_graph_{
      db_, "saved_graph",
      with_src({"format", "header_kind", "graph_hash", "root_hashes", "graph_name_sid", "dynamo",
                "frames", "ir_node_count", "truncated"}),
      &all_};
  BatchInsert grab_frame_{db_, "grab_graphs_frame",
                          with_src({"graphs", "unique_graphs", "frames", "frames_cut"}), &all_};
  BatchInsert jax_compile_{
      db_, "jax_compile",
      with_src({"function_sid", "phase", "seconds", "signature_sid", "raw_sid"}), &all_};
  BatchInsert jax_miss_{db_, "jax_cache_miss",
                        with_src({"function_sid", "location", "cause_class", "detail_sid"}), &all_};
  BatchInsert jax_pcache_{db_, "jax_persistent_cache",
                          with_src({"event", "key_sid", "function_sid", "seconds"}), &all_};
  BatchInsert step_timing_{db_, "step_timing",
                           with_src({"step", "wall_ms", "compile_ms", "timestamp_s"}), &all_};
  BatchInsert xla_vlog_{
      db_, "xla_vlog",
      with_src({"kind", "graph_hash", "device", "thread", "count", "compile_ms", "finished"}),
      &all_};
  BatchInsert xla_dump_file_{db_, "xla_dump_file",
                             with_src({"module_id", "module_name_sid", "stage", "file_name"}),
                             &all_};
  int64_t next_hlo_id_ = 1;
  // Execution groups: the importer numbers them per source from 0; ids continue across sources.
  int64_t next_group_id_ = 1;
  int64_t group_base_ = 1;
  int64_t run_id_ = -1;
  int64_t source_id_ = -1;
  StepMarkerSeries step_series_;     // progress lines of source_id_ not yet written
  std::optional<ReadEnd> read_end_;  // of source_id_, once its read stopped
};

// Collects events into batches for the writer thread. Lives on the importer's thread.
class IngestWriter::QueueSink : public ingest::BatchingSink {
 public:
  explicit QueueSink(IngestWriter& owner) : BatchingSink(kBatchEvents), owner_(owner) {}

 protected:
  std::vector<ingest::Event> deliver(std::vector<ingest::Event>&& batch) override {
    return owner_.worker_->hand_over(std::move(batch));
  }

 private:
  IngestWriter& owner_;
};

namespace {

// Binds a source row's content and counts, in the order of the source table's columns from
// content_hash to read_error, from parameter `first` on (9 parameters).
// (prefix_checkpoints, the last column, is bound by the callers.)
void bind_counts(Statement& st, int first, const ingest::SourceStats& stats) {
  st.bind(first, stats.content_hash)
      .bind(first + 1, stats.bytes)
      .bind(first + 2, stats.lines)
      .bind(first + 3, stats.events)
      .bind(first + 4, stats.skipped)
      .bind(first + 5, stats.rejected)
      .bind(first + 6, stats.warnings)
      .bind_or_null(first + 7, stats.first_error)
      .bind_or_null(first + 8, stats.read_error);
}

// A statement prepared on its first use: most ingests never update a source or write a rejected
// line, and a small log's ingest paid for preparing them (docs/performance.md, "Small logs").
class OnFirstUse {
 public:
  OnFirstUse(Database& db, const char* sql) : db_(db), sql_(sql) {}
  Statement& get() {
    if (!prepared_) {
      statement_ = db_.prepare(sql_);
      prepared_ = true;
    }
    return statement_;
  }

 private:
  Database& db_;
  const char* sql_;
  bool prepared_ = false;
  Statement statement_;
};

}  // namespace

// The per-source statements, prepared once: a dump directory is thousands of small sources.
struct IngestWriter::SourceStatements {
  explicit SourceStatements(Database& db)
      : next_id(db.prepare("SELECT coalesce(max(source_id), 0) + 1 FROM source")),
        duplicate(db.prepare(kDuplicateSourceSql)),
        insert(db.prepare(
            "INSERT INTO source(source_id, run_id, path, format, encoding, content_hash, bytes, "
            "lines, events, skipped, rejected, warnings, first_error, read_error, file_rank, "
            "ingested_at, host, prefix_checkpoints) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)")),
        note(db,
             "INSERT INTO line_note(source_id, fate, reason, count, first_line, first_excerpt) "
             "VALUES (?,?,?,?,?,?)"),
        rejected(db,
                 "INSERT INTO rejected_line(source_id, line, reason, excerpt) VALUES (?,?,?,?)"),
        update(db,
               "UPDATE source SET content_hash=?, bytes=?, lines=?, events=?, skipped=?, "
               "rejected=?, warnings=?, first_error=?, read_error=?, prefix_checkpoints=?, "
               "format=? WHERE source_id=?"),
        drop_notes(db, "DELETE FROM line_note WHERE source_id=?"),
        drop_rejected(db, "DELETE FROM rejected_line WHERE source_id=?") {}
  Statement next_id, duplicate, insert;
  OnFirstUse note, rejected, update, drop_notes, drop_rejected;
};

IngestWriter::IngestWriter(Database& db, std::string host, Transaction transaction)
    : db_(db), host_(std::move(host)), transaction_(transaction) {
  // A new store's transaction is open already: its schema and rows commit together
  // (store/new_store.h).
  if (transaction_ == kCallersTransaction) {
    if (sqlite3_get_autocommit(db_.handle()))
      throw Error("internal: a writer in its caller's transaction, and none is open");
  } else if (sqlite3_get_autocommit(db_.handle())) {
    db_.exec("BEGIN IMMEDIATE");
  }
  sources_ = std::make_unique<SourceStatements>(db_);
  rows_ = std::make_unique<EventRowWriter>(db_);
  worker_ = std::make_unique<util::BatchWorker<ingest::Event>>(
      [this](std::vector<ingest::Event>& batch) {
        for (const auto& e : batch) rows_->write(e);
      },
      kMaxQueuedBatches, nullptr, false, util::kInlineBatches);
  sink_ = std::make_unique<QueueSink>(*this);
}

IngestWriter::~IngestWriter() {
  worker_.reset();  // writes what was handed over, then stops
  rows_.reset();
  sources_.reset();
  if (!committed_ && transaction_ == kOwnTransaction) {
    try {
      db_.exec("ROLLBACK");
    } catch (const Error&) {
      // The transaction may already be gone (e.g. SQLite rolled it back on a disk error).
    }
  }
}

void IngestWriter::flush_and_wait() {
  if (!rows_) return;  // finish_sources() flushed and freed them
  sink_->flush();
  worker_->wait_idle();  // rethrows a write error
  ended_place_ = {rows_->group_base(), rows_->step_series()};
  rows_->flush();
}

void IngestWriter::finish_sources() {
  flush_and_wait();
  sink_.reset();
  worker_.reset();
  rows_.reset();
}

int64_t IngestWriter::run_id(const std::string& lane, const std::string& run) {
  auto find = db_.prepare("SELECT run_id FROM run_table WHERE lane=? AND run=?");
  find.bind(1, lane).bind(2, run);
  if (find.step()) return find.int64(0);
  auto insert = db_.prepare("INSERT INTO run_table(lane, run, created_at) VALUES (?, ?, ?)");
  insert.bind(1, lane).bind(2, run).bind(3, utc_now());
  insert.run();
  created_runs_.push_back(db_.last_insert_rowid());
  return created_runs_.back();
}

bool IngestWriter::drop_run_if_empty(int64_t run_id) {
  if (std::find(created_runs_.begin(), created_runs_.end(), run_id) == created_runs_.end())
    return false;
  auto used = db_.prepare("SELECT 1 FROM source WHERE run_id=? LIMIT 1");
  used.bind(1, run_id);
  if (used.step()) return false;
  auto del = db_.prepare("DELETE FROM run_table WHERE run_id=?");
  del.bind(1, run_id).run();
  std::erase(created_runs_, run_id);
  return true;
}

ingest::EventSink& IngestWriter::begin_source(int64_t run_id, std::optional<int64_t> reuse_id,
                                              int64_t group_base) {
  if (!rows_) throw std::logic_error("IngestWriter::begin_source after finish_sources");
  db_.exec("SAVEPOINT source");
  Statement& next = sources_->next_id;
  next.reset();
  next.step();
  current_source_ = reuse_id.value_or(next.int64(0));
  next.reset();
  current_run_ = run_id;
  rows_->set_source(run_id, current_source_, group_base);
  return *sink_;
}

ingest::EventSink& IngestWriter::resume_source(int64_t run_id, int64_t source_id,
                                               const SourcePlace& place) {
  if (!rows_) throw std::logic_error("IngestWriter::resume_source after finish_sources");
  db_.exec("SAVEPOINT source");
  current_source_ = source_id;
  current_run_ = run_id;
  rows_->set_source(run_id, source_id, place.group_base, place.series);
  return *sink_;
}

IngestWriter::SourcePlace IngestWriter::ended_place() const {
  return ended_place_;
}

std::optional<IngestWriter::EarlierSource> IngestWriter::earlier_source(int64_t run_id,
                                                                        const std::string& path) {
  // One query per run, then a map: a dump directory is thousands of sources.
  if (sources_by_path_.emplace(run_id, std::map<std::string, EarlierSource>()).second) {
    auto list = db_.prepare(
        "SELECT source_id, content_hash, bytes, path FROM source WHERE run_id=? ORDER BY "
        "source_id");
    list.bind(1, run_id);
    auto& paths = sources_by_path_[run_id];
    while (list.step()) paths[list.str(3)] = {list.int64(0), list.str(1), list.int64(2)};
  }
  const auto& paths = sources_by_path_[run_id];
  auto it = paths.find(path);
  if (it == paths.end()) return std::nullopt;
  return it->second;
}

void IngestWriter::delete_source(int64_t source_id) {
  delete_source_rows(db_, source_id);
}

// The earlier source with the content of `stats` (store/duplicate_source.h), if any: then the
// current source's savepoint is rolled back, and nothing of what it wrote is kept.
std::optional<IngestWriter::Duplicate> IngestWriter::roll_back_if_duplicate(
    const ingest::SourceStats& stats) {
  Statement& dup = sources_->duplicate;
  dup.reset();
  dup.bind(1, stats.content_hash);
  dup.bind(2, stats.file_rank);  // the rule: store/duplicate_source.h
  dup.bind(3, current_run_).bind(4, stats.path);
  std::optional<Duplicate> earlier;
  if (dup.step()) earlier = Duplicate{dup.str(0), dup.str(1), dup.str(2)};
  dup.reset();
  if (earlier) {
    rows_->take_read_end();
    roll_back_source();
  }
  return earlier;
}

void IngestWriter::roll_back_source() {
  db_.exec("ROLLBACK TO source");
  db_.exec("RELEASE source");
}

std::optional<IngestWriter::Duplicate> IngestWriter::end_source(const ingest::SourceStats& stats,
                                                                int64_t replaces) {
  flush_and_wait();
  if (auto earlier = roll_back_if_duplicate(stats)) return earlier;
  if (replaces >= 0) delete_source(replaces);
  std::optional<SourceResume> read_end = rows_->take_read_end();
  Statement& insert = sources_->insert;
  insert.bind(1, current_source_)
      .bind(2, current_run_)
      .bind(3, stats.path)
      .bind(4, stats.format)
      .bind(5, stats.encoding);
  bind_counts(insert, 6, stats);
  insert.bind(15, stats.file_rank).bind(16, utc_now()).bind_or_null(17, host_);
  insert.bind(18, stats.prefix_checkpoints);
  insert.run();
  write_line_notes(stats);
  if (read_end) write_source_resume(db_, current_source_, read_end);
  db_.exec("RELEASE source");
  note_touched();
  return std::nullopt;
}

void IngestWriter::update_source(const ingest::SourceStats& stats) {
  flush_and_wait();
  rewrite_source_row(stats);
  db_.exec("RELEASE source");
  note_touched();
}

// The source row, notes, rejected lines and read end of the current source as `stats` and the
// rows written say now (rows flushed).
void IngestWriter::rewrite_source_row(const ingest::SourceStats& stats) {
  Statement& update = sources_->update.get();
  bind_counts(update, 1, stats);
  // The format too: a console read as plain text is its records' format from the first of them
  // on (docs/plain_text.md), which may come in a later batch.
  update.bind(10, stats.prefix_checkpoints).bind(11, stats.format).bind(12, current_source_);
  update.run();
  // The notes and rejected lines are the source's so far: written again whole.
  sources_->drop_notes.get().bind(1, current_source_).run();
  sources_->drop_rejected.get().bind(1, current_source_).run();
  write_line_notes(stats);
  write_source_resume(db_, current_source_, rows_->take_read_end());
}

std::optional<SourceResume> IngestWriter::read_end_of(int64_t source_id) {
  if (!rows_) throw std::logic_error("IngestWriter::read_end_of after finish_sources");
  return read_source_resume(db_, source_id,
                            [this](const std::string& table) { return rows_->takes_back(table); });
}

ingest::EventSink* IngestWriter::read_on_source(int64_t run_id, const SourceResume& point) {
  if (!rows_) throw std::logic_error("IngestWriter::read_on_source after finish_sources");
  db_.exec("SAVEPOINT source");
  if (!take_back_end_rows(db_, point)) {
    roll_back_source();
    return nullptr;
  }
  current_source_ = point.source_id;
  current_run_ = run_id;
  rows_->set_source(run_id, point.source_id, point.group_base,
                    point.series ? StepMarkerSeries(*point.series) : StepMarkerSeries(),
                    /*series_row_kept=*/false);
  return sink_.get();
}

std::optional<IngestWriter::Duplicate> IngestWriter::end_read_on_source(
    const ingest::SourceStats& stats) {
  flush_and_wait();
  if (auto earlier = roll_back_if_duplicate(stats)) return earlier;
  rewrite_source_row(stats);
  db_.exec("RELEASE source");
  note_touched();
  return std::nullopt;
}

void IngestWriter::note_touched() {
  if (std::find(touched_runs_.begin(), touched_runs_.end(), current_run_) == touched_runs_.end())
    touched_runs_.push_back(current_run_);
}

void IngestWriter::write_line_notes(const ingest::SourceStats& stats) {
  auto known = sources_by_path_.find(current_run_);
  if (known != sources_by_path_.end())
    known->second[stats.path] = {current_source_, stats.content_hash, stats.bytes};
  for (const auto& [key, tally] : stats.reasons) {
    Statement& note = sources_->note.get();
    note.bind(1, current_source_)
        .bind(2, key.first)
        .bind(3, key.second)
        .bind(4, tally.count)
        .bind(5, tally.first_line)
        .bind(6, tally.first_excerpt);
    note.run();
  }
  for (const auto& r : stats.rejected_lines) {
    Statement& reject = sources_->rejected.get();
    reject.bind(1, current_source_).bind(2, r.line).bind(3, r.reason).bind(4, r.excerpt);
    reject.run();
  }
}

void IngestWriter::commit() {
  if (transaction_ == kCallersTransaction)
    throw Error("internal: a writer in its caller's transaction does not commit it");
  flush_and_wait();
  db_.exec("COMMIT");
  committed_ = true;
}

}  // namespace rcf::store
