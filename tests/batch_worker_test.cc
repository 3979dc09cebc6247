// BatchWorker: batches consumed on a worker thread in hand-over order; on_start runs there first.
#include "util/batch_worker.h"

#include <gtest/gtest.h>

#include <atomic>
#include <future>
#include <stdexcept>
#include <thread>
#include <vector>

namespace rcf::util {
namespace {

TEST(BatchWorker, OnStartRunsOnTheWorkerThreadBeforeTheFirstBatch) {
  std::vector<int> seen;  // touched only by the worker thread until finish() returns
  std::thread::id start_thread;
  BatchWorker<int> worker(
      [&](std::vector<int>& batch) { seen.insert(seen.end(), batch.begin(), batch.end()); }, 2,
      [&] {
        start_thread = std::this_thread::get_id();
        seen.push_back(-1);
      });
  worker.hand_over({1, 2});
  worker.hand_over({3});
  worker.finish();
  EXPECT_EQ(seen, (std::vector<int>{-1, 1, 2, 3}));
  EXPECT_NE(start_thread, std::this_thread::get_id());
}

// on_start does not wait for a batch: a producer that hands none over still sees it run (here
// it signals a promise that the test waits on before handing anything over).
TEST(BatchWorker, OnStartRunsWithoutWaitingForABatch) {
  std::promise<void> started;
  auto ran = started.get_future();
  BatchWorker<int> worker([](std::vector<int>&) {}, 2, [&] { started.set_value(); });
  ran.wait();  // would hang if on_start waited for the first batch
  worker.finish();
}

TEST(BatchWorker, AnErrorInOnStartIsRethrownAndDropsTheBatches) {
  std::atomic<int> consumed = 0;
  BatchWorker<int> worker(
      [&](std::vector<int>& batch) { consumed += static_cast<int>(batch.size()); }, 2,
      [] { throw std::runtime_error("cannot clear"); });
  worker.hand_over({1, 2, 3});
  EXPECT_THROW(worker.finish(), std::runtime_error);
  EXPECT_EQ(consumed.load(), 0);
}

}  // namespace
}  // namespace rcf::util
