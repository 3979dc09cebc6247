#include "analysis/dynamo_record_cache.h"

#include <algorithm>

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
  DynamoRecordsRead& read = run->read;
  Taken taken;
  bool fresh = !read.started;
  const size_t reasons_before = read.reasons.size(), caches_before = read.inputs.caches.size();
  read.intake.keys_taken = &taken.changed;
  // What was kept no longer merges as a whole read would: read anew.
  if (!read_on(db, run_id, only_run, read)) {
    *run = Run();
    read_on(db, run_id, only_run, run->read);
    fresh = true;
  }
  read.intake.keys_taken = nullptr;
  // Read from the start, there is no checkpoint (it went with the records) and no change to name.
  if (fresh) taken.changed.clear();
  for (size_t i = fresh ? read.reasons.size() : reasons_before; i < read.reasons.size(); ++i)
    taken.changed.push_back(read.reasons[i].key);
  for (size_t i = fresh ? read.inputs.caches.size() : caches_before; i < read.inputs.caches.size();
       ++i)
    taken.changed.push_back(read.inputs.caches[i].key);
  std::sort(taken.changed.begin(), taken.changed.end());
  taken.changed.erase(std::unique(taken.changed.begin(), taken.changed.end()), taken.changed.end());
  run->step_lines.read_on(db, run_id);
  run->deletions = *deletions;
  run->data_version = version;
  taken.inputs = &read.inputs;
  taken.step_lines = &run->step_lines;
  taken.checkpoint = &run->checkpoint;
  taken.merged = read.intake.merger.snapshot(
      read.reason_count(), [&read](size_t i) -> const ReasonRecord& { return read.reason_at(i); });
  taken.step_facts = read.intake.step_facts;
  taken.records = read.intake.records;
  return taken;
}

DynamoRecordCache DynamoRecordCache::fork() const {
  DynamoRecordCache copy;
  for (const auto& [run_id, run] : runs_) {
    if (!run) continue;
    auto forked = std::make_unique<Run>();
    forked->read = run->read.fork();
    forked->checkpoint = run->checkpoint.trial();
    forked->step_lines = run->step_lines.fork();
    forked->deletions = run->deletions;
    forked->data_version = run->data_version;
    copy.runs_.emplace(run_id, std::move(forked));
  }
  return copy;
}

}  // namespace rcf::analysis
