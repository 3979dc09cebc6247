// Line framing (ingest/reading/line_frame.h, docs/line_framing.md): what is a wrapper, what is a
// record.
#include "ingest/reading/line_frame.h"

#include <gtest/gtest.h>

#include <string>

namespace rcf::ingest {
namespace line_frame_test {

std::string framed(const std::string& head, std::string_view line) {
  return std::string(LineFramer::learn(head).frame(line).text);
}

TEST(LineFrame, ReplyQuotesAndCommentMarkersAreWrappers) {
  EXPECT_EQ(framed("> a\n> b\n>\n", "> Recompiling function f"), "Recompiling function f");
  EXPECT_EQ(framed("# a\n# b\n#\n", "# V0912 20:46 x"), "V0912 20:46 x");
  // A REPL prompt is not a quote.
  EXPECT_EQ(framed(">>> f()\n>>> g()\n", ">>> f()"), ">>> f()");
  // One commented line among plain ones is content, not a wrapper.
  EXPECT_EQ(framed("a\nb\nc\n# d\n", "# d"), "# d");
}

TEST(LineFrame, LaunchersKeepTheWorker) {
  LineFramer ray = LineFramer::learn("(RayWorker pid=48211) a\n(RayWorker pid=48211) b\n");
  FramedLine f = ray.frame("(RayWorker pid=48211) V0101 x");
  EXPECT_EQ(f.text, "V0101 x");
  EXPECT_EQ(f.origin.pid, "48211");
  LineFramer torchrun = LineFramer::learn("[default0]:a\n[default1]:b\n");
  f = torchrun.frame("[default1]:[rank1]:V0101 x");
  EXPECT_EQ(f.text, "[rank1]:V0101 x");  // PyTorch's own rank prefix stays for the importer
  EXPECT_EQ(f.origin.rank, 1);
  LineFramer xla_dist = LineFramer::learn(
      "2021-04-19 13:28:12 10.164.0.25 [0]   Accumulator: 1.81MB\n"
      "2021-04-19 13:28:12 10.164.0.25 [0] Metric: X\n");
  f = xla_dist.frame("2021-04-19 13:28:12 10.164.0.26 [3] Metric: CompileTime");
  EXPECT_EQ(f.text, "Metric: CompileTime");
  EXPECT_EQ(f.origin.rank, 3);
}

TEST(LineFrame, TimestampsOfTheRecordItselfStay) {
  const std::string dynamo_2023 =
      "[2023-11-21 19:02:27,364] torch._dynamo.guards.__recompiles: [DEBUG] Recompiling function\n";
  EXPECT_EQ(framed(dynamo_2023 + dynamo_2023, dynamo_2023.substr(0, dynamo_2023.size() - 1)),
            dynamo_2023.substr(0, dynamo_2023.size() - 1));
  const std::string absl =
      "2021-01-27 17:00:59.245051: I   23980 torch_xla/csrc/tensor.cpp:1153] Tensors graph hash";
  EXPECT_EQ(framed(absl + "\n" + absl + "\n", absl), absl);
  const std::string app = "[2025-03-04 05:06:07.123] V0101 00:00:00.000000 7 a.py:1] x";
  EXPECT_EQ(framed(app + "\n" + app + "\n", app), "V0101 00:00:00.000000 7 a.py:1] x");
}

TEST(LineFrame, IndentationBeforeAndAfterTokens) {
  EXPECT_EQ(framed("  > a\n  > b\n", "  > torchdynamo hit"), "torchdynamo hit");
  EXPECT_EQ(framed("    a\n      b\n", "      b"), "  b");
  // Lines that do not all share it keep theirs.
  EXPECT_EQ(framed("a\n    b\n", "    b"), "    b");
}

TEST(LineFrame, GlueIsRemovedPerLine) {
  LineFramer none;
  EXPECT_EQ(none.frame("\r 10%|#   | 2/20\rV0101 x").text, "V0101 x");
  EXPECT_EQ(none.frame("V0101 x\r 10%|#   | 2/20\r").text, " 10%|#   | 2/20");
  EXPECT_EQ(none.frame("..V0101 00:00 x").text, "V0101 00:00 x");
  EXPECT_EQ(none.frame("`Metric: CompileTime").text, "Metric: CompileTime");
  EXPECT_EQ(none.frame("..../torch/_dynamo/guards.py:1] x").text,
            ".../torch/_dynamo/guards.py:1] x");
  // Elisions stay elisions.
  EXPECT_EQ(none.frame("..........").text, "..........");
  EXPECT_EQ(none.frame("... 62 more").text, "... 62 more");
  EXPECT_FALSE(none.frame("V0101 x").unglued);
}

// The bytes that hide glue ('\r', ESC) are found wherever they stand in lines of every length:
// the framer looks for them 16 bytes at a time, then byte by byte.
TEST(LineFrame, GlueIsFoundAtEveryOffset) {
  LineFramer none;
  for (size_t before = 0; before < 40; ++before) {
    for (size_t after = 1; after < 40; ++after) {
      const std::string head(before, 'x'), tail(after, 'y');
      const std::string colored_line = head + "\x1b[0m" + tail, redrawn_line = head + "\r" + tail;
      FramedLine colored = none.frame(colored_line);
      EXPECT_TRUE(colored.unglued) << before << " " << after;
      EXPECT_EQ(colored.text, head + tail) << before << " " << after;
      FramedLine redrawn = none.frame(redrawn_line);
      EXPECT_TRUE(redrawn.unglued) << before << " " << after;
      EXPECT_EQ(redrawn.text, tail) << before << " " << after;
      EXPECT_FALSE(none.frame(head + tail).unglued) << before << " " << after;
    }
  }
}

TEST(LineFrame, NotesNameTheWrapper) {
  LineFramer f = LineFramer::learn("  > (pid=1) a\n  > (pid=1) b\n");
  EXPECT_EQ(f.note_reason(), "wrapper_indent_reply_quote_launcher");
  EXPECT_EQ(f.describe(), "indent 2, reply quote, launcher");
  EXPECT_FALSE(LineFramer::learn("V0101 a\nV0101 b\n").has_wrapper());
}

}  // namespace line_frame_test
}  // namespace rcf::ingest
