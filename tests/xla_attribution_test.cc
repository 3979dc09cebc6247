// Attribution of torch_xla compiles from what a run's artifacts can and cannot show
// (analysis/xla_compiles.h): confidence follows the number of artifacts that agree, and a cause
// the artifacts cannot decide names the artifact that would.
#include <gtest/gtest.h>

#include <map>
#include <optional>
#include <string>
#include <utility>

#include "analysis/xla_compiles.h"

namespace rcf::analysis {
namespace xla_attribution_test {

XlaBlockRecord compile_at(int64_t line, int64_t step, const std::string& hash,
                          const std::string& cause_class = "step_end") {
  XlaBlockRecord b;
  b.source_id = 1;
  b.line = line;
  b.step = step;
  b.kind = "compile";
  b.cause =
      cause_class == "step_end" ? "user mark_step" : "user code trying to access tensor value";
  b.cause_class = cause_class;
  b.graph_hash = hash;
  b.inputs = 3;
  b.outputs = 1;
  b.frames = {{"/work/train.py", 40, "train_step"}};
  return b;
}

XlaRunInputs two_programs_at_one_site() {
  XlaRunInputs in;
  in.source_names = {{1, "debug.log"}};
  in.steps_seen = 10;
  in.blocks = {compile_at(10, 1, "aa01"), compile_at(20, 2, "bb02")};
  return in;
}

const AttributedCompile& second(const XlaRunResult& r) {
  EXPECT_EQ(r.compiles.size(), 2u);
  return r.compiles.at(1);
}

// An HLO view with one f32[8] parameter; its full fingerprint follows the structure.
ProgramView hlo_view(std::map<std::string, int64_t> ops, const std::string& structure,
                     const std::string& skeleton) {
  ProgramView v;
  v.has_hlo = true;
  v.parameters = {{0, "f32", {8}, "f32[8]"}};
  v.op_histogram = std::move(ops);
  v.structure_fingerprint = structure;
  v.full_fingerprint = "full " + structure;
  v.skeleton_fingerprint = skeleton;
  return v;
}

// Links `before` and `after` to the two compiles (graph hashes aa01, bb02) as HLO modules 1, 2.
XlaRunInputs with_hlo(XlaRunInputs in, ProgramView before, ProgramView after) {
  int64_t id = 1;
  for (ProgramView* v : {&before, &after}) {
    const char* hash = id == 1 ? "aa01" : "bb02";
    in.hlo_modules.push_back({id, "SyncTensorsGraph.1", "", hash, std::nullopt});
    v->hlo_module_id = id;
    in.hlo_programs[id++] = std::move(*v);
  }
  return in;
}

TEST(XlaAttribution, WithoutHloOrExecutionsTheDetailNamesBothArtifactsThatWouldDecide) {
  XlaRunResult r = analyze_xla_run(two_programs_at_one_site(), 1);
  const AttributedCompile& c = second(r);
  EXPECT_EQ(c.cause, "unknown");
  EXPECT_EQ(c.confidence, "low");
  EXPECT_EQ(c.detail,
            "no HLO captured for either program; graph inputs unchanged (3); capture HLO to "
            "decide: XLA_SAVE_TENSORS_FILE=FILE with XLA_SAVE_TENSORS_FMT=hlo, or "
            "XLA_FLAGS=--xla_dump_to=DIR; PT_XLA_DEBUG_LEVEL=2 (Execution blocks) would show "
            "whether this site alternates between its programs");
}

TEST(XlaAttribution, ExecutionsWithoutHloShowTheAlternationButNotItsCause) {
  XlaRunInputs in = two_programs_at_one_site();
  // PT_XLA_DEBUG_LEVEL=2: both programs run every other step through step 10.
  in.executions_by_hash = {{"aa01", {5, 5, 1, 9}}, {"bb02", {5, 5, 2, 10}}};
  XlaRunResult r = analyze_xla_run(std::move(in), 1);
  const AttributedCompile& c = second(r);
  EXPECT_EQ(c.cause, "unknown");
  EXPECT_EQ(c.detail.rfind("the site alternates between two programs (both programs keep "
                           "executing: aa01 in 5 steps (1..9), bb02 in 5 steps (2..10)); no HLO "
                           "captured for either program",
                           0),
            0u)
      << c.detail;
  EXPECT_EQ(c.detail.find("PT_XLA_DEBUG_LEVEL=2"), std::string::npos) << c.detail;
}

TEST(XlaAttribution, AStructureChangeInALevelOneLogSaysLevelTwoWouldShowAlternation) {
  ProgramView before = hlo_view({{"parameter", 1}, {"multiply", 1}}, "s1", "k1");
  ProgramView after = hlo_view({{"parameter", 1}, {"multiply", 1}, {"add", 1}}, "s2", "k2");
  XlaRunInputs in = with_hlo(two_programs_at_one_site(), before, after);
  XlaRunResult r = analyze_xla_run(std::move(in), 1);
  const AttributedCompile& c = second(r);
  EXPECT_EQ(c.cause, "graph_structure");
  EXPECT_EQ(c.detail,
            "same inputs, different ops: +1 add; PT_XLA_DEBUG_LEVEL=2 (Execution blocks) would "
            "show whether this site alternates between its programs");
}

TEST(XlaAttribution, AnAttributeOnlyChangeIsAConstantEvenWhenItsInstructionsCannotBeNamed) {
  // The same ops wired the same way (one skeleton), another structure.
  ProgramView before = hlo_view({{"parameter", 1}, {"slice", 1}}, "s1", "k1");
  ProgramView after = hlo_view({{"parameter", 1}, {"slice", 1}}, "s2", "k1");
  XlaRunInputs in = with_hlo(two_programs_at_one_site(), before, after);
  XlaRunInputs failing = in;
  const AttributedCompile c = second(analyze_xla_run(std::move(in), 1));
  EXPECT_EQ(c.cause, "constant");
  EXPECT_EQ(c.confidence, "medium");
  EXPECT_EQ(c.subject, "op attributes");
  EXPECT_NE(
      c.detail.find("; which ones is not known: no HLO instructions stored for the two modules"),
      std::string::npos)
      << c.detail;

  failing.describe_op_attributes = [](int64_t before_module, int64_t after_module,
                                      std::string* error) {
    EXPECT_EQ(before_module, 1);
    EXPECT_EQ(after_module, 2);
    *error = "/gone/save_tensors.hlo.0: No such file or directory";
    return std::optional<OpAttributeChanges>();
  };
  const AttributedCompile f = second(analyze_xla_run(std::move(failing), 1));
  EXPECT_EQ(f.cause, "constant");
  EXPECT_NE(f.detail.find(
                "; which ones is not known: /gone/save_tensors.hlo.0: No such file or directory"),
            std::string::npos)
      << f.detail;
}

XlaRunInputs one_fragment() {
  XlaRunInputs in;
  in.source_names = {{1, "debug.log"}, {2, "metrics.txt"}, {3, "profiler.log"}};
  in.steps_seen = 3;
  in.blocks = {compile_at(10, 1, "aa01"), compile_at(20, 2, "ff01", "tensor_value_access")};
  return in;
}

TEST(XlaAttribution, AFragmentSeenOnlyInPtXlaDebugIsMedium) {
  XlaRunResult r = analyze_xla_run(one_fragment(), 1);
  const AttributedCompile& c = second(r);
  EXPECT_EQ(c.cause, "sync_fragment");
  EXPECT_EQ(c.confidence, "medium");
  EXPECT_EQ(c.evidence,
            "PT_XLA_DEBUG Compilation Analysis at debug.log:20\nvalue read at /work/train.py:40 "
            "(train_step): the innermost user frame of the PT_XLA_DEBUG "
            "Compilation Analysis at debug.log:20");
  EXPECT_NE(
      c.detail.find("; seen only in PT_XLA_DEBUG (an XLA_METRICS_FILE report would confirm it)"),
      std::string::npos)
      << c.detail;
}

TEST(XlaAttribution, TheCounterGrowingInTheFragmentsStepMakesItHigh) {
  XlaRunInputs in = one_fragment();
  in.host_syncs.scalar_dense_by_step = {{1, 0}, {2, 3}, {3, 3}};
  in.host_syncs.scalar_dense_max = 3;
  in.host_syncs.scalar_dense_where = "metrics.txt:40";
  XlaRunResult r = analyze_xla_run(std::move(in), 1);
  const AttributedCompile& c = second(r);
  EXPECT_EQ(c.confidence, "high");
  EXPECT_EQ(c.evidence,
            "PT_XLA_DEBUG Compilation Analysis at debug.log:20; the metrics counter "
            "aten::_local_scalar_dense grew by 3 in step 2\nvalue read at /work/train.py:40 "
            "(train_step): the innermost user frame of the PT_XLA_DEBUG "
            "Compilation Analysis at debug.log:20");
  EXPECT_EQ(c.detail.find("seen only in PT_XLA_DEBUG"), std::string::npos) << c.detail;
}

TEST(XlaAttribution, ARunWideCountOrTheProfilerWarningAlsoCorroborates) {
  XlaRunInputs counted = one_fragment();
  counted.host_syncs.scalar_dense_by_step = {{3, 5}};  // reports only at step 3
  counted.host_syncs.scalar_dense_max = 5;
  counted.host_syncs.scalar_dense_where = "metrics.txt:90";
  const AttributedCompile c = second(analyze_xla_run(std::move(counted), 1));
  EXPECT_EQ(c.confidence, "high");
  EXPECT_EQ(c.evidence,
            "PT_XLA_DEBUG Compilation Analysis at debug.log:20; the metrics counter "
            "aten::_local_scalar_dense reached 5 at metrics.txt:90\nvalue read at "
            "/work/train.py:40 (train_step): the innermost user frame of the PT_XLA_DEBUG "
            "Compilation Analysis at debug.log:20");

  XlaRunInputs warned = one_fragment();
  // A note of another log (source 3) follows no fragment of debug.log: run-wide evidence.
  warned.host_syncs.transfer_notes = {{3, 7, "TransferFromDeviceTime", 12, 4}};
  const AttributedCompile w = second(analyze_xla_run(std::move(warned), 1));
  EXPECT_EQ(w.confidence, "high");
  EXPECT_EQ(w.evidence,
            "PT_XLA_DEBUG Compilation Analysis at debug.log:20\nvalue read at /work/train.py:40 "
            "(train_step): the innermost user frame of the PT_XLA_DEBUG "
            "Compilation Analysis at debug.log:20\npt-xla-profiler at "
            "profiler.log:7 (run-wide: no note follows this fragment in its log): "
            "TransferFromDeviceTime too frequent: 12 counts during 4 steps (3.0 per step)");
}

}  // namespace xla_attribution_test
}  // namespace rcf::analysis
