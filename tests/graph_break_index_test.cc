// GraphBreakIndex picks the break that made a resume function by line, function, file and
// process, never one that disagrees on what both know, prefers a host-sync break among equals,
// then the first in log order.
#include "analysis/graph_break_index.h"

#include <gtest/gtest.h>

#include <vector>

namespace rcf::analysis {
namespace graph_break_index_test {

BreakRecord brk(int64_t line, const char* function, const char* file, int64_t source, bool sync,
                int64_t log_line) {
  BreakRecord b;
  b.user_line = line;
  b.user_function = function;
  b.user_file = file;
  b.key.source_id = source;
  b.sync_signature = sync;
  b.line = log_line;
  return b;
}

TEST(GraphBreakIndex, BestScoreThenSyncThenLogOrder) {
  std::vector<BreakRecord> breaks = {
      brk(318, "forward", "/m/a.py", 1, false, 10),  // line + function + file + process
      brk(318, "forward", "/m/a.py", 1, true, 20),   // same, and a host sync: wins
      brk(318, "forward", "/m/b.py", 1, true, 30),   // other file
      brk(-1, "forward", "/m/a.py", 2, false, 40),   // function only, other process
      brk(99, "step", "/m/a.py", 1, true, 50),
  };
  GraphBreakIndex index(breaks);
  EXPECT_EQ(index.find(318, "forward", "/m/a.py", 1)->line, 20);
  // In another file the /m/b.py break matches line, function and file.
  EXPECT_EQ(index.find(318, "forward", "/m/b.py", 1)->line, 30);
  // Without a line (2023 `<resume in forward>`) the function decides, then the file, then the
  // process: only the break logged by process 2 matches all three for process 2.
  EXPECT_EQ(index.find(-1, "forward", "/m/a.py", 2)->line, 40);
  EXPECT_EQ(index.find(-1, "forward", "/m/a.py", 1)->line, 20);
  // A resume function with no name to go by matches by line and file (score 8 and up); one
  // whose function is another than the break's is another frame; nothing at all: nullptr.
  EXPECT_EQ(index.find(99, "", "/m/a.py", 1)->line, 50);
  EXPECT_EQ(index.find(99, "other", "/m/a.py", 1), nullptr);
  EXPECT_EQ(index.find(7, "nothing", "/m/a.py", 1), nullptr);
  EXPECT_EQ(index.find(-1, "", "/m/a.py", 1), nullptr);
}

// The demo's corpus lane once linked a resume function of /home/.../block.py:172 (forward) to
// an .item() break at /workspaces/.../base.py:32 (forward) of another project: the function name
// was all they shared. A location that names another file or another line is another frame.
TEST(GraphBreakIndex, ALocationThatDisagreesOnWhatBothKnowIsAnotherFrame) {
  std::vector<BreakRecord> breaks = {
      brk(32, "forward", "/workspaces/molpot/base.py", 1, true, 10),
      brk(-1, "forward", "", 1, false, 20),      // function only, no file or line
      brk(318, "", "/m/nam52.py", 1, true, 30),  // `in user code at F:L`, stack suppressed
  };
  GraphBreakIndex index(breaks);
  // Another file and another line: only the break that knows nothing else can match.
  EXPECT_EQ(index.find(172, "forward", "/home/based/block.py", 2)->line, 20);
  // Same file, other line: the line decides against it.
  EXPECT_EQ(index.find(172, "forward", "/workspaces/molpot/base.py", 1)->line, 20);
  EXPECT_EQ(index.find(32, "forward", "/workspaces/molpot/base.py", 2)->line, 10);
  // A suppressed-stack break matches by file and line; the function is unknown to it.
  EXPECT_EQ(index.find(318, "forward", "/m/nam52.py", 1)->line, 30);

  // Without the function-only break nothing matches block.py:172, nor line 318 in another file.
  breaks.erase(breaks.begin() + 1);
  GraphBreakIndex strict(breaks);
  EXPECT_EQ(strict.find(172, "forward", "/home/based/block.py", 2), nullptr);
  EXPECT_EQ(strict.find(318, "forward", "/m/other.py", 1), nullptr);
}

// A break inside a nested call: the `.item()` is in Block.forward, and the resume function is
// split from the outer Model.forward at the line of the call. The break's stack holds both.
TEST(GraphBreakIndex, AResumeFunctionMatchesAnOuterFrameOfTheBreaksStack) {
  std::vector<BreakFrame> frames = {
      {"/m/model.py", "forward", 57},  // outermost: the frame Dynamo compiled
      {"/m/block.py", "forward", 12},  // innermost: where .item() was called
  };
  std::vector<BreakRecord> breaks = {brk(12, "forward", "/m/block.py", 1, true, 10)};
  breaks[0].frames_begin = 0;
  breaks[0].frames_end = 2;
  GraphBreakIndex index(breaks, frames);
  EXPECT_EQ(index.find(57, "forward", "/m/model.py", 1)->line, 10);
  EXPECT_EQ(index.find(12, "forward", "/m/block.py", 1)->line, 10);
  EXPECT_EQ(index.find(58, "forward", "/m/model.py", 1), nullptr);
  // Without its stack the break is known only where it happened.
  GraphBreakIndex without_stack(breaks);
  EXPECT_EQ(without_stack.find(57, "forward", "/m/model.py", 1), nullptr);
}

TEST(GraphBreakIndex, AMillionBreaksAtOneSiteStayOneCandidate) {
  std::vector<BreakRecord> breaks;
  breaks.reserve(200000);
  for (int i = 0; i < 100000; ++i) {
    breaks.push_back(brk(318 + i % 1000, "forward", "/m/a.py", 1, false, 2 * i));
    breaks.push_back(brk(318 + i % 1000, "forward", "/m/a.py", 1, i % 1000 == 5, 2 * i + 1));
  }
  GraphBreakIndex index(breaks);
  for (int line = 318; line < 1318; ++line) {
    const BreakRecord* b = index.find(line, "forward", "/m/a.py", 1);
    ASSERT_NE(b, nullptr);
    // The first break of that line in log order, or for line 323 its first host-sync one.
    EXPECT_EQ(b->line, line == 323 ? 2 * 5 + 1 : 2 * (line - 318)) << line;
  }
}

}  // namespace graph_break_index_test
}  // namespace rcf::analysis
