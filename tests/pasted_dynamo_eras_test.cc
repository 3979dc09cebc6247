// Older and rarer Dynamo wordings, Dynamo's other log kinds and graph breaks of resume functions
// (docs/dynamo_text.md: "Recompile-limit warnings", "Recompile blocks", "Guard-failure hooks",
// "Logs with nothing to count", "Graph breaks"). Every log here is constructed from the grammar
// and varied (eras, prefixes, ranks, functions, limits, cut paths); none is copied from a source.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "report/explain.h"
#include "tests/support/db_dump.h"
#include "tests/support/ingested_store.h"
#include "tests/support/temp_files.h"

namespace rcf {
namespace pasted_dynamo_eras_test {

using testing::column;
using testing::scalar;
using testing::TempDir;

// What one constructed log gave.
struct EraAnswers {
  std::string format;
  std::string causes;  // sorted, comma-terminated
  std::string hits;    // `type=value function | last reason;` per hit
  std::string breaks;  // `line function;` per graph break, by line
  std::string missing_record;
  std::string compiles;  // count of compiles
};

EraAnswers era_ingest(const TempDir& dir, const std::string& text, const std::string& name) {
  std::string path = dir.file(name + ".log");
  testing::write_file(path, text);
  std::string db = dir.file(name + ".db");
  auto summary = testing::ingest_logs(db, {path});
  auto store = testing::read_store(db);
  EraAnswers a;
  a.format = summary.sources.empty() ? "" : summary.sources[0].stats.format;
  for (const auto& c : column(*store, "SELECT cause FROM recompiles ORDER BY cause"))
    a.causes += c + ",";
  for (const auto& h :
       column(*store,
              "SELECT ifnull(limit_type, '?') || '=' || ifnull(limit_value, '?') || ' ' || "
              "ifnull(function, '?') || ' | ' || ifnull(last_reason, '') FROM "
              "recompile_limit_hits ORDER BY line"))
    a.hits += h + ";";
  for (const auto& b : column(*store,
                              "SELECT user_line || ' ' || ifnull(user_function, '') FROM "
                              "graph_breaks ORDER BY line"))
    a.breaks += b + ";";
  a.compiles = scalar(*store, "SELECT count(*) FROM compiles");
  report::ExplainModel model = report::build_explain(*store, "", report::ExplainListing{});
  if (!model.runs.empty()) a.missing_record = model.runs[0].missing_record;
  return a;
}

std::string era_lines(const std::vector<std::string>& lines, const std::string& prefix = "") {
  std::string text;
  for (const auto& l : lines) text += prefix + l + "\n";
  return text;
}

// Family 3: 2022-2023 limit warnings whose `reasons:` is a list or a string, with and without
// the `torchdynamo.convert_frame: [WARNING]` prefix and no timestamp.
TEST(PastedDynamoEras, OldLimitWarningReasonsAsListOrString) {
  struct Reasons {
    std::string printed, reason;
  };
  const std::vector<Reasons> forms = {
      {"['___check_obj_id(self, 139872)']", "___check_obj_id(self, 139872)"},
      {"[\"tensor 'x' strides mismatch at index 0. expected 96, actual 24\"]",
       "tensor 'x' strides mismatch at index 0. expected 96, actual 24"},
      {"'___check_type_id(x, 9402)'", "___check_type_id(x, 9402)"},
      {"tensor 'inp' size mismatch at index 1. expected 7, actual 9",
       "tensor 'inp' size mismatch at index 1. expected 7, actual 9"},
  };
  TempDir dir;
  int n = 0;
  for (const char* import : {"torchdynamo", "torch._dynamo"})
    for (const char* prefix : {"", "torchdynamo.convert_frame: [WARNING] "})
      for (const auto& form : forms) {
        int limit = n % 2 == 0 ? 64 : 8;
        std::string fn = n % 3 == 0 ? "toy_example" : "step_fn";
        std::string text =
            std::string(prefix) + import + " hit config.cache_size_limit (" +
            std::to_string(limit) + ")\n" + "   function: '" + fn + "' (/srv/app/run" +
            std::to_string(n) + ".py:" + std::to_string(10 + n) + ")\n" +
            "   reasons:  " + form.printed + "\n" +
            "to diagnose recompilation issues, see https://example.invalid/TROUBLESHOOTING.md\n";
        EraAnswers got = era_ingest(dir, text, "lim" + std::to_string(n++));
        EXPECT_EQ(got.hits, "cache_size_limit=" + std::to_string(limit) + " " + fn + " | " +
                                form.reason + ";")
            << text;
      }
}

// Family 3: recompile headers of every shape (`in <string>:3`, no location, a path cut with
// `…`) and reasons with or without their bullet and `triggered by` line.
TEST(PastedDynamoEras, RecompileHeadersAndBulletlessReasons) {
  const std::vector<std::string> headers = {
      "Recompiling function f in <string>:3",
      "Recompiling function forward",
      "Recompiling function forward in …/models/block.py:212",
      "Recompiling function step in /opt/…/train/loop.py:88",
  };
  struct Reason {
    std::string text, cause;
  };
  const std::vector<Reason> reasons = {
      {"tensor 'x' dtype mismatch. expected Float, actual Half", "dtype"},
      {"tensor 'L['h']' size mismatch at index 0. expected 16, actual 32", "shape"},
      {"L['n'] == 3", "constant"},
  };
  TempDir dir;
  int n = 0;
  for (const auto& header : headers)
    for (const auto& reason : reasons)
      for (int form = 0; form < 4; ++form) {
        std::vector<std::string> lines = {header};
        if (form % 2 == 0) lines.push_back("    triggered by the following guard failure(s):");
        std::string entry = form >= 2 ? "0/0: " + reason.text : reason.text;
        lines.push_back("    " + entry);  // no `- ` bullet
        for (const char* prefix : {"",
                                   "[2023-06-02 08:00:00,001] torch._dynamo.guards."
                                   "__recompiles: [DEBUG] "}) {
          EraAnswers got = era_ingest(dir, era_lines(lines, prefix), "rb" + std::to_string(n++));
          EXPECT_EQ(got.causes, reason.cause + ",") << era_lines(lines, prefix);
        }
      }
}

// Family 3: the GuardFail repr a guard_fail_fn hook prints, one line per failing cache entry:
// the lines of one lookup are one recompile of the code object they name.
TEST(PastedDynamoEras, GuardFailHookReprsAreRecompiles) {
  auto repr = [](const std::string& reason, const std::string& fn, const std::string& addr) {
    std::string quoted =
        reason.find('\'') == std::string::npos ? "'" + reason + "'" : "\"" + reason + "\"";
    return "GuardFail(reason=" + quoted + ", orig_code=<code object " + fn + " at " + addr +
           ", file \"/srv/m.py\", line 12>)";
  };
  TempDir dir;
  // Two functions, one recompile each, with user output between them.
  std::string text = repr("tensor 'L['x']' size mismatch at index 0. expected 3, actual 4",
                          "forward", "0x7f00aa10") +
                     "\nstep 1 loss 0.5\n" + repr("L['k'] == 2", "decode", "0x7f00bb20") + "\n";
  EraAnswers got = era_ingest(dir, text, "gf1");
  EXPECT_EQ(got.format, "dynamo_text");
  EXPECT_EQ(got.causes, "constant,shape,");
  // One lookup that found two entries failing: one recompile, the first (newest) entry decides.
  std::string two =
      repr("tensor 'x' dtype mismatch. expected Float, actual BFloat16", "fwd", "0x55aa") + "\n" +
      repr("tensor 'x' size mismatch at index 1. expected 8, actual 4", "fwd", "0x55aa") + "\n";
  EXPECT_EQ(era_ingest(dir, two, "gf2").causes, "dtype,");
  // Behind a rank prefix.
  EXPECT_EQ(
      era_ingest(dir, era_lines({repr("L['flag'] == True", "fwd", "0x1")}, "[rank2]: "), "gf3")
          .causes,
      "constant,");
}

// Family 4: Dynamo logs with nothing to count are read, their graph breaks kept, and the
// explanation says which TORCH_LOGS would show recompiles.
TEST(PastedDynamoEras, LogsWithNothingToCountAreReadAndExplained) {
  struct Case {
    std::string name, text, breaks;
  };
  const std::string glog = "V0811 10:00:00.000000 3131 torch/_dynamo/guards.py:2400] [0/0] ";
  const std::vector<Case> cases = {
      {"guards",
       era_lines({"[__guards] GUARDS:", "[__guards] TREE_GUARD_MANAGER:",
                  "[__guards] +- RootGuardManager",
                  "[__guards] | +- GLOBAL_STATE: ___check_global_state()"},
                 glog),
       ""},
      {"bytecode_worker",
       era_lines({"V0811 10:00:00.000000 77 torch/_dynamo/convert_frame.py:700] [1/0] "
                  "[__bytecode] ORIGINAL BYTECODE forward /srv/m.py line 40",
                  "V0811 10:00:00.000000 77 torch/_dynamo/convert_frame.py:700] [1/0] "
                  "[__bytecode]  40           0 LOAD_FAST                0 (x)"},
                 "(TrainWorker pid=77) "),
       ""},
      {"explain_2022",
       "Dynamo produced 4 graphs with 3 graph break and 17 ops\n Break reasons: \n\n"
       "1. generic_jump TensorVariable() \n   File \"/srv/m.py\", line 20, in forward\n"
       "    if x.sum() > 0:\n \n2. call_function BuiltinVariable(print) \n"
       "   File \"/srv/m.py\", line 31, in torch_dynamo_resume_in_forward_at_20\n"
       "    print(x)\n",
       "20 forward;31 torch_dynamo_resume_in_forward_at_20;"},
      {"explain_2024",
       "Graph Count: 2\nGraph Break Count: 1\nOp Count: 5\nBreak Reasons:\n"
       "  Break Reason 1:\n    Reason: builtin: print\n    User Stack:\n"
       "      <FrameSummary file /srv/n.py, line 9 in step>\nOps per Graph:\n",
       "9 step;"},
      {"depyf",
       "def __guard_0_for_forward(L, G, **___kwargs_ignored):\n"
       "    __guard_hit = True\n"
       "    __guard_hit = __guard_hit and ___check_type_id(L['x'], 8801)\n"
       "    return __guard_hit\n",
       ""},
  };
  TempDir dir;
  for (const auto& c : cases) {
    EraAnswers got = era_ingest(dir, c.text, c.name);
    EXPECT_EQ(got.format, "dynamo_text") << c.name;
    EXPECT_EQ(got.causes, "") << c.name;
    EXPECT_EQ(got.breaks, c.breaks) << c.name;
    EXPECT_NE(got.missing_record.find("TORCH_LOGS=recompiles"), std::string::npos) << c.name;
  }
}

// Family 6: a graph break inside a resume function, followed by a traceback, is one more
// distinct break, in each era's form and behind each prefix.
TEST(PastedDynamoEras, ResumeFunctionBreakBeforeATracebackIsKept) {
  const std::string traceback =
      "Traceback (most recent call last):\n  File \"/srv/train.py\", line 5, in <module>\n"
      "    out = model(x)\nRuntimeError: stop\n";
  auto current = [](const std::string& prefix, int frame, int line, const std::string& fn,
                    const std::string& type) {
    std::string p = prefix + "V0701 12:00:01.000000 9 torch/_dynamo/symbolic_convert.py:444] [" +
                    std::to_string(frame) + "/0] [__graph_breaks] ";
    return p + "Graph break in user code at /srv/m.py:" + std::to_string(line) + "\n" + p +
           "Graph Break Reason: " + type + "\n" + p + "User code traceback:\n" + p +
           "  File \"/srv/m.py\", line " + std::to_string(line) + ", in " + fn + "\n";
  };
  TempDir dir;
  int n = 0;
  for (const char* prefix : {"", "[rank1]:"}) {
    std::string text =
        current(prefix, 0, 30, "forward", "Data-dependent branching") +
        current(prefix, 1, 36, "torch_dynamo_resume_in_forward_at_30", "Unsupported method call") +
        traceback;
    EXPECT_EQ(era_ingest(dir, text, "gb" + std::to_string(n++)).breaks,
              "30 forward;36 torch_dynamo_resume_in_forward_at_30;")
        << text;
  }
  // 2023: `Graph break: <reason> from user code at:` and `<resume in fn>`.
  std::string old =
      "[2023-06-01 10:00:00,100] torch._dynamo.symbolic_convert: [WARNING] Graph break: "
      "generic_jump TensorVariable() from user code at:\n  File \"/srv/m.py\", line 30, in "
      "forward\n    if x.any():\n"
      "[2023-06-01 10:00:00,300] torch._dynamo.symbolic_convert: [WARNING] Graph break: "
      "call_function BuiltinVariable(print) from user code at:\n  File \"/srv/m.py\", line 36, "
      "in <resume in forward>\n    print(x)\n" +
      traceback;
  EraAnswers got = era_ingest(dir, old, "gb_old");
  EXPECT_EQ(got.breaks, "30 forward;36 <resume in forward>;");
  // The break raised as an exception from the resume function (fullgraph), after a logged one.
  std::string raised = current("", 0, 30, "forward", "Data-dependent branching") + traceback +
                       "torch._dynamo.exc.Unsupported: Unsupported method call\n"
                       "  Explanation: list.append is not supported here\n\nfrom user code:\n"
                       "   File \"/srv/m.py\", line 36, in torch_dynamo_resume_in_forward_at_30\n"
                       "    acc.append(y)\n";
  EXPECT_EQ(era_ingest(dir, raised, "gb_raised").breaks.size() > 0, true);
  EXPECT_NE(era_ingest(dir, raised, "gb_raised2").breaks.find("36 "), std::string::npos);
}

// Not Dynamo, but a compile log pasted the same way: JAX's 2019 `Compiling f for args (ArgSpec(
// aval=ShapedArray(...), ...), ...)` line is read as a JAX log (docs/jax_log.md), whatever the
// function and the signature, even when a hard wrap cut it.
TEST(PastedDynamoEras, Jax2019ArgSpecCompileLineIsAJaxLog) {
  TempDir dir;
  int n = 0;
  for (const char* fn : {"run_epoch", "update"})
    for (const char* tail : {"), ArgSpec(aval=ShapedArray(float32[16]), lazy_expr=None))",
                             "), ArgSpec(aval=ShapedArray(f"}) {
      std::string text = std::string("WARNING:absl:Compiling ") + fn +
                         " for args (ArgSpec(aval=ShapedArray(uint32[2]), lazy_expr=None" + tail +
                         "\n";
      EraAnswers got = era_ingest(dir, text, "jax" + std::to_string(n++));
      EXPECT_EQ(got.format, "jax_log") << text;
      EXPECT_EQ(got.compiles, "1") << text;
    }
}

}  // namespace pasted_dynamo_eras_test
}  // namespace rcf
