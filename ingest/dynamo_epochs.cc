#include "ingest/dynamo_epochs.h"

namespace rcf::ingest {

int32_t DynamoEpochs::current(int32_t rank, std::string_view process) const {
  if (streams_.empty()) return 0;
  auto it = streams_.find(std::pair<int32_t, std::string>(rank, std::string(process)));
  return it == streams_.end() ? 0 : it->second.epoch;
}

void DynamoEpochs::on_header(int32_t rank, std::string_view process, const CompileId& id,
                             std::string_view function, std::string_view file,
                             std::string_view artifact) {
  if (id.frame < 0 || id.compile < 0) return;
  Stream& stream = streams_[{rank, std::string(process)}];
  FrameState& frame = stream.frames[{id.compiled_autograd, id.frame}];
  bool went_back = frame.last_compile > id.compile ||
                   (frame.last_compile == id.compile && frame.last_attempt >= id.attempt &&
                    frame.artifact == artifact);
  bool other_function =
      !frame.function.empty() && !function.empty() &&
      (frame.function != function || (!frame.file.empty() && !file.empty() && frame.file != file));
  if (frame.last_compile >= 0 && (went_back || other_function)) {
    ++stream.epoch;
    stream.frames.clear();
  }
  FrameState& now = stream.frames[{id.compiled_autograd, id.frame}];
  now.last_compile = id.compile;
  now.last_attempt = id.attempt;
  now.function = std::string(function);
  now.file = std::string(file);
  now.artifact = std::string(artifact);
}

}  // namespace rcf::ingest
