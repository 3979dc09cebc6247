// Execution blocks of a PT_XLA_DEBUG log, counted for the importer (XlaExecutionGroup and
// XlaExecutions in ingest/xla_events.h). A level-2 log is mostly Execution blocks that repeat the
// same few graphs from the same frames every step: each distinct block is emitted once, and each
// step segment emits one count per group that ran in it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "ingest/events.h"

namespace rcf::ingest {

class ExecutionTally {
 public:
  // Distinct blocks remembered per source, and their frames in all. Past either the memory is
  // cleared and a block seen before gets a new group number (still emitted before its counts):
  // memory stays bounded (about 10 MB at most).
  static constexpr size_t kMaxGroups = 4096;
  static constexpr size_t kMaxStoredFrames = size_t{1} << 16;
  // Groups counted in one segment before their counts are emitted early (the segment then has
  // several XlaExecutions per group; the sum is unchanged).
  static constexpr size_t kMaxSegmentGroups = 256;

  // Counts `block`, a closed execution block whose segment counters (markers_before,
  // step_ends_before) are set; emits its group first when it is new.
  void add(const XlaAnalysisBlock& block, EventSink& sink);
  // Emits the counts of the current segment, in the order the groups first ran in it.
  void end_segment(EventSink& sink);

 private:
  struct Hash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };

  int64_t group_of(const XlaAnalysisBlock& block, EventSink& sink);

  std::vector<XlaAnalysisBlock> groups_;  // by group number - base_
  int64_t base_ = 0;                      // group number of groups_[0]
  size_t stored_frames_ = 0;              // frames of groups_
  // Graph hash -> indexes into groups_: what a new block is compared with.
  std::unordered_map<std::string, std::vector<size_t>, Hash, std::equal_to<>> by_hash_;
  size_t last_group_ = 0;  // index of the previous block's group: tried first

  std::vector<XlaExecutions> segment_;
};

}  // namespace rcf::ingest
