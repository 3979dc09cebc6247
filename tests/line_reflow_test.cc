// Re-flowed lines (ingest/reading/line_reflow.h, docs/line_framing.md "Re-flowed lines"): what is
// learned from a head, and which physical lines are joined back.
#include "ingest/reading/line_reflow.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace rcf::ingest {
namespace line_reflow_test {

// Lines `text` would reach an importer as, one per element, after the learned re-flow.
std::vector<std::string> rejoined(const std::string& text) {
  std::string joined = LineReflow::learn(text).rejoin_head(text);
  std::vector<std::string> out;
  for (size_t pos = 0; pos < joined.size();) {
    size_t end = joined.find('\n', pos);
    out.push_back(joined.substr(pos, end - pos));
    pos = end + 1;
  }
  return out;
}

std::string cut_every(const std::string& line, size_t width) {
  std::string out;
  for (size_t at = 0; at < line.size(); at += width) out += line.substr(at, width) + "\n";
  return out;
}

const std::string kGlog = "W0701 12:00:01.123456 4242 torch/_dynamo/convert_frame.py:964] [0/8] ";
const std::string kLong =
    "   last reason: 0/7: tensor 'x' size mismatch at index 0. expected 512, actual 384 and "
    "some more words to make it long enough to be cut twice at sixty";

TEST(LineReflow, HardWrapAtAnyWidthIsJoined) {
  for (size_t width : {60, 100, 120}) {
    std::string text =
        cut_every(kGlog + "torch._dynamo hit config.recompile_limit (8)", width) +
        cut_every(kGlog + "   function: 'forward' (/work/model/attention.py:118)", width) +
        cut_every(kGlog + kLong, width) + cut_every(kGlog + kLong + " again", width);
    std::vector<std::string> lines = rejoined(text);
    ASSERT_EQ(lines.size(), 4u) << "width " << width << "\n" << text;
    EXPECT_EQ(lines[0], kGlog + "torch._dynamo hit config.recompile_limit (8)");
    EXPECT_EQ(lines[2], kGlog + kLong);
    std::string joined;
    EXPECT_EQ(
        LineReflow::learn(text).join_reason(
            kGlog + "x", cut_every(kGlog + kLong, width).substr(0, width), true, "tail", &joined),
        &reason::kRejoinedHardWrap);
  }
}

TEST(LineReflow, LinesOfEqualLengthAloneAreNoHardWrap) {
  // Three lines of the same (greatest) length, each followed by a prefixed line: a log as
  // printed, not a terminal copy.
  std::string a =
      kGlog + "    - 5/2: tensor 'x' size mismatch at index 1. expected 1024, actual 128";
  std::string b =
      kGlog + "    - 5/1: tensor 'x' size mismatch at index 1. expected 1000, actual 128";
  std::string c =
      kGlog + "    - 5/0: tensor 'x' size mismatch at index 1. expected 1001, actual 128";
  std::string text = a + "\n" + kGlog + "x\n" + b + "\n" + kGlog + "y\n" + c + "\n" + kGlog + "z\n";
  EXPECT_FALSE(LineReflow::learn(text).active());
  EXPECT_EQ(rejoined(text).size(), 6u);
}

TEST(LineReflow, AProgressLineAfterEachWidestLineIsALineOfItsOwn) {
  // A training console: a progress line, then a recompile block whose guard-failure line is the
  // widest of the log (every one as wide: the ids have as many digits), then the next progress
  // line. The progress lines follow the widest lines, but the first one opens the log after
  // nothing: they are the log's own lines, not the rests of cut ones.
  std::string text;
  for (int i = 0; i < 12; ++i) {
    const std::string id = std::to_string(1000000 + i);
    text += "epoch 0 step " + std::to_string(i + 1) + "/100000000 loss 0.0218\n";
    text += kGlog + "Recompiling function fn_" + id + " in /m/model.py:" + id + "\n";
    text +=
        kGlog + "    - " + id + "/0: tensor 'x' size mismatch at index 0. expected 8, actual 9\n";
  }
  EXPECT_FALSE(LineReflow::learn(text).active()) << LineReflow::learn(text).describe();
  EXPECT_EQ(rejoined(text).size(), 36u);
  // The same log hard-wrapped by a terminal still is: its rests are tails of cut lines, which no
  // line of the log starts as.
  std::string wrapped;
  for (size_t pos = 0; pos < text.size();) {
    size_t end = text.find('\n', pos);
    wrapped += cut_every(text.substr(pos, end - pos), 100);
    pos = end + 1;
  }
  EXPECT_EQ(LineReflow::learn(wrapped).describe(), "hard wrap at 100 columns");
  EXPECT_EQ(rejoined(wrapped), rejoined(text));
}

TEST(LineReflow, WordWrapIsJoinedWithItsSpace) {
  for (size_t width : {72, 80}) {
    std::string text;
    std::vector<std::string> originals;
    for (const char* tail : {"first", "second", "third"}) {
      std::string line = kGlog +
                         "    - 0/0: tensor 'L['x']' stride mismatch at index 0. expected 1, "
                         "actual 4 in the " +
                         tail + " entry";
      originals.push_back(line);
      // Break at the last space before the width, the rest two spaces deep.
      std::string rest = line;
      while (rest.size() > width) {
        size_t cut = rest.rfind(' ', width - 1);
        text += rest.substr(0, cut) + "\n";
        rest = "  " + rest.substr(cut + 1);
      }
      text += rest + "\n";
    }
    EXPECT_EQ(rejoined(text), originals) << "width " << width << "\n" << text;
  }
}

TEST(LineReflow, AnIndentedEntryAfterAShortLineIsNotAWrap) {
  std::string text =
      "Recompiling function fn in /tmp/ipykernel_967/2.py:1\n"
      "    triggered by the following guard failure(s):\n"
      "    - 0/0: tensor 'x' size mismatch at index 0. expected 3, actual 4\n"
      "Traceback (most recent call last):\n"
      "  File \"/tmp/a.py\", line 3, in <module>\n";
  EXPECT_EQ(rejoined(text).size(), 5u);
}

TEST(LineReflow, PrefixOnItsOwnLineIsJoinedWithTheMessage) {
  std::string text =
      "W0701 12:00:01.123456 4242 torch/_dynamo/convert_frame.py:964]\n"
      "[0/8] torch._dynamo hit config.recompile_limit (8)\n"
      "W0701 12:00:01.123456 4242 torch/_dynamo/convert_frame.py:964]\n"
      "[0/8]    function: 'forward' (/work/model/attention.py:118)\n"
      "[2024-02-01 10:00:00,123] torch._dynamo.convert_frame: [WARNING]\n"
      "torch._dynamo hit config.cache_size_limit (8)\n";
  std::vector<std::string> lines = rejoined(text);
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[0],
            "W0701 12:00:01.123456 4242 torch/_dynamo/convert_frame.py:964] [0/8] torch._dynamo "
            "hit config.recompile_limit (8)");
  EXPECT_EQ(lines[2],
            "[2024-02-01 10:00:00,123] torch._dynamo.convert_frame: [WARNING] torch._dynamo hit "
            "config.cache_size_limit (8)");
}

TEST(LineReflow, DoubleSpacingDropsOneBlankInTwo) {
  std::string text = "a\n\nb\n\n\n\nc\n\nd\n\n";
  // `b` was followed by one blank line of its own.
  EXPECT_EQ(rejoined(text), (std::vector<std::string>{"a", "b", "", "c", "d"}));
  // A log with two adjacent lines is not double-spaced.
  EXPECT_FALSE(LineReflow::learn("a\n\nb\nc\n\nd\n\ne\n").active());
}

TEST(LineReflow, WidthsCountCharactersNotBytes) {
  EXPECT_EQ(display_width("size mismatch ✓"), 15u);
  EXPECT_EQ(display_width(""), 0u);
}

}  // namespace line_reflow_test
}  // namespace rcf::ingest
