// Prefix parser: every era and variation of docs/dynamo_text.md (Prefixes).
#include "ingest/dynamo/log_prefix.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace rcf::ingest {
namespace log_prefix_test {

TEST(LogPrefix, GlogWithTraceIdAndArtifact) {
  LogPrefix p = parse_log_prefix(
      "V0228 06:22:06.195000 886349 torch/_dynamo/guards.py:2940] [5/3] [__recompiles]     - "
      "5/2: tensor 'L['x']' size mismatch at index 1. expected 1024, actual 128");
  EXPECT_EQ(p.form, PrefixForm::kGlog);
  EXPECT_EQ(p.rank, -1);
  EXPECT_EQ(p.noise, "");
  EXPECT_EQ(p.level, "V");
  EXPECT_EQ(p.timestamp, "0228 06:22:06.195000");
  EXPECT_EQ(p.process, "886349");
  EXPECT_EQ(p.path, "torch/_dynamo/guards.py");
  EXPECT_EQ(p.path_line, "2940");
  EXPECT_EQ(p.trace_id, "5/3");
  EXPECT_EQ(p.artifact, "recompiles");
  // Indentation is structural: the message keeps its leading spaces.
  EXPECT_EQ(p.message,
            "    - 5/2: tensor 'L['x']' size mismatch at index 1. expected 1024, actual 128");
}

TEST(LogPrefix, GlogRankAttemptSuffixAndEmptyMessage) {
  LogPrefix p = parse_log_prefix(
      "[rank1]:W0906 20:38:55.305000 5696 torch/_dynamo/variables/tensor.py:1047] [7/0]");
  EXPECT_EQ(p.form, PrefixForm::kGlog);
  EXPECT_EQ(p.rank, 1);
  EXPECT_EQ(p.noise, "");
  EXPECT_EQ(p.level, "W");
  EXPECT_EQ(p.trace_id, "7/0");
  EXPECT_EQ(p.artifact, "");
  EXPECT_EQ(p.message, "");

  // An empty message line is the prefix plus one trailing space.
  p = parse_log_prefix("[rank0]:W0924 02:40:50.243000 546904 torch/_dynamo/exc.py:525] [5/0_2] ");
  EXPECT_EQ(p.rank, 0);
  EXPECT_EQ(p.trace_id, "5/0_2");
  EXPECT_EQ(p.message, "");

  p = parse_log_prefix("V0101 00:00:00.000000 1 torch/_dynamo/guards.py:1] [!0/1/0] text");
  EXPECT_EQ(p.trace_id, "!0/1/0");
  EXPECT_EQ(p.message, "text");
}

TEST(LogPrefix, GlogThreadIdNonZeroMicrosecondsAndNoTraceId) {
  LogPrefix p = parse_log_prefix(
      "V0410 16:18:11.277843 139689102684672 torch/_dynamo/guards.py:2199] [__recompiles] "
      "Recompiling function fn in /home/dberard/local/scripts/global_recompile.py:3");
  EXPECT_EQ(p.form, PrefixForm::kGlog);
  EXPECT_EQ(p.timestamp, "0410 16:18:11.277843");
  EXPECT_EQ(p.process, "139689102684672");
  EXPECT_EQ(p.trace_id, "");
  EXPECT_EQ(p.artifact, "recompiles");
  EXPECT_EQ(p.message,
            "Recompiling function fn in /home/dberard/local/scripts/global_recompile.py:3");
}

TEST(LogPrefix, GlogPathsOutsideTorchRoot) {
  LogPrefix p = parse_log_prefix(
      "V0318 23:04:20.093000 2002586 site-packages/torch/_dynamo/guards.py:2811] [6/1] "
      "[__recompiles_verbose]     guard 0 failures:");
  EXPECT_EQ(p.path, "site-packages/torch/_dynamo/guards.py");
  EXPECT_EQ(p.artifact, "recompiles_verbose");
  EXPECT_EQ(p.message, "    guard 0 failures:");

  p = parse_log_prefix(
      "V0812 10:00:00.000000 9000 Lib\\site-packages\\torch\\_dynamo\\guards.py:3508] [0/1] "
      "[__recompiles] Recompiling function forward in C:\\work\\model.py:12");
  EXPECT_EQ(p.form, PrefixForm::kGlog);
  EXPECT_EQ(p.path, "Lib\\site-packages\\torch\\_dynamo\\guards.py");
  EXPECT_EQ(p.path_line, "3508");
  EXPECT_EQ(p.message, "Recompiling function forward in C:\\work\\model.py:12");

  p = parse_log_prefix(
      "W0811 21:16:49.580000 11928 env/lib/python3.10/site-packages/torch/_dynamo/"
      "symbolic_convert.py:556] [0/0] msg");
  EXPECT_EQ(p.path, "env/lib/python3.10/site-packages/torch/_dynamo/symbolic_convert.py");
  EXPECT_EQ(p.path_line, "556");
}

TEST(LogPrefix, GlogWithJunkBeforeThePrefix) {
  LogPrefix p = parse_log_prefix(
      "[2025-08-12 03:18:23.088] V0812 03:18:23.088000 51064 torch/_dynamo/guards.py:3006] "
      "[0/1] [__recompiles] Recompiling function f in a.py:1");
  EXPECT_EQ(p.form, PrefixForm::kGlog);
  EXPECT_EQ(p.noise, "[2025-08-12 03:18:23.088] ");
  EXPECT_EQ(p.trace_id, "0/1");
  EXPECT_EQ(p.message, "Recompiling function f in a.py:1");

  p = parse_log_prefix(
      "(EngineCore_DP0 pid=51064) [rank0]:V0812 03:18:23.088000 51064 "
      "torch/_dynamo/guards.py:3006] [0/1] [__recompiles]     - 0/0: x == 1");
  EXPECT_EQ(p.form, PrefixForm::kGlog);
  EXPECT_EQ(p.noise, "(EngineCore_DP0 pid=51064) ");
  EXPECT_EQ(p.rank, 0);
  EXPECT_EQ(p.message, "    - 0/0: x == 1");

  p = parse_log_prefix(
      " 40%|████      | 4/10 [00:01<00:02, 2.9it/s]\rW0811 21:16:49.580000 11928 "
      "torch/_dynamo/convert_frame.py:1355] [0/8] torch._dynamo hit config.recompile_limit (8)");
  EXPECT_EQ(p.form, PrefixForm::kGlog);
  EXPECT_EQ(p.level, "W");
  EXPECT_EQ(p.path, "torch/_dynamo/convert_frame.py");
  EXPECT_EQ(p.message, "torch._dynamo hit config.recompile_limit (8)");
}

TEST(LogPrefix, PrefixTrimmedByTheUser) {
  LogPrefix p = parse_log_prefix(
      ".../torch/_dynamo/guards.py:2772] [16/8] [__recompiles_verbose]     guard 0 failures:");
  EXPECT_EQ(p.form, PrefixForm::kTrimmedGlog);
  EXPECT_EQ(p.path, ".../torch/_dynamo/guards.py");
  EXPECT_EQ(p.path_line, "2772");
  EXPECT_EQ(p.trace_id, "16/8");
  EXPECT_EQ(p.artifact, "recompiles_verbose");
  EXPECT_EQ(p.message, "    guard 0 failures:");

  p = parse_log_prefix("[0/1] [__recompiles]     - 0/0: ");
  EXPECT_EQ(p.form, PrefixForm::kTrimmedGlog);
  EXPECT_EQ(p.path, "");
  EXPECT_EQ(p.trace_id, "0/1");
  EXPECT_EQ(p.artifact, "recompiles");
  EXPECT_EQ(p.message, "    - 0/0: ");

  p = parse_log_prefix("[0/2] [__recompiles]     - 0/0:");
  EXPECT_EQ(p.message, "    - 0/0:");
}

// Custom or trimmed formats (docs/dynamo_text.md, Prefixes): level and file name, level and
// compile id, the compile id or artifact tag alone, and the 2022 logger without a date.
TEST(LogPrefix, FormatsTrimmedToLevelFileOrId) {
  LogPrefix p = parse_log_prefix(
      "W convert_frame.py:1676] [0/8] torch._dynamo hit config.recompile_limit (8)");
  EXPECT_EQ(p.form, PrefixForm::kTrimmedGlog);
  EXPECT_EQ(p.level, "W");
  EXPECT_EQ(p.path, "convert_frame.py");
  EXPECT_EQ(p.path_line, "1676");
  EXPECT_EQ(p.trace_id, "0/8");
  EXPECT_EQ(p.key, "W convert_frame.py:1676] [0/8]");
  EXPECT_EQ(p.message, "torch._dynamo hit config.recompile_limit (8)");

  p = parse_log_prefix("[rank2]:V guards.py:2940] [5/3] [__recompiles]     - 5/2: x == 1");
  EXPECT_EQ(p.rank, 2);
  EXPECT_EQ(p.artifact, "recompiles");
  EXPECT_EQ(p.key, "[rank2]:V guards.py:2940] [5/3] [__recompiles]");
  EXPECT_EQ(p.message, "    - 5/2: x == 1");

  p = parse_log_prefix("W [0/8]    last reason: 0/7: L['x'] == 3");
  EXPECT_EQ(p.form, PrefixForm::kTrimmedGlog);
  EXPECT_EQ(p.level, "W");
  EXPECT_EQ(p.trace_id, "0/8");
  EXPECT_EQ(p.message, "   last reason: 0/7: L['x'] == 3");

  p = parse_log_prefix("[0/8] torch._dynamo hit config.recompile_limit (8)");
  EXPECT_EQ(p.form, PrefixForm::kTrimmedGlog);
  EXPECT_EQ(p.level, "");
  EXPECT_EQ(p.trace_id, "0/8");
  EXPECT_EQ(p.key, "[0/8]");
  EXPECT_EQ(p.message, "torch._dynamo hit config.recompile_limit (8)");

  p = parse_log_prefix("[__recompiles] Recompiling function forward in /m.py:3");
  EXPECT_EQ(p.form, PrefixForm::kTrimmedGlog);
  EXPECT_EQ(p.artifact, "recompiles");
  EXPECT_EQ(p.message, "Recompiling function forward in /m.py:3");

  p = parse_log_prefix("torchdynamo.convert_frame: [WARNING] torchdynamo hit config.x (64)");
  EXPECT_EQ(p.form, PrefixForm::kBracketDate);
  EXPECT_EQ(p.logger, "torchdynamo.convert_frame");
  EXPECT_EQ(p.level, "WARNING");
  EXPECT_EQ(p.message, "torchdynamo hit config.x (64)");
}

TEST(LogPrefix, LookalikesOfTrimmedFormatsAreText) {
  for (const char* line : {"[3] loss 0.25", "I think model.py:12] is wrong", "[1/x] step",
                           "A model.py:3] x", "W [__] x", "[0/8]x"})
    EXPECT_EQ(parse_log_prefix(line).form, PrefixForm::kNone) << line;
}

TEST(LogPrefix, BracketDate2023WithArtifactLogger) {
  LogPrefix p = parse_log_prefix(
      "[2023-11-21 19:02:13,073] torch._dynamo.guards.__recompiles: [DEBUG]     - L['end'] == 10");
  EXPECT_EQ(p.form, PrefixForm::kBracketDate);
  EXPECT_EQ(p.rank, -1);
  EXPECT_EQ(p.timestamp, "2023-11-21 19:02:13,073");
  EXPECT_EQ(p.logger, "torch._dynamo.guards.__recompiles");
  EXPECT_EQ(p.artifact, "recompiles");
  EXPECT_EQ(p.level, "DEBUG");
  EXPECT_EQ(p.message, "    - L['end'] == 10");

  p = parse_log_prefix(
      "[rank3]:[2023-12-01 10:00:00,001] torch._dynamo.convert_frame: [WARNING] torch._dynamo hit "
      "config.cache_size_limit (8)");
  EXPECT_EQ(p.form, PrefixForm::kBracketDate);
  EXPECT_EQ(p.rank, 3);
  EXPECT_EQ(p.logger, "torch._dynamo.convert_frame");
  EXPECT_EQ(p.artifact, "");
  EXPECT_EQ(p.level, "WARNING");
  EXPECT_EQ(p.message, "torch._dynamo hit config.cache_size_limit (8)");
}

TEST(LogPrefix, TorchdynamoEra2022) {
  LogPrefix p = parse_log_prefix(
      "[2022-10-14 15:59:22,874] torchdynamo.convert_frame: [WARNING] torchdynamo hit "
      "config.cache_size_limit (64)");
  EXPECT_EQ(p.form, PrefixForm::kBracketDate);
  EXPECT_EQ(p.logger, "torchdynamo.convert_frame");
  EXPECT_EQ(p.message, "torchdynamo hit config.cache_size_limit (64)");

  p = parse_log_prefix(
      "Torchdynamo: [WARNING] Graph break: generic_jump TensorVariable() from user code at:   ");
  EXPECT_EQ(p.form, PrefixForm::kTorchdynamoBare);
  EXPECT_EQ(p.level, "WARNING");
  EXPECT_EQ(p.message, "Graph break: generic_jump TensorVariable() from user code at:   ");

  // Continuation lines of that era carry no prefix.
  p = parse_log_prefix("   function: 'forward' (/x/resnet.py:284)");
  EXPECT_EQ(p.form, PrefixForm::kNone);
  EXPECT_EQ(p.message, "   function: 'forward' (/x/resnet.py:284)");
}

TEST(LogPrefix, ShortFormat) {
  LogPrefix p = parse_log_prefix(
      "DEBUG:torch._dynamo.guards.__recompiles:Recompiling function f in /tmp/a.py:3");
  EXPECT_EQ(p.form, PrefixForm::kShort);
  EXPECT_EQ(p.level, "DEBUG");
  EXPECT_EQ(p.logger, "torch._dynamo.guards.__recompiles");
  EXPECT_EQ(p.artifact, "recompiles");
  EXPECT_EQ(p.message, "Recompiling function f in /tmp/a.py:3");

  p = parse_log_prefix("WARNING:torch._dynamo.convert_frame:torch._dynamo hit config.x (8)");
  EXPECT_EQ(p.form, PrefixForm::kShort);
  EXPECT_EQ(p.level, "WARNING");
  EXPECT_EQ(p.message, "torch._dynamo hit config.x (8)");
}

TEST(LogPrefix, PlainTextAndTorchrunRankPrefix) {
  LogPrefix p = parse_log_prefix("Epoch: 001, Loss: 1.9472, Train: 0.3643, Val: 0.2660");
  EXPECT_EQ(p.form, PrefixForm::kNone);
  EXPECT_EQ(p.rank, -1);
  EXPECT_EQ(p.message, "Epoch: 001, Loss: 1.9472, Train: 0.3643, Val: 0.2660");

  p = parse_log_prefix("[rank0]: torch._dynamo.exc.Unsupported: Data-dependent branching");
  EXPECT_EQ(p.form, PrefixForm::kNone);
  EXPECT_EQ(p.rank, 0);
  EXPECT_EQ(p.message, "torch._dynamo.exc.Unsupported: Data-dependent branching");

  p = parse_log_prefix("[rank2]:   File \"/x.py\", line 3, in f");
  EXPECT_EQ(p.rank, 2);
  EXPECT_EQ(p.message, "  File \"/x.py\", line 3, in f");
}

// A line with neither ']' nor ':' is decided at once: every prefix form holds one of them.
TEST(LogPrefix, ALineWithoutBracketOrColonIsText) {
  for (std::string_view line : {"step 920 | loss 2.4700 | lr 3.0e-04 | tokens/s 51234",
                                "[rank0 step 5", "  indented output", ""}) {
    LogPrefix p = parse_log_prefix(line);
    EXPECT_EQ(p.form, PrefixForm::kNone) << line;
    EXPECT_EQ(p.rank, -1) << line;
    EXPECT_EQ(p.message, line);
    EXPECT_TRUE(p.key.empty() && p.noise.empty() && p.level.empty()) << line;
  }
  // One ':' is enough for the short form, one ']' for a rank tag.
  EXPECT_EQ(parse_log_prefix("INFO:torch._dynamo.eval_frame:x").form, PrefixForm::kShort);
  EXPECT_EQ(parse_log_prefix("[rank3]:step 1").rank, 3);
}

// Past the forms that start the line, every form holds a `:LINE]` (a glog location after junk,
// a trimmed path) or a `] [__` (a bare trace artifact): a progress bar, with ':' and ']' but
// neither, is text; and the marks are found after other brackets.
TEST(LogPrefix, BracketsWithoutAPathLineOrArtifactAreText) {
  const std::string bar = "Epoch 1:  10%|#####     | 400/4000 [00:10<00:10, 95.2it/s]";
  LogPrefix p = parse_log_prefix(bar);
  EXPECT_EQ(p.form, PrefixForm::kNone);
  EXPECT_EQ(p.message, bar);
  const std::string after_bar = bar + " I1122 06:22:06.195000 886349 torch/a.py:101] [0/1] msg";
  p = parse_log_prefix(after_bar);  // the prefix views the line: it must outlive them
  EXPECT_EQ(p.form, PrefixForm::kGlog);
  EXPECT_EQ(p.noise, bar + " ");
  EXPECT_EQ(p.trace_id, "0/1");
  EXPECT_EQ(p.message, "msg");
  p = parse_log_prefix("[a] [b:x] [0/1] [__recompiles] msg");
  EXPECT_EQ(p.form, PrefixForm::kTrimmedGlog);
  EXPECT_EQ(p.artifact, "recompiles");
  EXPECT_EQ(p.message, "msg");
  p = parse_log_prefix("[a] ../torch/_dynamo/guards.py:2772] x");
  EXPECT_EQ(p.form, PrefixForm::kNone);  // the trimmed path must start the line
  p = parse_log_prefix("../torch/_dynamo/guards.py:2772] [16/8] x [y]");
  EXPECT_EQ(p.form, PrefixForm::kTrimmedGlog);
  EXPECT_EQ(p.path_line, "2772");
}

// The bracket-date form behind junk (an indented paste, a progress bar) and with another date
// precision (an app logger's `.123456`): the logger and level decide it, wherever it starts.
TEST(LogPrefix, BracketDateFormAfterJunkAndOtherPrecisions) {
  for (std::string junk : {"", "    ", "\t", " 40%|####      | 4/10 ", "> "}) {
    for (std::string date : {"2023-11-21 19:02:13,073", "2023-11-21 19:02:13.073",
                             "2023-11-21 19:02:13.073123", "2023-11-21 19:02:13"}) {
      std::string line = junk + "[" + date + "] torch._dynamo.guards.__recompiles: [DEBUG] msg";
      LogPrefix p = parse_log_prefix(line);
      EXPECT_EQ(p.form, PrefixForm::kBracketDate) << line;
      EXPECT_EQ(p.timestamp, date) << line;
      EXPECT_EQ(p.artifact, "recompiles") << line;
      EXPECT_EQ(p.message, "msg") << line;
      EXPECT_EQ(p.noise, junk) << line;
    }
  }
}

TEST(LogPrefix, AlmostPrefixesAreText) {
  for (std::string line : std::vector<std::string>{
           "", "V0228", "V0228 06:22:06.195000 886349 torch/_dynamo/guards.py]",
           "V0228 06:22:06.195000 pid torch/_dynamo/guards.py:1] x",
           "[2023-11-21 19:02:13,07x] torch._dynamo: [DEBUG] x", "[rank0]:", "[rankX]:V0228 06:22",
           "] [__recompiles] x", "[x/y] [__recompiles] z", std::string("\0\xff\xfe]:[__", 8),
           "INFO:", "Torchdynamo: [] x"}) {
    LogPrefix p = parse_log_prefix(line);
    EXPECT_EQ(p.form, PrefixForm::kNone) << line;
  }
}

// The key identifies one record: equal for all lines of a message, whatever noise precedes them
// and whether an empty message line kept its trailing space.
TEST(LogPrefix, RecordKey) {
  const std::string prefix =
      "[rank1]:W0906 20:38:55.305000 5696 torch/_dynamo/variables/tensor.py:1047] [7/0]";
  EXPECT_EQ(parse_log_prefix(prefix).key, prefix);
  EXPECT_EQ(parse_log_prefix(prefix + " ").key, prefix);
  EXPECT_EQ(parse_log_prefix("tqdm junk " + prefix + " or:").key, prefix);
  EXPECT_EQ(parse_log_prefix("[0/1] [__recompiles]     - 0/0: ").key, "[0/1] [__recompiles]");
  EXPECT_EQ(
      parse_log_prefix("[2023-11-21 19:02:13,073] torch._dynamo.guards.__recompiles: [DEBUG] x")
          .key,
      "[2023-11-21 19:02:13,073] torch._dynamo.guards.__recompiles: [DEBUG]");
  EXPECT_EQ(parse_log_prefix("DEBUG:torch._dynamo.guards.__recompiles:x").key,
            "DEBUG:torch._dynamo.guards.__recompiles");
  EXPECT_EQ(parse_log_prefix("plain text").key, "");
}

TEST(LogPrefix, LongJunkLineIsLinear) {
  std::string line(10 << 20, ':');
  LogPrefix p = parse_log_prefix(line);
  EXPECT_EQ(p.form, PrefixForm::kNone);
  EXPECT_EQ(p.message.size(), line.size());
}

}  // namespace log_prefix_test
}  // namespace rcf::ingest
