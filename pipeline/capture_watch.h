// `rcf capture --watch`: a watch over the capture directory while the command runs (docs/watch.md,
// docs/capture.md). It reads into a store of its own in the capture directory (removed when it
// ends): the capture's ingest after the command is the run's record, with the console formats it
// finds for the console logs, and a watch's earlier version of a log must not stand in for it.
#pragma once

#include <atomic>
#include <functional>
#include <string>
#include <thread>

#include "pipeline/capture_env.h"
#include "pipeline/watch_session.h"

namespace rcf::pipeline {

using WatchRoundHandler =
    std::function<void(const WatchRound&, const analysis::RunStatus&, bool final)>;

class CaptureWatch {
 public:
  // Starts watching `layout`'s logs and console files on a thread of its own; each round goes to
  // `on_round` (on that thread), problems to `messages`.
  CaptureWatch(const CaptureLayout& layout, const std::string& lane, const std::string& run,
               const std::string& step_pattern, WatchRoundHandler on_round, std::FILE* messages);
  // Ends the watch (its final round runs) and removes its store.
  ~CaptureWatch();
  CaptureWatch(const CaptureWatch&) = delete;
  CaptureWatch& operator=(const CaptureWatch&) = delete;

 private:
  void run(WatchRequest request, WatchRoundHandler on_round, std::FILE* messages);

  std::string db_path_;
  std::atomic<bool> done_{false};
  std::thread thread_;
};

}  // namespace rcf::pipeline
