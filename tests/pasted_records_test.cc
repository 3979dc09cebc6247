// Records recognised by what they say, wherever a paste put them (docs/dynamo_text.md, "Records
// cut across lines" and the list before it; docs/jax_log.md; docs/line_framing.md). Every log here
// is constructed from the formats' grammars and varied (eras, prefixes, wrap widths, marks,
// truncation); none is copied from a source.
#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

#include "tests/support/db_dump.h"
#include "tests/support/ingested_store.h"
#include "tests/support/reflows.h"
#include "tests/support/temp_files.h"

namespace rcf {
namespace pasted_records_test {

using testing::column;
using testing::dedented;
using testing::hard_wrap;
using testing::Reflow;
using testing::scalar;
using testing::TempDir;
using testing::word_wrap;

struct RecordAnswers {
  std::string causes;  // sorted, comma-terminated
  std::string hits;    // count of limit hits
  std::string steps;   // count of step markers
  std::string rejected;
  std::string format;
};

RecordAnswers answers_of(const TempDir& dir, const std::string& text, const std::string& name) {
  std::string path = dir.file(name + ".log");
  testing::write_file(path, text);
  std::string db = dir.file(name + ".db");
  auto summary = testing::ingest_logs(db, {path});
  auto store = testing::read_store(db);
  RecordAnswers a;
  for (const auto& c : column(*store, "SELECT cause FROM recompiles ORDER BY cause"))
    a.causes += c + ",";
  a.hits = scalar(*store, "SELECT count(*) FROM recompile_limit_hits");
  a.steps = scalar(*store, "SELECT ifnull(sum(repeats), 0) FROM step_marker");
  a.rejected = scalar(*store, "SELECT count(*) FROM rejected_line");
  a.format = summary.sources.empty() ? "" : summary.sources[0].stats.format;
  return a;
}

std::string joined(const std::vector<std::string>& lines) {
  std::string text;
  for (const auto& l : lines) text += l + "\n";
  return text;
}

struct NamedReflow {
  std::string name;
  Reflow apply;
};

std::vector<NamedReflow> wraps() {
  return {{"hard 40", hard_wrap(40)}, {"hard 60", hard_wrap(60)}, {"hard 100", hard_wrap(100)},
          {"word 50", word_wrap(50)}, {"word 72", word_wrap(72)}, {"word 80", word_wrap(80)}};
}

// 2023 one-line records: the May tuple, the October tuple with its list of failing guards, and
// a guard-failure hook's GuardFail repr, each cut by every wrap, with and without their prefix,
// give the causes the unwrapped line gives.
TEST(PastedRecords, OneLineReprsCutAcrossLinesAreGathered) {
  const std::string prefix =
      "[2023-05-15 11:33:09,972] torch._dynamo.convert_frame.__recompiles: "
      "[DEBUG] ";
  const std::vector<std::pair<std::string, std::string>> records = {
      {"('Recompiling function predict in /srv/app/serving/model.py', \"triggered by the "
       "following guard failure: L['text'] == 'a long prompt that the user passed as a "
       "constant'\")",
       "constant,"},
      {"('Recompiling function fn in /home/u/proj/test/dynamo/test_misc.py:4578', 'triggered by "
       "the following guard failures: [\"___check_type_id(L[\\'obj\\'], 94834370481168)\", "
       "\"L[\\'obj\\'].x == -0.5\"]')",
       "type,"},
      {"GuardFail(reason=\"tensor 'L['x']' size mismatch at index 0. expected 16, actual 24\", "
       "orig_code=<code object forward at 0x7f00aa10, file \"/srv/models/encoder.py\", line 12>)",
       "shape,"}};
  TempDir dir;
  int n = 0;
  for (const auto& [record, cause] : records) {
    for (const std::string& lead : {std::string(), prefix}) {
      if (!lead.empty() && record.starts_with("GuardFail")) continue;  // a hook prints it bare
      const std::vector<std::string> lines = {"step 1 loss 0.5", lead + record, "step 2 loss 0.4"};
      ASSERT_EQ(answers_of(dir, joined(lines), "r" + std::to_string(n++)).causes, cause) << record;
      for (const auto& wrap : wraps()) {
        RecordAnswers got = answers_of(dir, joined(wrap.apply(lines)), "r" + std::to_string(n++));
        EXPECT_EQ(got.causes, cause)
            << wrap.name << (lead.empty() ? ", bare: " : ", prefixed: ") << record;
        EXPECT_EQ(got.steps, "2") << wrap.name << ": " << record;
        EXPECT_EQ(got.rejected, "0") << wrap.name << ": " << record;
      }
    }
  }
}

// A repr cut off for good (the end of an excerpt) is rejected once, and the lines after it are
// read as what they are: the progress lines still count.
TEST(PastedRecords, AReprThatNeverClosesGivesBackTheLinesAfterIt) {
  TempDir dir;
  RecordAnswers got = answers_of(
      dir,
      "('Recompiling function f in /a/b.py:3', \"triggered by the following guard failure: "
      "L['k'] ==\n step 1/4 loss 0.1\n step 2/4 loss 0.1\nstep 3/4 loss 0.1\nstep 4/4 loss 0.1\n",
      "never_closed");
  EXPECT_EQ(got.causes, "");
  EXPECT_EQ(got.rejected, "1");
  EXPECT_EQ(got.steps, "4");
}

// A record's first line with a paste's marks that the rest of the file does not carry: the
// anchor phrase is found past them.
TEST(PastedRecords, PasteMarksBeforeOneRecordAreLookedPast) {
  const std::string header =
      "torchdynamo hit recompilation cache limit (4) for function 'model' (train.py:39), due to "
      "the following guard failures: [['___check_tensors(x)'], ['___check_tensors(x)']]";
  TempDir dir;
  int n = 0;
  for (const std::string mark : {"", "> ", "# ", "    ", "> **", "`", ">> # "}) {
    std::string closing = mark.ends_with("**") ? "**" : (mark == "`" ? "`" : "");
    std::string text = "Epoch 1/3\nsome output of the user\n" + mark + header + closing +
                       "\nmore output\nstep 3 loss 0.2\n";
    RecordAnswers got = answers_of(dir, text, "m" + std::to_string(n++));
    EXPECT_EQ(got.hits, "1") << "mark '" << mark << "'";
    EXPECT_EQ(got.format, "dynamo_text") << "mark '" << mark << "'";
  }
  // A recompile header and its reasons indented in other text.
  for (const std::string indent : {"", "  ", "    "}) {
    std::string text = "Epoch 1/3\n" + indent + "Recompiling function step in /srv/t.py:10\n" +
                       indent + "    triggered by the following guard failure(s):\n" + indent +
                       "    - 0/0: L['n'] == 7\nEpoch 2/3\n";
    EXPECT_EQ(answers_of(dir, text, "i" + std::to_string(n++)).causes, "constant,")
        << "indent '" << indent << "'";
  }
}

// The reasons of a record whose header the excerpt cut, with the prefix dropped: recognised by
// their wording as one recompile (compile id unknown); bullets of other text are not.
TEST(PastedRecords, GuardFailureBulletsWithoutHeaderOrPrefix) {
  TempDir dir;
  int n = 0;
  const std::vector<std::pair<std::string, std::string>> bullets = {
      {"    - tensor 'L['x']' size mismatch at index 0. expected 24, actual 25", "constant,shape,"},
      {"    - L['end'] == 10                       # for i in range(start, end):",
       "constant,constant,"},
      {"    - 0/1: ___check_type_id(L['cfg'], 9483437)", "constant,type,"},
      {"- len(G['cache']) == 2", "constant,key_subset,"}};
  for (const auto& [bullet, causes] : bullets) {
    std::string text = bullet +
                       "\nRecompiling function f in /srv/t.py:3\n    triggered by the following "
                       "guard failure(s):\n    - 0/0: L['n'] == 7\n";
    // The bullet's recompile and the whole record's after it.
    EXPECT_EQ(answers_of(dir, text, "b" + std::to_string(n++)).causes, causes) << bullet;
  }
  std::string todo =
      "- buy milk\n- tensor shapes look fine\nRecompiling function f in /srv/t.py:3\n    "
      "triggered by the following guard failure(s):\n    - 0/0: L['n'] == 7\n";
  EXPECT_EQ(answers_of(dir, todo, "todo").causes, "constant,");
}

// A limit warning's fields gathered by their names: a header cut after `hit`, fields whose
// prefix the paste dropped while the header kept it, fields at the header's indentation, a
// reason spread over lines, a reason in bold. Every form gives the plain warning's hit.
TEST(PastedRecords, LimitWarningFieldsAreGatheredByName) {
  const std::string glog = "W1205 12:00:01.234567 1234 torch/_dynamo/convert_frame.py:1676] ";
  const std::string want =
      "recompile_limit=8 forward | 0/7: tensor 'x' size mismatch at index 0. expected 512, "
      "actual 384;";
  const std::string header = "torch._dynamo hit config.recompile_limit (8)";
  const std::string function = "   function: 'forward' (/srv/model.py:118)";
  const std::string reason =
      "   last reason: 0/7: tensor 'x' size mismatch at index 0. expected 512, actual 384";
  const std::vector<std::pair<std::string, std::vector<std::string>>> forms = {
      {"plain", {glog + "[0/8] " + header, glog + "[0/8] " + function, glog + "[0/8] " + reason}},
      {"header cut after hit, prefixed",
       {glog + "[0/8] torch._dynamo hit", "config.recompile_limit (8)", glog + "[0/8] " + function,
        glog + "[0/8] " + reason}},
      {"header cut after hit, bare",
       {"torch._dynamo hit", "config.recompile_limit (8)", function, reason}},
      {"fields without their prefix",
       {"[0/8] " + header, "function: 'forward' (/srv/model.py:118)", reason.substr(3)}},
      {"fields unprefixed under a glog header", {glog + "[0/8] " + header, function, reason}},
      {"reason in bold",
       {"> " + glog + "[0/8] " + header, "> " + glog + "[0/8] " + function,
        "> " + glog +
            "[0/8]    last reason: **0/7: tensor 'x' size mismatch at index 0. expected "
            "512, actual 384**"}},
  };
  TempDir dir;
  int n = 0;
  for (const auto& [name, lines] : forms) {
    std::string db_name = "w" + std::to_string(n++);
    std::string path = dir.file(db_name + ".log");
    testing::write_file(path, joined(lines));
    testing::ingest_logs(dir.file(db_name + ".db"), {path});
    auto store = testing::read_store(dir.file(db_name + ".db"));
    std::string hits;
    for (const auto& h : column(*store,
                                "SELECT limit_type || '=' || ifnull(limit_value, '?') || ' ' || "
                                "ifnull(function, '?') || ' | ' || ifnull(last_reason, '') FROM "
                                "recompile_limit_hits"))
      hits += h + ";";
    EXPECT_EQ(hits, want) << name;
  }
  // A dispatch-key reason over three lines is one reason.
  const std::string spread =
      joined({glog + "[0/8] " + header, glog + "[0/8] " + function,
              glog + "[0/8]    last reason: 0/7: dispatch key set mismatch. expected",
              glog + "[0/8]    DispatchKeySet(CPU, BackendSelect, AutogradCPU), actual",
              glog + "[0/8]    DispatchKeySet(CPU, BackendSelect)"});
  std::string path = dir.file("spread.log");
  testing::write_file(path, spread);
  testing::ingest_logs(dir.file("spread.db"), {path});
  auto store = testing::read_store(dir.file("spread.db"));
  EXPECT_EQ(scalar(*store, "SELECT last_reason FROM recompile_limit_hits"),
            "0/7: dispatch key set mismatch. expected DispatchKeySet(CPU, BackendSelect, "
            "AutogradCPU), actual DispatchKeySet(CPU, BackendSelect)");
  EXPECT_EQ(scalar(*store, "SELECT count(*) FROM rejected_line"), "0");
}

// 2023 records behind indentation that not every line shares, and behind an app logger's or a
// container runtime's date: the prefix is found where it stands.
TEST(PastedRecords, BracketDateRecordsBehindJunkAndOtherDates) {
  const std::vector<std::string> warning = {
      "[2023-07-19 13:23:03,735] torch._dynamo.convert_frame: [WARNING] torch._dynamo hit "
      "config.cache_size_limit (64)",
      "[2023-07-19 13:23:03,735] torch._dynamo.convert_frame: [WARNING]    function: 'step' "
      "(/tmp/ipykernel_1/41.py:1)",
      "[2023-07-19 13:23:03,735] torch._dynamo.convert_frame: [WARNING]    reasons:  L['n'] == 3"};
  TempDir dir;
  int n = 0;
  for (const std::string junk : {"    ", "\t", " 40%|####      | 4/10 "}) {
    std::string text = "Epoch 1/3\n";
    for (const auto& l : warning) text += junk + l + "\n";
    text += "loss 0.31\n";
    EXPECT_EQ(answers_of(dir, text, "j" + std::to_string(n++)).hits, "1")
        << "junk '" << junk << "'";
  }
  const std::string record =
      "torch._dynamo.convert_frame.__recompiles: [DEBUG] ('Recompiling function f in /a/m.py', "
      "\"triggered by the following guard failure: L['k'] == 3\")";
  for (const std::string date :
       {"[2025-03-04 05:06:00.000] ", "2025-03-04T05:06:07.123456789Z stderr F "}) {
    EXPECT_EQ(answers_of(dir, date + record + "\n", "d" + std::to_string(n++)).causes, "constant,")
        << date;
  }
}

// A JAX cache-miss explanation (both eras) that lost its indentation, or that a terminal or a
// document wrapped, gives the cause the explanation gives.
TEST(PastedRecords, JaxExplanationsSurviveLostIndentationAndWraps) {
  const std::vector<std::pair<std::vector<std::string>, std::string>> explanations = {
      {{"W0610 23:49:11.800984 partial_eval.py:2179] TRACING CACHE MISS at /srv/app/model.py:65:8 "
        "(Layer.__call__):",
        "  never seen function:", "    einsum id=5539926 defined at /srv/lib/ops.py:229",
        "W0610 23:49:19.396763 partial_eval.py:2179] TRACING CACHE MISS at /srv/app/model.py:65:8 "
        "(Layer.__call__):",
        "  never seen function:", "    einsum id=5539961 defined at /srv/lib/ops.py:229",
        "  but seen another function defined on the same line; maybe the function is",
        "  being re-defined repeatedly, preventing caching?"},
       "object_identity,"},
      {{"TRACING CACHE MISS at /srv/app/train.py:63:15 (train.<locals>.step_fn):",
        "  for apply_layers defined at /srv/app/train.py:53",
        "  all previously seen cache keys are different. Closest previous key:",
        "  * key with different input types:", "    types now: f32[16,32]",
        "    types before: f32[8,32]", "Finished tracing apply_layers for jit in 0.002810240 sec"},
       ""}};
  TempDir dir;
  int n = 0;
  for (const auto& [lines, cause] : explanations) {
    const RecordAnswers plain = answers_of(dir, joined(lines), "x" + std::to_string(n++));
    if (!cause.empty()) {
      EXPECT_EQ(plain.causes, cause);
    }
    std::vector<NamedReflow> all = wraps();
    all.push_back({"dedented", dedented});
    for (const auto& wrap : all) {
      RecordAnswers got = answers_of(dir, joined(wrap.apply(lines)), "x" + std::to_string(n++));
      EXPECT_EQ(got.causes, plain.causes) << wrap.name << ": " << lines[0];
      EXPECT_EQ(got.format, "jax_log") << wrap.name << ": " << lines[0];
    }
  }
}

}  // namespace pasted_records_test
}  // namespace rcf
