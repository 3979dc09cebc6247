#include "ingest/dynamo/dynamo_epochs.h"

namespace rcf::ingest {

DynamoEpochs::Stream& DynamoEpochs::stream(int32_t rank, std::string_view process) {
  auto [it, fresh] = streams_.try_emplace({rank, std::string(process)});
  if (fresh && !process.empty()) {
    Rank& r = ranks_[rank];
    if (r.processes++ > 0) it->second.epoch = ++r.last_epoch;  // another process of the rank
  }
  return it->second;
}

int32_t DynamoEpochs::current(int32_t rank, std::string_view process) {
  return stream(rank, process).epoch;
}

void DynamoEpochs::on_header(int32_t rank, std::string_view process, const CompileId& id,
                             std::string_view function, std::string_view file,
                             std::string_view artifact) {
  if (id.frame < 0 || id.compile < 0) return;
  Stream& stream = this->stream(rank, process);
  FrameState& frame = stream.frames[{id.compiled_autograd, id.frame}];
  bool went_back = frame.last_compile > id.compile ||
                   (frame.last_compile == id.compile && frame.last_attempt >= id.attempt &&
                    frame.artifact == artifact);
  bool other_function =
      !frame.function.empty() && !function.empty() &&
      (frame.function != function || (!frame.file.empty() && !file.empty() && frame.file != file));
  if (frame.last_compile >= 0 && (went_back || other_function)) {
    stream.epoch = ++ranks_[rank].last_epoch;
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
