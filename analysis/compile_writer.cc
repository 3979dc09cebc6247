#include "analysis/compile_writer.h"

#include <fmt/format.h>

#include <string>

namespace rcf::analysis {
namespace {

constexpr size_t kBatchCompiles = 512;
constexpr size_t kMaxQueuedBatches = 4;

constexpr const char* kCompileColumns =
    "compile_row, run_id, ordinal, step, site_sid, program_key, kind, cause_reported, compile_ms, "
    "cache, rank, epoch, frame_id, frame_compile_id, attempt, ca_id, source_id, line, evidence, "
    "hlo_module_id, saved_graph_source_id, saved_graph_line";
constexpr int kCompileParams = 22;
constexpr const char* kAttributionColumns =
    "compile_row, cause, prev_program_key, detail, confidence, evidence, subject_sid, reason_sid, "
    "other_reasons";
constexpr int kAttributionParams = 9;

// INSERT INTO table(columns) VALUES (?,...),(?,...),... with `rows` rows of `params` values.
std::string insert_sql(const char* table, const char* columns, int params, int rows) {
  std::string row = "(?";
  for (int i = 1; i < params; ++i) row += ",?";
  row += ")";
  std::string sql = fmt::format("INSERT INTO {}({}) VALUES {}", table, columns, row);
  for (int i = 1; i < rows; ++i) sql += "," + row;
  return sql;
}

int64_t first_free_row(store::Database& db) {
  auto st = db.prepare("SELECT max(compile_row) FROM compile_event");
  return st.step() ? st.opt_int64(0).value_or(0) + 1 : 1;
}

}  // namespace

CompileWriter::CompileWriter(store::Database& db, store::StringInterner& strings, int64_t run_id,
                             std::function<void()> before_first_write)
    : db_(db),
      strings_(strings),
      run_id_(run_id),
      before_first_write_(std::move(before_first_write)),
      insert_compiles_(
          db.prepare(insert_sql("compile_event", kCompileColumns, kCompileParams, kRowsPerInsert))),
      insert_attrs_(db.prepare(
          insert_sql("attribution", kAttributionColumns, kAttributionParams, kRowsPerInsert))),
      insert_compile_(db.prepare(insert_sql("compile_event", kCompileColumns, kCompileParams, 1))),
      insert_attr_(
          db.prepare(insert_sql("attribution", kAttributionColumns, kAttributionParams, 1))),
      worker_([this](std::vector<AttributedCompile>& batch) { insert(batch); }, kMaxQueuedBatches) {
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
  start();  // nothing was written: the thread never ran it
}

void CompileWriter::start() {
  if (started_) return;
  started_ = true;
  if (before_first_write_) before_first_write_();
  next_row_ = first_free_row(db_);
}

void CompileWriter::insert(const std::vector<AttributedCompile>& compiles) {
  start();
  size_t i = 0;
  for (; i + kRowsPerInsert <= compiles.size(); i += kRowsPerInsert) {
    for (int r = 0; r < kRowsPerInsert; ++r)
      bind_compile(insert_compiles_, r * kCompileParams, compiles[i + r], next_row_ + r);
    insert_compiles_.run();
    for (int r = 0; r < kRowsPerInsert; ++r)
      bind_attribution(insert_attrs_, r * kAttributionParams, compiles[i + r], next_row_ + r);
    insert_attrs_.run();
    next_row_ += kRowsPerInsert;
  }
  for (; i < compiles.size(); ++i) {
    bind_compile(insert_compile_, 0, compiles[i], next_row_);
    insert_compile_.run();
    bind_attribution(insert_attr_, 0, compiles[i], next_row_);
    insert_attr_.run();
    ++next_row_;
  }
}

// Texts are bound unowned: the batch outlives each run().
void CompileWriter::bind_compile(store::Statement& st, int first, const AttributedCompile& c,
                                 int64_t row) {
  st.bind(first + 1, row)
      .bind(first + 2, run_id_)
      .bind(first + 3, c.ordinal)
      .bind(first + 4, c.step)
      .bind(first + 5, strings_.id(c.site))
      .bind_unowned(first + 6, c.program_key)
      .bind_unowned(first + 7, c.kind)
      .bind_unowned_or_null(first + 8, c.cause_reported)
      .bind(first + 9, c.compile_ms)
      .bind_unowned_or_null(first + 10, c.cache)
      .bind(first + 11, c.key.rank)
      .bind(first + 12, c.key.epoch)
      .bind(first + 13, c.key.frame_id)
      .bind(first + 14, c.key.frame_compile_id)
      .bind(first + 15, c.attempt)
      .bind(first + 16, c.key.ca_id)
      .bind(first + 17, c.key.source_id)
      .bind(first + 18, c.line)
      .bind_unowned(first + 19, c.evidence_kind)
      .bind(first + 20, c.hlo_module_id)
      .bind(first + 21, c.saved_graph_source_id)
      .bind(first + 22, c.saved_graph_line);
}

void CompileWriter::bind_attribution(store::Statement& st, int first, const AttributedCompile& c,
                                     int64_t row) {
  st.bind(first + 1, row)
      .bind_unowned(first + 2, c.cause)
      .bind_unowned_or_null(first + 3, c.prev_program_key)
      .bind_unowned_or_null(first + 4, c.detail)
      .bind_unowned(first + 5, c.confidence)
      .bind_unowned_or_null(first + 6, c.evidence)
      .bind(first + 7, strings_.id_or_null(c.subject))
      .bind(first + 8,
            c.primary_reason_sid ? c.primary_reason_sid : strings_.id_or_null(c.primary_reason))
      .bind(first + 9, c.other_reasons);
}

}  // namespace rcf::analysis
