// Reads the raw Dynamo rows of one run from the store (store/dynamo_row_reader.h) into the
// records the attribution takes (analysis/dynamo_attribution.h): each compile record merged as it
// is read, the guard failures attached to the merged compiles, the graph breaks and cache
// outcomes into a RunInputs. Also reads on: only the rows written since an earlier read, into what
// that read left (analysis/dynamo_record_cache.h).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "analysis/dynamo_attribution.h"
#include "analysis/same_process_sources.h"
#include "analysis/step_evidence_loader.h"
#include "store/database.h"
#include "store/dynamo_row_reader.h"
#include "util/large_array_allocator.h"

namespace rcf::analysis {

// The raw Dynamo rows of a run, as the store reads them.
using DynamoRows = store::DynamoRowReader;

// The key of a raw row at `line`: a record of an era without compile ids is told apart by its
// line. The ids are 32-bit in the logs (analysis/attributed_compile.h).
DynamoKey dynamo_key_of(const DynamoRows::Key& raw, int64_t line);

// The first line of each Dynamo log's records and whether a compile has a start time, from the
// records (analysis/step_evidence_loader.h). In two parts: each compile record's facts are taken
// as it is read (the records are not held), the graph breaks' and aliases' once the whole run is.
class DynamoStepFactsBuilder {
 public:
  void add_compile(const CompileRecord& c) {
    see(c.key, c.line, c.kind == "referenced");
    facts_.start_times = facts_.start_times || c.start_us.has_value();
  }
  DynamoStepFacts finish(const RunInputs& in) && {
    for (const BreakRecord& b : in.breaks) see(b.key, b.line, false);
    for (const SourceAlias& a : in.merged_sources) facts_.aliased.push_back(a.source_id);
    return std::move(facts_);
  }

 private:
  void see(const DynamoKey& key, int64_t line, bool reference) {
    for (auto* lines : {&facts_.first_line, &facts_.run_first_line}) {
      // The run's first compile is 0/0 (a later reason naming it is not where it happened); logs
      // of eras without compile ids cannot say, and their first record is taken for it.
      bool first =
          !reference &&
          ((key.epoch == 0 && key.frame_id == 0 && key.frame_compile_id == 0) || key.frame_id < 0);
      if (lines == &facts_.run_first_line && !first) continue;
      // Looked up before inserting: an emplace builds (and frees) a node for every record.
      if (auto it = lines->find(key.source_id); it != lines->end())
        it->second = std::min(it->second, line);
      else
        lines->emplace(key.source_id, line);
    }
  }

  DynamoStepFacts facts_;
};

// Where the loader hands each compile record of a run as it is read: merged into the run's
// compiles and seen by the step facts, then dropped (a run's records were the largest part of its
// memory when they were held until merged).
struct CompileIntake {
  DynamoCompileMerger merger;
  DynamoStepFactsBuilder step_facts;
  size_t records = 0;
  std::vector<DynamoKey>* keys_taken = nullptr;  // when set, each record's key is added to it
  void take(const CompileRecord& r) {
    step_facts.add_compile(r);
    merger.add(r);
    ++records;
    if (keys_taken) keys_taken->push_back(r.key);
  }
};

// Loads the Dynamo records of `run_id`: the compile records through `intake`, merged into
// `merged` before the guard failures are read (they are attached to it as they are read), the rest
// into `in` (empty). `same_process`: SameProcessSources::find of the run.
void load_run(store::Database& db, int64_t run_id, bool only_run, SameProcessSources same_process,
              RunInputs& in, CompileIntake& intake, std::optional<MergedCompiles>& merged);

// The Dynamo records of a run as far as they were read, to read on from (read_on).
struct DynamoRecordsRead {
  RunInputs inputs;      // texts, classifications, labels, graph breaks and cache outcomes
  CompileIntake intake;  // the compile records, merged
  util::LargeVector<ReasonRecord> reasons;  // the guard failures, in row order
  // In a fork: the guard failures of the records it was forked from, which come before
  // `reasons` (not copied: a preview's fork of 100 000 compiles copied 50 000 of them).
  const DynamoRecordsRead* forked_from = nullptr;
  DynamoRows::RowMarks marks;  // up to where each table was read
  bool started = false;        // whether anything was read (else all is read)

  // A copy to read on from without changing this one (RunInputs::fork: this must outlive it, and
  // not change while the fork lives).
  DynamoRecordsRead fork() const;
  // How many guard failures were read, and the one at `i` in row order (a fork's own after those
  // it was forked from).
  size_t reason_count() const {
    return (forked_from ? forked_from->reason_count() : 0) + reasons.size();
  }
  const ReasonRecord& reason_at(size_t i) const {
    const size_t before = forked_from ? forked_from->reason_count() : 0;
    return i < before ? forked_from->reason_at(i) : reasons[i - before];
  }
};

// Reads the rows of `run_id` written since `read` was last read on (every row, into an empty
// `read`), for a run without text logs read as the same process as a TORCH_TRACE log (their
// reasons are thinned against the whole run's: load_run). False when `read` no longer holds what a
// read of the whole run would (a compile's own record came after a reference to it was taken): the
// caller reads it anew.
bool read_on(store::Database& db, int64_t run_id, bool only_run, DynamoRecordsRead& read);

}  // namespace rcf::analysis
