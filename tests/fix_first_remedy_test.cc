// The remedy the fix-first view shows fits the group's example, end to end (log -> store ->
// analysis -> fix_first): a resume function made by a graph break that is not a host sync is told
// to remove that break, one made by `.item()` to keep the value on device, an alternation to wrap
// the accumulation chain.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "pipeline/ingest_pipeline.h"
#include "store/store.h"
#include "tests/support/db_dump.h"
#include "tests/support/ingested_store.h"
#include "tests/support/temp_files.h"

namespace rcf {
namespace fix_first_remedy_test {

using testing::column;
using testing::fixture_path;
using testing::ingest_logs;
using testing::read_store;
using testing::TempDir;

// "cause: remedy" of every fix-first row of the store, in rank order, after ingesting `paths`.
std::vector<std::string> fix_first_remedies(const std::vector<std::string>& paths) {
  TempDir dir;
  std::vector<std::string> logs;
  for (const std::string& p : paths) logs.push_back(fixture_path(p));
  ingest_logs(dir.file("rcf.db"), logs);
  auto db = read_store(dir.file("rcf.db"));
  return column(*db,
                "SELECT cause || ': ' || coalesce(remedy, '<none>') FROM fix_first "
                "ORDER BY run_id, rank");
}

const char* const kRemoveTheBreak =
    "sync_fragment: remove the graph break the detail names (an unsupported call, or "
    "torch._dynamo.graph_break()): use a supported equivalent or move it out of the compiled "
    "function; TORCH_LOGS=graph_breaks lists every break";
const char* const kRemoveTheSync =
    "sync_fragment: remove .item(), .cpu(), print(tensor) and data-dependent Python branches from "
    "the step; keep the result on device";

// TORCH_TRACE of PyTorch's test_misc: two explicit torch._dynamo.graph_break() calls ("skip
// function graph_break"), neither a host sync.
TEST(FixFirstRemedy, AGraphBreakThatIsNotAHostSyncIsToldToRemoveTheBreak) {
  EXPECT_EQ(fix_first_remedies({"torch_trace/comp_metrics.log"}),
            (std::vector<std::string>{kRemoveTheBreak, kRemoveTheBreak}));
}

// The Dynamo scenario lane: the resume function of an `.item()` break (plus shape recompiles).
TEST(FixFirstRemedy, AnItemBreakKeepsTheHostSyncRemedy) {
  std::vector<std::string> remedies = fix_first_remedies({"scenarios/dynamo_lane/train.log"});
  int sync_rows = 0;
  for (const std::string& r : remedies) {
    EXPECT_NE(r, kRemoveTheBreak);
    if (r == kRemoveTheSync) ++sync_rows;
  }
  EXPECT_GE(sync_rows, 1);
}

TEST(FixFirstRemedy, AnAlternationIsToldToWrapTheAccumulationChain) {
  std::vector<std::string> paths;
  for (const char* f : {"metrics.txt", "pt_xla_debug.log", "save_tensors.hlo.0", "steps.csv"})
    paths.push_back(std::string("scenarios/grad_alternation/") + f);
  EXPECT_EQ(fix_first_remedies(paths),
            (std::vector<std::string>{
                "graph_structure: wrap the whole accumulation chain in one compiled region and do "
                "not use zero_grad(set_to_none=True) inside it"}));
}

}  // namespace fix_first_remedy_test
}  // namespace rcf
