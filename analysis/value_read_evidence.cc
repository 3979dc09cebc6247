#include "analysis/value_read_evidence.h"

#include <fmt/format.h>

#include <algorithm>
#include <utility>

namespace rcf::analysis {
namespace {

std::string where_in(const std::map<int64_t, std::string>& source_name, int64_t source_id,
                     int64_t line) {
  auto it = source_name.find(source_id);
  if (it == source_name.end()) return fmt::format("source {}:{}", source_id, line);
  return fmt::format("{}:{}", it->second, line);
}

// The distinct user frames (by file:line) of the fragment's later runs: level-2 Execution blocks
// of the same graph in the same log, each with the line of its first block.
std::vector<std::pair<FrameRecord, int64_t>> execution_reads(
    const XlaBlockRecord& b, const std::vector<ValueReadExecution>& executions) {
  std::vector<std::pair<FrameRecord, int64_t>> reads;
  if (b.graph_hash.empty()) return reads;
  for (const ValueReadExecution& e : executions) {
    if (e.source_id != b.source_id || e.graph_hash != b.graph_hash) continue;
    std::optional<FrameRecord> user = innermost_user_frame(e.frames);
    if (!user) continue;
    bool seen = std::any_of(reads.begin(), reads.end(), [&](const auto& r) {
      return r.first.file == user->file && r.first.line == user->line;
    });
    if (!seen) reads.emplace_back(*user, e.line);
  }
  return reads;
}

// Why the compile block does not name the read.
std::string why_no_frame(const XlaBlockRecord& b) {
  if (b.origin == "vlog") return "VLOG lines name no Python frame";
  if (b.frames.empty())
    return "its Compilation Analysis block shows no frame (cut before the list)";
  return fmt::format("the {} frame(s) its Compilation Analysis block shows are all library frames",
                     b.frames.size());
}

// What would name the read in a new log.
std::string what_would_name(const XlaBlockRecord& b) {
  if (b.origin == "vlog")
    return "PT_XLA_DEBUG=1 would name it (the Compilation Analysis frame lines)";
  return "PT_XLA_DEBUG_LEVEL=2 would name it (an Execution Analysis block with the frame lines of "
         "every run of this graph), as would a larger PT_XLA_DEBUG_MAX_FRAME when the list was "
         "cut";
}

}  // namespace

ValueRead name_value_read(const XlaBlockRecord& b, const std::optional<FrameRecord>& user,
                          const std::vector<ValueReadExecution>& executions,
                          const std::map<int64_t, std::string>& source_name) {
  ValueRead r;
  if (user) {
    r.frame = user;
    r.evidence = fmt::format(
        "value read at {}: the innermost user frame of the PT_XLA_DEBUG Compilation Analysis at {}",
        frame_text(*user), where_in(source_name, b.source_id, b.line));
    return r;
  }
  auto reads = execution_reads(b, executions);
  if (reads.size() == 1) {
    r.frame = reads.front().first;
    r.evidence = fmt::format(
        "value read at {}: named by the Execution Analysis of the same graph {} at {} ({})",
        frame_text(*r.frame), b.graph_hash,
        where_in(source_name, b.source_id, reads.front().second), why_no_frame(b));
    return r;
  }
  if (reads.size() > 1) {
    std::string lines;
    for (const auto& [frame, line] : reads)
      lines += fmt::format("{}{} at {}", lines.empty() ? "" : ", ", frame_text(frame),
                           where_in(source_name, b.source_id, line));
    r.missing = fmt::format(
        "which read is not decided: {}, and Execution Analysis blocks of graph {} name {} lines "
        "({})",
        why_no_frame(b), b.graph_hash, reads.size(), lines);
  } else {
    r.missing = fmt::format("the read's line is not in the log: {}; {}", why_no_frame(b),
                            what_would_name(b));
  }
  r.evidence = "value read: unknown line; " + r.missing;
  return r;
}

namespace {

// ` (R per step; +D in the last step)` for `note`, with `prev` the log's note before it.
std::string transfer_rate(const TransferNote& note, const TransferNote* prev) {
  if (!note.count || !note.steps || *note.steps <= 0) return "";
  std::string out = fmt::format(" ({:.1f} per step", double(*note.count) / double(*note.steps));
  if (prev && prev->count && prev->steps) {
    int64_t reads = *note.count - *prev->count, steps = *note.steps - *prev->steps;
    if (reads < 0 || steps < 0)
      out += "; counts fall between notes: several processes print to this log";
    else if (steps == 1)
      out += fmt::format("; {} in this fragment's step", reads);
    else if (steps > 1)
      out += fmt::format("; {} over the {} steps since the previous note", reads, steps);
  }
  return out + ")";
}

std::string note_text(const TransferNote& n) {
  std::string text = fmt::format("{} too frequent", n.metric);
  if (n.count) text += fmt::format(": {} counts", *n.count);
  if (n.steps) text += fmt::format(" during {} steps", *n.steps);
  return text;
}

}  // namespace

std::string transfer_note_evidence(const std::vector<TransferNote>& notes, const XlaBlockRecord& b,
                                   const std::map<int64_t, std::string>& source_name) {
  if (notes.empty()) return "";
  const TransferNote* prev = nullptr;
  for (const TransferNote& n : notes) {
    if (n.source_id != b.source_id) continue;
    if (n.line > b.line)
      return fmt::format("pt-xla-profiler at {}, the step-end sync after this fragment: {}{}",
                         where_in(source_name, n.source_id, n.line), note_text(n),
                         transfer_rate(n, prev));
    prev = &n;
  }
  const TransferNote& n = prev ? *prev : notes.front();
  return fmt::format(
      "pt-xla-profiler at {} (run-wide: no note follows this fragment in its log): {}{}",
      where_in(source_name, n.source_id, n.line), note_text(n), transfer_rate(n, nullptr));
}

}  // namespace rcf::analysis
