#include "ingest/dynamo/dynamo_text_block.h"

namespace rcf::ingest {

void BlockOutput::note(size_t index, LineReason reason) {
  if (index >= noted_.size() || noted_[index]) return;
  noted_[index] = true;
  const BlockLine& line = block_.lines[index];
  sink_.note(line.line_no, reason, line.text);
}

void BlockOutput::finish(LineReason fallback_reason) {
  if (events_ > 0) return;
  for (size_t i = 0; i < noted_.size(); ++i) note(i, fallback_reason);
}

}  // namespace rcf::ingest
