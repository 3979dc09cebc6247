// The JSON object of one cudagraph skip row, shared by `rcf explain --json` and the report JSON
// (which use nlohmann::json and nlohmann::ordered_json respectively).
#pragma once

#include "report/explain.h"

namespace rcf::report {

template <typename Json>
Json cudagraph_skip_json(const CudagraphSkipInfo& k) {
  return Json{{"kind", k.kind},
              {"reason", k.reason},
              {"program_key", k.program_key},
              {"site", k.site},
              {"user_location", k.user_location},
              {"count", k.count},
              {"where", k.where}};
}

}  // namespace rcf::report
