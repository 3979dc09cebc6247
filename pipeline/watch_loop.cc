#include "pipeline/watch_loop.h"

#include <signal.h>
#include <sys/wait.h>
#include <time.h>

#include <algorithm>
#include <cerrno>
#include <fstream>
#include <optional>
#include <string>
#include <thread>

namespace rcf::pipeline {
namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

// The longest wait between checks of the end conditions.
constexpr milliseconds kCheckEvery{200};
// Directories are walked for new files at most this often without a signal.
constexpr milliseconds kWalkEvery{2000};
// The least time between two batches, and how long a gap the next batch waits for: the watch
// takes at most a twentieth of a core (its budget: 5 %, docs/watch.md "Budgets") where that
// leaves a line's alert within kAlertWithin (a line written just after a batch read its log
// waits for that batch, the gap and the next batch). A batch's reading costs what was appended
// whatever the gap; the rest of its CPU since the batch before (the run's analysis, the
// transaction, the alerts, on every thread, and the looks and previews since: `per_batch`) is
// paid once per batch, so a longer gap saves it. The gap is the one at which the reading's share
// of the last cycle and the per-batch CPU spread over the cycle take the budget together; where
// the reading alone takes nearly all of it (a chatty log), at least kGapPerCost times the
// per-batch CPU. A small run's batches come a quarter second apart. 0.8 s leaves room under the
// budget's 1 s for the signal, the reading and a slower batch (with 0.9 s, p99 was 1.06-1.1 s at
// 100 000 compiles). CPU, not wall time: the store's writer and the compile writer run on
// threads of their own beside the batch.
constexpr milliseconds kMinGap{250};
constexpr double kBudget = 0.05;
constexpr double kReadingLeavesBudget = 0.04;    // a reading share above this: kGapPerCost
constexpr double kGapPerCost = 1 / kBudget - 1;  // 19: the cycle is 20 times the CPU
constexpr milliseconds kAlertWithin{800};
// The most overrun carried to the next cycles (5 s of cycles at the budget): where the latency
// bounds the gap, the share stays above the budget, and what is owed then is not repaid later.
constexpr std::chrono::duration<double> kOverrunKept{0.25};

using Seconds = std::chrono::duration<double>;

// The CPU this process took so far, on all its threads.
Seconds process_cpu() {
  timespec t{};
  ::clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return Seconds(static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) * 1e-9);
}
// The least time between a look and a quiet look that the session asked for (a log's last record
// to preview): it is due when it is due, after a batch too.
constexpr milliseconds kQuietLookGap{20};
// A batch after a quiet spell, which shows its logs' ends at once (WatchSession::poll's `early`),
// is read this long after the change was signalled: a record written in several writes (a
// launcher copies its child's lines one at a time) is then whole when it is read.
constexpr milliseconds kSettleAfterQuiet{20};

std::optional<WatchEnd> ended(const WatchLoopOptions& o, Clock::time_point deadline) {
  if (o.stop_requested && o.stop_requested()) return WatchEnd::kStopRequested;
  if (o.run_for && Clock::now() >= deadline) return WatchEnd::kTimeUp;
  if (o.pid && !process_alive(*o.pid)) return WatchEnd::kProcessExited;
  return std::nullopt;
}

}  // namespace

namespace {

// What the cycle spent reading its bytes, and that time's share of the cycle.
Seconds reading_of(const WatchRound& batch) {
  return std::max(Seconds{}, batch.ingest_seconds - batch.analysis_seconds);
}
double share_of(Seconds part, Seconds cycle_wall) {
  return cycle_wall.count() > 0 ? part / cycle_wall : 1.0;
}

}  // namespace

Clock::duration batch_gap(const WatchRound& batch, Seconds cycle_cpu, Seconds cycle_wall,
                          Seconds overrun) {
  const Seconds whole = batch.ingest_seconds + batch.alerts_seconds;
  const Seconds reading = reading_of(batch);
  const Seconds per_batch = std::max(Seconds{}, cycle_cpu - reading);
  const double reading_share = share_of(reading, cycle_wall);
  Seconds gap = per_batch * kGapPerCost;
  if (reading_share < kReadingLeavesBudget)
    gap = std::max(gap, per_batch / (kBudget - reading_share) - whole + overrun / kBudget);
  gap = std::min<Seconds>(gap, kAlertWithin - 2 * whole);
  return std::max<Clock::duration>(kMinGap, std::chrono::duration_cast<Clock::duration>(gap));
}

Seconds budget_overrun(Seconds before, const WatchRound& batch, Seconds cycle_cpu,
                       Seconds cycle_wall) {
  if (share_of(reading_of(batch), cycle_wall) >= kReadingLeavesBudget) return Seconds{};
  return std::clamp(before + cycle_cpu - kBudget * cycle_wall, Seconds{}, kOverrunKept);
}

bool process_alive(pid_t pid) {
  int status = 0;
  if (::waitpid(pid, &status, WNOHANG) == pid) return false;  // our child, and it ended
  if (::kill(pid, 0) != 0 && errno != EPERM) return false;
  // An ended process that its parent has not reaped yet (a zombie) still answers kill().
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string text;
  std::getline(stat, text);
  size_t close = text.rfind(')');  // the name in parentheses may hold spaces
  return close == std::string::npos || close + 2 >= text.size() || text[close + 2] != 'Z';
}

WatchEnd run_watch_loop(WatchSession& session, const WatchLoopOptions& o) {
  const auto started = Clock::now();
  const auto deadline = o.run_for
                            ? started + std::chrono::duration_cast<Clock::duration>(*o.run_for)
                            : Clock::time_point::max();
  const milliseconds look_every =
      session.has_inotify() ? o.look_every_with_inotify : o.look_every_without;
  auto last_look = started, last_walk = started, last_batch = started;
  Clock::duration gap = kMinGap;
  Seconds cpu_at_last_batch = process_cpu();
  Seconds overrun{};  // budget_overrun's, since the first batch
  int64_t batches_read = 0;
  bool pending = true;  // a change was signalled and not read yet (the first look reads all)
  auto pending_since = started;
  std::optional<WatchEnd> end;
  bool last_read = false;  // the last look read a batch
  while (!(end = ended(o, deadline))) {
    auto now = Clock::now();
    const auto wait = std::min<Clock::duration>(kCheckEvery, deadline - now);
    const std::optional<Clock::time_point> quiet_at = session.quiet_look_at();
    if (!pending) {
      auto until = wait;
      if (quiet_at) until = std::min<Clock::duration>(until, *quiet_at - now);
      pending = session.wait_for_change(
          std::chrono::duration_cast<milliseconds>(std::max(until, Clock::duration{})));
      if (pending) pending_since = Clock::now();
    }
    now = Clock::now();
    Clock::duration too_soon{};
    if (pending) {
      // A batch, once the batches' gap since the end of the last one has passed (and without
      // inotify, where every look may read, a quarter second since any look).
      too_soon = gap - (now - last_batch);
      if (!session.has_inotify()) too_soon = std::max(too_soon, kMinGap - (now - last_look));
      if (session.next_batch_looks_at_ends(now))
        too_soon = std::max<Clock::duration>(too_soon, kSettleAfterQuiet - (now - pending_since));
    } else {
      // Nothing changed: a look for a log's last record when the session asks for one (right
      // after a batch it may come at once), else one now and then.
      const bool quiet_due = quiet_at && now >= *quiet_at;
      if (!quiet_due && now - last_look < look_every) continue;
      too_soon = (quiet_due && last_read ? kQuietLookGap : kMinGap) - (now - last_look);
    }
    if (too_soon > Clock::duration{}) {
      const auto rest = std::chrono::duration_cast<milliseconds>(std::min(wait, too_soon));
      if (pending || !session.has_inotify())
        std::this_thread::sleep_for(rest);
      else  // a change may come meanwhile
        if ((pending = session.wait_for_change(rest))) pending_since = Clock::now();
      continue;
    }
    bool walk = pending || now - last_walk >= kWalkEvery;
    // Alerts a batch shows before its own analysis are handed on at once.
    auto early = [&o](const WatchRound& r) {
      if (o.on_round) o.on_round(r, false);
    };
    WatchRound round = session.poll(false, walk, early);
    last_look = Clock::now();
    if (walk) last_walk = last_look;
    pending = false;
    last_read = round.files_read > 0;
    if (round.files_read > 0) {  // a look that read nothing says nothing of the batches' cost
      const Seconds cpu = process_cpu();
      const Seconds cycle_cpu = cpu - cpu_at_last_batch;
      const Seconds cycle_wall = last_look - last_batch;
      // The first batch reads and writes what the logs held before the watch, and its writers
      // finish in the cycle after it: neither counts as overrun.
      if (batches_read++ > 1) overrun = budget_overrun(overrun, round, cycle_cpu, cycle_wall);
      gap = batch_gap(round, cycle_cpu, cycle_wall, overrun);
      cpu_at_last_batch = cpu;
      last_batch = last_look;
    }
    if (o.on_round) o.on_round(round, false);
  }
  WatchRound last = session.poll(true, true);
  if (o.on_round) o.on_round(last, true);
  return *end;
}

}  // namespace rcf::pipeline
