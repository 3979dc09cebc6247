#include "ingest/xla/pt_xla_debug_executions.h"

#include <utility>

namespace rcf::ingest {
namespace {

bool same_frames(const std::vector<StackFrame>& a, const std::vector<StackFrame>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i].line != b[i].line || a[i].file != b[i].file || a[i].function != b[i].function ||
        a[i].code != b[i].code)
      return false;
  }
  return true;
}

// Whether two execution blocks printed the same thing (lines and segments aside). cause_class
// follows from cause.
bool same_content(const XlaAnalysisBlock& a, const XlaAnalysisBlock& b) {
  return a.graph_hash == b.graph_hash && a.kind == b.kind && a.cause == b.cause &&
         a.graph_name == b.graph_name && a.inputs == b.inputs && a.outputs == b.outputs &&
         a.frames_cut == b.frames_cut && a.truncated == b.truncated &&
         same_frames(a.frames, b.frames);
}

}  // namespace

int64_t ExecutionTally::group_of(const XlaAnalysisBlock& block, EventSink& sink) {
  if (last_group_ < groups_.size() && same_content(groups_[last_group_], block))
    return base_ + static_cast<int64_t>(last_group_);
  auto it = by_hash_.find(std::string_view(block.graph_hash));
  if (it != by_hash_.end()) {
    for (size_t i : it->second) {
      if (!same_content(groups_[i], block)) continue;
      last_group_ = i;
      return base_ + static_cast<int64_t>(i);
    }
  }
  if (groups_.size() >= kMaxGroups || stored_frames_ + block.frames.size() > kMaxStoredFrames) {
    base_ += static_cast<int64_t>(groups_.size());
    groups_.clear();
    by_hash_.clear();
    stored_frames_ = 0;
  }
  stored_frames_ += block.frames.size();
  last_group_ = groups_.size();
  groups_.push_back(block);
  by_hash_[block.graph_hash].push_back(last_group_);
  int64_t group = base_ + static_cast<int64_t>(last_group_);
  sink.emit(XlaExecutionGroup{group, block});
  return group;
}

void ExecutionTally::add(const XlaAnalysisBlock& block, EventSink& sink) {
  int64_t group = group_of(block, sink);
  // A segment runs few groups: the newest are the likeliest.
  for (auto it = segment_.rbegin(); it != segment_.rend(); ++it) {
    if (it->group != group || it->markers_before != block.markers_before ||
        it->step_ends_before != block.step_ends_before)
      continue;
    ++it->count;
    it->last_line = block.line;
    return;
  }
  if (segment_.size() >= kMaxSegmentGroups) end_segment(sink);
  segment_.push_back(XlaExecutions{group, block.markers_before, block.step_ends_before, block.line,
                                   block.line, 1});
}

void ExecutionTally::end_segment(EventSink& sink) {
  for (XlaExecutions& counts : segment_) sink.emit(std::move(counts));
  segment_.clear();
}

}  // namespace rcf::ingest
