#include "store/compile_result_writer.h"

#include <algorithm>
#include <cstddef>

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
                                         std::function<void()> before_first_write,
                                         CompileRowMemo* memo)
    : db_(db),
      strings_(strings),
      run_id_(run_id),
      before_first_write_(std::move(before_first_write)),
      memo_(memo),
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
  if (!memo_) return;
  // The compiles the run no longer has (a log read again gave fewer).
  for (size_t i = std::max(written_.size(), earlier_from_); i < earlier_from_ + earlier_.size();
       ++i)
    delete_rows(earlier_[i - earlier_from_].compile_row);
  memo_->whole = !memo_->known;
  memo_->known = true;
  ++memo_->generation;
  memo_->rows = std::move(written_);
  earlier_.clear();
  earlier_from_ = 0;
}

void CompileResultWriter::start() {
  if (before_first_write_) before_first_write_();
  if (memo_) {
    // A memo not known to describe the store: the caller cleared the run's rows, all are new.
    std::vector<CompileRowMemo::Row> rows;
    if (memo_->known) rows = std::move(memo_->rows);
    memo_->rows.clear();
    memo_->written.clear();
    const size_t kept = std::min(rows.size(), static_cast<size_t>(std::max<int64_t>(kept_, 0)));
    earlier_.assign(rows.begin() + static_cast<std::ptrdiff_t>(kept), rows.end());
    earlier_from_ = kept;
    rows.resize(kept);
    written_ = std::move(rows);  // with its capacity: the run's new rows seldom move it
  }
  next_row_ = first_free_compile_row(db_);
}

int64_t CompileResultWriter::site_sid(const AttributedCompile& c) {
  if (c.site_number == 0) return strings_.id(c.site);
  if (c.site_number > site_sids_.size()) site_sids_.resize(c.site_number, 0);
  int64_t& sid = site_sids_[c.site_number - 1];
  if (sid == 0) sid = strings_.id(c.site);
  return sid;
}

// The values of one compile's compile_event row after compile_row, then of its attribution row
// after compile_row, handed to `event` and `attribution`: the inserts write them and a
// CompileRowHasher digests them, so that a column added to the tables is added to both.
template <typename Row>
void CompileResultWriter::values(const AttributedCompile& c, const InternedIds& ids, Row& event,
                                 Row& attribution) const {
  event.val(run_id_)
      .val(c.ordinal)
      .val(c.step)
      .val(ids.site)
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
  attribution.val_unowned(c.cause)
      .val_unowned_or_null(c.prev_program_key)
      .val_unowned_or_null(c.detail)
      .val_unowned(c.confidence)
      .val_unowned_or_null(c.evidence)
      .val(ids.subject)
      .val(ids.reason)
      .val(c.other_reasons);
}

// The compile_row `c` is written under, or nullopt when the memo's row at its ordinal holds the
// same values (nothing is written). A changed row keeps its compile_row: its old rows go first.
std::optional<int64_t> CompileResultWriter::row_for(const AttributedCompile& c,
                                                    const InternedIds& ids) {
  if (!memo_) return next_row_++;
  CompileRowHasher event, attribution;
  values(c, ids, event, attribution);
  const CompileRowDigest digest = CompileRowHasher::combine(event, attribution);
  const size_t index = written_.size() - earlier_from_;  // in earlier_
  std::optional<int64_t> row;
  if (index < earlier_.size() && earlier_[index].digest == digest) {
    written_.push_back(earlier_[index]);
    return std::nullopt;
  }
  if (index < earlier_.size()) {
    row = earlier_[index].compile_row;
    delete_rows(*row);
  } else {
    row = next_row_++;
  }
  written_.push_back({*row, digest});
  memo_->written.push_back(c.ordinal);
  return row;
}

void CompileResultWriter::delete_rows(int64_t compile_row) {
  if (!delete_attribution_) {
    delete_attribution_.emplace(db_.prepare("DELETE FROM attribution WHERE compile_row=?"));
    delete_compile_.emplace(db_.prepare("DELETE FROM compile_event WHERE compile_row=?"));
  }
  for (Statement* st : {&*delete_attribution_, &*delete_compile_}) {
    st->bind(1, compile_row);
    st->run();
  }
}

void CompileResultWriter::insert(const std::vector<AttributedCompile>& compiles) {
  batch_site_sids_.clear();
  for (const AttributedCompile& c : compiles) {
    InternedIds ids;
    ids.site = site_sid(c);
    ids.subject = strings_.id_or_null(c.subject);
    ids.reason =
        c.primary_reason_sid ? c.primary_reason_sid : strings_.id_or_null(c.primary_reason);
    const std::optional<int64_t> row = row_for(c, ids);
    if (!row) continue;
    compiles_.val(*row);
    attributions_.val(*row);
    values(c, ids, compiles_, attributions_);
  }
  compiles_.flush();
  attributions_.flush();
}

}  // namespace rcf::store
