// The loop of `rcf watch`: wait for a change, read it, hand the round to the caller, until the
// watch is told to end; then one final round that reads every file whole (docs/watch.md).
#pragma once

#include <sys/types.h>

#include <chrono>
#include <functional>
#include <optional>

#include "pipeline/watch_session.h"

namespace rcf::pipeline {

struct WatchLoopOptions {
  std::optional<std::chrono::duration<double>> run_for;  // --for
  std::optional<pid_t> pid;                              // --pid: end when it exits
  std::function<bool()> stop_requested;                  // SIGINT/SIGTERM seen
  std::function<void(const WatchRound&, bool final)> on_round;
  // How often the files are looked at with no change signalled: a safety net with inotify, the
  // polling period without it.
  std::chrono::milliseconds look_every_with_inotify{1000};
  std::chrono::milliseconds look_every_without{250};
};

// Why the loop ended.
enum class WatchEnd { kTimeUp, kProcessExited, kStopRequested };

WatchEnd run_watch_loop(WatchSession& session, const WatchLoopOptions& options);

// Whether process `pid` still runs (a zombie, ours or another's, counts as ended).
bool process_alive(pid_t pid);

// How long the next batch waits after `batch` (docs/watch.md, "Budgets"): `cycle_cpu` and
// `cycle_wall` are the CPU the watch took and the time that passed from the end of the batch
// before to the end of `batch`; `overrun` is budget_overrun's after `batch`, repaid by the gap.
std::chrono::steady_clock::duration batch_gap(const WatchRound& batch,
                                              std::chrono::duration<double> cycle_cpu,
                                              std::chrono::duration<double> cycle_wall,
                                              std::chrono::duration<double> overrun = {});

// The CPU the cycles so far took above the budget, not yet repaid, after the cycle that ended
// with `batch` (`before`: the overrun until the cycle before). A gap set from the last cycle's CPU
// alone makes the next cycle take the budget only when it costs what the last one did: each
// cycle that cost more (a preview, a larger batch) left the share above it for good. 0 for a chatty
// log, whose reading alone takes most of the budget (waiting does not make the reading cheaper).
std::chrono::duration<double> budget_overrun(std::chrono::duration<double> before,
                                             const WatchRound& batch,
                                             std::chrono::duration<double> cycle_cpu,
                                             std::chrono::duration<double> cycle_wall);

}  // namespace rcf::pipeline
