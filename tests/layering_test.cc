// The layers (docs/architecture.md): util < ingest < store < analysis < report < pipeline < cli.
// Each is a library of its own that links only the layers below it (CMakeLists.txt); this test
// reads every source's includes and fails on one that runs up the layers, which a static library
// alone would let build.
#include <gtest/gtest.h>

#include <array>
#include <filesystem>
#include <string>
#include <string_view>

#include "tests/support/temp_files.h"

namespace rcf {
namespace layering_test {

namespace fs = std::filesystem;

const fs::path kSourceDir = fs::path(RCF_FIXTURES_DIR).parent_path();
constexpr std::array<std::string_view, 7> kLayers = {"util",   "ingest",   "store", "analysis",
                                                     "report", "pipeline", "cli"};

// The layer's rank, or -1 for a folder that is no layer (tests/, bench/, sql/).
int rank_of(std::string_view folder) {
  for (size_t i = 0; i < kLayers.size(); ++i)
    if (kLayers[i] == folder) return static_cast<int>(i);
  return -1;
}

// `#include "<layer>/..."` lines of `text` whose layer ranks above `rank`, as `file: line`.
std::string upward_includes(const std::string& text, int rank, const std::string& file) {
  std::string found;
  constexpr std::string_view kInclude = "#include \"";
  for (size_t at = text.find(kInclude); at != std::string::npos; at = text.find(kInclude, at + 1)) {
    size_t start = at + kInclude.size();
    size_t slash = text.find('/', start);
    size_t end = text.find('"', start);
    if (slash == std::string::npos || end == std::string::npos || slash > end) continue;
    if (rank_of(std::string_view(text).substr(start, slash - start)) > rank)
      found += "\n  " + file + ": " + text.substr(at, end + 1 - at);
  }
  return found;
}

TEST(Layering, NoIncludeRunsUpTheLayers) {
  std::string found;
  size_t files = 0;
  for (std::string_view layer : kLayers) {
    for (const auto& entry : fs::recursive_directory_iterator(kSourceDir / layer)) {
      const std::string ext = entry.path().extension().string();
      if (ext != ".cc" && ext != ".h") continue;
      ++files;
      found += upward_includes(testing::read_file(entry.path().string()), rank_of(layer),
                               entry.path().lexically_relative(kSourceDir).string());
    }
  }
  EXPECT_GT(files, 200u);
  EXPECT_EQ(found, "") << "includes that run up the layers";
}

// The scan sees an upward include when there is one.
TEST(Layering, TheScanFindsAnUpwardInclude) {
  EXPECT_EQ(upward_includes("#include \"store/store.h\"\n#include \"util/error.h\"\n",
                            rank_of("ingest"), "ingest/x.cc"),
            "\n  ingest/x.cc: #include \"store/store.h\"");
  EXPECT_EQ(upward_includes("#include \"ingest/events.h\"\n", rank_of("store"), "store/y.cc"), "");
}

}  // namespace layering_test
}  // namespace rcf
