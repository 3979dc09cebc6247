// One process seen through several logs of a run (docs/dynamo_text.md, "One process, several
// logs"): `rcf capture` and many launchers write a TORCH_LOGS text log and a TORCH_TRACE file of
// the same process, and each records every compile. A text source is the same process as a
// TORCH_TRACE source of the run when the evidence says so: every compile the text log names has a
// TORCH_TRACE compile with the same glog pid, compile id (epoch, frame, compile) and function.
// Its records are then read under the trace's key, so each compile is counted once and carries
// the evidence of both (the structured facts first). Without pids nothing is merged.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "analysis/attributed_compile.h"
#include "analysis/source_alias.h"
#include "store/database.h"

namespace rcf::analysis {

class SameProcessSources {
 public:
  // Decides the aliases of `run_id` from its compile records (store/source_pair_reader.h).
  static SameProcessSources find(store::Database& db, int64_t run_id);

  // Rewrites a key of an aliased source to the key of the source it is the same process as.
  void apply(DynamoKey* key) const {
    if (aliases_.empty()) return;
    for (const SourceAlias& a : aliases_) {
      if (key->source_id != a.source_id) continue;
      key->source_id = a.to_source_id;
      key->rank = a.to_rank;
      return;
    }
  }
  bool is_alias(int32_t source_id) const {
    for (const SourceAlias& a : aliases_)
      if (a.source_id == source_id) return true;
    return false;
  }
  const std::vector<SourceAlias>& aliases() const { return aliases_; }

 private:
  std::vector<SourceAlias> aliases_;
};

}  // namespace rcf::analysis
