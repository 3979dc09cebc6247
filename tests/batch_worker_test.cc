// BatchWorker: batches consumed on a worker thread in hand-over order; on_start runs there first.
// With inline_batches, the first ones are consumed on the producer's thread, before any thread.
#include "util/batch_worker.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <future>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace rcf::util {
namespace batch_worker_test {

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

// on_start does not wait for a batch: a producer that hands none over still sees it run, once,
// on the worker thread (here it signals a promise that the test waits on, with a deadline, before
// handing anything over); the batches handed over afterwards are consumed after it.
TEST(BatchWorker, OnStartRunsWithoutWaitingForABatch) {
  std::promise<std::thread::id> started;
  auto ran = started.get_future();
  std::atomic<int> starts = 0;
  std::vector<int> seen;  // the worker's until finish()
  BatchWorker<int> worker(
      [&](std::vector<int>& batch) { seen.insert(seen.end(), batch.begin(), batch.end()); }, 2,
      [&] {
        ++starts;
        started.set_value(std::this_thread::get_id());
      });
  // A deadline instead of wait(): if on_start waited for the first batch, this fails.
  ASSERT_EQ(ran.wait_for(std::chrono::seconds(30)), std::future_status::ready)
      << "on_start did not run before a batch was handed over";
  EXPECT_NE(ran.get(), std::this_thread::get_id());
  EXPECT_EQ(starts.load(), 1);
  worker.hand_over({7});
  worker.finish();
  EXPECT_EQ(starts.load(), 1);
  EXPECT_EQ(seen, (std::vector<int>{7}));
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

// inline_batches: the first batch (and on_start before it) is consumed on the producer's
// thread, in hand_over(); the thread starts at the second, which it consumes.
TEST(BatchWorker, InlineBatchesAreConsumedByTheProducerUntilTheThreadStarts) {
  std::vector<std::thread::id> threads;  // of on_start, then of each batch
  std::vector<int> seen;
  BatchWorker<int> worker(
      [&](std::vector<int>& batch) {
        threads.push_back(std::this_thread::get_id());
        seen.insert(seen.end(), batch.begin(), batch.end());
      },
      2, [&] { threads.push_back(std::this_thread::get_id()); }, false, /*inline_batches=*/1);
  EXPECT_TRUE(threads.empty());  // on_start waits for the first batch
  std::vector<int> back = worker.hand_over({1, 2});
  ASSERT_EQ(threads.size(), 2u);  // consumed before hand_over returned
  EXPECT_EQ(threads[0], std::this_thread::get_id());
  EXPECT_EQ(threads[1], std::this_thread::get_id());
  EXPECT_TRUE(back.empty());
  EXPECT_GE(back.capacity(), 2u);  // the consumed batch, to refill
  worker.hand_over({3});
  worker.finish();
  ASSERT_EQ(threads.size(), 3u);
  EXPECT_NE(threads[2], std::this_thread::get_id());
  EXPECT_EQ(seen, (std::vector<int>{1, 2, 3}));
}

// A worker that never got a batch still runs on_start, once, by finish(); finish_with() consumes
// its last batch on the producer's thread when no thread runs.
TEST(BatchWorker, FinishRunsOnStartAndTheLastBatchWithoutAThread) {
  std::vector<std::thread::id> threads;
  int starts = 0;
  BatchWorker<int> idle([&](std::vector<int>&) {}, 2, [&] { ++starts; }, false, 1);
  idle.finish();
  EXPECT_EQ(starts, 1);
  std::vector<int> seen;
  BatchWorker<int> worker(
      [&](std::vector<int>& batch) {
        threads.push_back(std::this_thread::get_id());
        seen.insert(seen.end(), batch.begin(), batch.end());
      },
      2, nullptr, false, 1);
  worker.hand_over({1});
  worker.finish_with({2, 3});
  EXPECT_EQ(seen, (std::vector<int>{1, 2, 3}));
  EXPECT_EQ(threads, (std::vector<std::thread::id>(2, std::this_thread::get_id())));
}

// An error of an inline batch is the worker's error as on its thread: the batches after it are
// dropped and finish() rethrows it.
TEST(BatchWorker, AnErrorInAnInlineBatchIsRethrownByFinish) {
  int consumed = 0;
  BatchWorker<int> worker(
      [&](std::vector<int>& batch) {
        consumed += static_cast<int>(batch.size());
        throw std::runtime_error("disk full");
      },
      2, nullptr, false, 1);
  worker.hand_over({1, 2});
  worker.hand_over({3});
  EXPECT_THROW(worker.finish(), std::runtime_error);
  EXPECT_EQ(consumed, 2);
}

// exchange(): every item is consumed once, in order (the last partial batch too); what it leaves
// behind is a default item or one consumed earlier, never one still queued.
TEST(BatchFeeder, ExchangeHandsItemsOverAndLeavesConsumedOnes) {
  std::vector<std::string> seen;  // the worker's until finish()
  BatchFeeder<std::string> feeder(
      [&](std::vector<std::string>& batch) { seen.insert(seen.end(), batch.begin(), batch.end()); },
      /*batch_items=*/3, /*max_queued=*/1, nullptr, /*reuse_items=*/true);
  std::vector<std::string> handed;
  std::string item;
  for (int i = 0; i < 100; ++i) {
    std::string text = "item " + std::to_string(i) + std::string(40, 'x');  // not inline
    handed.push_back(text);
    item.assign(text);
    feeder.exchange(item);
    if (!item.empty()) {
      // A consumed item: one handed over at least a batch earlier.
      auto at = std::find(handed.begin(), handed.end(), item);
      ASSERT_NE(at, handed.end()) << item;
      EXPECT_LE(at - handed.begin(), i - 3) << item;
    }
  }
  feeder.finish();
  EXPECT_EQ(seen, handed);  // 33 full batches and a last one of 1
}

TEST(BatchFeeder, AddAfterReusedBatchesComeBack) {
  std::vector<int> seen;
  BatchFeeder<int> feeder(
      [&](std::vector<int>& batch) { seen.insert(seen.end(), batch.begin(), batch.end()); },
      /*batch_items=*/4, /*max_queued=*/1, nullptr, /*reuse_items=*/true);
  std::vector<int> handed;
  for (int i = 0; i < 50; ++i) {
    handed.push_back(i);
    feeder.add(int(i));
  }
  feeder.finish();
  EXPECT_EQ(seen, handed);
}

}  // namespace batch_worker_test
}  // namespace rcf::util
