// Wakes `rcf watch` when something under its paths changed: inotify on the directories that hold
// the followed files, or, where inotify is missing (or out of watches), a plain timeout so that
// the caller polls (docs/watch.md, "Budgets").
#pragma once

#include <chrono>
#include <string>
#include <vector>

namespace rcf::pipeline {

class ChangeSignal {
 public:
  ChangeSignal();
  ~ChangeSignal();
  ChangeSignal(const ChangeSignal&) = delete;
  ChangeSignal& operator=(const ChangeSignal&) = delete;

  // Watches the directories of `paths` (a directory itself, a file's parent) and, for a
  // directory, every directory under it already walked (`files`' parents). Idempotent.
  void follow(const std::vector<std::string>& roots, const std::vector<std::string>& files);
  // Waits at most `timeout`; true when a change was signalled (the events are drained), false on
  // timeout. Without inotify it always sleeps the timeout and returns true (poll every time).
  bool wait(std::chrono::milliseconds timeout);
  bool has_inotify() const { return fd_ >= 0; }

 private:
  int fd_ = -1;
};

}  // namespace rcf::pipeline
