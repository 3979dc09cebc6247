// Which graph break made a resume function, end to end (Dynamo text log -> store -> attribution):
// the break whose user stack holds the frame the resume function was split from, and never a
// break of another file that only shares the function name.
#include <gtest/gtest.h>

#include <string>

#include "pipeline/ingest_pipeline.h"
#include "store/store.h"
#include "tests/support/db_dump.h"
#include "tests/support/ingested_store.h"
#include "tests/support/temp_files.h"

namespace rcf {
namespace resume_break_link_test {

using testing::scalar;
using testing::TempDir;

std::string detail_of(const std::string& db_path, const std::string& program_key) {
  auto db = store::open_store(db_path, store::OpenMode::kRead);
  return scalar(*db,
                "SELECT detail || ' [' || confidence || ']' FROM recompiles WHERE "
                "program_key = '" +
                    program_key + "'");
}

// Two corpus logs of unrelated projects ingested as one run (as `rcf demo` does with its corpus
// lane): the resume function torch_dynamo_resume_in_forward_at_172 of based/models/block.py and
// an `.item()` break in forward at molpot/potential/base.py:32. They share only the name
// "forward"; the resume function's break is not in these logs, and the detail must say so.
TEST(ResumeBreakLink, ABreakOfAnotherFileThatSharesTheFunctionNameIsNotTheCause) {
  TempDir dir;
  testing::ingest_logs(
      dir.file("rcf.db"),
      {testing::fixture_path("dynamo/graph_breaks_pytorch_scatter_issue457_item.txt"),
       testing::fixture_path("dynamo/recompiles_verbose_pytorch_issue128071_type_id_const.txt")});
  const std::string detail = detail_of(dir.file("rcf.db"), "16/8");
  EXPECT_NE(detail.find("resume function torch_dynamo_resume_in_forward_at_172 exists because of "
                        "a graph break in forward at line 172; the break itself is not in the "
                        "logs (enable TORCH_LOGS=graph_breaks to see its reason)"),
            std::string::npos)
      << detail;
  EXPECT_EQ(detail.find("molpot"), std::string::npos) << detail;
  EXPECT_TRUE(detail.ends_with("[medium]")) << detail;
}

// A 2.x graph_breaks log where `.item()` is called inside a submodule's forward (block.py:12),
// inlined into the compiled Model.forward: Dynamo splits Model.forward at the line of the call
// (model.py:57), so the resume function is torch_dynamo_resume_in_forward_at_57 in model.py.
// Only the break's stack links the two.
constexpr const char* kNestedBreakLog =
    R"(W1102 09:14:03.112000 7021 torch/_dynamo/variables/tensor.py:1047] [0/0] Graph break from `Tensor.item()`, consider setting:
W1102 09:14:03.112000 7021 torch/_dynamo/variables/tensor.py:1047] [0/0]     torch._dynamo.config.capture_scalar_outputs = True
W1102 09:14:03.112000 7021 torch/_dynamo/variables/tensor.py:1047] [0/0] 
W1102 09:14:03.112000 7021 torch/_dynamo/variables/tensor.py:1047] [0/0] Graph break: from user code at:
W1102 09:14:03.112000 7021 torch/_dynamo/variables/tensor.py:1047] [0/0]   File "/work/net/head.py", line 30, in forward
W1102 09:14:03.112000 7021 torch/_dynamo/variables/tensor.py:1047] [0/0]     if logits.max().item() > 50:
W1102 09:14:03.112000 7021 torch/_dynamo/variables/tensor.py:1047] [0/0] 
W1102 09:14:03.113000 7021 torch/_dynamo/variables/tensor.py:1047] [1/0] Graph break from `Tensor.item()`, consider setting:
W1102 09:14:03.113000 7021 torch/_dynamo/variables/tensor.py:1047] [1/0]     torch._dynamo.config.capture_scalar_outputs = True
W1102 09:14:03.113000 7021 torch/_dynamo/variables/tensor.py:1047] [1/0] or:
W1102 09:14:03.113000 7021 torch/_dynamo/variables/tensor.py:1047] [1/0]     env TORCHDYNAMO_CAPTURE_SCALAR_OUTPUTS=1
W1102 09:14:03.113000 7021 torch/_dynamo/variables/tensor.py:1047] [1/0] to include these operations in the captured graph.
W1102 09:14:03.113000 7021 torch/_dynamo/variables/tensor.py:1047] [1/0] 
W1102 09:14:03.113000 7021 torch/_dynamo/variables/tensor.py:1047] [1/0] Graph break: from user code at:
W1102 09:14:03.113000 7021 torch/_dynamo/variables/tensor.py:1047] [1/0]   File "/work/net/model.py", line 57, in forward
W1102 09:14:03.113000 7021 torch/_dynamo/variables/tensor.py:1047] [1/0]     h = self.block(h, mask)
W1102 09:14:03.113000 7021 torch/_dynamo/variables/tensor.py:1047] [1/0]   File "/work/net/block.py", line 12, in forward
W1102 09:14:03.113000 7021 torch/_dynamo/variables/tensor.py:1047] [1/0]     n = int(mask.sum().item())
W1102 09:14:03.113000 7021 torch/_dynamo/variables/tensor.py:1047] [1/0] 
V1102 09:15:41.530000 7021 torch/_dynamo/guards.py:2940] [2/1] [__recompiles] Recompiling function torch_dynamo_resume_in_forward_at_57 in /work/net/model.py:57
V1102 09:15:41.530000 7021 torch/_dynamo/guards.py:2940] [2/1] [__recompiles]     triggered by the following guard failure(s):
V1102 09:15:41.530000 7021 torch/_dynamo/guards.py:2940] [2/1] [__recompiles]     - 2/0: tensor 'L['h']' size mismatch at index 0. expected 8, actual 16
)";

TEST(ResumeBreakLink, AResumeFunctionIsLinkedThroughTheOuterFrameOfANestedBreak) {
  TempDir dir;
  const std::string log = dir.file("train.log");
  testing::write_file(log, kNestedBreakLog);
  auto summary = testing::ingest_logs(dir.file("rcf.db"), {log});
  EXPECT_EQ(summary.rejected, 0);
  const std::string detail = detail_of(dir.file("rcf.db"), "2/1");
  // The break named is the .item() of block.py:12 (the triggering frame), not the break logged
  // first in another forward (head.py), which shares only the function name.
  // The fragment recompiled for its own guard (the shape of h); the detail still names the break
  // that made the fragment.
  EXPECT_NE(detail.find("tensor 'h' dim 0: 8 -> 16; resume function "
                        "torch_dynamo_resume_in_forward_at_57 exists because of a graph break in "
                        "forward at line 57: Graph break from `Tensor.item()`, consider setting: "
                        "(/work/net/block.py:12)"),
            std::string::npos)
      << detail;
  EXPECT_TRUE(detail.ends_with("[high]")) << detail;
}

}  // namespace resume_break_link_test
}  // namespace rcf
