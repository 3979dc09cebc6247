#include "analysis/compile_writer.h"

#include <utility>

namespace rcf::analysis {
namespace {

constexpr size_t kBatchCompiles = 512;
constexpr size_t kMaxQueuedBatches = 4;

void bind_text_or_null(store::Statement& st, int col, const std::string& text) {
  if (text.empty())
    st.bind_null(col);
  else
    st.bind(col, text);
}

}  // namespace

CompileWriter::CompileWriter(store::Database& db, store::StringInterner& strings, int64_t run_id)
    : db_(db),
      strings_(strings),
      run_id_(run_id),
      insert_compile_(db.prepare(
          "INSERT INTO compile_event(run_id, ordinal, step, site_sid, program_key, kind, "
          "cause_reported, compile_ms, cache, rank, epoch, frame_id, frame_compile_id, "
          "attempt, ca_id, source_id, line, evidence, hlo_module_id, saved_graph_source_id, "
          "saved_graph_line) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)")),
      insert_attr_(db.prepare(
          "INSERT INTO attribution(compile_row, cause, prev_program_key, detail, confidence, "
          "evidence, subject_sid, reason_sid, other_reasons) VALUES (?,?,?,?,?,?,?,?,?)")),
      thread_([this] { writer_loop(); }) {
  batch_.reserve(kBatchCompiles);
}

CompileWriter::~CompileWriter() {
  stop();
}

void CompileWriter::write(AttributedCompile&& c) {
  batch_.push_back(std::move(c));
  if (batch_.size() >= kBatchCompiles) hand_over();
}

void CompileWriter::hand_over() {
  if (batch_.empty()) return;
  std::unique_lock lock(mu_);
  cv_.wait(lock, [&] { return queue_.size() < kMaxQueuedBatches || failed_ || stop_; });
  if (failed_ || stop_) {
    batch_.clear();  // nothing more gets written; finish() reports why
    return;
  }
  queue_.push_back(std::move(batch_));
  cv_.notify_all();
  // A batch the thread has written keeps its capacity: a fresh one costs page faults each time.
  if (!spare_.empty()) {
    batch_ = std::move(spare_.back());
    spare_.pop_back();
    lock.unlock();
    batch_.clear();
  } else {
    batch_ = {};
    batch_.reserve(kBatchCompiles);
  }
}

void CompileWriter::finish() {
  hand_over();
  stop();
  if (error_) std::rethrow_exception(error_);
}

void CompileWriter::stop() {
  {
    std::lock_guard lock(mu_);
    stop_ = true;
    cv_.notify_all();
  }
  if (thread_.joinable()) thread_.join();
}

void CompileWriter::writer_loop() {
  for (;;) {
    std::vector<AttributedCompile> batch;
    {
      std::unique_lock lock(mu_);
      // Drains the queue before stopping: finish() sets stop_ after its last hand-over.
      cv_.wait(lock, [&] { return !queue_.empty() || stop_; });
      if (queue_.empty()) return;
      batch = std::move(queue_.front());
      queue_.pop_front();
      cv_.notify_all();
    }
    try {
      for (const auto& c : batch) insert(c);
      // Handed back whole: the caller's thread destroys the compiles it allocated, so that the
      // two threads do not contend for one malloc arena.
      std::lock_guard lock(mu_);
      if (spare_.size() < kMaxQueuedBatches) spare_.push_back(std::move(batch));
    } catch (...) {
      std::lock_guard lock(mu_);
      error_ = std::current_exception();
      failed_ = true;
      queue_.clear();
      cv_.notify_all();
      return;
    }
  }
}

void CompileWriter::insert(const AttributedCompile& c) {
  insert_compile_.bind(1, run_id_)
      .bind(2, c.ordinal)
      .bind(3, c.step)
      .bind(4, strings_.id(c.site))
      .bind(5, c.program_key)
      .bind(6, c.kind);
  bind_text_or_null(insert_compile_, 7, c.cause_reported);
  insert_compile_.bind(8, c.compile_ms);
  bind_text_or_null(insert_compile_, 9, c.cache);
  insert_compile_.bind(10, c.key.rank)
      .bind(11, c.key.epoch)
      .bind(12, c.key.frame_id)
      .bind(13, c.key.frame_compile_id)
      .bind(14, c.attempt)
      .bind(15, c.key.ca_id)
      .bind(16, c.key.source_id)
      .bind(17, c.line)
      .bind(18, c.evidence_kind)
      .bind(19, c.hlo_module_id)
      .bind(20, c.saved_graph_source_id)
      .bind(21, c.saved_graph_line);
  insert_compile_.run();
  int64_t row = db_.last_insert_rowid();
  insert_attr_.bind(1, row).bind(2, c.cause);
  bind_text_or_null(insert_attr_, 3, c.prev_program_key);
  bind_text_or_null(insert_attr_, 4, c.detail);
  insert_attr_.bind(5, c.confidence);
  bind_text_or_null(insert_attr_, 6, c.evidence);
  insert_attr_.bind(7, strings_.id_or_null(c.subject))
      .bind(8, c.primary_reason_sid ? c.primary_reason_sid : strings_.id_or_null(c.primary_reason))
      .bind(9, c.other_reasons);
  insert_attr_.run();
}

}  // namespace rcf::analysis
