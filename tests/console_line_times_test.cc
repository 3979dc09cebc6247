// The line-time sidecar that `rcf capture` writes next to each console log
// (pipeline/console_line_times.h, docs/capture.md "Console line times"): the format read back,
// the sidecars found next to their logs and never read as logs, and a real run whose progress
// lines carry no time getting its compiles placed in steps by the sidecar.
#include "pipeline/console_line_times.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tests/support/db_dump.h"
#include "tests/support/ingested_store.h"
#include "tests/support/temp_files.h"
#include "tests/support/test_paths.h"

namespace rcf {
namespace console_line_times_test {

namespace fs = std::filesystem;
using pipeline::ConsoleLineTimes;
using testing::fixture_path;
using testing::read_file;
using testing::read_store;
using testing::scalar;
using testing::TempDir;
using testing::write_file;

const std::string kHeader = "# rcf console line times v1: lines\tunix_ms\n";

TEST(ConsoleLineTimes, LineArrivesWithTheFirstRowThatCompletesIt) {
  TempDir tmp;
  write_file(tmp.file("a.times"), kHeader + pipeline::format_line_time(2, 1000500) +
                                      pipeline::format_line_time(5, 1002000));
  std::string error;
  auto times = ConsoleLineTimes::read(tmp.file("a.times"), &error);
  ASSERT_TRUE(times) << error;
  EXPECT_EQ(times->time_of(1), 1000.5);
  EXPECT_EQ(times->time_of(2), 1000.5);
  EXPECT_EQ(times->time_of(3), 1002.0);
  EXPECT_EQ(times->time_of(5), 1002.0);
  EXPECT_FALSE(times->time_of(6));  // not complete when the sidecar was read
  EXPECT_FALSE(times->time_of(0));
}

TEST(ConsoleLineTimes, WhatIsNotASidecarIsRefusedWithWhere) {
  TempDir tmp;
  struct Case {
    std::string text, error;
  };
  const Case cases[] = {
      {"2\t100\n", "not an rcf line-time sidecar"},
      {kHeader + "2\t100\n2\t200\n", ":3: expected increasing"},    // the count went nowhere
      {kHeader + "2\t5000\n3\t3000\n", ":3: expected increasing"},  // the clock went back 2 s
      {kHeader + "2\t100\nx\t200\n", ":3: expected increasing"},
      {kHeader + "2\t\n", ":2: expected increasing"},
  };
  for (const Case& c : cases) {
    write_file(tmp.file("b.times"), c.text);
    std::string error;
    EXPECT_FALSE(ConsoleLineTimes::read(tmp.file("b.times"), &error)) << c.text;
    EXPECT_NE(error.find(c.error), std::string::npos) << error;
  }
  // A clock stepped back a little (NTP) is kept.
  write_file(tmp.file("c.times"), kHeader + "2\t5000\n3\t4500\n");
  std::string error;
  EXPECT_TRUE(ConsoleLineTimes::read(tmp.file("c.times"), &error)) << error;
}

TEST(ConsoleLineTimes, SidecarsAreTakenOutOfTheInputsAndPairedWithTheirLogs) {
  TempDir tmp;
  write_file(tmp.file("stdout.log"), "step 1\n");
  write_file(tmp.file("stdout.log.times"), kHeader + "1\t100\n");
  write_file(tmp.file("orphan.log.times"), kHeader + "1\t100\n");
  write_file(tmp.file("notes.times"), "a log that happens to end in .times\n");
  write_file(tmp.file("named.log"), "step 1\n");
  write_file(tmp.file("named.log.times"), kHeader + "1\t100\n");
  std::vector<ingest::InputFile> inputs = {{tmp.file("notes.times"), true},
                                           {tmp.file("orphan.log.times"), true},
                                           {tmp.file("stdout.log"), true},
                                           {tmp.file("stdout.log.times"), true},
                                           {tmp.file("named.log"), false}};
  auto sidecars = pipeline::take_line_time_sidecars(inputs);
  ASSERT_EQ(inputs.size(), 3u);
  EXPECT_EQ(inputs[0].path, tmp.file("notes.times"));  // no header: a log like any other
  EXPECT_EQ(inputs[1].path, tmp.file("stdout.log"));
  EXPECT_EQ(inputs[2].path, tmp.file("named.log"));
  EXPECT_EQ(sidecars, (std::map<std::string, std::string>{
                          {tmp.file("named.log"), tmp.file("named.log.times")},
                          {tmp.file("stdout.log"), tmp.file("stdout.log.times")}}));
}

// fixtures/real_runs/inductor_cache/cold: one compile, three progress lines without times on
// stderr, the compile in TORCH_TRACE only. The sidecar is what `rcf capture` would have written:
// each line's arrival from the run's own clock (truth.json: when each step began; a progress
// line is printed as its step ends).
std::string sidecar_from_the_runs_clock(const std::string& run_dir) {
  auto truth = nlohmann::json::parse(read_file(run_dir + "/truth.json"));
  const auto& steps = truth["steps"];
  std::string out = kHeader;
  // Lines 1-2: Inductor's warning, printed while the first compile ran (after step 1 began).
  out +=
      pipeline::format_line_time(2, static_cast<int64_t>(steps[0]["t"].get<double>() * 1000) + 500);
  for (size_t s = 0; s < steps.size(); ++s) {
    double end = s + 1 < steps.size() ? steps[s + 1]["t"].get<double>()
                                      : truth["finished_unix"].get<double>();
    out +=
        pipeline::format_line_time(3 + static_cast<int64_t>(s), static_cast<int64_t>(end * 1000));
  }
  return out;
}

TEST(ConsoleLineTimes, ARealRunsCompileIsPlacedByWhenItsProgressLinesWerePrinted) {
  const std::string run = fixture_path("real_runs/inductor_cache/cold");
  ASSERT_EQ(read_file(run + "/stderr.log").substr(0, 1), "/");  // line 1: the warning
  TempDir tmp;
  fs::copy(run, tmp.file("cold"), fs::copy_options::recursive);
  const std::string dir = tmp.file("cold");
  auto placed = [&](const std::string& db) {
    testing::ingest_logs(db, {dir + "/logs", dir + "/stderr.log"}, "inductor_cache", "cold");
    auto store = read_store(db);
    return scalar(*store, "SELECT group_concat(coalesce(step, 'open')) FROM compiles") + " " +
           scalar(*store, "SELECT step_basis FROM convergence_summary");
  };
  // Without the sidecar only the trace's clock places it: the run's first compile, in step 1
  // (docs/training_steps.md, "The trace's clock"); the sidecar's times outrank it.
  EXPECT_EQ(placed(tmp.file("without.db")), "1 trace_clock");
  write_file(dir + "/stderr.log.times", sidecar_from_the_runs_clock(run));
  EXPECT_EQ(placed(tmp.file("with.db")), "1 step_timestamps");
  // The step detail says where the times came from.
  EXPECT_NE(scalar(*read_store(tmp.file("with.db")), "SELECT step_detail FROM convergence_summary")
                .find("the times the progress lines reached rcf capture, from the console's "
                      "line-time sidecar"),
            std::string::npos);
  // A walk of the capture directory finds the sidecar the same way and reads it as no log.
  testing::ingest_logs(tmp.file("walk.db"), {dir}, "inductor_cache", "cold");
  auto store = read_store(tmp.file("walk.db"));
  EXPECT_EQ(scalar(*store, "SELECT group_concat(step) FROM compiles"), "1");
  EXPECT_EQ(scalar(*store, "SELECT count(*) FROM source WHERE path LIKE '%.times'"), "0");
}

}  // namespace console_line_times_test
}  // namespace rcf
