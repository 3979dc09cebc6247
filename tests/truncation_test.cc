// Real logs end anywhere: a killed job, a truncated gzip, a copy cut at a size limit, a paste that
// starts mid-record. Every text fixture is cut at token boundaries spread over the file (just
// before and just after a space, colon, comma, bracket, quote or '='), and what is left is read
// by the importer the whole file sniffs as: from a few lines before the cut (a paste), from an
// earlier cut (a paste that starts mid-line), and for some cuts of a small file from its start
// (a killed job). Each read must finish without a crash, with each line noted at most once as
// skipped or rejected, and with every note and event on a line that exists. (A Dynamo limit
// warning cut right after `recompilation cache limit` once read past its line's end and crashed
// this test.)
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "ingest/importer.h"
#include "tests/support/collecting_sink.h"
#include "tests/support/temp_files.h"
#include "tests/support/test_paths.h"

namespace rcf {
namespace truncation_test {

namespace fs = std::filesystem;

constexpr size_t kCutsPerFile = 600;  // each read from kLinesBeforeCut lines before the cut
constexpr int kLinesBeforeCut = 3;
constexpr size_t kPrefixCutsPerFile = 40;      // each read from the start of a file of at most
constexpr size_t kPrefixFileBytes = 16 << 10;  // this many bytes
constexpr size_t kSniffBytes = 64 << 10;

bool is_boundary(char c) {
  return std::string_view(" :,()[]{}\"'=\t").find(c) != std::string_view::npos;
}

// Text fixtures (not gzip, not documentation), in a fixed order.
std::vector<std::string> text_fixtures() {
  std::vector<std::string> out;
  for (const auto& entry : fs::recursive_directory_iterator(RCF_FIXTURES_DIR)) {
    if (!entry.is_regular_file()) continue;
    const std::string name = entry.path().filename().string();
    if (name == "README.md" || entry.path().extension() == ".py" ||
        entry.path().extension() == ".json" || entry.path().extension() == ".db" ||
        entry.path().extension() == ".gz")
      continue;
    out.push_back(entry.path().string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

// Up to `count` offsets, spread evenly over the boundaries of `text`: each boundary gives a cut
// before it and one after it.
std::vector<size_t> cuts_of(std::string_view text, size_t count) {
  std::vector<size_t> all;
  for (size_t i = 0; i < text.size(); ++i)
    if (is_boundary(text[i])) {
      all.push_back(i);
      all.push_back(i + 1);
    }
  if (all.size() <= count) return all;
  std::vector<size_t> picked;
  for (size_t k = 0; k < count; ++k) picked.push_back(all[k * all.size() / count]);
  return picked;
}

// Where the text read for a cut at `cut` starts: a line start kLinesBeforeCut lines back.
size_t window_start(std::string_view text, size_t cut) {
  size_t start = cut;
  for (int lines = 0; lines <= kLinesBeforeCut && start > 0; ++lines) {
    size_t nl = text.rfind('\n', start - 1);
    if (nl == std::string_view::npos) return 0;
    start = nl;
  }
  return start == 0 ? 0 : start + 1;
}

// What is wrong with reading `text` (empty when nothing is).
std::string problems_of(const testing::CollectingSink& sink, int64_t lines) {
  std::string problems;
  std::set<int64_t> noted;
  for (const auto& n : sink.notes) {
    if (n.line < 0 || n.line > lines)
      problems += "note " + n.reason + " on line " + std::to_string(n.line) + "; ";
    if (n.fate != ingest::LineFate::kWarning && !noted.insert(n.line).second)
      problems += "line " + std::to_string(n.line) + " noted twice; ";
  }
  for (const auto& event : sink.events)
    if (int64_t line = testing::event_line(event); line > lines)
      problems += "event on line " + std::to_string(line) + "; ";
  return problems;
}

TEST(Truncation, EveryFixtureCutAtTokenBoundariesIsReadWithoutHarm) {
  int files = 0, read_count = 0;
  std::string problems;
  for (const std::string& path : text_fixtures()) {
    const std::string text = testing::read_file(path);
    std::string_view head(text);
    if (head.size() > kSniffBytes) head = head.substr(0, head.rfind('\n', kSniffBytes) + 1);
    const ingest::ImporterInfo* info = ingest::sniff_importer(head);
    if (!info) continue;
    ++files;
    std::vector<std::pair<size_t, size_t>> reads;  // [start, cut)
    const std::vector<size_t> spread = cuts_of(text, kCutsPerFile);
    for (size_t cut : spread) reads.emplace_back(window_start(text, cut), cut);
    // Pastes that start mid-line too: from one cut to a later one.
    for (size_t k = 0; k + 8 < spread.size(); k += 2) reads.emplace_back(spread[k], spread[k + 8]);
    if (text.size() <= kPrefixFileBytes)
      for (size_t cut : cuts_of(text, kPrefixCutsPerFile)) reads.emplace_back(0, cut);
    for (auto [start, cut] : reads) {
      const std::string_view piece = std::string_view(text).substr(start, cut - start);
      testing::CollectingSink sink = testing::run_importer(info->name, piece);
      ++read_count;
      if (std::string found = problems_of(sink, testing::line_count(piece)); !found.empty())
        problems += "\n  " + fs::path(path).filename().string() + " (" + info->name + ") bytes " +
                    std::to_string(start) + ".." + std::to_string(cut) + ": " + found;
    }
    if (problems.size() > 4000) break;
  }
  EXPECT_GT(files, 100);
  EXPECT_GT(read_count, 80000);
  EXPECT_EQ(problems, "");
}

}  // namespace truncation_test
}  // namespace rcf
