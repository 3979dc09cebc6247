// Writes a run's attributed compiles to compile_event and attribution. The inserts run on a
// writer thread, so that SQLite's work overlaps the attribution of the next compiles (at a
// million compiles the two cost about the same). While a CompileWriter lives, only its thread
// uses the database and the interner.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

#include "analysis/attributed_compile.h"
#include "store/database.h"
#include "store/string_interner.h"

namespace rcf::analysis {

class CompileWriter {
 public:
  // `db` and `strings` must outlive the writer.
  CompileWriter(store::Database& db, store::StringInterner& strings, int64_t run_id);
  // Stops the thread. Without finish(), compiles still queued may be left unwritten.
  ~CompileWriter();
  CompileWriter(const CompileWriter&) = delete;
  CompileWriter& operator=(const CompileWriter&) = delete;

  // Queues `c` (in ordinal order); blocks while the thread is a few batches behind.
  void write(AttributedCompile&& c);
  // Waits until everything queued is written and stops the thread; rethrows the first error
  // a write raised (the compiles after it are not written).
  void finish();

 private:
  void hand_over();
  void stop();
  void writer_loop();
  void insert(const AttributedCompile& c);

  store::Database& db_;
  store::StringInterner& strings_;
  int64_t run_id_;
  store::Statement insert_compile_, insert_attr_;
  std::vector<AttributedCompile> batch_;  // being filled by the caller

  std::mutex mu_;  // guards queue_, stop_, failed_ and error_
  std::condition_variable cv_;
  std::deque<std::vector<AttributedCompile>> queue_;
  std::vector<std::vector<AttributedCompile>> spare_;  // written batches, capacity kept
  bool stop_ = false;
  bool failed_ = false;
  std::exception_ptr error_;
  std::thread thread_;  // last: started once everything above exists
};

}  // namespace rcf::analysis
