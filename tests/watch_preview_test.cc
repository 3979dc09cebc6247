// A preview of the logs' ends (pipeline::GrowingLogs::preview_ends, docs/watch.md "The last
// record read from a log waits") shows the store a one-shot `rcf ingest` of what the watch has read
// so far would leave, every table row for row; and the logs then read on as if it had not been
// made. A log's importer is ended on a copy of itself (ingest::Importer::clone; a TORCH_TRACE
// importer's payload checksums wait for their worker). Real logs, as printed
// and as pasted (launcher-prefixed, hard-wrapped: the re-flow's held line and the launcher's
// origin are part of what is ended on copies), cut at line ends that fall inside records.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include "pipeline/growing_logs.h"
#include "tests/support/db_dump.h"
#include "tests/support/fixture_text.h"
#include "tests/support/ingested_store.h"
#include "tests/support/reflows.h"
#include "tests/support/temp_files.h"
#include "tests/support/test_paths.h"
#include "tests/support/training_console.h"

namespace watch_preview_test {

namespace fs = std::filesystem;
using rcf::testing::fixture_text;
using rcf::testing::real_consoles_one_after_the_other;
using rcf::testing::TempDir;

rcf::testing::LogLines lines_of(const std::string& text) {
  rcf::testing::LogLines lines;
  for (size_t at = 0; at < text.size();) {
    size_t nl = text.find('\n', at);
    if (nl == std::string::npos) nl = text.size();
    lines.push_back(text.substr(at, nl - at));
    at = nl + 1;
  }
  return lines;
}

std::string text_of(const rcf::testing::LogLines& lines) {
  std::string text;
  for (const auto& line : lines) text += line + "\n";
  return text;
}

// Each line behind torchrun's launcher tag, as `torchrun --tee` prints a worker's output.
std::string launcher_prefixed(const std::string& text) {
  rcf::testing::LogLines lines = lines_of(text);
  for (auto& line : lines) line = "[default1]:" + line;
  return text_of(lines);
}

std::string hard_wrapped(const std::string& text) {
  return text_of(rcf::testing::hard_wrap(100)(lines_of(text)));
}

// Line ends at or after each fraction of `text`, the first past the sniffing window, and the end
// of the line after the last `triggered by` (a recompile block cut after its first guard failure).
std::vector<size_t> cuts_of(const std::string& text) {
  std::vector<size_t> cuts;
  for (double f : {0.0, 0.3, 0.45, 0.6, 0.8, 0.93}) {
    size_t at =
        std::max(static_cast<size_t>(static_cast<double>(text.size()) * f), size_t{66} << 10);
    size_t nl = text.find('\n', at);
    if (nl != std::string::npos) cuts.push_back(nl + 1);
  }
  if (size_t block = text.rfind("triggered by"); block != std::string::npos && block > (66 << 10))
    if (size_t nl = text.find('\n', text.find('\n', block) + 1); nl != std::string::npos)
      cuts.push_back(nl + 1);
  std::sort(cuts.begin(), cuts.end());
  cuts.erase(std::unique(cuts.begin(), cuts.end()), cuts.end());
  return cuts;
}

// The store a one-shot ingest of `text` leaves, as `name` in `dir`, its paths shown as `shown`.
std::string one_shot(const std::string& dir, const std::string& name, const std::string& text,
                     const std::string& shown) {
  fs::create_directories(dir + "/logs");
  std::ofstream(dir + "/logs/" + name, std::ios::binary)
      .write(text.data(), static_cast<std::streamsize>(text.size()));
  rcf::testing::ingest_logs(dir + "/once.db", {dir + "/logs/" + name});
  auto db = rcf::testing::read_store(dir + "/once.db");
  return rcf::testing::replace_all(rcf::testing::dump_tables_by_text(*db), dir, shown);
}

struct PreviewCase {
  const char* name;
  std::string (*text)();
};

class WatchPreviewTest : public ::testing::TestWithParam<PreviewCase> {};

// Appends `text` to a watched log `name` in pieces ending at `cuts`, a batch and a preview after
// each: every preview must show the store a one-shot ingest of what was read leaves, and leave
// nothing to preview; then the rest, in a final batch, after which the store must be the one-shot
// store of the whole log (the previews left the log's reading as it was). `before_end` sees the
// logs before that last batch.
void expect_previews_as_one_shots(
    const std::string& text, const std::vector<size_t>& cuts, const std::string& name,
    const std::function<void(rcf::pipeline::GrowingLogs&)>& before_end = nullptr) {
  TempDir dir;
  const std::string watched = dir.file("watched");
  fs::create_directories(watched + "/logs");
  const std::string path = watched + "/logs/" + name;
  rcf::pipeline::GrowingLogs logs({watched + "/watch.db", "default", "default", "", ""});
  std::ofstream file(path, std::ios::binary);
  size_t written = 0;
  int previews = 0;
  for (size_t cut : cuts) {
    SCOPED_TRACE("cut at byte " + std::to_string(cut));
    file.write(text.data() + written, static_cast<std::streamsize>(cut - written));
    file.flush();
    written = cut;
    logs.read_batch({{path, static_cast<int64_t>(cut), false}}, false);
    ASSERT_TRUE(logs.has_open()) << "read on, not read whole";
    std::string previewed;
    ASSERT_TRUE(logs.preview_ends([&](rcf::store::Database& db, int64_t, auto) {
      previewed = rcf::testing::dump_tables_by_text(db);
    }));
    ++previews;
    const std::string expected =
        one_shot(dir.file("once_" + std::to_string(previews)), name, text.substr(0, cut), watched);
    EXPECT_EQ(previewed, expected);
    EXPECT_FALSE(logs.preview_ends([](rcf::store::Database&, int64_t, auto) {}))
        << "nothing grew since the last preview";
  }
  if (before_end) before_end(logs);
  file.write(text.data() + written, static_cast<std::streamsize>(text.size() - written));
  file.close();
  logs.read_batch({{path, -1, false}}, true);
  auto db = rcf::testing::read_store(watched + "/watch.db");
  EXPECT_EQ(rcf::testing::dump_tables_by_text(*db),
            one_shot(dir.file("once_whole"), name, text, watched))
      << "the previews left the log's reading as it was";
}

TEST_P(WatchPreviewTest, APreviewIsTheOneShotStoreOfWhatWasRead) {
  const std::string text = GetParam().text();
  const std::vector<size_t> cuts = cuts_of(text);
  ASSERT_GE(cuts.size(), 3u);
  expect_previews_as_one_shots(text, cuts, "log");
}

// A long training console (progress lines decide the steps; seven frames recompile in turn between
// them), read in pieces that cut blocks and lines, previewed after each batch: each preview reads
// on from a copy of the records the watch keeps and goes on from the compiles the last batch kept
// (analysis/dynamo_record_cache.h, DynamoRecordCache::fork) instead of reading and attributing the
// run whole, and still shows the one-shot store of what was read; the batches after it still go on
// from what they kept.
TEST(WatchPreview, APreviewGoesOnFromTheCompilesTheLastBatchKept) {
  const std::string text = rcf::testing::training_console(900, 7);
  std::vector<size_t> cuts;
  for (int piece = 0; piece < 6; ++piece) {
    const size_t first = size_t{66} << 10;  // past the sniffing window: the log is read on
    const size_t at = first + (text.size() - first) * static_cast<size_t>(piece) / 6;
    const size_t cut = text.find("    triggered by", at);  // inside a block, at a line's end
    ASSERT_NE(cut, std::string::npos);
    cuts.push_back(text.find('\n', cut) + 1);
  }
  int64_t previews_kept = 0, previews_attributed = 0, batches_kept = 0;
  expect_previews_as_one_shots(text, cuts, "train.log", [&](rcf::pipeline::GrowingLogs& logs) {
    previews_kept = logs.preview_totals().compiles_kept;
    previews_attributed = logs.preview_totals().compiles_attributed;
    batches_kept = logs.analysis_totals().compiles_kept;
  });
  // The first batch attributes the run whole; every preview goes on from what the batch before it
  // kept, attributing only what that batch read (and the last few compiles before it).
  EXPECT_GT(previews_kept, 2 * previews_attributed);
  EXPECT_GT(batches_kept, 0);
}

// A text file whose head no format claims is kept open and read on for a record that may come,
// but until one comes it is an unrecognised source with no record to preview: its growth never
// makes a preview (which analyses the run). From its first record on it is previewed as any log.
TEST(WatchPreview, ALogOfNoFormatYetHasNothingToPreview) {
  std::string output;
  for (int i = 1; i <= 3000; ++i)
    output += "INFO:root:loading shard " + std::to_string(i) + " of the dataset from /data/train\n";
  const std::string text = output + real_consoles_one_after_the_other();
  TempDir dir;
  const std::string watched = dir.file("watched");
  fs::create_directories(watched + "/logs");
  const std::string path = watched + "/logs/output.log";
  rcf::pipeline::GrowingLogs logs({watched + "/watch.db", "default", "default", "", ""});
  std::ofstream file(path, std::ios::binary);
  const std::vector<size_t> cuts = {output.size() / 2 + 200, output.size(),
                                    text.find('\n', output.size() + 5000) + 1};
  size_t written = 0;
  for (size_t cut : cuts) {
    cut = text.find('\n', cut - 1) + 1;  // at a line's end
    file.write(text.data() + written, static_cast<std::streamsize>(cut - written));
    file.flush();
    written = cut;
    logs.read_batch({{path, static_cast<int64_t>(cut), false}}, false);
    ASSERT_TRUE(logs.has_open()) << "read on, not read whole";
    const bool record_read = cut > output.size();
    EXPECT_EQ(logs.has_unpreviewed(), record_read) << "cut at " << cut;
    std::string previewed;
    EXPECT_EQ(logs.preview_ends([&](rcf::store::Database& db, int64_t, auto) {
      previewed = rcf::testing::dump_tables_by_text(db);
    }),
              record_read);
    if (record_read) {
      EXPECT_EQ(previewed,
                one_shot(dir.file("once_part"), "output.log", text.substr(0, cut), watched));
    }
  }
  file.write(text.data() + written, static_cast<std::streamsize>(text.size() - written));
  file.close();
  logs.read_batch({{path, -1, false}}, true);
  auto db = rcf::testing::read_store(watched + "/watch.db");
  EXPECT_EQ(rcf::testing::dump_tables_by_text(*db),
            one_shot(dir.file("once_whole"), "output.log", text, watched));
}

INSTANTIATE_TEST_SUITE_P(
    RealLogs, WatchPreviewTest,
    ::testing::Values(
        PreviewCase{"console", [] { return real_consoles_one_after_the_other(); }},
        PreviewCase{"launcher_prefixed_console",
                    [] { return launcher_prefixed(real_consoles_one_after_the_other()); }},
        PreviewCase{"hard_wrapped_console",
                    [] { return hard_wrapped(real_consoles_one_after_the_other()); }},
        PreviewCase{"torch_trace",
                    [] {
                      return fixture_text(
                          "real_runs/recompile_limit/run1/logs/torch_trace/"
                          "dedicated_log_torch_trace_u3ed5hot.log.gz");
                    }},
        // Payload bytes changed here and there: their checksums no longer match (noted at the
        // end of the log, after the worker hashed them).
        PreviewCase{"torch_trace_bad_checksums",
                    [] {
                      std::string text = fixture_text(
                          "real_runs/recompile_limit/run1/logs/torch_trace/"
                          "dedicated_log_torch_trace_u3ed5hot.log.gz");
                      int payload_lines = 0;
                      for (size_t at = text.find("\n\t"); at != std::string::npos;
                           at = text.find("\n\t", at + 2))
                        if (++payload_lines % 97 == 0 && text[at + 2] != '\n') text[at + 2] ^= 1;
                      return text;
                    }},
        PreviewCase{"pt_xla_debug",
                    [] { return fixture_text("scenarios/multi_sync/pt_xla_debug.log"); }},
        // Two real JAX logs, again and again: a JAX log of a long run is as long.
        PreviewCase{"jax",
                    [] {
                      std::string text;
                      for (int i = 0; i < 6; ++i)
                        text += fixture_text("real_runs/jax_shape_change/run1/stderr.log") +
                                fixture_text("real_runs/jax_static_arg/run1/stderr.log");
                      return text;
                    }}),
    [](const ::testing::TestParamInfo<PreviewCase>& param) {
      return std::string(param.param.name);
    });

}  // namespace watch_preview_test
