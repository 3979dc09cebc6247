#include "tests/support/ingested_store.h"
#include "tests/support/test_paths.h"

#include <algorithm>
#include <filesystem>

namespace rcf::testing {

std::string fixture_path(const std::string& relative) {
  return std::string(RCF_FIXTURES_DIR) + "/" + relative;
}

std::vector<std::string> scenario_files(const std::string& name) {
  std::vector<std::string> files;
  for (const auto& e : std::filesystem::directory_iterator(fixture_path("scenarios/" + name)))
    if (e.path().filename() != "truth.json") files.push_back(e.path().string());
  std::sort(files.begin(), files.end());
  return files;
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
