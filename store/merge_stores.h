// Folding shard stores into one (rcf merge; docs/merge.md). A shard is an rcf store of the same
// schema version, usually one host's `rcf ingest --host`. Every row of every raw table
// (store/schema_layers.h) is copied with its ids remapped: runs are matched by (lane, run), so a
// run split over hosts becomes one run; sources, HLO modules and execution groups get new ids;
// *_sid columns are re-interned in the output's `strings`. A source already in the output (the
// rule of store/duplicate_source.h) is skipped, as a re-ingest skips it; of two versions of one
// growing log the longer is kept (GrownSource). Derived tables are not
// copied: the caller re-analyses touched_runs() (pipeline/merge_pipeline.h).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "store/database.h"
#include "store/source_versions.h"

namespace rcf::store {

class StringInterner;

// Whether a merge copies the rows of raw table `table`: all but the file's facts, the texts and
// the runs (matched, not copied), and where a source's read stopped (a merged source is read
// again whole when its log grows).
bool merge_copies_rows(const std::string& table);

// A shard's source that was already in the output: nothing of it was copied.
struct SkippedSource {
  std::string path;                     // its path in the shard
  std::string earlier_path, lane, run;  // the source with the same content, and its run
};

// A shard's source and a source of the output with the same path in the same run, one of which
// is an earlier, shorter version of the other (a log that grew between two ingests): the longer
// one is kept, as `rcf ingest` keeps it (docs/merge.md).
struct GrownSource {
  std::string path, lane, run;
  int64_t shorter_bytes = 0, longer_bytes = 0;
  int64_t compared_bytes = 0;  // the shorter's first bytes its prefix checkpoints cover
  bool by_file = false;        // all of them compared with the file at the path instead
  bool shard_longer = false;   // the output's version was replaced; else the shard's left out
};

// Two sources with the same path in the same run whose checkpoints cannot say whether one grew
// into the other: both are kept.
struct UndecidedSource {
  std::string path, lane, run;
  std::string why;  // and what would decide it
};

struct ShardMergeResult {
  std::string shard_path;
  int64_t sources_added = 0;
  int64_t rows_copied = 0;  // rows of the raw tables, sources and their line notes included
  std::vector<SkippedSource> skipped;
  std::vector<GrownSource> grown;
  std::vector<UndecidedSource> undecided;
};

class StoreMerger {
 public:
  // `out` must be in a write transaction the caller commits or rolls back. `file`, when given,
  // reads a log's file where two versions' checkpoints leave bytes uncompared (judge_growth).
  explicit StoreMerger(Database& out, FilePrefixHashes file = {});
  ~StoreMerger();
  StoreMerger(const StoreMerger&) = delete;
  StoreMerger& operator=(const StoreMerger&) = delete;

  // Copies what `shard` holds that the output does not. Throws rcf::Error on a database error
  // (the caller's transaction is then to be rolled back).
  ShardMergeResult merge(Database& shard, const std::string& shard_path);

  // Output runs that received at least one source, in the order they first did.
  const std::vector<int64_t>& touched_runs() const { return touched_runs_; }

 private:
  struct TableCopy;

  Database& out_;
  FilePrefixHashes file_;
  std::unique_ptr<StringInterner> strings_;
  std::vector<std::unique_ptr<TableCopy>> tables_;  // the raw tables, in schema order  // shared by
                                                    // the shards: texts repeat across hosts
  std::vector<int64_t> touched_runs_;
};

}  // namespace rcf::store
