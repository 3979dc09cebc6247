// ParseAhead (parsing on worker threads ahead of the writer) must hand back exactly what parsing
// the sources one after the other gives: the same events in the same order, the same stats, for
// any worker count; a source larger than its queue must stream through; giving up mid-way (an
// error in the consumer) must not hang.
#include "pipeline/parse_ahead.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "ingest/ingest_driver.h"
#include "tests/support/collecting_sink.h"
#include "tests/support/temp_files.h"
#include "tests/support/test_paths.h"
#include "tests/support/xla_log_generator.h"

namespace rcf::pipeline {
namespace parse_ahead_test {

using rcf::testing::CollectingSink;
using rcf::testing::event_keys;
using rcf::testing::stats_key;
using rcf::testing::TempDir;
using rcf::testing::write_file;

// Every fixture file of the XLA and TORCH_TRACE folders (several formats, with rejected lines),
// plus a generated debug log far larger than one source's queue.
std::vector<std::string> inputs(const TempDir& dir) {
  std::vector<std::string> paths;
  for (const char* sub : {"xla", "torch_trace"})
    for (const auto& entry :
         std::filesystem::directory_iterator(std::string(RCF_FIXTURES_DIR) + "/" + sub))
      if (entry.is_regular_file() && entry.path().filename() != "README.md")
        paths.push_back(entry.path().string());
  std::sort(paths.begin(), paths.end());
  std::string big = dir.file("big_pt_xla_debug.log");
  write_file(big, rcf::testing::make_pt_xla_debug_log(size_t{6} << 20, 7));
  paths.insert(paths.begin() + static_cast<std::ptrdiff_t>(paths.size() / 2), big);
  return paths;
}

struct Serial {
  std::vector<std::string> events;
  std::string stats;
  ingest::SourceOutcome outcome;
};

std::vector<Serial> parse_one_after_the_other(const std::vector<std::string>& paths) {
  std::vector<Serial> out;
  for (const auto& path : paths) {
    CollectingSink sink;
    ingest::SourceStats stats;
    auto outcome = ingest::ingest_source(path, sink, ingest::DriverOptions{}, &stats);
    out.push_back({event_keys(sink), stats_key(stats), outcome});
  }
  return out;
}

TEST(ParseAhead, SameEventsAndStatsAsOneAfterTheOtherForAnyWorkerCount) {
  TempDir dir;
  auto paths = inputs(dir);
  ASSERT_GT(paths.size(), 20u);
  auto expected = parse_one_after_the_other(paths);
  size_t big_events = 0;
  for (const auto& e : expected) big_events = std::max(big_events, e.events.size());
  ASSERT_GT(big_events, 8192u) << "the generated log must overflow one source's queue (8192)";

  for (int workers : {0, 1, 2, 3, 5}) {  // 0: no thread, each parsed in consume()
    std::vector<ParseAhead::Input> in;
    for (const auto& p : paths) in.push_back({p, {}});
    ParseAhead ahead(std::move(in), workers);
    for (size_t i = 0; i < paths.size(); ++i) {
      CollectingSink sink;
      ingest::SourceStats stats;
      auto outcome = ahead.consume(i, sink, &stats);
      EXPECT_EQ(outcome, expected[i].outcome) << paths[i];
      EXPECT_EQ(stats_key(stats), expected[i].stats) << paths[i] << " workers " << workers;
      EXPECT_EQ(event_keys(sink), expected[i].events) << paths[i] << " workers " << workers;
    }
  }
  // A single input is parsed on the consumer's thread.
  for (size_t i = 0; i < paths.size(); ++i) {
    ParseAhead ahead({{paths[i], {}}}, 2);
    CollectingSink sink;
    ingest::SourceStats stats;
    EXPECT_EQ(ahead.consume(0, sink, &stats), expected[i].outcome);
    EXPECT_EQ(stats_key(stats), expected[i].stats) << paths[i];
    EXPECT_EQ(event_keys(sink), expected[i].events) << paths[i];
  }
}

TEST(ParseAhead, OpenFailureIsAnOutcomeNotAnError) {
  TempDir dir;
  std::string ok = dir.file("ok.log");
  write_file(ok, rcf::testing::make_pt_xla_debug_log(size_t{64} << 10, 3));
  std::vector<ParseAhead::Input> in = {{dir.file("missing.log"), {}}, {ok, {}}};
  ParseAhead ahead(std::move(in), 2);
  CollectingSink sink;
  ingest::SourceStats stats;
  EXPECT_EQ(ahead.consume(0, sink, &stats), ingest::SourceOutcome::kOpenFailed);
  EXPECT_FALSE(stats.read_error.empty());
  EXPECT_EQ(ahead.consume(1, sink, &stats), ingest::SourceOutcome::kIngested);
  EXPECT_GT(sink.events.size(), 0u);
}

TEST(ParseAhead, GivingUpMidWayStopsTheWorkers) {
  // The consumer stops after the first source (as an ingest that fails does) while the workers
  // are blocked on full queues of the next ones: destroying it must return.
  TempDir dir;
  std::vector<ParseAhead::Input> in;
  for (int i = 0; i < 6; ++i) {
    std::string path = dir.file("log" + std::to_string(i));
    write_file(path, rcf::testing::make_pt_xla_debug_log(size_t{8} << 20, i + 1));
    in.push_back({path, {}});
  }
  {
    ParseAhead ahead(std::move(in), 3);
    CollectingSink sink;
    ingest::SourceStats stats;
    ahead.consume(0, sink, &stats);
    EXPECT_GT(stats.lines, 0);
  }
  SUCCEED();
}

}  // namespace parse_ahead_test
}  // namespace rcf::pipeline
