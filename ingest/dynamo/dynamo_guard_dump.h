// Guard dumps (`TORCH_LOGS=guards`, docs/dynamo_text.md "Guard dumps"): the guards each compile
// installed, printed with its compile id. A log with guard dumps but no `recompiles` artifact
// still tells which compiles happened, and what changed between two compiles of one frame: a
// guard of F/C-1 that F/C no longer has in the same form (`__nn_module_guard_0(G['mod'],
// debug_msg="versions(... _parameters=1480788 ...)")`) is what failed. The reader emits a compile
// per dumped id and, for each pair of consecutive compiles of a frame, the old entry's guards that
// changed as the new compile's guard failures (origin `text_guards_diff`).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "ingest/events.h"

namespace rcf::ingest {

class GuardDumpReader {
 public:
  explicit GuardDumpReader(EventSink& sink) : sink_(sink) {}
  // One line of the `guards` artifact of compile `ref` (its message, prefix removed).
  void read(const CompileRef& ref, int64_t pid, std::string_view message, int64_t line_no);
  // End of input: the last compile's dump is complete.
  void finish();

 private:
  using FrameKey = std::tuple<int32_t, int32_t, int32_t, int32_t>;  // rank, epoch, ca, frame
  struct Dump {
    CompileRef ref;
    int64_t line = 0;
    std::vector<std::string> guards;
  };
  void close_current();

  EventSink& sink_;
  bool open_ = false;
  Dump current_;
  std::map<FrameKey, Dump> last_of_frame_;  // the latest complete dump of each frame
};

}  // namespace rcf::ingest
