// The Dynamo records of the runs that one connection analyses after every batch it writes
// (`rcf watch`), kept between analyses so that each reads from the store only the raw rows
// written since the last one: a run of 100 000 compiles took 0.14 s to read whole, and each batch
// read it again (docs/watch.md, "How a batch is analysed").
//
// What is kept is what a read of the whole run would hold: the compile records merged (new
// records of a compile are merged into it in row order, as a whole read merges them), every
// guard failure's record in row order, the graph breaks, cache outcomes and texts. A run is read
// anew (and kept again) when rows of its raw tables may have gone: a row of those tables was
// deleted on the connection (store/raw_row_deletions.h: a log read again replaces its earlier
// rows, and its new rows may take their rowids), or another connection committed
// (`PRAGMA data_version`). Lifetime: one connection; the caller clears it when a transaction in
// which it read was rolled back (what it read may be gone) and gives it only to analyses whose
// writes are committed (not to a preview that is rolled back). Memory: about 110 bytes a compile,
// 120 a guard failure, and the breaks and texts of the run.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <vector>

#include "analysis/attribution_checkpoint.h"
#include "analysis/dynamo_run_loader.h"
#include "analysis/kept_step_lines.h"
#include "store/database.h"

namespace rcf::analysis {

class DynamoRecordCache {
 public:
  // The Dynamo side of one analysis of a run: copies of the merged compiles (with the guard
  // failures attached) and of the step facts, and the rest in place. `inputs` is valid until the
  // next take() or clear().
  struct Taken {
    const RunInputs* inputs = nullptr;
    MergedCompiles merged;
    DynamoStepFactsBuilder step_facts;
    size_t records = 0;
    // What the last analysis of the run kept of its attribution, and the keys of the compiles
    // that got a record, a guard failure or a cache outcome since it was taken (sorted, unique):
    // analysis/attribution_checkpoint.h. The checkpoint lives with the records.
    AttributionCheckpoint* checkpoint = nullptr;
    std::vector<DynamoKey> changed;
    // The run's progress lines with a time, read on with the records (they live with them).
    const KeptStepLines* step_lines = nullptr;
  };

  // The records of `run_id`, read on from the last take (from the start the first time, or when
  // what was kept may be gone), for a run without text logs read as the same process as a
  // TORCH_TRACE log (their reasons are thinned against the whole run's: the caller reads such a
  // run whole with load_run, and forgets it here). nullopt when the connection does not count
  // deletions: the caller reads the run whole.
  std::optional<Taken> take(store::Database& db, int64_t run_id, bool only_run);

  // Forgets one run, or every run.
  void forget(int64_t run_id) { runs_.erase(run_id); }
  void clear() { runs_.clear(); }

  // A copy of what is kept, to analyse a trial that is rolled back (a watch's preview): it reads
  // on from the same marks and goes on from the same checkpoints (planning none of its own:
  // AttributionCheckpoint::trial), and whatever it reads is dropped with it, so that this one
  // still describes the store once the trial is undone. Its records view this one's texts and
  // guard failures, and it reads this one's code-object index and the checkpoint's kept
  // compiles in place: this must outlive it and not be used meanwhile.
  // Costs a copy of the merged compiles (4 % of a watch's CPU per recompile at 100 000 compiles,
  // docs/performance.md), not a read of the runs.
  DynamoRecordCache fork() const;

 private:
  struct Run {
    DynamoRecordsRead read;
    AttributionCheckpoint checkpoint;  // of the last analysis that took these records
    KeptStepLines step_lines;
    int64_t deletions = 0;     // store::raw_row_deletions when it was read
    int64_t data_version = 0;  // store::data_version when it was read
  };

  std::map<int64_t, std::unique_ptr<Run>> runs_;
};

}  // namespace rcf::analysis
