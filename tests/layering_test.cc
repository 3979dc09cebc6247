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
#include "tests/support/test_paths.h"

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

// Lines of `text` that run SQL themselves: a statement prepared or executed on a database, or a
// batch insert built. Outside store/ none may (docs/architecture.md, "Where SQL lives").
std::string sql_calls(const std::string& text, const std::string& file) {
  std::string found;
  size_t line_start = 0;
  for (size_t line = 1; line_start < text.size(); ++line) {
    size_t end = text.find('\n', line_start);
    if (end == std::string::npos) end = text.size();
    std::string_view l = std::string_view(text).substr(line_start, end - line_start);
    for (std::string_view call : {".prepare(", "->prepare(", ".exec(", "->exec(", "BatchInsert"})
      if (l.find(call) != std::string_view::npos) {
        found += "\n  " + file + ":" + std::to_string(line) + ": " + std::string(l);
        break;
      }
    line_start = end + 1;
  }
  return found;
}

TEST(Layering, OnlyTheStoreRunsSql) {
  std::string found;
  for (std::string_view layer : {"analysis", "report", "pipeline", "cli"})
    for (const auto& entry : fs::recursive_directory_iterator(kSourceDir / layer)) {
      const std::string ext = entry.path().extension().string();
      if (ext != ".cc" && ext != ".h") continue;
      found += sql_calls(testing::read_file(entry.path().string()),
                         entry.path().lexically_relative(kSourceDir).string());
    }
  EXPECT_EQ(found, "") << "SQL run outside store/";
}

TEST(Layering, TheSqlScanFindsACall) {
  EXPECT_EQ(sql_calls("int x;\n  auto st = db.prepare(\"SELECT 1\");\n", "analysis/a.cc"),
            "\n  analysis/a.cc:2:   auto st = db.prepare(\"SELECT 1\");");
  EXPECT_EQ(sql_calls("auto rows = store::read_rows(db, run);\n", "analysis/a.cc"), "");
}

}  // namespace layering_test
}  // namespace rcf
