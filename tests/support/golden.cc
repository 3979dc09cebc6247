#include "tests/support/golden.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>

#include "tests/support/temp_files.h"
#include "tests/support/test_paths.h"

namespace rcf::testing {

bool update_golden() {
  const char* env = std::getenv("RCF_UPDATE_GOLDEN");
  return env && std::string(env) == "1";
}

void expect_golden(const std::string& name, const std::string& actual) {
  const std::string path = std::string(RCF_GOLDEN_DIR) + "/" + name;
  if (update_golden()) {
    write_file(path, actual);
    return;
  }
  ASSERT_TRUE(std::filesystem::exists(path))
      << path << " is missing; generate it with RCF_UPDATE_GOLDEN=1 and review it";
  EXPECT_EQ(read_file(path), actual)
      << "golden file " << path << " differs (RCF_UPDATE_GOLDEN=1 rewrites it)";
}

}  // namespace rcf::testing
