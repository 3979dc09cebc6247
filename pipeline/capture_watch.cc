#include "pipeline/capture_watch.h"

#include <fmt/format.h>

#include <cstdio>

#include "pipeline/watch_loop.h"
#include "util/error.h"
#include "util/safe_text.h"

namespace rcf::pipeline {

CaptureWatch::CaptureWatch(const CaptureLayout& layout, const std::string& lane,
                           const std::string& run, const std::string& step_pattern,
                           WatchRoundHandler on_round, std::FILE* messages)
    : db_path_(layout.dir + "/watch.db") {
  WatchRequest request;
  request.db_path = db_path_;
  request.lane = lane;
  request.run = run;
  request.step_pattern = step_pattern;
  request.paths = {layout.logs(), layout.stdout_log(), layout.stderr_log()};
  thread_ =
      std::thread(&CaptureWatch::run, this, std::move(request), std::move(on_round), messages);
}

CaptureWatch::~CaptureWatch() {
  done_ = true;
  if (thread_.joinable()) thread_.join();
  for (const char* suffix : {"", "-wal", "-shm", "-journal"})
    std::remove((db_path_ + suffix).c_str());
}

void CaptureWatch::run(WatchRequest request, WatchRoundHandler on_round, std::FILE* messages) {
  try {
    WatchSession session(std::move(request));
    WatchLoopOptions loop;
    loop.stop_requested = [this] { return done_.load(); };
    loop.on_round = [&](const WatchRound& round, bool final) {
      on_round(round, session.status(), final);
    };
    run_watch_loop(session, loop);
  } catch (const Error& e) {
    std::fputs(
        fmt::format("rcf capture: the watch stopped: {}\n", util::field_text(e.what())).c_str(),
        messages);
  }
}

}  // namespace rcf::pipeline
