// GraphBreakIndex picks the break that made a resume function by line, function, file and
// process, prefers a host-sync break among equals, then the first in log order.
#include "analysis/graph_break_index.h"

#include <gtest/gtest.h>

#include <vector>

namespace rcf::analysis {
namespace {

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
  // Line without function still matches (score 8 and up); nothing at all: nullptr.
  EXPECT_EQ(index.find(99, "other", "/m/a.py", 1)->line, 50);
  EXPECT_EQ(index.find(7, "nothing", "/m/a.py", 1), nullptr);
  EXPECT_EQ(index.find(-1, "", "/m/a.py", 1), nullptr);
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

}  // namespace
}  // namespace rcf::analysis
