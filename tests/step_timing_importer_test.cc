// Step-timing importer: the synthetic fixtures/steps files, header-name and unit variants,
// timestamps, quoting, bad rows and sniffing.
#include "ingest/steps/step_timing_importer.h"

#include <gtest/gtest.h>

#include <charconv>
#include <map>
#include <string>
#include <vector>

#include "tests/support/importer_test.h"

namespace rcf::ingest {
namespace step_timing_importer_test {

using namespace rcf::testing;  // tests/support/importer_test.h

CollectingSink run(std::string_view text) {
  return rcf::testing::run_importer("step_timing", text);
}

int sniff(std::string_view head) {
  return find_importer("step_timing")->sniff(head);
}

// Rounded to 1e-6 so that s -> ms conversions compare exactly.
std::string number(std::optional<double> value) {
  if (!value) return "-";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.6f", *value);
  std::string s = buf;
  while (s.back() == '0') s.pop_back();
  if (s.back() == '.') s.pop_back();
  return s;
}

std::string describe(const StepTiming& t) {
  return "L" + std::to_string(t.line) + " step=" + std::to_string(t.step) +
         " wall=" + number(t.wall_ms) + " compile=" + number(t.compile_ms) +
         " ts=" + number(t.timestamp_s);
}

Strings all(const CollectingSink& sink) {
  Strings out;
  for (const auto& t : sink.all<StepTiming>()) out.push_back(describe(t));
  return out;
}

// 2025-03-04T09:15:41.367Z, the end of step 1 in the fixtures.
constexpr double kStep1End = 1741079741.367;

TEST(StepTimingImporter, FixtureCsv) {
  std::string text = rcf::testing::read_fixture("steps/steps_run.csv");
  CollectingSink sink = run(text);
  Strings rows = all(sink);
  ASSERT_EQ(rows.size(), 30u);
  EXPECT_EQ(rows[0], "L2 step=1 wall=41367 compile=41250 ts=1741079741.367");
  EXPECT_EQ(rows[1], "L3 step=2 wall=3925.9 compile=3810.5 ts=1741079745.292");
  EXPECT_EQ(rows[4], "L6 step=5 wall=3881.1 compile=3768.1 ts=1741079757.114");
  EXPECT_EQ(rows[5], "L7 step=6 wall=112.1 compile=- ts=1741079757.226");
  EXPECT_EQ(rows[29], "L31 step=30 wall=113.8 compile=- ts=1741079760.034");
  auto timings = sink.all<StepTiming>();
  for (size_t i = 0; i < timings.size(); ++i) {
    EXPECT_EQ(timings[i].step, static_cast<int64_t>(i + 1));
    EXPECT_EQ(timings[i].compile_ms.has_value(), i < 5) << i;
    EXPECT_TRUE(timings[i].wall_ms && timings[i].timestamp_s);
  }
  EXPECT_NEAR(*timings[0].timestamp_s, kStep1End, 1e-6);
  EXPECT_TRUE(sink.notes.empty());
  EXPECT_EQ(sniff(text), 80);
}

TEST(StepTimingImporter, FixtureJsonlSecondsToMs) {
  std::string text = rcf::testing::read_fixture("steps/steps_run.jsonl");
  CollectingSink sink = run(text);
  Strings rows = all(sink);
  ASSERT_EQ(rows.size(), 30u);
  EXPECT_EQ(rows[0], "L1 step=1 wall=41367 compile=41250 ts=1741079741.367");
  EXPECT_EQ(rows[4], "L5 step=5 wall=3881.1 compile=3768.1 ts=1741079757.114");
  EXPECT_EQ(rows[5], "L6 step=6 wall=112.1 compile=- ts=1741079757.226");
  EXPECT_EQ(rows[29], "L30 step=30 wall=113.8 compile=- ts=1741079760.034");
  // The CSV and JSONL files describe the same run.
  Strings csv = all(run(rcf::testing::read_fixture("steps/steps_run.csv")));
  for (size_t i = 0; i < 30; ++i)
    EXPECT_EQ(csv[i].substr(csv[i].find(' ')), rows[i].substr(rows[i].find(' ')));
  EXPECT_TRUE(sink.notes.empty());
  EXPECT_EQ(sniff(text), 80);
}

TEST(StepTimingImporter, HeaderNameAndUnitVariants) {
  struct Case {
    std::string header;
    std::string row;
    std::string expected;
  };
  const std::vector<Case> cases = {
      {"step,wall_ms", "3,12.5", "L2 step=3 wall=12.5 compile=- ts=-"},
      {"step,step_ms", "3,12.5", "L2 step=3 wall=12.5 compile=- ts=-"},
      {"step,ms", "3,12.5", "L2 step=3 wall=12.5 compile=- ts=-"},
      {"step,time_ms", "3,12.5", "L2 step=3 wall=12.5 compile=- ts=-"},
      {"step,duration_ms", "3,12.5", "L2 step=3 wall=12.5 compile=- ts=-"},
      {"step,wall_s", "3,0.0125", "L2 step=3 wall=12.5 compile=- ts=-"},
      {"step,step_time", "3,0.0125", "L2 step=3 wall=12.5 compile=- ts=-"},
      {"step,duration_s", "3,1.5", "L2 step=3 wall=1500 compile=- ts=-"},
      {"step,compile_ms", "3,700", "L2 step=3 wall=- compile=700 ts=-"},
      {"step,compile_s", "3,0.7", "L2 step=3 wall=- compile=700 ts=-"},
      {"step,compile_time", "3,2", "L2 step=3 wall=- compile=2000 ts=-"},
      {"step,timestamp", "3,1741079741.5", "L2 step=3 wall=- compile=- ts=1741079741.5"},
      {"step,ts", "3,1741079741", "L2 step=3 wall=- compile=- ts=1741079741"},
      {"step,time", "3,1741079741", "L2 step=3 wall=- compile=- ts=1741079741"},
      {" Step , Wall Time (ms) , Compile-Time [s] ", "3, 12.5 , 0.5",
       "L2 step=3 wall=12.5 compile=500 ts=-"},
      {"global_step,loss,step_time_ms", "7,2.31,99", "L2 step=7 wall=99 compile=- ts=-"},
      {"step\twall_ms\tcompile_ms", "4\t10\t", "L2 step=4 wall=10 compile=- ts=-"},
      {"step;wall_ms", "4;10", "L2 step=4 wall=10 compile=- ts=-"},
      {"step,wall_ms", "4.0,10", "L2 step=4 wall=10 compile=- ts=-"},
      {"step,wall_ms", "4,nan", "L2 step=4 wall=- compile=- ts=-"},
      {"step,wall_ms,", "4,10,", "L2 step=4 wall=10 compile=- ts=-"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.header);
    CollectingSink sink = run(c.header + "\n" + c.row + "\n");
    EXPECT_EQ(all(sink), (Strings{c.expected}));
    EXPECT_TRUE(sink.notes.empty());
    EXPECT_EQ(sniff(c.header + "\n"), 80);
  }
}

TEST(StepTimingImporter, Timestamps) {
  CollectingSink sink =
      run("step,timestamp\r\n"
          "1,2025-03-04T09:15:41.367Z\r\n"
          "2,2025-03-04 09:15:41\r\n"
          "3,2025-03-04T11:15:41.5+02:00\r\n"
          "4,2025-03-04T04:15:41-0500\r\n"
          "5,2025-03-04\r\n"
          "6,1741079741367\r\n"
          "7,1741079741367000\r\n"
          "8,1970-01-01T00:00:00Z\r\n"
          "9,2024-02-29T23:59:59Z\r\n"
          "10,2025-13-01T00:00:00Z\r\n"
          "11,2025-03-04T09:15\r\n");
  EXPECT_EQ(all(sink), (Strings{
                           "L2 step=1 wall=- compile=- ts=1741079741.367",
                           "L3 step=2 wall=- compile=- ts=1741079741",
                           "L4 step=3 wall=- compile=- ts=1741079741.5",
                           "L5 step=4 wall=- compile=- ts=1741079741",
                           "L6 step=5 wall=- compile=- ts=1741046400",
                           "L7 step=6 wall=- compile=- ts=1741079741.367",
                           "L8 step=7 wall=- compile=- ts=1741079741.367",
                           "L10 step=9 wall=- compile=- ts=1709251199",
                           "L12 step=11 wall=- compile=- ts=1741079700",
                       }));
  // 1970 is before any log rcf reads (util/plausible.h): not evidence.
  EXPECT_EQ(sink.note_counts(),
            (Notes{{"rejected:bad_step_row", 1}, {"rejected:implausible_timestamp", 1}}));
  EXPECT_EQ(sink.notes[0].line, 9);
  EXPECT_EQ(sink.notes[1].line, 11);
}

TEST(StepTimingImporter, QuotedFields) {
  CollectingSink sink =
      run("\xEF\xBB\xBF\"step\",\"note\",\"wall_ms\"\n"
          "1,\"warm, up\",\"120.5\"\n"
          "2,\"says \"\"hi\"\"\",99\n"
          "3,\"open quote,5\n"
          "\"4\",plain,7\n");
  EXPECT_EQ(all(sink),
            (Strings{"L2 step=1 wall=120.5 compile=- ts=-", "L3 step=2 wall=99 compile=- ts=-",
                     "L5 step=4 wall=7 compile=- ts=-"}));
  EXPECT_EQ(sink.note_counts(), (Notes{{"rejected:bad_step_row", 1}}));
  EXPECT_EQ(sink.notes[0].line, 4);
}

TEST(StepTimingImporter, BadRowsBlankCommentsAndRepeatedHeader) {
  CollectingSink sink =
      run("\n"
          "step,wall_ms,compile_ms\n"
          "1,100,50\n"
          "\n"
          "# resumed from checkpoint\n"
          "x,100,\n"
          "2,abc,\n"
          "3,100,5,extra\n"
          ",100,\n"
          "step,wall_ms,compile_ms\n"
          "4,101,\n");
  EXPECT_EQ(all(sink),
            (Strings{"L3 step=1 wall=100 compile=50 ts=-", "L11 step=4 wall=101 compile=- ts=-"}));
  EXPECT_EQ(sink.note_counts(),
            (Notes{{"skipped:blank", 2}, {"skipped:comment", 1}, {"rejected:bad_step_row", 4}}));
}

TEST(StepTimingImporter, RowsBeforeAnyHeaderAreRejected) {
  CollectingSink sink = run("1,100\nstep,loss\n2,100\n");
  EXPECT_TRUE(sink.events.empty());
  EXPECT_EQ(sink.note_counts(), (Notes{{"rejected:no_step_header", 3}}));
}

TEST(StepTimingImporter, JsonlVariants) {
  CollectingSink sink =
      run("{\"step\": 1, \"wall_ms\": 10.5, \"compile_ms\": 3, \"timestamp\": "
          "\"2025-03-04T09:15:41Z\"}\n"
          "{\"step\": 2.0, \"duration_s\": 0.25, \"loss\": [1, 2], \"ts\": 1741079742}\n"
          "{\"event\": \"checkpoint\"}\n"
          "{\"step\": \"3\", \"wall_ms\": \"12\"}\n"
          "{\"step\": \"x\", \"wall_ms\": 1}\n"
          "{\"step\": 5, \"wall_ms\": true}\n"
          "{\"step\": 6, \"wall_ms\": null, \"compile_time\": 1.5}\n"
          "[1, 2]\n"
          "{\"step\": 7,\n"
          "\n");
  EXPECT_EQ(all(sink),
            (Strings{"L1 step=1 wall=10.5 compile=3 ts=1741079741",
                     "L2 step=2 wall=250 compile=- ts=1741079742",
                     "L4 step=3 wall=12 compile=- ts=-", "L7 step=6 wall=- compile=1500 ts=-"}));
  EXPECT_EQ(sink.note_counts(), (Notes{{"skipped:no_step_key", 1},
                                       {"skipped:blank", 1},
                                       {"rejected:bad_step_row", 3},
                                       {"rejected:no_step_header", 1}}));
}

TEST(StepTimingImporter, Sniff) {
  EXPECT_EQ(sniff("\n\nstep,wall_ms\n1,2\n"), 80);
  EXPECT_EQ(sniff("step\tcompile_s\n"), 80);
  EXPECT_EQ(sniff("{\"step\": 1, \"wall_ms\": 2}\n"), 80);
  EXPECT_EQ(sniff("{\"step\": 1, \"wall_ms\": 2"), 0);  // a cut first line is no JSON
  EXPECT_EQ(sniff("step,loss\n1,2\n"), 0);
  EXPECT_EQ(sniff("wall_ms,compile_ms\n1,2\n"), 0);
  EXPECT_EQ(sniff("{\"name\": \"x\"}\n"), 0);
  EXPECT_EQ(sniff("Finished tracing + transforming f for pjit in 0.1 sec\n"), 0);
  EXPECT_EQ(sniff(""), 0);
}

TEST(StepTimingImporter, NeverThrowsOnJunk) {
  std::string text = "step,wall_ms\n";
  text += std::string(100000, ',') + "\n";
  text += std::string("\0\xff{", 3) + "\n";
  text += "{" + std::string(5000, '[') + "\n";
  text += "99999999999999999999,1\n";
  text += "1,1e999\n";
  text += "\"\n";
  CollectingSink sink = run(text);
  EXPECT_TRUE(sink.events.empty());
  // The line opened 5000 levels deep is refused before any parser sees it.
  EXPECT_EQ(sink.note_counts(),
            (Notes{{"rejected:bad_step_row", 5}, {"rejected:json_too_deep", 1}}));
}

}  // namespace step_timing_importer_test
}  // namespace rcf::ingest
