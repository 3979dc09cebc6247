// Dynamo epochs in text logs (docs/dynamo_text.md, "Compile identity"): a compile id `F/C` is
// unique only within one process and one Dynamo epoch. `torch._dynamo.reset()` (experiments in one
// script, re-run notebook cells, test suites) starts the ids again at 0/0. A recompile header is
// evidence of a new epoch of its stream (rank + pid) when its frame's compile ids go back, the
// same id is announced again, or the frame id now names another function.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <utility>

#include "ingest/compile_id.h"

namespace rcf::ingest {

class DynamoEpochs {
 public:
  // The epoch of the stream's records from now on (0 until a reset is seen). Several processes
  // writing one log under the same rank (none, without `[rankN]:`) reuse the same compile ids:
  // a process (a glog pid) seen after another one of its rank starts a new epoch, numbered
  // after every epoch of that rank so far, so their compiles never share a key.
  int32_t current(int32_t rank, std::string_view process);
  // A `Recompiling function <function> in <file>` header with compile id `id`; starts a new epoch
  // of the stream when the header proves one.
  // `artifact` ("recompiles" / "recompiles_verbose"): both announce the same compile when both
  // are enabled, which is no reset.
  void on_header(int32_t rank, std::string_view process, const CompileId& id,
                 std::string_view function, std::string_view file, std::string_view artifact);

 private:
  struct FrameState {
    int32_t last_compile = -1;
    int32_t last_attempt = -1;
    std::string artifact;  // that announced the last compile
    std::string function;
    std::string file;
  };
  struct Stream {
    int32_t epoch = 0;
    std::map<std::pair<int32_t, int32_t>, FrameState> frames;  // (compiled autograd, frame)
  };
  Stream& stream(int32_t rank, std::string_view process);

  std::map<std::pair<int32_t, std::string>, Stream, std::less<>> streams_;
  struct Rank {
    int32_t last_epoch = 0;  // the largest epoch any stream of the rank has taken
    int32_t processes = 0;   // streams with a process id
  };
  std::map<int32_t, Rank> ranks_;
};

}  // namespace rcf::ingest
