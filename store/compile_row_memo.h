// What the last analysis of a run wrote to compile_event and attribution, kept by a process that
// analyses the same run after every batch it reads (`rcf watch`, docs/watch.md "How a batch is
// read"): the next analysis writes only the compiles whose rows changed, and says which, instead
// of deleting and writing the whole run again. Lifetime: the connection that wrote the rows; it
// describes the store only while no other connection has written it (AnalysisMemos checks).
#pragma once

#include <algorithm>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "store/derived_rows.h"

namespace rcf::store {

// A digest of one compile's values in both tables, all but its compile_row (128 bits: a collision
// would leave a stale row, so two independent 64-bit lanes).
struct CompileRowDigest {
  uint64_t a = 0, b = 0;
  bool operator==(const CompileRowDigest&) const = default;
};

// A cause_group row's key within its run: its site's string id and its cause, by its number in
// CompileRowMemo::group_causes.
struct CauseGroupKey {
  int64_t site_sid = 0;
  uint32_t cause = 0;
  auto operator<=>(const CauseGroupKey&) const = default;
};

struct CompileRowMemo {
  struct Row {
    int64_t compile_row = 0;
    CompileRowDigest digest;
  };
  // Whether `rows` is what the store holds: false until an analysis through this memo wrote the
  // run whole (the store may hold rows of an earlier process's analysis, unknown here).
  bool known = false;
  std::vector<Row> rows;  // by ordinal - 1, as the store holds them after the last analysis
  // What the last analysis changed: every row (`whole`), else the ordinals it wrote (new or
  // changed), ascending, the rows past the run's count being gone. A reader that holds the rows
  // from before it updates only these.
  bool whole = true;
  std::vector<int64_t> written;
  // The key and digest of each cause_group row of the run, sorted by key, as the analysis of
  // generation `groups_generation` left them (-1: not known; store/derived_results_writer.h,
  // CauseGroupWriter): the next writes only the groups whose rows changed. A watched run's
  // analysis that goes on from the checkpoint of the analysis just before hands only the groups
  // its compiles changed and `groups_after_checkpoint`, those the analysis before changed after
  // its checkpoint (analysis/run_rollup.h, RollupBuilder::hand_again): 50 000 groups compared at
  // every batch were a fifth of a watched run's CPU.
  struct GroupRow {
    CauseGroupKey key;
    CompileRowDigest digest;  // of its columns
  };
  std::vector<GroupRow> groups;
  std::vector<std::string> group_causes;  // a key's cause by its number
  std::vector<CauseGroupKey> groups_after_checkpoint;
  int64_t groups_generation = -1;
  // The groups are not known (the run's cause_group rows were deleted).
  void forget_groups() {
    groups.clear();
    groups_after_checkpoint.clear();
    groups_generation = -1;
  }
  // The analysis just before this one wrote the groups through this memo: one that goes on from
  // its checkpoint may hand only the groups that changed (CauseGroupWriter's `changed_only`).
  // Asked once this analysis' compile rows are written (`generation` counts it).
  bool groups_of_last_analysis() const {
    return groups_generation >= 0 && groups_generation + 1 == generation;
  }
  // The place of `key` in `groups`, groups.size() when it is not there.
  size_t group_place(const CauseGroupKey& key) const {
    auto at = std::lower_bound(groups.begin(), groups.end(), key,
                               [](const GroupRow& r, const CauseGroupKey& k) { return r.key < k; });
    return at != groups.end() && at->key == key ? static_cast<size_t>(at - groups.begin())
                                                : groups.size();
  }
  uint32_t cause_number(std::string_view cause) {
    for (size_t i = 0; i < group_causes.size(); ++i)
      if (group_causes[i] == cause) return static_cast<uint32_t>(i);
    group_causes.emplace_back(cause);
    return static_cast<uint32_t>(group_causes.size() - 1);
  }
  // The run's convergence_point rows as the last analysis left them, by step, once one wrote
  // them through this memo (`points_known`): the next writes only the points that changed
  // (store/derived_results_writer.h, write_convergence_points). A run with a compile in every
  // step has a point per step: 100 000 rows were deleted and written again at every batch.
  bool points_known = false;
  std::vector<ConvergencePoint> points;
  // How many analyses wrote through this memo: a reader applies `written` only to the rows of
  // the analysis just before (generation - 1).
  int64_t generation = 0;
};

// The memos of the runs one connection analyses, valid while only that connection writes the
// store: `PRAGMA data_version` (which moves when another connection commits) is kept after each
// commit and compared before the next analysis.
class AnalysisMemos {
 public:
  // The memo of `run_id`, empty for a run not analysed through these memos yet. A new memo's
  // generations continue from those of the memos cleared before it, so that a generation names
  // one analysis for as long as these memos live (a reader that kept rows by generation is never
  // told that an analysis after a clear is the one it read).
  CompileRowMemo& of(int64_t run_id) {
    auto [it, added] = runs_.try_emplace(run_id);
    if (added) it->second.generation = cleared_generation_;
    return it->second;
  }
  const CompileRowMemo* find(int64_t run_id) const {
    auto it = runs_.find(run_id);
    return it == runs_.end() ? nullptr : &it->second;
  }
  // Forgets every run (the store changed under them, or a write failed).
  void clear() {
    for (const auto& [run, memo] : runs_)
      cleared_generation_ = std::max(cleared_generation_, memo.generation);
    runs_.clear();
  }
  // The store's data_version after this connection's last commit; -1 when none was kept.
  int64_t data_version = -1;

 private:
  std::map<int64_t, CompileRowMemo> runs_;
  int64_t cleared_generation_ = 0;  // the highest generation of a memo cleared
};

}  // namespace rcf::store
