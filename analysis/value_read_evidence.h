// What names the host read behind a torch_xla sync fragment (docs/causes.md, "The read behind a
// sync fragment"): the Python frame of the `.item()` / `.cpu()` / `print(t)` / `if t:` that cut
// the graph, and pt-xla-profiler's `TransferFromDeviceTime too frequent` count as corroboration.
// Each function returns one evidence record (one line of `rcf explain`).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "analysis/xla_compiles.h"

namespace rcf::analysis {

struct ValueRead {
  std::optional<FrameRecord> frame;  // the read's user frame; unset when the log does not decide it
  std::string evidence;              // "value read at ..." or "value read: not named ..."
  std::string missing;               // unset frame: why, and what would name it
};

// The read of the fragment compiled by `b`. Its own block's innermost user frame names it; a
// block without one (cut before its frame list, or library frames only) takes the frame of the
// level-2 Execution blocks of the same graph hash in the same log when they all name one line,
// and stays unnamed when they name several or none.
ValueRead name_value_read(const XlaBlockRecord& b, const std::optional<FrameRecord>& user,
                          const std::vector<ValueReadExecution>& executions,
                          const std::map<int64_t, std::string>& source_name);

// The `TransferFromDeviceTime too frequent` note that counts the fragment's read: the first one of
// the fragment's log after its compile block (printed at the step-end sync that follows), with the
// transfers per step and the growth since the log's previous note; else the run's first note, said
// to be run-wide. "" when the run has none.
std::string transfer_note_evidence(const std::vector<TransferNote>& notes, const XlaBlockRecord& b,
                                   const std::map<int64_t, std::string>& source_name);

}  // namespace rcf::analysis
