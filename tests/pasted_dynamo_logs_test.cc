// Dynamo logs as people paste them (docs/dynamo_text.md, "Pasted logs"; docs/line_framing.md,
// "Re-flowed lines"): constructed limit warnings and recompile blocks of several eras, behind
// full, trimmed and missing prefixes, of several ranks, then re-flowed (hard and word wraps at
// several widths, the prefix on a line of its own, double spacing, lost indentation, a Markdown
// reply in bold). Every combination must give the same limit hit and the same causes as the log
// printed plainly.
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <string>
#include <vector>

#include "tests/support/db_dump.h"
#include "tests/support/ingested_store.h"
#include "tests/support/reflows.h"
#include "tests/support/temp_files.h"

namespace rcf {
namespace pasted_dynamo_logs_test {

using testing::column;
using testing::dedented;
using testing::double_spaced;
using testing::hard_wrap;
using testing::Reflow;
using testing::scalar;
using testing::TempDir;
using testing::word_wrap;

// One log line: the fields of its glog prefix and its message.
struct Line {
  int rank = -1;   // `[rankN]:` when >= 0
  std::string id;  // compile id, "" for none
  std::string artifact;
  std::string message;
};

// How the prefix of a glog-era line is printed.
enum class Prefix { kFull, kLevelAndFile, kLevelAndId, kIdOnly, kNone };

std::string prefixed(const Line& l, Prefix form) {
  std::string rank = l.rank >= 0 ? "[rank" + std::to_string(l.rank) + "]:" : "";
  std::string id = l.id.empty() ? "" : "[" + l.id + "] ";
  std::string artifact = l.artifact.empty() ? "" : "[__" + l.artifact + "] ";
  std::string file = l.artifact.empty() ? "convert_frame.py:964] " : "guards.py:2940] ";
  switch (form) {
    case Prefix::kFull:
      return rank + "W0701 12:00:01.123456 " + std::to_string(4242 + std::max(l.rank, 0)) +
             " /usr/lib/python3.11/site-packages/torch/_dynamo/" + file + id + artifact + l.message;
    case Prefix::kLevelAndFile:
      return rank + "W " + file + id + artifact + l.message;
    case Prefix::kLevelAndId:
      return rank + "W " + id + artifact + l.message;
    case Prefix::kIdOnly:
      return rank + id + artifact + l.message;
    case Prefix::kNone:
      return rank + l.message;
  }
  return l.message;
}

std::vector<Line> limit_warning_2025(int rank, const std::string& frame) {
  std::string id = frame + "/8";
  return {{rank, id, "", "torch._dynamo hit config.recompile_limit (8)"},
          {rank, id, "", "   function: 'forward' (/work/model/attention.py:118)"},
          {rank, id, "",
           "   last reason: " + frame +
               "/7: tensor 'x' size mismatch at index 0. expected 512, actual 384"},
          {rank, id, "", "To log all recompilation reasons, use TORCH_LOGS=\"recompiles\"."},
          {rank, id, "",
           "To diagnose recompilation issues, see "
           "https://pytorch.org/docs/main/torch.compiler_troubleshooting.html"}};
}

std::vector<Line> recompile_block(int rank) {
  return {
      {rank, "0/2", "recompiles", "Recompiling function forward in /work/model/mlp.py:40"},
      {rank, "0/2", "recompiles", "    triggered by the following guard failure(s):"},
      {rank, "0/2", "recompiles",
       "    - 0/1: tensor 'hidden_states' size mismatch at index 1. expected 2048, actual 4096"},
      {rank, "0/2", "recompiles",
       "    - 0/0: tensor 'hidden_states' size mismatch at index 1. expected 1024, actual "
       "4096"}};
}

std::vector<std::string> as_printed(const std::vector<std::string>& lines) {
  return lines;
}

std::vector<std::string> bold_reply(const std::vector<std::string>& lines) {
  std::vector<std::string> out;
  for (const auto& l : lines) {
    size_t lead = std::min(l.find_first_not_of(' '), l.size());
    bool reason = l.find("reason") != std::string::npos || l.find("- ") == lead;
    out.push_back("> " + (reason ? l.substr(0, lead) + "**" + l.substr(lead) + "**" : l));
  }
  return out;
}

struct NamedReflow {
  const char* name;
  Reflow apply;
};

const std::vector<NamedReflow>& reflows() {
  static const std::vector<NamedReflow> all = {
      {"as printed", as_printed},        {"hard wrap 60", hard_wrap(60)},
      {"hard wrap 100", hard_wrap(100)}, {"hard wrap 120", hard_wrap(120)},
      {"word wrap 72", word_wrap(72)},   {"word wrap 80", word_wrap(80)},
      {"double spaced", double_spaced},  {"dedented", dedented},
      {"bold reply", bold_reply},
  };
  return all;
}

struct Answers {
  std::string hits;    // one row per hit: rank, frame, limit, function, has last reason
  std::string causes;  // sorted causes of the recompiles
};

Answers ingest(const TempDir& dir, const std::vector<std::string>& lines, const std::string& name) {
  std::string text;
  for (const auto& l : lines) text += l + "\n";
  std::string path = dir.file(name + ".log");
  testing::write_file(path, text);
  std::string db = dir.file(name + ".db");
  testing::ingest_logs(db, {path});
  auto store = testing::read_store(db);
  Answers a;
  for (const auto& row :
       column(*store,
              "SELECT rank || ' ' || frame_id || ' ' || limit_type || '=' || "
              "ifnull(limit_value, '?') || ' ' || ifnull(function, '?') || ' ' || "
              "(last_reason IS NOT NULL) FROM recompile_limit_hits ORDER BY rank"))
    a.hits += row + ";";
  for (const auto& c : column(*store, "SELECT cause FROM recompiles ORDER BY cause"))
    a.causes += c + ",";
  return a;
}

std::vector<std::string> render(const std::vector<Line>& lines, Prefix form) {
  std::vector<std::string> out;
  for (const auto& l : lines) out.push_back(prefixed(l, form));
  return out;
}

// A log viewer's prefix line: only the full glog prefix is split off (the others are short).
std::vector<std::string> prefix_own_line(const std::vector<Line>& lines) {
  std::vector<std::string> out;
  for (const auto& l : lines) {
    std::string whole = prefixed(l, Prefix::kFull);
    size_t end = whole.find("] ") + 1;  // the rank's `]:` has no space after it
    out.push_back(whole.substr(0, end));
    out.push_back(whole.substr(end + 1));
  }
  return out;
}

// The hit row of ingest(): `rank frame limit=value function has-last-reason;`.
std::string hit(int rank, int frame) {
  return std::to_string(rank) + " " + std::to_string(frame) + " recompile_limit=8 forward 1;";
}

TEST(PastedDynamoLogs, LimitWarningSurvivesEveryPrefixAndReflow) {
  TempDir dir;
  int n = 0;
  for (int rank : {-1, 3}) {
    std::vector<Line> lines = limit_warning_2025(rank, "0");
    for (Prefix form : {Prefix::kFull, Prefix::kLevelAndFile, Prefix::kLevelAndId, Prefix::kIdOnly,
                        Prefix::kNone}) {
      // Without its prefix a line keeps no compile id.
      std::string want = hit(rank, form == Prefix::kNone ? -1 : 0);
      for (const auto& reflow : reflows()) {
        Answers got = ingest(dir, reflow.apply(render(lines, form)), "l" + std::to_string(n++));
        EXPECT_EQ(got.hits, want) << "rank " << rank << ", prefix " << int(form) << ", "
                                  << reflow.name;
      }
    }
    Answers own = ingest(dir, prefix_own_line(lines), "own" + std::to_string(rank));
    EXPECT_EQ(own.hits, hit(rank, 0)) << "prefix on its own line, rank " << rank;
  }
}

TEST(PastedDynamoLogs, TwoRanksInterleavedKeepTwoHits) {
  TempDir dir;
  std::vector<Line> a = limit_warning_2025(0, "1"), b = limit_warning_2025(1, "1"), lines;
  int n = 0;
  for (size_t i = 0; i < a.size(); ++i) lines.insert(lines.end(), {a[i], b[i]});
  for (Prefix form : {Prefix::kFull, Prefix::kLevelAndFile, Prefix::kLevelAndId})
    for (const auto& reflow : reflows())
      EXPECT_EQ(ingest(dir, reflow.apply(render(lines, form)), "r" + std::to_string(n++)).hits,
                hit(0, 1) + hit(1, 1))
          << "prefix " << int(form) << ", " << reflow.name;
}

// Only the cut header names the limit (its type and value): the hit is still counted, with the
// limit unknown rather than guessed from the compile id or the era.
TEST(PastedDynamoLogs, HeaderCutFromTheExcerptStillCountsTheHit) {
  TempDir dir;
  std::vector<Line> lines = limit_warning_2025(-1, "2");
  lines.erase(lines.begin());  // the excerpt starts at `function:`
  for (Prefix form : {Prefix::kFull, Prefix::kLevelAndFile, Prefix::kLevelAndId, Prefix::kIdOnly})
    for (const auto& reflow : reflows()) {
      Answers got = ingest(dir, reflow.apply(render(lines, form)),
                           "cut" + std::string(reflow.name) + std::to_string(int(form)));
      EXPECT_EQ(got.hits, "-1 2 =? forward 1;") << "prefix " << int(form) << ", " << reflow.name;
    }
}

TEST(PastedDynamoLogs, RecompileBlockCausesSurviveEveryPrefixAndReflow) {
  TempDir dir;
  int n = 0;
  for (Prefix form :
       {Prefix::kFull, Prefix::kLevelAndFile, Prefix::kLevelAndId, Prefix::kIdOnly, Prefix::kNone})
    for (const auto& reflow : reflows()) {
      Answers got =
          ingest(dir, reflow.apply(render(recompile_block(-1), form)), "b" + std::to_string(n++));
      // The reasons name entry 0/1, so frame 0 recompiled twice: into 0/2 for a shape, and
      // earlier into 0/1 for a reason this excerpt does not show.
      EXPECT_EQ(got.causes, "shape,unknown,") << "prefix " << int(form) << ", " << reflow.name;
    }
}

// The limit warnings of 2022-2024 (docs/dynamo_text.md, "Recompile-limit warnings"), printed
// with the prefixes of their time, re-flowed the same ways.
TEST(PastedDynamoLogs, OlderLimitWordingsSurviveEveryReflow) {
  struct Case {
    std::vector<std::string> lines;
    std::string hits;
  };
  const std::vector<Case> cases = {
      // 2022: no timestamp, the reasons a Python list.
      {{"torchdynamo.convert_frame: [WARNING] torchdynamo hit config.cache_size_limit (64)",
        "   function: 'toy_example' (/tmp/repro.py:12)",
        "   reasons:  ['___check_obj_id(self, 140487837021376)']",
        "to diagnose recompilation issues, see "
        "https://github.com/pytorch/torchdynamo/blob/main/TROUBLESHOOTING.md"},
       "-1 -1 cache_size_limit=64 toy_example 1;"},
      // Nov 2023: the Python logging prefix, no reason line.
      {{"[2023-11-21 19:02:27,364] [3/8] torch._dynamo.convert_frame: [WARNING] torch._dynamo "
        "hit config.cache_size_limit (8)",
        "[2023-11-21 19:02:27,364] [3/8] torch._dynamo.convert_frame: [WARNING]    function: "
        "'propagate' (/opt/conda/lib/python3.10/site-packages/torch_geometric/nn/conv/"
        "message_passing.py:455)",
        "[2023-11-21 19:02:27,364] [3/8] torch._dynamo.convert_frame: [WARNING] to diagnose "
        "recompilation issues, see https://pytorch.org/docs/master/compile/"
        "troubleshooting.html."},
       "-1 3 cache_size_limit=8 propagate 0;"},
  };
  TempDir dir;
  int n = 0;
  for (const auto& c : cases)
    for (const auto& reflow : reflows())
      EXPECT_EQ(ingest(dir, reflow.apply(c.lines), "o" + std::to_string(n++)).hits, c.hits)
          << reflow.name << "\n"
          << c.lines[0];
}

}  // namespace pasted_dynamo_logs_test
}  // namespace rcf
