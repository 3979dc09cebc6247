#include "tests/support/fixture_text.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <vector>

#include "ingest/reading/byte_source.h"
#include "tests/support/ingested_store.h"

namespace rcf::testing {

std::string fixture_text(const std::string& relative) {
  std::string error;
  auto source = ingest::open_byte_source(fixture_path(relative), {}, &error);
  EXPECT_TRUE(source) << error;
  std::string text;
  char buf[65536];
  for (int64_t got; source && (got = source->read(buf, sizeof buf)) > 0;) text.append(buf, got);
  return text;
}

std::string real_consoles_one_after_the_other() {
  namespace fs = std::filesystem;
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(fixture_path("real_runs")))
    if (fs::exists(entry.path() / "run1" / "stderr.log") &&
        !entry.path().filename().string().starts_with("jax"))
      names.push_back("real_runs/" + entry.path().filename().string() + "/run1/stderr.log");
  for (const auto& entry : fs::directory_iterator(fixture_path("dynamo")))
    if (entry.path().extension() == ".txt")
      names.push_back("dynamo/" + entry.path().filename().string());
  std::sort(names.begin(), names.end());
  std::string text;
  for (const auto& name : names) text += fixture_text(name);
  return text;
}

}  // namespace rcf::testing
