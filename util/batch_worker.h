// A consumer thread fed in batches through a bounded queue. The producer fills a vector and hands
// it over; the thread consumes the batches in hand-over order, one at a time; consumed batches come
// back to the producer with their capacity (a fresh vector costs page faults each time) and are
// emptied there: what the producer allocated is freed on its own thread, where the allocator
// recycles it at once (freed on the consumer's thread, it would go to the other thread's caches
// and cost locks and fragmentation). Memory stays bounded: hand_over() blocks while `max_queued`
// batches wait.
//
// A feeder may also exchange items (BatchFeeder::exchange): then the consumed batches come back
// with their items, and the producer refills those in place, so that an item's buffers (the
// strings of an attributed compile) are reused instead of allocated and freed once per item.
//
// Used by the single SQLite writer of an ingest (store/ingest_writer.cc), and through BatchFeeder
// (below: one item at a time) by the writer of a run's attributed compiles
// (store/compile_result_writer.cc) and the loader of a run's records (analysis/run_analysis.cc).
#pragma once

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

namespace rcf::util {

// The `inline_batches` of a worker whose input may be small (a log of a few KB): one batch is
// consumed on the producer's thread, and a thread starts only when a second one comes. The last
// batch handed to finish_with() is consumed there too when no thread runs by then.
inline constexpr size_t kInlineBatches = 1;

template <typename T>
class BatchWorker {
 public:
  // `consume` runs on the worker thread. Once it throws, the batches after it are dropped
  // unconsumed and wait_idle() / finish() rethrow the exception. `on_start`, when given, runs on
  // the worker thread first, before any batch (so that its work overlaps the producer's filling
  // of the first one); an exception from it is handled as one from `consume`.
  // `keep_items`: the batches hand_over() returns keep their consumed items (to be overwritten
  // by the producer) instead of coming back empty.
  // `inline_batches` > 0: the first that many batches are consumed on the producer's thread, in
  // hand_over() (on_start first), and the thread starts only at the batch after them. A small
  // input then costs no thread at all (docs/performance.md, "Small logs"); on_start runs by
  // finish() at the latest.
  BatchWorker(std::function<void(std::vector<T>&)> consume, size_t max_queued,
              std::function<void()> on_start = nullptr, bool keep_items = false,
              size_t inline_batches = 0)
      : consume_(std::move(consume)),
        on_start_(std::move(on_start)),
        max_queued_(max_queued),
        keep_items_(keep_items),
        inline_left_(inline_batches),
        on_start_pending_(on_start_ != nullptr) {
    if (inline_left_ == 0) start_thread();
  }
  // Consumes what is queued, then stops the thread (errors are dropped: call finish() to see
  // them).
  ~BatchWorker() { stop(); }
  BatchWorker(const BatchWorker&) = delete;
  BatchWorker& operator=(const BatchWorker&) = delete;

  // Queues `batch` (dropped when empty, or after a consumer error). Returns a consumed batch to
  // fill next, its capacity kept (emptied, unless `keep_items`), or {} when none is free.
  std::vector<T> hand_over(std::vector<T>&& batch) {
    if (batch.empty()) return std::move(batch);
    if (inline_left_ > 0) {
      --inline_left_;
      return consume_inline(std::move(batch));
    }
    if (!thread_.joinable() && !error_ && !stop_) start_thread();
    std::unique_lock lock(mu_);
    cv_.wait(lock, [&] { return queue_.size() < max_queued_ || error_ || stop_; });
    if (error_ || stop_) {
      batch.clear();
      return std::move(batch);
    }
    queue_.push_back(std::move(batch));
    cv_.notify_all();
    if (spare_.empty()) return {};
    std::vector<T> spare = std::move(spare_.back());
    spare_.pop_back();
    lock.unlock();
    if (!keep_items_) spare.clear();
    return spare;
  }

  // Waits until every batch handed over is consumed; rethrows the consumer's error.
  void wait_idle() {
    if (!thread_.joinable()) {  // not started (or stopped): nothing is queued
      run_on_start_inline();
      if (error_) std::rethrow_exception(error_);
      return;
    }
    std::unique_lock lock(mu_);
    cv_.wait(lock, [&] { return (queue_.empty() && !busy_) || error_; });
    if (error_) std::rethrow_exception(error_);
  }

  // wait_idle(), then stops the thread.
  void finish() {
    wait_idle();
    stop();
  }

  // Hands over `last` and finish()es. Without a thread running, `last` is consumed on this
  // thread: a thread started now would have nothing to overlap with.
  void finish_with(std::vector<T>&& last) {
    if (!thread_.joinable() && !last.empty())
      consume_inline(std::move(last));
    else
      hand_over(std::move(last));
    finish();
  }

 private:
  void stop() {
    {
      std::lock_guard lock(mu_);
      stop_ = true;
      cv_.notify_all();
    }
    if (thread_.joinable()) thread_.join();
  }

  // Runs `job` (on_start_ or a batch) outside the lock, then marks the thread idle; an exception
  // becomes error_ and drops the queued batches. Returns holding the lock.
  template <typename Job>
  std::unique_lock<std::mutex> run(Job&& job) {
    std::exception_ptr error;
    try {
      job();
    } catch (...) {
      error = std::current_exception();
    }
    std::unique_lock lock(mu_);
    busy_ = false;
    if (error) {
      error_ = error;
      queue_.clear();
    }
    return lock;
  }

  void start_thread() {
    busy_ = on_start_pending_;  // wait_idle() waits for on_start
    thread_ = std::thread([this] { loop(); });
  }

  // on_start, on the producer's thread, if it has not run yet.
  void run_on_start_inline() {
    if (!on_start_pending_) return;
    on_start_pending_ = false;
    try {
      on_start_();
    } catch (...) {
      error_ = std::current_exception();
    }
  }

  // A batch consumed on the producer's thread (no thread yet): returned to be refilled.
  std::vector<T> consume_inline(std::vector<T>&& batch) {
    run_on_start_inline();
    if (!error_) {
      try {
        consume_(batch);
      } catch (...) {
        error_ = std::current_exception();
      }
    }
    if (!keep_items_ || error_) batch.clear();
    return std::move(batch);
  }

  void loop() {
    if (on_start_pending_) {
      on_start_pending_ = false;
      auto lock = run(on_start_);
      cv_.notify_all();
    }
    for (;;) {
      std::vector<T> batch;
      {
        std::unique_lock lock(mu_);
        // Drains the queue before stopping.
        cv_.wait(lock, [&] { return !queue_.empty() || stop_; });
        if (queue_.empty()) return;
        batch = std::move(queue_.front());
        queue_.pop_front();
        busy_ = true;
        cv_.notify_all();
      }
      auto lock = run([&] { consume_(batch); });
      // A batch is only taken while there is no error, so error_ is this batch's.
      if (!error_ && spare_.size() < max_queued_) spare_.push_back(std::move(batch));
      cv_.notify_all();
    }
  }

  std::function<void(std::vector<T>&)> consume_;
  std::function<void()> on_start_;
  size_t max_queued_;
  bool keep_items_;
  size_t inline_left_;     // batches still to consume on the producer's thread
  bool on_start_pending_;  // set before the thread starts; then only the thread changes it
  std::mutex mu_;          // guards everything below but thread_
  std::condition_variable cv_;
  std::deque<std::vector<T>> queue_;
  std::vector<std::vector<T>> spare_;
  bool busy_ = false;
  bool stop_ = false;
  std::exception_ptr error_;
  std::thread thread_;  // started once everything above exists
};

// Feeds a BatchWorker one item at a time: items gather in a batch of `batch_items`, handed over
// when full (blocking while the worker is `max_queued` batches behind); `on_start` as for
// BatchWorker. finish() hands over the rest, waits until everything is consumed and stops the
// thread; it rethrows the consumer's error. Destroyed without finish(), the items of the partial
// batch are dropped.
template <typename T>
class BatchFeeder {
 public:
  // `reuse_items`: consumed items come back to be exchanged (see exchange()).
  // `inline_batches`: as for BatchWorker.
  BatchFeeder(std::function<void(std::vector<T>&)> consume, size_t batch_items, size_t max_queued,
              std::function<void()> on_start = nullptr, bool reuse_items = false,
              size_t inline_batches = 0)
      : batch_items_(batch_items),
        worker_(std::move(consume), max_queued, std::move(on_start), reuse_items, inline_batches) {
    batch_.reserve(batch_items_);
  }

  void add(T&& item) {
    if (filled_ < batch_.size())
      batch_[filled_] = std::move(item);
    else
      batch_.push_back(std::move(item));
    filled();
  }

  // Hands `item` over and leaves in its place an item consumed earlier (with `reuse_items`; a
  // default T until consumed batches come back, or without it): its buffers are the producer's
  // to refill. Everything allocated for items stays on the producer's thread.
  void exchange(T& item) {
    if (filled_ < batch_.size()) {
      using std::swap;
      swap(batch_[filled_], item);
    } else {
      batch_.emplace_back();
      using std::swap;
      swap(batch_.back(), item);
    }
    filled();
  }

  void finish() {
    batch_.resize(filled_);  // a reused batch's items past the last one handed over
    filled_ = 0;
    worker_.finish_with(std::move(batch_));
    batch_.clear();
  }

 private:
  void filled() {
    if (++filled_ < batch_items_) return;
    batch_.resize(filled_);
    filled_ = 0;
    batch_ = worker_.hand_over(std::move(batch_));
    if (batch_.capacity() < batch_items_) batch_.reserve(batch_items_);
  }

  size_t batch_items_;
  std::vector<T> batch_;
  size_t filled_ = 0;  // items of batch_ handed to this feeder; those after are consumed ones
  BatchWorker<T> worker_;
};

}  // namespace rcf::util
