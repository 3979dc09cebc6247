#include "pipeline/parse_ahead.h"

#include <algorithm>

#include "ingest/batching_sink.h"

namespace rcf::pipeline {
namespace {

// Batches go on to the SQLite writer's queue as they are (IngestWriter takes whole batches).
constexpr size_t kBatchEvents = 1024;
constexpr size_t kMaxQueuedBatches = 8;  // per source: 8192 events wait at most

// Thrown through an importer by ChannelSink::emit when the ParseAhead is being destroyed, to stop
// a parse nobody will consume; caught by the worker that ran it.
struct Abandoned {};

}  // namespace

// One source: what its worker produced, handed over under `mu`.
struct ParseAhead::Job {
  std::mutex mu;
  std::condition_variable cv;
  std::deque<std::vector<ingest::Event>> batches;
  bool done = false;
  bool abandoned = false;
  ingest::SourceOutcome outcome = ingest::SourceOutcome::kIngested;
  ingest::SourceStats stats;  // written by the worker, read by the consumer once done
  std::exception_ptr error;
};

// The importer's sink on a worker thread: batches events into the job's queue.
class ParseAhead::ChannelSink : public ingest::BatchingSink {
 public:
  explicit ChannelSink(Job& job) : BatchingSink(kBatchEvents), job_(job) {}

 protected:
  std::vector<ingest::Event> deliver(std::vector<ingest::Event>&& batch) override {
    std::unique_lock lock(job_.mu);
    job_.cv.wait(lock, [&] { return job_.batches.size() < kMaxQueuedBatches || job_.abandoned; });
    if (job_.abandoned) throw Abandoned{};
    job_.batches.push_back(std::move(batch));
    job_.cv.notify_all();
    return {};
  }

 private:
  Job& job_;
};

int ParseAhead::default_workers(size_t inputs) {
  unsigned cores = std::thread::hardware_concurrency();
  size_t n = std::clamp<size_t>(cores == 0 ? 1 : cores, 1, 4);
  return static_cast<int>(std::max<size_t>(1, std::min(n, inputs)));
}

ParseAhead::ParseAhead(std::vector<Input> inputs, int workers)
    : inputs_(std::move(inputs)), workers_(std::max(1, workers)) {
  jobs_.reserve(inputs_.size());
  for (size_t i = 0; i < inputs_.size(); ++i) jobs_.push_back(std::make_unique<Job>());
  // One input gains nothing from a worker: consume() parses it on the caller's thread, without
  // the extra hand-over of every event. So do small inputs (workers 0: see parse_workers in
  // pipeline/ingest_pipeline.cc).
  if (inputs_.size() <= 1 || workers <= 0) return;
  for (int i = 0; i < workers_; ++i) threads_.emplace_back([this] { worker_loop(); });
}

ParseAhead::~ParseAhead() {
  {
    std::lock_guard lock(mu_);
    stop_ = true;
    cv_.notify_all();
  }
  for (auto& job : jobs_) {
    std::lock_guard lock(job->mu);
    job->abandoned = true;
    job->cv.notify_all();
  }
  for (auto& t : threads_) t.join();
}

void ParseAhead::worker_loop() {
  for (;;) {
    size_t index;
    {
      std::unique_lock lock(mu_);
      // Stay at most `workers_` sources ahead of the consumer, so that finished but unconsumed
      // sources (each up to kMaxQueuedBatches of events) stay few.
      cv_.wait(lock, [&] {
        return stop_ || next_job_ >= jobs_.size() ||
               next_job_ <= consuming_ + static_cast<size_t>(workers_);
      });
      if (stop_ || next_job_ >= jobs_.size()) return;
      index = next_job_++;
    }
    Job& job = *jobs_[index];
    ChannelSink sink(job);
    ingest::SourceOutcome outcome = ingest::SourceOutcome::kIngested;
    std::exception_ptr error;
    bool abandoned = false;
    try {
      outcome =
          ingest::ingest_source(inputs_[index].path, sink, inputs_[index].options, &job.stats);
      sink.flush();
    } catch (const Abandoned&) {
      abandoned = true;
    } catch (...) {
      error = std::current_exception();
    }
    std::lock_guard lock(job.mu);
    job.outcome = outcome;
    job.error = error;
    job.done = true;
    job.cv.notify_all();
    if (abandoned) return;
  }
}

ingest::SourceOutcome ParseAhead::consume(size_t index, ingest::EventSink& sink,
                                          ingest::SourceStats* stats) {
  if (threads_.empty())
    return ingest::ingest_source(inputs_[index].path, sink, inputs_[index].options, stats);
  {
    std::lock_guard lock(mu_);
    consuming_ = index;
    cv_.notify_all();
  }
  Job& job = *jobs_[index];
  for (;;) {
    std::vector<ingest::Event> batch;
    {
      std::unique_lock lock(job.mu);
      job.cv.wait(lock, [&] { return !job.batches.empty() || job.done; });
      if (job.batches.empty()) break;  // done, and everything was replayed
      batch = std::move(job.batches.front());
      job.batches.pop_front();
      job.cv.notify_all();
    }
    sink.emit_batch(std::move(batch));
  }
  if (job.error) std::rethrow_exception(job.error);
  *stats = std::move(job.stats);
  return job.outcome;
}

}  // namespace rcf::pipeline
