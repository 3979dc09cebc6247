// Writes a run's attributed compiles to compile_event and attribution. The inserts run on a
// writer thread, so that SQLite's work overlaps the attribution of the next compiles (at a
// million compiles the two cost about the same). While a CompileWriter lives, only its thread
// uses the database and the interner.
#pragma once

#include <cstdint>
#include <vector>

#include "analysis/attributed_compile.h"
#include "store/database.h"
#include "store/string_interner.h"
#include "util/batch_worker.h"

namespace rcf::analysis {

class CompileWriter {
 public:
  // `db` and `strings` must outlive the writer.
  CompileWriter(store::Database& db, store::StringInterner& strings, int64_t run_id);
  CompileWriter(const CompileWriter&) = delete;
  CompileWriter& operator=(const CompileWriter&) = delete;

  // Queues `c` (in ordinal order); blocks while the thread is a few batches behind.
  void write(AttributedCompile&& c);
  // Waits until everything queued is written and stops the thread; rethrows the first error
  // a write raised (the compiles after it are not written). Without it, destroying the writer
  // still writes what was handed over, but compiles in the last partial batch are dropped.
  void finish();

 private:
  void insert(const AttributedCompile& c);

  store::Database& db_;
  store::StringInterner& strings_;
  int64_t run_id_;
  store::Statement insert_compile_, insert_attr_;
  std::vector<AttributedCompile> batch_;         // being filled by the caller
  util::BatchWorker<AttributedCompile> worker_;  // last: its thread uses the members above
};

}  // namespace rcf::analysis
