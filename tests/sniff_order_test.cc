// sniff_importer runs the sniffers that can still win, highest possible score first
// (ImporterInfo::max_score). Its answer must be that of running every sniffer: the highest score,
// ties to the earlier importer in the registry. Checked on the head of every fixture and on heads
// built to tie.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "ingest/importer.h"
#include "support/ingested_store.h"

namespace rcf {
namespace sniff_order_test {

// What sniff_importer answered before it skipped sniffers: every one run, the first best kept.
const ingest::ImporterInfo* sniff_every_importer(std::string_view head) {
  const ingest::ImporterInfo* best = nullptr;
  int best_score = 0;
  for (const ingest::ImporterInfo& info : ingest::importer_registry()) {
    int score = info.sniff(head);
    if (score > best_score) {
      best = &info;
      best_score = score;
    }
  }
  return best;
}

std::string name_of(const ingest::ImporterInfo* info) {
  return info ? info->name : "(none)";
}

// The first 64 KiB of `path`, whole lines only, as the ingest driver hands them to the sniffers.
std::string head_of(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::string head(64 * 1024, '\0');
  in.read(head.data(), static_cast<std::streamsize>(head.size()));
  head.resize(static_cast<size_t>(in.gcount()));
  if (head.size() == 64 * 1024) {
    size_t nl = head.rfind('\n');
    if (nl != std::string::npos) head.resize(nl + 1);
  }
  return head;
}

std::vector<std::filesystem::path> fixture_files() {
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(testing::fixture_path("")))
    if (entry.is_regular_file() && entry.path().extension() != ".gz") files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  return files;
}

TEST(SniffOrder, EveryScoreIsWithinItsSniffersDeclaredMaximum) {
  size_t heads = 0;
  for (const auto& path : fixture_files()) {
    std::string head = head_of(path);
    ++heads;
    for (const ingest::ImporterInfo& info : ingest::importer_registry()) {
      int score = info.sniff(head);
      EXPECT_GE(score, 0) << info.name << " on " << path;
      EXPECT_LE(score, info.max_score) << info.name << " on " << path;
    }
  }
  EXPECT_GT(heads, 100u);
}

TEST(SniffOrder, AnswersAsIfEverySnifferRan) {
  std::map<std::string, int> chosen;
  for (const auto& path : fixture_files()) {
    std::string head = head_of(path);
    const ingest::ImporterInfo* expected = sniff_every_importer(head);
    EXPECT_EQ(name_of(ingest::sniff_importer(head)), name_of(expected)) << path;
    ++chosen[name_of(expected)];
  }
  // The fixtures exercise every format, so the order is checked where each one wins.
  for (const ingest::ImporterInfo& info : ingest::importer_registry())
    EXPECT_GT(chosen[info.name], 0) << "no fixture is sniffed as " << info.name;
}

TEST(SniffOrder, TiesGoToTheEarlierImporterAndHigherScoresWin) {
  const std::string trace_line =
      "V1120 10:00:00.000000 4242 torch/_dynamo/convert_frame.py:1123] "
      "{\"dynamo_start\": {\"stack\": []}, \"frame_id\": 0, \"frame_compile_id\": 0, "
      "\"attempt\": 0}\n";
  const std::string hlo_line = "HloModule jit_f, entry_computation_layout={()->f32[]}\n";
  // torch_trace and hlo_text both score 90: the earlier in the registry (torch_trace) wins,
  // whichever line comes first.
  for (const std::string& head : {trace_line + hlo_line, hlo_line + trace_line}) {
    ASSERT_EQ(name_of(sniff_every_importer(head)), "torch_trace");
    EXPECT_EQ(name_of(ingest::sniff_importer(head)), "torch_trace");
  }
  // A saved-graph header (95) beats an HloModule line (90) found first.
  const std::string saved = hlo_line + "[ScheduleSyncTensorsGraph]\nTensorsGraphInfo:\n";
  ASSERT_EQ(name_of(sniff_every_importer(saved)), "xla_saved_graph");
  EXPECT_EQ(name_of(ingest::sniff_importer(saved)), "xla_saved_graph");
  EXPECT_EQ(ingest::sniff_importer(""), nullptr);
  EXPECT_EQ(ingest::sniff_importer("nothing to see here\n"), nullptr);
}

}  // namespace sniff_order_test
}  // namespace rcf
