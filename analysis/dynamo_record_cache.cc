#include "analysis/dynamo_record_cache.h"

#include "store/raw_row_deletions.h"
#include "store/store.h"

namespace rcf::analysis {

std::optional<DynamoRecordCache::Taken> DynamoRecordCache::take(store::Database& db, int64_t run_id,
                                                                bool only_run) {
  const std::optional<int64_t> deletions = store::raw_row_deletions(db);
  if (!deletions) return std::nullopt;
  const int64_t version = store::data_version(db);
  std::unique_ptr<Run>& run = runs_[run_id];
  if (run && (run->deletions != *deletions || run->data_version != version)) run.reset();
  if (!run) run = std::make_unique<Run>();
  // What was kept no longer merges as a whole read would: read anew.
  if (!read_on(db, run_id, only_run, run->read)) {
    *run = Run();
    read_on(db, run_id, only_run, run->read);
  }
  run->deletions = *deletions;
  run->data_version = version;
  DynamoRecordsRead& read = run->read;
  Taken taken;
  taken.inputs = &read.inputs;
  taken.merged = read.intake.merger.snapshot();
  for (const ReasonRecord& r : read.reasons) taken.merged.add_reason(r);
  taken.step_facts = read.intake.step_facts;
  taken.records = read.intake.records;
  return taken;
}

}  // namespace rcf::analysis
