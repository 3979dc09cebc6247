// Parses the inputs of one ingest on worker threads, ahead of the single SQLite writer, and hands
// each source's events back in input order. A dump directory is thousands of independent files:
// with one parser they ingest at the speed of one core, with N at up to N times that.
//
// Order and output are the same as parsing one file after the other: the consumer takes source i
// only after source i-1, and each source's events in the order its importer emitted them.
// Memory stays bounded: a worker starts source j only while j < (source being consumed) +
// workers + 1, and a source's worker blocks once kMaxQueuedEvents of its events wait unconsumed,
// so a 1 GB log still streams through without being held.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "ingest/events.h"
#include "ingest/ingest_driver.h"
#include "ingest/source_stats.h"

namespace rcf::pipeline {

class ParseAhead {
 public:
  struct Input {
    std::string path;
    ingest::DriverOptions options;  // its own progress callback, if any, is called on a worker
  };
  // Starts `workers` threads over `inputs`; none for a single input or `workers` 0: consume()
  // then parses each input on the caller's thread.
  ParseAhead(std::vector<Input> inputs, int workers);
  // Stops the workers; sources not consumed yet are abandoned mid-parse.
  ~ParseAhead();
  ParseAhead(const ParseAhead&) = delete;
  ParseAhead& operator=(const ParseAhead&) = delete;

  // Replays source `index` into `sink` (waiting while its worker parses it), then fills `stats`
  // and returns its outcome. Call with index 0, 1, 2, ... in turn. Rethrows what the worker threw.
  ingest::SourceOutcome consume(size_t index, ingest::EventSink& sink, ingest::SourceStats* stats);

  // Worker count for this machine: one per core, at least 1, at most 4 (beyond that the single
  // writer is the limit).
  static int default_workers(size_t inputs);

 private:
  struct Job;
  class ChannelSink;
  void worker_loop();

  std::vector<Input> inputs_;
  std::vector<std::unique_ptr<Job>> jobs_;
  int workers_ = 1;

  std::mutex mu_;  // guards next_job_, consuming_, stop_
  std::condition_variable cv_;
  size_t next_job_ = 0;
  size_t consuming_ = 0;
  bool stop_ = false;
  std::vector<std::thread> threads_;
};

}  // namespace rcf::pipeline
