// SourceStats::add_note tallies each (fate, reason) once per note, whatever the order the notes
// come in (the tallies of the last few reasons are remembered: logs cycle through a few), and a
// copy of the stats tallies into its own map.
#include "ingest/source_stats.h"

#include <gtest/gtest.h>

#include <string>

namespace rcf::ingest {
namespace source_stats_test {

int64_t count_of(const SourceStats& s, const std::string& fate, const std::string& reason) {
  auto it = s.reasons.find(std::make_pair(fate, reason));
  return it == s.reasons.end() ? 0 : it->second.count;
}

TEST(SourceStats, TalliesInterleavedNotesByFateAndReason) {
  SourceStats s;
  s.path = "train.log";
  // The same reason under two fates, runs and alternations, a reason that is a prefix of
  // another, and more distinct reasons than are remembered.
  const struct {
    LineFate fate;
    const char* reason;
  } notes[] = {{LineFate::kSkipped, "user_output"},   {LineFate::kSkipped, "user_output"},
               {LineFate::kFramed, "user_output"},    {LineFate::kSkipped, "user_output"},
               {LineFate::kSkipped, "user"},          {LineFate::kRejected, "bad_header"},
               {LineFate::kSkipped, "user_output"},   {LineFate::kWarning, "cut_block"},
               {LineFate::kSkipped, "user_output_x"}, {LineFate::kSkipped, "user"}};
  int64_t line = 0;
  for (const auto& n : notes) {
    std::string reason = n.reason;  // a view of a temporary: the tally must not keep it
    ++line;
    s.add_note(line, n.fate, reason, "excerpt " + std::to_string(line));
  }
  EXPECT_EQ(count_of(s, "skipped", "user_output"), 4);
  EXPECT_EQ(count_of(s, "framed", "user_output"), 1);
  EXPECT_EQ(count_of(s, "skipped", "user"), 2);
  EXPECT_EQ(count_of(s, "skipped", "user_output_x"), 1);
  EXPECT_EQ(count_of(s, "rejected", "bad_header"), 1);
  EXPECT_EQ(count_of(s, "warning", "cut_block"), 1);
  EXPECT_EQ(s.reasons.size(), 6u);
  EXPECT_EQ(s.skipped, 7);
  EXPECT_EQ(s.rejected, 1);
  EXPECT_EQ(s.warnings, 1);
  EXPECT_EQ(s.first_error, "train.log:6: bad_header");
  const ReasonTally& user =
      s.reasons.find(std::make_pair(std::string("skipped"), std::string("user")))->second;
  EXPECT_EQ(user.first_line, 5);
  EXPECT_EQ(user.first_excerpt, "excerpt 5");
}

TEST(SourceStats, ACopyTalliesIntoItsOwnMap) {
  SourceStats original;
  original.add_note(1, LineFate::kSkipped, "user_output", "a");
  SourceStats copy = original;
  copy.add_note(2, LineFate::kSkipped, "user_output", "b");
  SourceStats assigned;
  assigned = copy;
  assigned.add_note(3, LineFate::kSkipped, "user_output", "c");
  original.add_note(4, LineFate::kSkipped, "user_output", "d");
  EXPECT_EQ(count_of(original, "skipped", "user_output"), 2);
  EXPECT_EQ(count_of(copy, "skipped", "user_output"), 2);
  EXPECT_EQ(count_of(assigned, "skipped", "user_output"), 3);
}

}  // namespace source_stats_test
}  // namespace rcf::ingest
