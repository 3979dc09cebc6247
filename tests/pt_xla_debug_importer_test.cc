// PT_XLA_DEBUG importer: exact events and line fates for every fixtures/xla/pt_xla_debug_* and
// pt_xla_profiler_* file (expected values read off the files by hand), plus synthetic cases for
// every cause wording, Post Compilation variants, cut-off blocks, glued output, CRLF and junk.
#include "ingest/xla/pt_xla_debug_importer.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <charconv>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "ingest/xla/pt_xla_debug_executions.h"
#include "tests/support/importer_test.h"
#include "tests/support/xla_log_generator.h"

namespace rcf::ingest {
namespace pt_xla_debug_importer_test {

using namespace rcf::testing;  // tests/support/importer_test.h

CollectingSink run(std::string_view text) {
  return rcf::testing::run_importer("pt_xla_debug", text);
}

std::string fixture(const std::string& name) {
  return rcf::testing::read_fixture("xla/" + name);
}

std::string number(std::optional<double> value) {
  if (!value) return "-";
  char buf[64];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, *value, std::chars_format::fixed, 6);
  return std::string(buf, end);
}

std::string number(std::optional<int64_t> value) {
  return value ? std::to_string(*value) : "-";
}

// One line per event with every field the importer fills, so a mismatch shows the whole event.
std::string describe(const XlaAnalysisBlock& b) {
  return "L" + std::to_string(b.line) + " " + b.kind + " [" + b.cause + "] " + b.cause_class +
         " name=" + b.graph_name + " hash=" + b.graph_hash + " in=" + number(b.inputs) +
         " out=" + number(b.outputs) + " frames=" + std::to_string(b.frames.size()) +
         (b.frames_cut ? " cut" : "") + (b.truncated ? " truncated" : "");
}
std::string describe(const XlaPostCompile& p) {
  return "L" + std::to_string(p.line) + " hash=" + p.computation_hash + " " + number(p.input_gb) +
         " " + number(p.output_gb) + " " + number(p.aliased_gb) + " " + number(p.intermediate_gb) +
         " " + number(p.program_gb);
}
std::string describe(const XlaProfilerNote& n) {
  return "L" + std::to_string(n.line) + " " + n.kind + " " + n.metric + " " + number(n.count) +
         "/" + number(n.steps) + " " + number(n.seconds) + " | " + n.text;
}
std::string describe(const StepMarker& m) {
  return "L" + std::to_string(m.line) + " " + number(m.step) + " " + m.origin;
}

template <typename T>
Strings all(const CollectingSink& sink) {
  Strings out;
  for (const T& e : sink.all<T>()) out.push_back(describe(e));
  return out;
}

// The execution counts of a segment with what their group printed: the group's block described
// at the segment's first line, then the count, the last line and the segment (markers/step ends
// before it). Also checks that every group was emitted once, before its first count.
Strings executions(const CollectingSink& sink) {
  std::map<int64_t, XlaAnalysisBlock> groups;
  Strings out;
  for (const Event& event : sink.events) {
    if (const auto* g = std::get_if<XlaExecutionGroup>(&event)) {
      EXPECT_TRUE(groups.emplace(g->group, g->block).second) << "group emitted twice";
      continue;
    }
    const auto* e = std::get_if<XlaExecutions>(&event);
    if (!e) continue;
    auto it = groups.find(e->group);
    if (it == groups.end()) {
      ADD_FAILURE() << "counts before their group";
      continue;
    }
    XlaAnalysisBlock b = it->second;
    b.line = e->first_line;
    out.push_back(describe(b) + " x" + std::to_string(e->count) + " last=L" +
                  std::to_string(e->last_line) + " seg=" + std::to_string(e->markers_before) + "/" +
                  std::to_string(e->step_ends_before));
  }
  return out;
}

// The blocks of one execution group, as it was first emitted.
XlaAnalysisBlock group_block(const CollectingSink& sink, size_t index) {
  return sink.all<XlaExecutionGroup>().at(index).block;
}

// Compile blocks and execution counts (executions()) in the order of their first lines: counts
// are emitted when their step segment ends, after the compiles inside it.
Strings blocks_in_order(const CollectingSink& sink) {
  std::vector<std::pair<int64_t, std::string>> rows;
  for (const auto& b : sink.all<XlaAnalysisBlock>()) rows.emplace_back(b.line, describe(b));
  for (const std::string& e : executions(sink))
    rows.emplace_back(std::stoll(e.substr(1, e.find(' ') - 1)), e);
  std::stable_sort(rows.begin(), rows.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  Strings out;
  for (auto& r : rows) out.push_back(std::move(r.second));
  return out;
}

Strings frames_of(const XlaAnalysisBlock& b) {
  Strings out;
  for (const auto& f : b.frames)
    out.push_back(f.function + " @ " + f.file + ":" + std::to_string(f.line));
  return out;
}

// ---------------------------------------------------------------------------------------------
// Fixtures.

TEST(PtXlaDebugImporter, Issue6614TensorValueAccessStrippedSpacesCutInFrames) {
  std::string text = fixture("pt_xla_debug_issue6614.txt");
  CollectingSink sink = run(text);
  EXPECT_EQ(all<XlaAnalysisBlock>(sink),
            (Strings{"L1 compile [most likely user code trying to access tensor value before "
                     "mark_step] tensor_value_access name= hash=507d309b2d23e1c0ff316e65fbb8d47a "
                     "in=229 out=1 frames=7 truncated"}));
  const std::string k = "REDACTED/k-diffusion/k_diffusion/models/";
  const std::string local = "REDACTED/.local/lib/python3.10/site-packages/torch/";
  EXPECT_EQ(
      frames_of(sink.all<XlaAnalysisBlock>().at(0)),
      (Strings{"_apply_rotary_emb_inplace @ " + k + "image_transformer_v2.py:196",
               "_fn @ " + local + "_dynamo/eval_frame.py:489", "__call__ @ " + k + "flags.py:56",
               "forward @ " + k + "image_transformer_v2.py:205",
               "apply @ " + local + "autograd/function.py:553",
               "apply_rotary_emb_ @ " + k + "image_transformer_v2.py:222",
               "forward @ " + k + "image_transformer_v2.py:380"}));
  EXPECT_EQ(sink.events.size(), 1u);
  EXPECT_EQ(sink.note_counts(), (Notes{{"warning:truncated_block", 1}}));
  EXPECT_EQ(warning_lines(sink), (Lines{1}));
  EXPECT_EQ(parsed_lines(sink, line_count(text)), range(1, 15));
}

TEST(PtXlaDebugImporter, Lightning20665aExecutionTailTqdmLineThenCompilation) {
  std::string text = fixture("pt_xla_debug_lightning20665_a.txt");
  CollectingSink sink = run(text);
  auto blocks = sink.all<XlaAnalysisBlock>();
  EXPECT_EQ(blocks_in_order(sink),
            (Strings{"L1 execute [] unknown name= hash= in=- out=- frames=4 cut truncated x1 "
                     "last=L1 seg=0/0",
                     "L9 compile [user mark_step] step_end name= "
                     "hash=fbba2ba25aff1cda058689b761890f05 in=323 out=1138 frames=1 truncated"}));
  const std::string pl = "/usr/local/lib/python3.11/dist-packages/pytorch_lightning/trainer/";
  EXPECT_EQ(frames_of(group_block(sink, 0)),
            (Strings{"_run_stage @ " + pl + "trainer.py:1056", "_run @ " + pl + "trainer.py:1012",
                     "_fit_impl @ " + pl + "trainer.py:599",
                     "_call_and_handle_interrupt @ " + pl + "call.py:48"}));
  EXPECT_EQ(frames_of(blocks.at(0)),
            (Strings{"mark_step @ /usr/local/lib/python3.11/dist-packages/torch_xla/core/"
                     "xla_model.py:1061"}));
  EXPECT_EQ(sink.events.size(), 3u);  // the group, its count, the compile
  EXPECT_EQ(sink.note_counts(), (Notes{{"skipped:other_output", 1},
                                       {"warning:headless_block", 1},
                                       {"warning:truncated_block", 1}}));
  EXPECT_EQ(warning_lines(sink), (Lines{1, 9}));
  Lines parsed = range(1, 7);
  for (int64_t i = 9; i <= 17; ++i) parsed.push_back(i);
  EXPECT_EQ(parsed_lines(sink, line_count(text)), parsed);
}

TEST(PtXlaDebugImporter, Lightning20665bCompilationTailAndPostCompilationSizes) {
  std::string text = fixture("pt_xla_debug_lightning20665_b.txt");
  CollectingSink sink = run(text);
  auto blocks = sink.all<XlaAnalysisBlock>();
  EXPECT_EQ(all<XlaAnalysisBlock>(sink),
            (Strings{"L1 compile [] unknown name= hash= in=- out=- frames=4 cut truncated"}));
  EXPECT_EQ(frames_of(blocks.at(0)).back(),
            "run @ /usr/local/lib/python3.11/dist-packages/pytorch_lightning/loops/optimization/"
            "automatic.py:192");
  EXPECT_EQ(all<XlaPostCompile>(sink),
            (Strings{"L9 hash= 0.169890 0.222694 0.145945 4.341870 0.095390"}));
  EXPECT_EQ(sink.events.size(), 2u);
  EXPECT_EQ(
      sink.note_counts(),
      (Notes{{"skipped:blank", 1}, {"warning:headless_block", 1}, {"warning:truncated_block", 1}}));
  EXPECT_EQ(warning_lines(sink), (Lines{1, 9}));
  Lines parsed = range(1, 7);
  for (int64_t i = 9; i <= 15; ++i) parsed.push_back(i);
  EXPECT_EQ(parsed_lines(sink, line_count(text)), parsed);
}

TEST(PtXlaDebugImporter, Pr5947PreReleaseSingularInputOutputWording) {
  std::string text = fixture("pt_xla_debug_pr5947.txt");
  CollectingSink sink = run(text);
  auto blocks = sink.all<XlaAnalysisBlock>();
  EXPECT_EQ(all<XlaAnalysisBlock>(sink),
            (Strings{"L1 compile [user mark_step] step_end name= "
                     "hash=32202b3d2e4a5ac58e0ea2e47bf5932e in=588 out=320 frames=4 cut"}));
  const std::string x = "/workspaces/dk2/pytorch/xla/";
  EXPECT_EQ(frames_of(blocks.at(0)),
            (Strings{"mark_step @ " + x + "torch_xla/core/xla_model.py:826",
                     "broadcast_master_param @ " + x + "torch_xla/core/xla_model.py:1216",
                     "train_imagenet @ " + x + "test/test_train_mp_imagenet.py:261",
                     "_mp_fn @ " + x + "test/test_train_mp_imagenet.py:365"}));
  EXPECT_EQ(sink.events.size(), 1u);
  EXPECT_TRUE(sink.notes.empty());
  EXPECT_EQ(parsed_lines(sink, line_count(text)), range(1, 15));
}

TEST(PtXlaDebugImporter, Pr5958DynamoExecutionEvalWithKeyFrameCutByEof) {
  std::string text = fixture("pt_xla_debug_pr5958_dynamo.txt");
  CollectingSink sink = run(text);
  EXPECT_TRUE(sink.all<XlaAnalysisBlock>().empty());
  EXPECT_EQ(executions(sink),
            (Strings{"L1 execute [dynamo is executing a compiled program] dynamo_execute name= "
                     "hash=89aa708ab1378ff94a29bb8bc2faae42 in=7 out=5 frames=9 truncated x1 "
                     "last=L1 seg=0/0"}));
  const std::string p = "/workspaces/dk2/pytorch/";
  EXPECT_EQ(frames_of(group_block(sink, 0)),
            (Strings{"optimized_mod @ " + p + "xla/torch_xla/core/dynamo_bridge.py:386",
                     "forward @ <eval_with_key>.7:5",
                     "_call_impl @ " + p + "torch/nn/modules/module.py:1520",
                     "_wrapped_call_impl @ " + p + "torch/nn/modules/module.py:1511",
                     "__call__ @ " + p + "torch/fx/graph_module.py:302",
                     "call_wrapped @ " + p + "torch/fx/graph_module.py:736",
                     "fwd @ " + p + "torch/_dynamo/backends/torchxla.py:51",
                     "g @ " + p + "torch/_functorch/aot_autograd.py:2034",
                     "call_func_with_args @ " + p + "torch/_functorch/aot_autograd.py:2058"}));
  EXPECT_EQ(sink.note_counts(), (Notes{{"warning:truncated_block", 1}}));
  EXPECT_EQ(parsed_lines(sink, line_count(text)), range(1, 17));
}

TEST(PtXlaDebugImporter, Pr7768CompileClearPendingThenPostCompilationCut) {
  std::string text = fixture("pt_xla_debug_pr7768.txt");
  CollectingSink sink = run(text);
  auto blocks = sink.all<XlaAnalysisBlock>();
  EXPECT_EQ(all<XlaAnalysisBlock>(sink),
            (Strings{"L1 compile [torch_xla.compile clear the pending graph prior calling the "
                     "target function] torch_xla_compile_clear_pending name= "
                     "hash=1abebf4362b8342721a64502bd4074c1 in=1 out=1 frames=5"}));
  const std::string x = "/workspaces/dk4/pytorch/xla/";
  EXPECT_EQ(frames_of(blocks.at(0)),
            (Strings{"mark_step @ " + x + "torch_xla/core/xla_model.py:1008",
                     "_compile @ " + x + "torch_xla/torch_xla.py:108",
                     "__enter__ @ /usr/local/lib/python3.10/contextlib.py:135",
                     "inner @ /usr/local/lib/python3.10/contextlib.py:78",
                     "<module> @ " + x + "test.py:34"}));
  EXPECT_EQ(all<XlaPostCompile>(sink), (Strings{"L17 hash= 0.000001 - - - -"}));
  EXPECT_EQ(sink.events.size(), 2u);
  EXPECT_EQ(sink.note_counts(), (Notes{{"skipped:blank", 1}, {"warning:truncated_block", 1}}));
  EXPECT_EQ(warning_lines(sink), (Lines{17}));
  Lines parsed = range(1, 15);
  parsed.push_back(17);
  parsed.push_back(18);
  EXPECT_EQ(parsed_lines(sink, line_count(text)), parsed);
}

TEST(PtXlaDebugImporter, Pr5000ProfilerTooFrequentCounts) {
  std::string text = fixture("pt_xla_profiler_pr5000.txt");
  CollectingSink sink = run(text);
  Strings expected;
  int compile_counts[] = {23, 25, 27, 29, 31, 33, 33, 33, 33};
  for (int i = 0; i < 9; ++i) {
    int steps = 12 + i;
    expected.push_back("L" + std::to_string(2 * i + 1) + " too_frequent TransferFromServerTime " +
                       std::to_string(steps - 1) + "/" + std::to_string(steps - 1) +
                       " - | TransferFromServerTime too frequent: " + std::to_string(steps - 1) +
                       " counts during " + std::to_string(steps - 1) + " steps");
    expected.push_back("L" + std::to_string(2 * i + 2) + " too_frequent CompileTime " +
                       std::to_string(compile_counts[i]) + "/" + std::to_string(steps) +
                       " - | CompileTime too frequent: " + std::to_string(compile_counts[i]) +
                       " counts during " + std::to_string(steps) + " steps");
  }
  EXPECT_EQ(all<XlaProfilerNote>(sink), expected);
  EXPECT_EQ(sink.events.size(), 18u);
  EXPECT_TRUE(sink.notes.empty());
}

TEST(PtXlaDebugImporter, FixturesSurviveCrlf) {
  for (const char* name : {"pt_xla_debug_issue6614.txt", "pt_xla_debug_lightning20665_a.txt",
                           "pt_xla_debug_lightning20665_b.txt", "pt_xla_debug_pr5947.txt",
                           "pt_xla_debug_pr5958_dynamo.txt", "pt_xla_debug_pr7768.txt",
                           "pt_xla_profiler_pr5000.txt"}) {
    std::string text = fixture(name);
    std::string crlf;
    for (char c : text) {
      if (c == '\n') crlf.push_back('\r');
      crlf.push_back(c);
    }
    CollectingSink lf = run(text);
    CollectingSink cr = run(crlf);
    EXPECT_EQ(blocks_in_order(lf), blocks_in_order(cr)) << name;
    EXPECT_EQ(all<XlaPostCompile>(lf), all<XlaPostCompile>(cr)) << name;
    EXPECT_EQ(all<XlaProfilerNote>(lf), all<XlaProfilerNote>(cr)) << name;
    EXPECT_EQ(lf.note_counts(), cr.note_counts()) << name;
  }
}

// ---------------------------------------------------------------------------------------------
// Synthetic logs.

// One complete analysis block with a leading empty line.
std::string block(const std::string& prefix, const std::string& cause, const std::string& hash,
                  const std::vector<std::string>& frames, bool cut = false) {
  bool compile = prefix == "Compilation Analysis: ";
  std::string out = "\n" + prefix + std::string(80, '=') + "\n" + prefix +
                    (compile ? "Compilation Cause\n" : "Execution Cause\n") + prefix + "  " +
                    cause + "\n" + prefix + "Graph Info: \n" + prefix + "  Graph Hash: " + hash +
                    "\n" + prefix + "  Number of Graph Inputs: 3\n" + prefix +
                    "  Number of Graph Outputs: 2\n" + prefix +
                    "Python Frame Triggered Execution: \n";
  for (const auto& f : frames) out += prefix + "  " + f + "\n";
  if (cut) out += prefix + "  ..........\n";
  out += prefix + std::string(80, '-') + "\n" + prefix + std::string(80, '=') + "\n";
  return out;
}

TEST(PtXlaDebugImporter, AllNineCausesInBothWordings) {
  struct Case {
    std::string old_wording, new_wording, cause_class;
  };
  const std::vector<Case> cases = {
      {"user mark_step", "user torch_xla.sync", "step_end"},
      {"mark_step in parallel loader at step end", "torch_xla.sync in parallel loader at step end",
       "parallel_loader_step_end"},
      {"mark_step when exiting a profiler StepTrace region",
       "torch_xla.sync when exiting a profiler StepTrace region", "profiler_step_end"},
      {"mark_step when dynamo processing input graphs",
       "torch_xla.sync when dynamo processing input graphs", "dynamo_input_sync"},
      {"torch_xla.compile", "torch_xla.compile", "torch_xla_compile"},
      {"torch_xla.compile clear the pending graph prior calling the target function",
       "torch_xla.compile clear the pending graph prior calling the target function",
       "torch_xla_compile_clear_pending"},
      {"dynamo is compiling a FX graph to HLO", "dynamo is compiling a FX graph to HLO",
       "dynamo_compile"},
      {"dynamo is executing a compiled program", "dynamo is executing a compiled program",
       "dynamo_execute"},
      {"most likely user code trying to access tensor value before mark_step",
       "most likely user code trying to access tensor value before torch_xla.sync",
       "tensor_value_access"},
      {"dynamo compiles FX graph to HLO", "dynamo compiles FX graph to HLO", "dynamo_compile"},
      {"something new in v3", "something new in v3", "unknown"},
  };
  std::string text;
  Strings expected;
  for (const Case& c : cases) {
    for (const std::string& cause : {c.old_wording, c.new_wording}) {
      text += block("Compilation Analysis: ", cause, "abc", {"f (/a.py:1)"});
      expected.push_back(cause + " -> " + c.cause_class);
    }
  }
  CollectingSink sink = run(text);
  Strings got;
  for (const auto& b : sink.all<XlaAnalysisBlock>()) {
    got.push_back(b.cause + " -> " + b.cause_class);
    EXPECT_FALSE(b.truncated);
    EXPECT_EQ(b.kind, "compile");
  }
  EXPECT_EQ(got, expected);
  EXPECT_EQ(sink.note_counts(), (Notes{{"skipped:blank", 22}}));
}

TEST(PtXlaDebugImporter, ExecutionHeavyLevel2LogWithInterleavedStdout) {
  const std::vector<std::string> frames = {"mark_step (/site/torch_xla/core/xla_model.py:1055)",
                                           "train_step (/home/u/train.py:42)",
                                           "main (/home/u/train.py:90)"};
  std::string text;
  text += "Loading model...\n";
  text +=
      block("Compilation Analysis: ", "user mark_step", "1a2b3c4d5e6f708192a3b4c5d6e7f809", frames);
  for (int i = 0; i < 5; ++i) {
    text += "step " + std::to_string(i) + " loss=0.5\n";
    text += block("Execution Analysis: ", "user mark_step", "1a2b3c4d5e6f708192a3b4c5d6e7f809",
                  frames, /*cut=*/true);
    text += "torch_xla.core.xla_model::mark_step\n\n";
  }
  // A user print in the middle of a block (stdout and stderr interleave) does not end it.
  text += "\nExecution Analysis: " + std::string(80, '=') +
          "\nExecution Analysis: Execution Cause\nExecution Analysis:   user torch_xla.sync\n"
          "epoch done\nExecution Analysis: Graph Info: \n"
          "Execution Analysis:   Graph Hash: 28154e545cda11bab37107b9f995e0f\n"
          "Execution Analysis: Python Frame Triggered Execution: \n"
          "Execution Analysis:   sync (/site/torch_xla/torch_xla.py:77)\n"
          "Execution Analysis: " +
          std::string(80, '-') + "\nExecution Analysis: " + std::string(80, '=') + "\n";
  text += "torch_xla.torch_xla::sync\n";
  CollectingSink sink = run(text);
  // Every Execution block here ends a step and a marker follows it: one group per segment.
  Strings expected = {
      "L3 compile [user mark_step] step_end name= hash=1a2b3c4d5e6f708192a3b4c5d6e7f809 in=3 "
      "out=2 frames=3"};
  for (int i = 0; i < 5; ++i) {
    std::string line = std::to_string(18 + 18 * i), seg = std::to_string(i);
    expected.push_back("L" + line +
                       " execute [user mark_step] step_end name= "
                       "hash=1a2b3c4d5e6f708192a3b4c5d6e7f809 in=3 out=2 frames=3 cut x1 last=L" +
                       line + " seg=" + seg + "/" + seg);
  }
  expected.push_back(
      "L107 execute [user torch_xla.sync] step_end name= hash=28154e545cda11bab37107b9f995e0f "
      "in=- out=- frames=1 x1 last=L107 seg=5/5");
  EXPECT_EQ(blocks_in_order(sink), expected);
  // The five identical blocks are one group.
  ASSERT_EQ(sink.all<XlaExecutionGroup>().size(), 2u);
  EXPECT_EQ(frames_of(group_block(sink, 0)),
            (Strings{"mark_step @ /site/torch_xla/core/xla_model.py:1055",
                     "train_step @ /home/u/train.py:42", "main @ /home/u/train.py:90"}));
  // Six XLA_EMIT_STEPLOG markers, and the training loop's five `step N loss=...` lines as
  // progress lines (docs/training_steps.md).
  Strings markers = all<StepMarker>(sink);
  EXPECT_EQ(std::count_if(markers.begin(), markers.end(),
                          [](const std::string& m) { return m.ends_with(" steplog"); }),
            6);
  EXPECT_EQ(markers.back(), "L117 - steplog");
  std::string progress;
  for (const std::string& m : markers)
    if (m.ends_with(" step_line")) progress += m.substr(m.find(' ') + 1, 1);
  EXPECT_EQ(progress, "01234");
  EXPECT_EQ(sink.note_counts(), (Notes{{"skipped:blank", 12}, {"skipped:other_output", 2}}));
}

// Identical Execution blocks of one step segment become one counted group, emitted when the
// segment ends (a step-end Execution block or an XLA_EMIT_STEPLOG marker); compile blocks carry
// the step boundaries before them.
TEST(PtXlaDebugImporter, ExecutionsAreCountedPerStepSegment) {
  const std::string c = "Compilation Analysis: ", e = "Execution Analysis: ";
  const std::string sync = "user mark_step",
                    value = "most likely user code trying to access tensor value before mark_step";
  const std::vector<std::string> loop = {"train_step (/home/u/train.py:42)"};
  const std::vector<std::string> item = {"compute_loss (/home/u/loss.py:7)",
                                         "train_step (/home/u/train.py:40)"};
  std::string text;
  auto add = [&](const std::string& prefix, const std::string& cause, const std::string& hash,
                 const std::vector<std::string>& frames) {
    int64_t header = line_count(text) + 2;  // block() starts with an empty line
    text += block(prefix, cause, hash, frames);
    return std::to_string(header);
  };
  // Step 1: the step graph compiles, .item() runs a small graph three times, the step ends.
  std::string c1 = add(c, sync, "a1", loop);
  std::string v1 = add(e, value, "b2", item);
  add(e, value, "b2", item);
  std::string v1_last = add(e, value, "b2", item);
  std::string e1 = add(e, sync, "a1", loop);
  // Step 2: the small graph twice, a new fragment compiles and runs, a steplog marker, the sync.
  std::string v2 = add(e, value, "b2", item);
  std::string v2_last = add(e, value, "b2", item);
  std::string c2 = add(c, value, "c3", item);
  std::string x2 = add(e, value, "c3", item);
  text += "torch_xla.core.xla_model::mark_step\n";
  std::string e2 = add(e, sync, "a1", loop);
  // Step 3: the step graph changes.
  std::string c3 = add(c, sync, "d4", loop);
  std::string e3 = add(e, sync, "d4", loop);
  CollectingSink sink = run(text);

  const std::string step = " execute [user mark_step] step_end name= hash=";
  const std::string fragment = " execute [" + value + "] tensor_value_access name= hash=";
  EXPECT_EQ(
      blocks_in_order(sink),
      (Strings{"L" + c1 + " compile [user mark_step] step_end name= hash=a1 in=3 out=2 frames=1",
               "L" + v1 + fragment + "b2 in=3 out=2 frames=2 x3 last=L" + v1_last + " seg=0/0",
               "L" + e1 + step + "a1 in=3 out=2 frames=1 x1 last=L" + e1 + " seg=0/0",
               "L" + v2 + fragment + "b2 in=3 out=2 frames=2 x2 last=L" + v2_last + " seg=0/1",
               "L" + c2 + " compile [" + value +
                   "] tensor_value_access name= hash=c3 in=3 out=2 frames=2",
               "L" + x2 + fragment + "c3 in=3 out=2 frames=2 x1 last=L" + x2 + " seg=0/1",
               "L" + e2 + step + "a1 in=3 out=2 frames=1 x1 last=L" + e2 + " seg=1/1",
               "L" + c3 + " compile [user mark_step] step_end name= hash=d4 in=3 out=2 frames=1",
               "L" + e3 + step + "d4 in=3 out=2 frames=1 x1 last=L" + e3 + " seg=1/2"}));
  Strings segments;
  for (const auto& b : sink.all<XlaAnalysisBlock>())
    segments.push_back(std::to_string(b.markers_before) + "/" + std::to_string(b.step_ends_before));
  EXPECT_EQ(segments, (Strings{"0/0", "0/1", "1/2"}));
  // A group is emitted when it first runs, its counts when their segment ends (before the marker
  // that ends it).
  Strings order;
  for (const Event& event : sink.events) {
    if (std::holds_alternative<XlaAnalysisBlock>(event)) order.push_back("compile");
    if (std::holds_alternative<XlaExecutionGroup>(event)) order.push_back("group");
    if (std::holds_alternative<XlaExecutions>(event)) order.push_back("counts");
    if (std::holds_alternative<StepMarker>(event)) order.push_back("marker");
  }
  EXPECT_EQ(order, (Strings{"compile", "group", "group", "counts", "counts", "compile", "group",
                            "counts", "counts", "marker", "counts", "compile", "group", "counts"}));
  // Four distinct blocks ran: the step graph before and after it changed, and two fragments.
  EXPECT_EQ(sink.all<XlaExecutionGroup>().size(), 4u);
}

// Bounded memory: a segment running more groups than the importer counts at once emits counts
// early, and a source with more distinct blocks than it remembers numbers a block seen before
// anew. Every execution is still counted once, and every count follows its group.
TEST(PtXlaDebugImporter, ManyDistinctGraphsAreAllCounted) {
  auto exec = [](int graph) {
    return block("Execution Analysis: ", "dynamo is executing a compiled program",
                 "f" + std::to_string(graph), {"forward (/m.py:3)"});
  };
  const int graphs = static_cast<int>(ExecutionTally::kMaxSegmentGroups) + 44;
  std::string text;
  for (int g = 0; g < graphs; ++g) text += exec(g) + exec(g);
  CollectingSink sink = run(text);
  Strings counts = executions(sink);
  ASSERT_EQ(counts.size(), static_cast<size_t>(graphs));
  for (int g = 0; g < graphs; ++g)
    EXPECT_NE(counts[g].find("hash=f" + std::to_string(g) + " in=3 out=2 frames=1 x2 "),
              std::string::npos)
        << counts[g];
  EXPECT_EQ(sink.all<XlaExecutionGroup>().size(), static_cast<size_t>(graphs));

  const int many = static_cast<int>(ExecutionTally::kMaxGroups) + 10;
  text.clear();
  for (int g = 0; g < many; ++g) text += exec(g);
  text += exec(0);  // forgotten by now: a new group with the same content
  sink = run(text);
  auto groups = sink.all<XlaExecutionGroup>();
  ASSERT_EQ(groups.size(), static_cast<size_t>(many) + 1);
  EXPECT_EQ(groups.back().group, many);
  EXPECT_EQ(groups.back().block.graph_hash, "f0");
  int64_t total = 0;
  for (const auto& e : sink.all<XlaExecutions>()) total += e.count;
  EXPECT_EQ(total, many + 1);
  EXPECT_EQ(executions(sink).size(), static_cast<size_t>(many) + 1);
}

TEST(PtXlaDebugImporter, PostCompilationWithComputationHashUnknownAndMegabytes) {
  std::string post = "Post Compilation Analysis: ";
  std::string text =
      block("Compilation Analysis: ", "torch_xla.compile", "ff", {"_compile (/x/torch_xla.py:9)"}) +
      "\nComputation hash: 9e2c0ab1d4f5e6a7b8c9d0e1f2a3b4c5\n\n" + post + std::string(80, '=') +
      "\n" + post + "Graph input size: 0.000001 GB\n" + post + "Graph output size: Unknown  GB\n" +
      post + "Aliased Input size: 0.000000 GB\n" + post +
      "Intermediate tensor size: 4.341870 GB\n" + post + "Compiled program size: 0.095390 GB\n" +
      post + std::string(80, '-') + "\n" + post + std::string(80, '=') + "\n" +
      // v2.4 development form: `<MB>MB`.
      "\n" + post + std::string(80, '=') + "\n" + post + "Graph input size: 512.000000MB\n" + post +
      "Graph output size: 1024MB\n" + post + "Compiled program size: 12,5 GB\n" + post +
      std::string(80, '-') + "\n" + post + std::string(80, '=') + "\n" +
      // A hash whose block never came.
      "Computation hash: abc\n";
  CollectingSink sink = run(text);
  EXPECT_EQ(all<XlaPostCompile>(sink),
            (Strings{"L14 hash=9e2c0ab1d4f5e6a7b8c9d0e1f2a3b4c5 0.000001 - 0.000000 4.341870 "
                     "0.095390",
                     "L25 hash= 0.500000 1.000000 - - -", "L31 hash=abc - - - - -"}));
  EXPECT_EQ(sink.all<XlaAnalysisBlock>().at(0).cause_class, "torch_xla_compile");
  EXPECT_EQ(
      sink.note_counts(),
      (Notes{{"rejected:bad_size", 1}, {"skipped:blank", 4}, {"warning:truncated_block", 1}}));
  EXPECT_EQ(warning_lines(sink), (Lines{31}));
}

TEST(PtXlaDebugImporter, BlockCutByEofAndByTheNextBlock) {
  std::string full = block("Execution Analysis: ", "user mark_step", "aa", {"f (/a.py:1)"});
  // Cut after its frames header, then a new block starts (crash and restart appending to the
  // same PT_XLA_DEBUG_FILE); the last block is cut by the end of the file.
  std::string text = full.substr(0, full.find("Execution Analysis:   f")) + full +
                     "\nCompilation Analysis: " + std::string(80, '=') +
                     "\nCompilation Analysis: Compilation Cause\n";
  CollectingSink sink = run(text);
  // A cut-off step-end block still ends its step.
  EXPECT_EQ(blocks_in_order(sink),
            (Strings{"L2 execute [user mark_step] step_end name= hash=aa in=3 out=2 frames=0 "
                     "truncated x1 last=L2 seg=0/0",
                     "L11 execute [user mark_step] step_end name= hash=aa in=3 out=2 frames=1 x1 "
                     "last=L11 seg=0/1",
                     "L23 compile [] unknown name= hash= in=- out=- frames=0 truncated"}));
  EXPECT_EQ(sink.all<XlaAnalysisBlock>().at(0).step_ends_before, 2);
  EXPECT_EQ(sink.note_counts(), (Notes{{"skipped:blank", 3}, {"warning:truncated_block", 2}}));
  EXPECT_EQ(warning_lines(sink), (Lines{2, 23}));
}

TEST(PtXlaDebugImporter, GraphNameUnexpectedExecutionAndMalformedLines) {
  std::string u = "Unexpected Execution Analysis: ";
  std::string text = u + std::string(80, '=') + "\n" + u + "Execution Cause\n" + u +
                     "  user torch_xla.sync\n" + u + "  second cause line\n" + u + "Graph Info:\n" +
                     u + "  Graph Name: my_step\n" + u + "  Graph Hash: XYZ\n" + u +
                     "  Number of Graph Inputs: many\n" + u + "  Number of Graph Outputs: 4\n" + u +
                     "Python Frame Triggered Execution:\n" + u + "  not a frame\n" + u +
                     "  step_fn (/t.py:3)\n" + u + std::string(80, '-') + "\n" + u +
                     "  after the dashes\n" + u + std::string(80, '=') + "\n" +
                     "Unexpected execution happens inside the compiled function, exiting\n";
  CollectingSink sink = run(text);
  EXPECT_EQ(executions(sink),
            (Strings{"L1 unexpected_execute [user torch_xla.sync] step_end name=my_step hash= "
                     "in=- out=4 frames=1 x1 last=L1 seg=0/0"}));
  EXPECT_EQ(sink.note_counts(), (Notes{{"rejected:bad_count", 1},
                                       {"rejected:bad_frame", 1},
                                       {"rejected:bad_graph_hash", 1},
                                       {"rejected:extra_cause_line", 1},
                                       {"rejected:line_after_block_end", 1},
                                       {"skipped:other_output", 1}}));
  EXPECT_EQ(parsed_lines(sink, line_count(text)), (Lines{1, 2, 3, 5, 6, 9, 10, 12, 13, 15}));
}

TEST(PtXlaDebugImporter, BlockGluedAfterTqdmCarriageReturn) {
  std::string full = block("Compilation Analysis: ", "user mark_step", "abcdef", {"f (/a.py:1)"});
  // Drop the leading empty line and glue the header onto a progress bar.
  std::string text =
      "Epoch 0:   0% 0/73 [00:00<?, ?it/s]\r" + full.substr(1) +
      "Epoch 0:  50% 36/73 \rtorch_xla.core.xla_model::mark_step\n" +
      "loss 0.1 pt-xla-profiler: CompileTime too frequent: 23 counts during 12 steps\n" +
      "Execution Analysis: results are in\n";  // a user print, not a block
  CollectingSink sink = run(text);
  EXPECT_EQ(
      all<XlaAnalysisBlock>(sink),
      (Strings{"L1 compile [user mark_step] step_end name= hash=abcdef in=3 out=2 frames=1"}));
  EXPECT_EQ(all<StepMarker>(sink), (Strings{"L12 - steplog"}));
  EXPECT_EQ(all<XlaProfilerNote>(sink).size(), 1u);
  EXPECT_EQ(sink.note_counts(),
            (Notes{{"rejected:unexpected_block_line", 1}, {"warning:glued_output", 2}}));
}

TEST(PtXlaDebugImporter, ProfilerTooSlowNotLoweredAndExitSummary) {
  std::string p = "pt-xla-profiler: ";
  std::string text =
      p +
      "CompileTime too slow: longest instance took 05m12s340ms123.456us. Please open a "
      "GitHub issue with the graph dump for our team to optimize.\n" +
      p +
      "ExecuteTime too slow: longest instance took 31s001ms000.000us. Please open a GitHub "
      "issue with the graph dump for our team to optimize.\n" +
      p +
      "Op(s) not lowered: aten::nonzero, aten::unique2,  Please open a GitHub issue with the "
      "above op lowering requests.\n" +
      p + "Something else entirely\n" + p + "CompileTime too frequent: x counts during 3 steps\n" +
      p + std::string(80, '=') + "\n" + p +
      "Unlowered Op usage summary (more of these ops, lower performance)\n" + p +
      "Note: _local_scalar_dense typically indicates CPU context access\n" + p +
      std::string(80, '-') + "\n" + p + "FRAME (count=12):\n" + p +
      "Unlowered Op: \"aten::_local_scalar_dense\"\n" + p + "Python Frames:\n" + p +
      "  train_loop_fn (test/test_train_mp_imagenet.py:216)\n" + p + "\n" + p +
      "FRAME (count=3):\n" + p + "Unlowered Op: \"aten::nonzero\"\n" + p + "\n" + p +
      std::string(80, '=') + "\n" +
      // PT_XLA_DEBUG_FILE: the same summary without the logger prefix.
      "Unlowered Op usage summary (more of these ops, lower performance)\n" + std::string(80, '-') +
      "\nFRAME (count=7):\nUnlowered Op: \"aten::unique2\"\n" + "  f (a.py:1)\n\n" +
      std::string(80, '=') + "\nbye\n";
  CollectingSink sink = run(text);
  EXPECT_EQ(all<XlaProfilerNote>(sink),
            (Strings{"L1 too_slow CompileTime -/- 312.340123 | CompileTime too slow: longest "
                     "instance took 05m12s340ms123.456us. Please open a GitHub issue with the "
                     "graph dump for our team to optimize.",
                     "L2 too_slow ExecuteTime -/- 31.001000 | ExecuteTime too slow: longest "
                     "instance took 31s001ms000.000us. Please open a GitHub issue with the graph "
                     "dump for our team to optimize.",
                     "L3 not_lowered  -/- - | aten::nonzero, aten::unique2",
                     "L10 unlowered_summary_frame  12/- - | Unlowered Op: "
                     "\"aten::_local_scalar_dense\"\nPython Frames:\n  train_loop_fn "
                     "(test/test_train_mp_imagenet.py:216)",
                     "L15 unlowered_summary_frame  3/- - | Unlowered Op: \"aten::nonzero\"",
                     "L21 unlowered_summary_frame  7/- - | Unlowered Op: \"aten::unique2\"\n"
                     "  f (a.py:1)"}));
  EXPECT_EQ(sink.note_counts(), (Notes{{"rejected:bad_profiler_line", 1},
                                       {"rejected:unknown_profiler_message", 1},
                                       {"skipped:blank", 1},
                                       {"skipped:other_output", 1},
                                       {"skipped:summary_decoration", 8}}));
  parsed_lines(sink, line_count(text));
}

TEST(PtXlaDebugImporter, JunkNeverCrashesAndEveryLineHasOneFate) {
  std::string text;
  text += std::string("\x00\x01\xff\xfe binary\x80\x81", 14) + "\n";
  text += "Compilation Analysis: \xc3\x28 invalid utf8\n";
  text += "Execution Analysis: " + std::string(10 << 20, 'x') + "\n";
  text += "Execution Analysis:   " + std::string(1 << 20, '(') + ":1)\n";
  text += "Post Compilation Analysis: Graph input size: GB\n";
  text += "pt-xla-profiler:\n";
  text += "pt-xla-profiler: x too slow: longest instance took 5q. Please\n";
  text += "Computation hash: \n";
  text += "Execution Analysis:   ..........\n";
  text += "\r\r\n";
  text += "Compilation Analysis: ";  // no newline at the end
  CollectingSink sink = run(text);
  int64_t lines = line_count(text);
  Lines parsed = parsed_lines(sink, lines);
  // Rejected lines and block lines only; no event lost its line.
  EXPECT_GE(sink.note_counts()["rejected:unexpected_block_line"], 2);
  EXPECT_EQ(sink.note_counts()["rejected:bad_size"], 1);
  EXPECT_EQ(sink.note_counts()["rejected:bad_computation_hash"], 1);
  EXPECT_EQ(sink.note_counts()["skipped:other_output"], 1);
  // An importer fed empty input emits nothing.
  CollectingSink empty = run("");
  EXPECT_TRUE(empty.events.empty());
  EXPECT_TRUE(empty.notes.empty());
}

TEST(PtXlaDebugImporter, Sniff) {
  const ImporterInfo* info = find_importer("pt_xla_debug");
  ASSERT_NE(info, nullptr);
  EXPECT_EQ(info->sniff(fixture("pt_xla_debug_issue6614.txt")), 85);
  EXPECT_EQ(info->sniff(fixture("pt_xla_debug_lightning20665_b.txt")), 85);
  EXPECT_EQ(info->sniff(fixture("pt_xla_profiler_pr5000.txt")), 85);
  EXPECT_EQ(info->sniff("Epoch 0: 1%\rExecution Analysis: ===="), 85);
  EXPECT_EQ(info->sniff("Post Compilation Analysis: Graph input size: 1.0 GB\n"), 85);
  EXPECT_EQ(info->sniff("hello\nworld\n"), 0);
  EXPECT_EQ(info->sniff(fixture("metrics_report_issue2757.txt")), 0);
  EXPECT_EQ(info->sniff(""), 0);
}

// ---------------------------------------------------------------------------------------------
// Generated level-2 log (the benchmark input).

TEST(PtXlaDebugGenerator, FiveMegabyteLogYieldsTheGeneratedCounts) {
  rcf::testing::XlaLogStats stats;
  std::string text = rcf::testing::make_pt_xla_debug_log(5 << 20, 7, &stats);
  EXPECT_GE(text.size(), size_t{5} << 20);
  EXPECT_LT(text.size(), (size_t{5} << 20) + 16384);
  CollectingSink sink = run(text);
  int64_t compiles = 0, executes = 0, value_access = 0;
  for (const auto& b : sink.all<XlaAnalysisBlock>()) {
    EXPECT_FALSE(b.truncated);
    EXPECT_EQ(b.frames.size(), 8u);
    EXPECT_EQ(b.kind, "compile");
    ++compiles;
    if (b.cause_class == "tensor_value_access") ++value_access;
  }
  for (const auto& g : sink.all<XlaExecutionGroup>()) {
    EXPECT_FALSE(g.block.truncated);
    EXPECT_EQ(g.block.frames.size(), 8u);
    EXPECT_EQ(g.block.kind, "execute");
  }
  // Five distinct Execution blocks (four step graphs and the .item() fragment), each once.
  EXPECT_EQ(sink.all<XlaExecutionGroup>().size(), 5u);
  for (const auto& e : sink.all<XlaExecutions>()) executes += e.count;
  EXPECT_EQ(compiles, stats.compile_blocks);
  EXPECT_EQ(executes, stats.execute_blocks);
  EXPECT_EQ(value_access, stats.tensor_value_access_blocks);
  EXPECT_GT(executes, 19 * compiles);  // ~95% Execution blocks
  EXPECT_GT(value_access, 0);
  auto posts = sink.all<XlaPostCompile>();
  EXPECT_EQ(static_cast<int64_t>(posts.size()), stats.post_compiles);
  int64_t hashes = 0;
  for (const auto& p : posts) hashes += !p.computation_hash.empty();
  EXPECT_EQ(hashes, stats.computation_hashes);
  EXPECT_GT(hashes, 0);
  EXPECT_EQ(static_cast<int64_t>(sink.all<XlaProfilerNote>().size()), stats.profiler_notes);
  EXPECT_EQ(static_cast<int64_t>(sink.all<StepMarker>().size()), stats.step_markers);
  EXPECT_EQ(sink.note_counts(),
            (Notes{{"skipped:blank", static_cast<int>(stats.blank_lines)},
                   {"skipped:other_output", static_cast<int>(stats.other_lines)}}));
  EXPECT_EQ(line_count(text), stats.lines);
  // Deterministic per seed.
  EXPECT_EQ(rcf::testing::make_pt_xla_debug_log(1 << 16, 7),
            rcf::testing::make_pt_xla_debug_log(1 << 16, 7));
}

}  // namespace pt_xla_debug_importer_test
}  // namespace rcf::ingest

namespace rcf::ingest {
namespace pt_xla_debug_importer_test {

// `CompileTime too frequent: N counts` counts N compiles whether or not the build printed the
// steps, and also when a diff quotes the line with its `+` (docs/pt_xla_debug.md).
TEST(PtXlaDebugProfiler, TooFrequentWithoutStepsAndBehindADiffMarker) {
  CollectingSink sink = rcf::testing::run_importer(
      "pt_xla_debug",
      "pt-xla-profiler: CompileTime too frequent: 31 counts\n"
      "+pt-xla-profiler: CompileTime too frequent: 42 counts during 12 steps\n"
      "pt-xla-profiler: CompileTime too frequent: many counts\n");
  std::vector<std::string> got;
  for (const auto& e : sink.events)
    if (const auto* n = std::get_if<XlaProfilerNote>(&e))
      got.push_back(n->metric + " " + std::to_string(n->count.value_or(-1)) + " " +
                    std::to_string(n->steps.value_or(-1)));
  EXPECT_EQ(got, (std::vector<std::string>{"CompileTime 31 -1", "CompileTime 42 12"}));
  EXPECT_EQ(sink.note_counts(), (rcf::testing::Notes{{"rejected:bad_profiler_line", 1}}));
}

}  // namespace pt_xla_debug_importer_test
}  // namespace rcf::ingest

namespace rcf::ingest {
namespace pt_xla_debug_importer_test {

// Lines that got a kRejected note, in note order.
Lines rejected_lines(const CollectingSink& sink) {
  Lines out;
  for (const auto& n : sink.notes)
    if (n.fate == LineFate::kRejected) out.push_back(n.line);
  return out;
}

// Issue 47: numbers out of range (util/plausible.h) are no evidence. A graph count past 2^53 or
// below zero, or a size below zero or not finite, rejects its line; the block is kept without it.
TEST(PtXlaDebugPlausible, GraphCountsAndSizesOutOfRangeRejectTheirLines) {
  std::string c = "Compilation Analysis: ";
  std::string post = "Post Compilation Analysis: ";
  std::string text = c + std::string(80, '=') + "\n" + c + "Compilation Cause\n" + c +
                     "  user mark_step\n" + c + "Graph Info:\n" + c + "  Graph Hash: ab\n" + c +
                     "  Number of Graph Inputs: 9007199254740993\n" + c +
                     "  Number of Graph Outputs: -3\n" + c + std::string(80, '-') + "\n" + c +
                     std::string(80, '=') + "\n" + post + std::string(80, '=') + "\n" + post +
                     "Graph input size: -1.5 GB\n" + post + "Graph output size: nan GB\n" + post +
                     "Aliased Input size: inf GB\n" + post + "Compiled program size: 2.0 GB\n" +
                     post + std::string(80, '-') + "\n" + post + std::string(80, '=') + "\n";
  CollectingSink sink = run(text);
  EXPECT_EQ(all<XlaAnalysisBlock>(sink),
            (Strings{"L1 compile [user mark_step] step_end name= hash=ab in=- out=- frames=0"}));
  EXPECT_EQ(all<XlaPostCompile>(sink), (Strings{"L10 hash= - - - - 2.000000"}));
  EXPECT_EQ(sink.note_counts(), (Notes{{"rejected:implausible_count", 5}}));
  EXPECT_EQ(rejected_lines(sink), (Lines{6, 7, 11, 12, 13}));
}

// A `too frequent` count out of range rejects the line (the count is the note); its step count
// out of range is dropped and warned, the note kept; a `too slow` time longer than a year is
// dropped and warned, the note kept; a summary FRAME count out of range is dropped and warned.
TEST(PtXlaDebugPlausible, ProfilerNumbersOutOfRange) {
  std::string p = "pt-xla-profiler: ";
  std::string text =
      p + "CompileTime too frequent: -4 counts during 12 steps\n" + p +
      "CompileTime too frequent: 9007199254740993 counts\n" + p +
      "CompileTime too frequent: 7 counts during 9007199254740993 steps\n" + p +
      "CompileTime too frequent: 8 counts during -1 steps\n" + p +
      "ExecuteTime too slow: longest instance took 400d. Please open a GitHub issue.\n" + p +
      "ExecuteTime too slow: longest instance took 1s. Please open a GitHub issue.\n" + p +
      std::string(80, '=') + "\n" + p +
      "Unlowered Op usage summary (more of these ops, lower performance)\n" + p +
      "FRAME (count=-2):\n" + p + "Unlowered Op: \"aten::nonzero\"\n" + p + std::string(80, '=') +
      "\n";
  CollectingSink sink = run(text);
  EXPECT_EQ(all<XlaProfilerNote>(sink),
            (Strings{"L3 too_frequent CompileTime 7/- - | CompileTime too frequent: 7 counts "
                     "during 9007199254740993 steps",
                     "L4 too_frequent CompileTime 8/- - | CompileTime too frequent: 8 counts "
                     "during -1 steps",
                     "L5 too_slow ExecuteTime -/- - | ExecuteTime too slow: longest instance "
                     "took 400d. Please open a GitHub issue.",
                     "L6 too_slow ExecuteTime -/- 1.000000 | ExecuteTime too slow: longest "
                     "instance took 1s. Please open a GitHub issue.",
                     "L9 unlowered_summary_frame  -/- - | Unlowered Op: \"aten::nonzero\""}));
  EXPECT_EQ(sink.note_counts(), (Notes{{"rejected:implausible_count", 2},
                                       {"skipped:summary_decoration", 3},
                                       {"warning:implausible_count", 1},
                                       {"warning:implausible_duration", 1},
                                       {"warning:implausible_step", 2}}));
  EXPECT_EQ(rejected_lines(sink), (Lines{1, 2}));
  EXPECT_EQ(warning_lines(sink), (Lines{3, 4, 5, 9}));
}

// A progress line opened by a time before 2000 or after 2100 is no step marker: skipped as
// `implausible_timestamp` (docs/reasons.md); one with a plausible time is a marker.
TEST(PtXlaDebugPlausible, ProgressLineWithAClockOutOfRangeIsNoStepMarker) {
  CollectingSink sink =
      run("1970-01-01 00:00:05 step 3 | loss 1.0\n"
          "2150-06-01 10:00:00 step 4 | loss 1.0\n"
          "2026-11-26 20:42:48 step 5 | loss 1.0\n");
  EXPECT_EQ(all<StepMarker>(sink), (Strings{"L3 5 step_line"}));
  EXPECT_EQ(sink.note_counts(), (Notes{{"skipped:implausible_timestamp", 2}}));
}

}  // namespace pt_xla_debug_importer_test
}  // namespace rcf::ingest
