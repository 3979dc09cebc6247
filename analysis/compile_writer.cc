#include "analysis/compile_writer.h"

namespace rcf::analysis {
namespace {

constexpr size_t kBatchCompiles = 512;
constexpr size_t kMaxQueuedBatches = 4;

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
      worker_(
          [this](std::vector<AttributedCompile>& batch) {
            for (const auto& c : batch) insert(c);
          },
          kMaxQueuedBatches) {
  batch_.reserve(kBatchCompiles);
}

void CompileWriter::write(AttributedCompile&& c) {
  batch_.push_back(std::move(c));
  if (batch_.size() < kBatchCompiles) return;
  batch_ = worker_.hand_over(std::move(batch_));
  if (batch_.capacity() < kBatchCompiles) batch_.reserve(kBatchCompiles);
}

void CompileWriter::finish() {
  batch_ = worker_.hand_over(std::move(batch_));
  worker_.finish();
}

// Texts are bound unowned: `c` outlives each run().
void CompileWriter::insert(const AttributedCompile& c) {
  insert_compile_.bind(1, run_id_)
      .bind(2, c.ordinal)
      .bind(3, c.step)
      .bind(4, strings_.id(c.site))
      .bind_unowned(5, c.program_key)
      .bind_unowned(6, c.kind)
      .bind_unowned_or_null(7, c.cause_reported)
      .bind(8, c.compile_ms)
      .bind_unowned_or_null(9, c.cache)
      .bind(10, c.key.rank)
      .bind(11, c.key.epoch)
      .bind(12, c.key.frame_id)
      .bind(13, c.key.frame_compile_id)
      .bind(14, c.attempt)
      .bind(15, c.key.ca_id)
      .bind(16, c.key.source_id)
      .bind(17, c.line)
      .bind_unowned(18, c.evidence_kind)
      .bind(19, c.hlo_module_id)
      .bind(20, c.saved_graph_source_id)
      .bind(21, c.saved_graph_line);
  insert_compile_.run();
  int64_t row = db_.last_insert_rowid();
  insert_attr_.bind(1, row)
      .bind_unowned(2, c.cause)
      .bind_unowned_or_null(3, c.prev_program_key)
      .bind_unowned_or_null(4, c.detail)
      .bind_unowned(5, c.confidence)
      .bind_unowned_or_null(6, c.evidence)
      .bind(7, strings_.id_or_null(c.subject))
      .bind(8, c.primary_reason_sid ? c.primary_reason_sid : strings_.id_or_null(c.primary_reason))
      .bind(9, c.other_reasons);
  insert_attr_.run();
}

}  // namespace rcf::analysis
