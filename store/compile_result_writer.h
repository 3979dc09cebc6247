// Writes a run's attributed compiles to compile_event and attribution: the compile part of the
// derived-results writer (store/derived_results_writer.h). The inserts run on a
// writer thread, so that SQLite's work overlaps the attribution of the next compiles (at a
// million compiles the two cost about the same), and go kRowsPerInsert rows to a statement
// (BatchInsert: a statement per row cost a third more), with the compiles' texts bound
// where they are. compile_row is assigned here, from the table's largest, as SQLite would. While
// a CompileResultWriter lives, only its thread uses the database and the interner.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "store/batch_insert.h"
#include "store/compile_row_hasher.h"
#include "store/compile_row_memo.h"
#include "store/database.h"
#include "store/derived_rows.h"
#include "store/string_interner.h"
#include "util/batch_worker.h"

namespace rcf::store {

class CompileResultWriter {
 public:
  // `db` and `strings` must outlive the writer. `before_first_write`, when given, runs on the
  // writer thread as soon as it starts, before any insert: clearing a run's previous analysis
  // there overlaps the caller's preparation of the first compiles. From construction on, only
  // the writer's thread may use `db` and `strings`, until finish() returns.
  // With `memo` (store/compile_row_memo.h), a compile whose rows hold the same values as the
  // memo's row at its ordinal is not written again, a changed one is written under its
  // compile_row, and finish() deletes the rows past the run's new count and updates the memo.
  // Its caller clears the run's compile rows only when the memo is not `known`.
  CompileResultWriter(Database& db, StringInterner& strings, int64_t run_id,
                      std::function<void()> before_first_write = nullptr,
                      CompileRowMemo* memo = nullptr);
  CompileResultWriter(const CompileResultWriter&) = delete;
  CompileResultWriter& operator=(const CompileResultWriter&) = delete;

  // Queues `c` (in ordinal order); blocks while the thread is a few batches behind. Leaves in `c`
  // a compile written earlier, or a default one: a caller that reset()s and refills it reuses
  // the buffers of its strings instead of allocating new ones for every compile.
  void write(AttributedCompile&& c);
  // Before the first write(), with a memo that is `known`: the run's first `compiles` compiles
  // are the memo's first rows as they are (an analysis that resumes after them,
  // analysis/attribution_checkpoint.h, hands over only the compiles after them). At most as many
  // as the memo holds.
  void keep_unchanged(int64_t compiles) { kept_ = compiles; }
  // Waits until everything queued is written and stops the thread; rethrows the first error
  // a write raised (the compiles after it are not written). Without it, destroying the writer
  // still writes what was handed over, but compiles in the last partial batch are dropped.
  void finish();

  // After finish(): strings.string_id of the site numbered `site_number` by the compiles'
  // producer (AttributedCompile::site_number), 0 when no compile written had that number.
  int64_t site_sid_of(uint32_t site_number) const {
    return site_number > 0 && site_number <= site_sids_.size() ? site_sids_[site_number - 1] : 0;
  }
  // The largest site number seen (after finish()).
  uint32_t site_numbers() const { return static_cast<uint32_t>(site_sids_.size()); }

 private:
  static constexpr int kRowsPerInsert = 32;
  // Runs before_first_write_ and finds the first free compile_row: the thread's first work
  // (BatchFeeder's on_start), before any batch.
  void start();
  // Writes a batch; its texts are bound where they are, so every row is written before return.
  void insert(const std::vector<AttributedCompile>& compiles);
  int64_t site_sid(const AttributedCompile& c);
  // A compile's interned texts, resolved once for its digest and its rows.
  struct InternedIds {
    int64_t site = 0;
    std::optional<int64_t> subject, reason;
  };
  template <typename Row>
  void values(const AttributedCompile& c, const InternedIds& ids, Row& event,
              Row& attribution) const;
  std::optional<int64_t> row_for(const AttributedCompile& c, const InternedIds& ids);
  void delete_rows(int64_t compile_row);

  Database& db_;
  StringInterner& strings_;
  int64_t run_id_;
  std::function<void()> before_first_write_;
  CompileRowMemo* memo_;
  // The memo's rows when the writer started, from ordinal earlier_from_ + 1 on: the kept rows
  // before them are moved into written_, not copied (200 000 rows at every analysis of a
  // watched run).
  std::vector<CompileRowMemo::Row> earlier_;
  size_t earlier_from_ = 0;
  std::vector<CompileRowMemo::Row> written_;  // the rows after it, by ordinal - 1
  std::optional<Statement> delete_attribution_, delete_compile_;
  int64_t next_row_ = 0;                  // compile_row of the next compile
  int64_t kept_ = 0;                      // keep_unchanged's
  std::vector<int64_t> site_sids_;        // strings.string_id by site_number - 1; 0: not known yet
  std::vector<int64_t> batch_site_sids_;  // the site ids of the batch being inserted
  BatchInsert compiles_, attributions_;
  util::BatchFeeder<AttributedCompile> feeder_;  // last: its thread uses the members above
};

}  // namespace rcf::store
