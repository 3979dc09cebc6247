// `rcf merge OUT.db SHARD.db...` as a function: check every shard (an rcf store of this schema
// version, not OUT itself), fold them into OUT in one transaction (store/merge_stores.h),
// re-analyse the runs that received sources, commit. Any error leaves OUT as it was (an OUT this
// call created is removed).
#pragma once

#include <string>
#include <vector>

#include "store/merge_stores.h"

namespace rcf::pipeline {

struct MergeRequest {
  std::string out_path;
  std::vector<std::string> shard_paths;
};

struct MergeSummary {
  std::vector<store::ShardMergeResult> shards;  // in the order given
  bool out_created = false;                     // OUT did not exist before
  size_t runs_analysed = 0;                     // runs that received sources
};

// Throws rcf::Error for usage and input errors: no shard, a shard that is missing, not an rcf
// store or of another schema version (named, with both versions), OUT named as a shard, database
// problems.
MergeSummary run_merge(const MergeRequest& request);

std::string render_merge_summary(const MergeSummary& summary);

}  // namespace rcf::pipeline
