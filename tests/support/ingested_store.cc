#include "tests/support/ingested_store.h"

namespace rcf::testing {

std::string fixture_path(const std::string& relative) {
  return std::string(RCF_FIXTURES_DIR) + "/" + relative;
}

pipeline::IngestSummary ingest_logs(const std::string& db_path,
                                    const std::vector<std::string>& paths, const std::string& lane,
                                    const std::string& run) {
  pipeline::IngestRequest req;
  req.db_path = db_path;
  req.paths = paths;
  if (!lane.empty()) req.lane = lane;
  if (!run.empty()) req.run = run;
  return pipeline::run_ingest(req);
}

std::unique_ptr<store::Database> read_store(const std::string& db_path) {
  return store::open_store(db_path, store::OpenMode::kRead);
}

}  // namespace rcf::testing
