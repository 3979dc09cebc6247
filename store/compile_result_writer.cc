#include "store/compile_result_writer.h"

namespace rcf::store {
namespace {

constexpr size_t kBatchCompiles = 512;
constexpr size_t kMaxQueuedCompileBatches = 4;

int64_t first_free_compile_row(Database& db) {
  auto st = db.prepare("SELECT max(compile_row) FROM compile_event");
  return st.step() ? st.opt_int64(0).value_or(0) + 1 : 1;
}

}  // namespace

CompileResultWriter::CompileResultWriter(Database& db, StringInterner& strings, int64_t run_id,
                                         std::function<void()> before_first_write)
    : db_(db),
      strings_(strings),
      run_id_(run_id),
      before_first_write_(std::move(before_first_write)),
      compiles_(db, "compile_event",
                {"compile_row",
                 "run_id",
                 "ordinal",
                 "step",
                 "site_sid",
                 "program_key",
                 "kind",
                 "cause_reported",
                 "compile_ms",
                 "cache",
                 "rank",
                 "epoch",
                 "frame_id",
                 "frame_compile_id",
                 "attempt",
                 "ca_id",
                 "source_id",
                 "line",
                 "evidence",
                 "hlo_module_id",
                 "saved_graph_source_id",
                 "saved_graph_line"},
                nullptr, kRowsPerInsert),
      attributions_(db, "attribution",
                    {"compile_row", "cause", "prev_program_key", "detail", "confidence", "evidence",
                     "subject_sid", "reason_sid", "other_reasons"},
                    nullptr, kRowsPerInsert),
      feeder_([this](std::vector<AttributedCompile>& batch) { insert(batch); }, kBatchCompiles,
              kMaxQueuedCompileBatches, [this] { start(); }, /*reuse_items=*/true,
              util::kInlineBatches) {}

void CompileResultWriter::write(AttributedCompile&& c) {
  feeder_.exchange(c);
}

void CompileResultWriter::finish() {
  feeder_.finish();
}

void CompileResultWriter::start() {
  if (before_first_write_) before_first_write_();
  next_row_ = first_free_compile_row(db_);
}

int64_t CompileResultWriter::site_sid(const AttributedCompile& c) {
  if (c.site_number == 0) return strings_.id(c.site);
  if (c.site_number > site_sids_.size()) site_sids_.resize(c.site_number, 0);
  int64_t& sid = site_sids_[c.site_number - 1];
  if (sid == 0) sid = strings_.id(c.site);
  return sid;
}

void CompileResultWriter::insert(const std::vector<AttributedCompile>& compiles) {
  batch_site_sids_.clear();
  for (const AttributedCompile& c : compiles) {
    int64_t row = next_row_++;
    batch_site_sids_.push_back(site_sid(c));
    compiles_.val(row)
        .val(run_id_)
        .val(c.ordinal)
        .val(c.step)
        .val(batch_site_sids_.back())
        .val_unowned(c.program_key)
        .val_unowned(c.kind)
        .val_unowned_or_null(c.cause_reported)
        .val(c.compile_ms)
        .val_unowned_or_null(c.cache)
        .val(c.key.rank)
        .val(c.key.epoch)
        .val(c.key.frame_id)
        .val(c.key.frame_compile_id)
        .val(c.attempt)
        .val(c.key.ca_id)
        .val(c.key.source_id)
        .val(c.line)
        .val_unowned(c.evidence_kind)
        .val(c.hlo_module_id)
        .val(c.saved_graph_source_id)
        .val(c.saved_graph_line);
    attributions_.val(row)
        .val_unowned(c.cause)
        .val_unowned_or_null(c.prev_program_key)
        .val_unowned_or_null(c.detail)
        .val_unowned(c.confidence)
        .val_unowned_or_null(c.evidence)
        .val(strings_.id_or_null(c.subject))
        .val(c.primary_reason_sid ? c.primary_reason_sid : strings_.id_or_null(c.primary_reason))
        .val(c.other_reasons);
  }
  compiles_.flush();
  attributions_.flush();
}

}  // namespace rcf::store
