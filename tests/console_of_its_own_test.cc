// A console of progress lines in a file of its own, beside a Dynamo console with none: its steps
// are counted (docs/training_steps.md), whether its lines form series (no time) or are a row each
// (a time opens every line, here one no log of the run can read against UTC), through the runs
// they are counted as (analysis/step_runs.h): epochs that number their steps again, gaps, a step
// printed twice, lines of the program's own between them. The count is the distinct steps.
#include <gtest/gtest.h>

#include <filesystem>
#include <set>
#include <string>

#include "tests/support/db_dump.h"
#include "tests/support/fixture_text.h"
#include "tests/support/ingested_store.h"
#include "tests/support/temp_files.h"

namespace rcf {
namespace console_of_its_own_test {

using testing::fixture_text;
using testing::TempDir;

struct Console {
  std::string text;
  std::set<int> steps;
};

// Three epochs numbered again (1..1500, 1..1500 with a gap of 10 and a step printed twice, then
// 1..2200 every 2nd step), a warning every 700 lines; `timed`: each line opens with a time.
Console written_console(bool timed) {
  Console c;
  int line = 0;
  auto print = [&](int step) {
    if (++line % 700 == 0) c.text += "UserWarning: the dataloader is slow\n";
    if (timed)
      c.text += "2026-12-07 10:" + std::to_string(10 + line / 3600 % 50) + ":" +
                std::to_string(10 + line / 60 % 50) + ",123 ";
    c.text += "INFO train: step " + std::to_string(step) + " loss 0.51\n";
    c.steps.insert(step);
  };
  for (int s = 1; s <= 1500; ++s) print(s);
  for (int s = 1; s <= 1500; ++s) {
    if (s > 700 && s <= 710) continue;
    print(s);
    if (s == 900) print(s);
  }
  for (int s = 2; s <= 2200; s += 2) print(s);
  return c;
}

std::string step_detail_of(const Console& console) {
  TempDir dir;
  std::filesystem::create_directories(dir.file("logs"));
  testing::write_file(dir.file("logs/train.log"),
                      fixture_text("real_runs/multi_sync_steps/run1/stderr.log"));
  testing::write_file(dir.file("logs/stdout.log"), console.text);
  testing::ingest_logs(dir.file("rcf.db"), {dir.file("logs")});
  auto db = testing::read_store(dir.file("rcf.db"));
  return testing::scalar(*db, "SELECT step_detail FROM convergence_summary");
}

TEST(ConsoleOfItsOwn, ItsSeriesAreCountedAsDistinctSteps) {
  const Console console = written_console(false);
  EXPECT_EQ(console.steps.size(), 1850u);  // 1..1500, then every 2nd step to 2200
  const std::string detail = step_detail_of(console);
  EXPECT_EQ(detail.rfind("1850 training steps are counted in a file of their own", 0), 0u)
      << detail;
}

TEST(ConsoleOfItsOwn, ItsLinesWithTimesAreCountedAsDistinctSteps) {
  const Console console = written_console(true);
  const std::string detail = step_detail_of(console);
  EXPECT_EQ(detail.rfind("1850 training steps are counted in a file of their own", 0), 0u)
      << detail;
}

}  // namespace console_of_its_own_test
}  // namespace rcf
