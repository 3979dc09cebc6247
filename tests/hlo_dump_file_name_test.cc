// parse_dump_file_name over every name of the fixtures/xla/xla_dump_listing_* files and the
// other forms of docs/hlo_text.md (File names).
#include "ingest/xla/hlo_dump_file_name.h"

#include <gtest/gtest.h>

#include <optional>
#include <string>

#include "tests/support/collecting_sink.h"

namespace rcf::ingest {
namespace hlo_dump_file_name_test {

struct Expected {
  std::string file;
  std::optional<int64_t> id;
  std::string name;
  std::string stage;
  bool hlo;
};

void expect_name(const Expected& e) {
  DumpFileName d = parse_dump_file_name(e.file);
  EXPECT_EQ(d.module_id, e.id) << e.file;
  EXPECT_EQ(d.module_name, e.name) << e.file;
  EXPECT_EQ(d.stage, e.stage) << e.file;
  EXPECT_EQ(d.is_hlo_text, e.hlo) << e.file;
}

// Every line of the listing must have an expectation, and vice versa.
void check_listing(const std::string& fixture, const std::vector<Expected>& expected) {
  std::string text = rcf::testing::read_fixture("xla/" + fixture);
  std::vector<std::string> names;
  for (size_t pos = 0; pos < text.size();) {
    size_t nl = text.find('\n', pos);
    if (nl == std::string::npos) nl = text.size();
    if (nl > pos) names.push_back(text.substr(pos, nl - pos));
    pos = nl + 1;
  }
  ASSERT_EQ(names.size(), expected.size());
  for (size_t k = 0; k < names.size(); ++k) {
    EXPECT_EQ(names[k], expected[k].file);
    expect_name(expected[k]);
  }
}

TEST(HloDumpFileName, GpuTorchXlaListing) {
  const std::string n = "SyncTensorsGraph.68";
  check_listing("xla_dump_listing_issue7053.txt",
                {
                    {"module_0001.SyncTensorsGraph.68.autotune_results.pbtxt", 1, n,
                     "autotune_results.pbtxt", false},
                    {"module_0001.SyncTensorsGraph.68.before_optimizations.txt", 1, n,
                     "before_optimizations", true},
                    {"module_0001.SyncTensorsGraph.68.gpu_target_config.pbtxt", 1, n,
                     "gpu_target_config.pbtxt", false},
                    {"module_0001.SyncTensorsGraph.68.ir-no-opt.ll", 1, n, "ir-no-opt.ll", false},
                    {"module_0001.SyncTensorsGraph.68.sm_9.0_gpu_after_optimizations-buffer-"
                     "assignment.txt",
                     1, n, "after_optimizations-buffer-assignment", false},
                    {"module_0001.SyncTensorsGraph.68.sm_9.0_gpu_after_optimizations.txt", 1, n,
                     "after_optimizations", true},
                });
}

TEST(HloDumpFileName, TpuJaxListing) {
  const std::string n = "jit_train_step";
  check_listing(
      "xla_dump_listing_openxla7193.txt",
      {
          {"module_0021.jit_train_step.before_optimizations.txt", 21, n, "before_optimizations",
           true},
          {"module_0021.jit_train_step.execution_options.txt", 21, n, "execution_options", false},
          {"module_0021.jit_train_step.flagfile", 21, n, "flagfile", false},
          {"module_0021.jit_train_step.hlo_module_config.txt", 21, n, "hlo_module_config", false},
          {"module_0021.jit_train_step.target_arguments.txt", 21, n, "target_arguments", false},
          {"module_0021.jit_train_step.tpu_comp_env.txt", 21, n, "tpu_comp_env", false},
          {"module_0023.jit_train_step.after_optimizations-buffer-assignment.txt", 23, n,
           "after_optimizations-buffer-assignment", false},
          {"module_0023.jit_train_step.after_optimizations.txt", 23, n, "after_optimizations",
           true},
          {"module_0023.jit_train_step.after_optimizations_after_buffer_assignment.txt", 23, n,
           "after_optimizations_after_buffer_assignment", true},
          {"module_0023.jit_train_step.after_optimizations_before_buffer_assignment.txt", 23, n,
           "after_optimizations_before_buffer_assignment", true},
      });
}

TEST(HloDumpFileName, OtherForms) {
  expect_name({"/tmp/dump/module_0001.jit_f.cpu_after_optimizations.txt", 1, "jit_f",
               "after_optimizations", true});
  expect_name({"C:\\dump\\module_0007.before_optimizations.txt", 7, "", "before_optimizations",
               true});  // name dropped (too long)
  expect_name({"1712345678901234.module_0042.jit_step.before_optimizations.txt", 42, "jit_step",
               "before_optimizations", true});
  expect_name({"module_0001.jit_f.0003.simp.after_algsimp.before_dce.txt", 1, "jit_f",
               "0003.simp.after_algsimp.before_dce", true});
  expect_name(
      {"module_0002.SyncTensorsGraph.7.0012.optimization.after_reshape-mover.before_"
       "fusion.txt",
       2, "SyncTensorsGraph.7", "0012.optimization.after_reshape-mover.before_fusion", true});
  expect_name(
      {"module_0003.sm_8.0_gpu_after_optimizations.txt", 3, "", "after_optimizations", true});
  expect_name({"module_12345.m.1.2.sm_9.0_gpu_after_optimizations.txt", 12345, "m.1.2",
               "after_optimizations", true});
  expect_name({"module_0001.jit_f.before_optimizations.hlo.pb", 1, "jit_f",
               "before_optimizations.hlo.pb", false});
  expect_name({"module_0001.jit_f.before_optimizations.dot", 1, "jit_f", "before_optimizations.dot",
               false});
  expect_name({"module_0001.metadata.textproto", 1, "", "metadata.textproto", false});
  expect_name({"1700.module_0004.jit_f.execution_0002.hlo_snapshot.pb", 4, "jit_f",
               "execution_0002.hlo_snapshot.pb", false});
  expect_name({"module_0005.jit_f.ptx", 5, "jit_f", "ptx", false});
  expect_name({"notes.txt", std::nullopt, "", "", false});
  expect_name({"module_.txt", std::nullopt, "", "", false});
  expect_name({"", std::nullopt, "", "", false});
  expect_name({"module_0001", 1, "", "", false});
}

}  // namespace hlo_dump_file_name_test
}  // namespace rcf::ingest
