#include "pipeline/capture_process.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <initializer_list>
#include <memory>
#include <optional>

#include "pipeline/console_line_times.h"
#include "util/error.h"

namespace rcf::pipeline {
namespace {

using Clock = std::chrono::steady_clock;

// The process group of the running command (0: none) and how many forwarded signals (SIGINT,
// SIGTERM, SIGHUP, SIGQUIT) rcf received while it ran.
volatile sig_atomic_t g_command_group = 0;
volatile sig_atomic_t g_signals = 0;

// The first signal goes to the command's whole process group as it is; a later one kills the
// group (SIGKILL), so that a command that ignores signals cannot keep rcf from ending.
void forward_signal(int sig) {
  int received = g_signals + 1;
  g_signals = received;
  pid_t group = g_command_group;
  if (group > 0) {
    ::kill(-group, received > 1 ? SIGKILL : sig);
    // A stopped process keeps a terminating signal pending until it is continued: without this a
    // command stopped by `kill -STOP $$` (or a background read of the terminal) never ends.
    ::kill(-group, SIGCONT);
  }
}

class Fd {
 public:
  Fd() = default;
  explicit Fd(int fd) : fd_(fd) {}
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  ~Fd() { reset(); }
  int get() const { return fd_; }
  void reset(int fd = -1) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = fd;
  }

 private:
  int fd_ = -1;
};

// Both ends close on exec: the child gets only the copies that posix_spawn dup2s into place.
struct Pipe {
  Pipe() {
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) != 0)
      throw Error(fmt::format("cannot create a pipe: {}", std::strerror(errno)));
    read.reset(fds[0]);
    write.reset(fds[1]);
  }
  Fd read, write;
};

// NUL-terminated char* arrays for posix_spawn; the strings must outlive it.
class CStrings {
 public:
  explicit CStrings(const std::vector<std::string>& v) {
    for (const auto& s : v) ptrs_.push_back(const_cast<char*>(s.c_str()));
    ptrs_.push_back(nullptr);
  }
  char** data() { return ptrs_.data(); }

 private:
  std::vector<char*> ptrs_;
};

bool write_all(int fd, const char* p, size_t n) {
  while (n > 0) {
    ssize_t w = ::write(fd, p, n);
    if (w < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    p += w;
    n -= static_cast<size_t>(w);
  }
  return true;
}

// posix_spawn attributes and file actions, destroyed with the object.
class SpawnSetup {
 public:
  SpawnSetup() {
    posix_spawn_file_actions_init(&actions);
    posix_spawnattr_init(&attr);
  }
  ~SpawnSetup() {
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attr);
  }
  // The child starts in a process group of its own, with these signals at their default action
  // and nothing blocked.
  void own_group_default_signals(const sigset_t& defaults) {
    sigset_t none;
    sigemptyset(&none);
    posix_spawnattr_setsigdefault(&attr, &defaults);
    posix_spawnattr_setsigmask(&attr, &none);
    posix_spawnattr_setpgroup(&attr, 0);
    posix_spawnattr_setflags(
        &attr, POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETPGROUP);
  }
  posix_spawn_file_actions_t actions;
  posix_spawnattr_t attr;
};

// The signals rcf forwards to the command's process group while it runs.
constexpr int kForwarded[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};

// rcf's signal handling while the command runs, restored on destruction: the forwarded signals go
// to the command's process group, SIGPIPE is ignored. Signals that were already ignored when rcf
// started stay ignored, for the command too.
class SignalGuard {
 public:
  SignalGuard() {
    g_signals = 0;
    struct sigaction ignore {};
    ignore.sa_handler = SIG_IGN;
    sigemptyset(&ignore.sa_mask);
    struct sigaction forward {};
    forward.sa_handler = forward_signal;
    sigemptyset(&forward.sa_mask);
    forward.sa_flags = SA_RESTART;
    sigemptyset(&child_defaults_);
    for (int sig : {SIGINT, SIGQUIT, SIGHUP, SIGPIPE, SIGTERM}) {
      struct sigaction old {};
      sigaction(sig, nullptr, &old);
      saved_.push_back({sig, old});
      if (old.sa_handler == SIG_IGN) continue;  // ignored by whoever started rcf: keep it so
      sigaction(sig, sig == SIGPIPE ? &ignore : &forward, nullptr);
      sigaddset(&child_defaults_, sig);
    }
  }
  ~SignalGuard() {
    g_command_group = 0;
    for (const auto& [sig, old] : saved_) sigaction(sig, &old, nullptr);
  }
  const sigset_t& child_defaults() const { return child_defaults_; }

 private:
  std::vector<std::pair<int, struct sigaction>> saved_;
  sigset_t child_defaults_;
};

// Blocks `signals` for its lifetime (e.g. the forwarded ones until the command's group is known,
// so that one arriving meanwhile is forwarded once it is).
class BlockSignals {
 public:
  explicit BlockSignals(std::initializer_list<int> signals) {
    sigset_t set;
    sigemptyset(&set);
    for (int sig : signals) sigaddset(&set, sig);
    sigprocmask(SIG_BLOCK, &set, &old_);
  }
  ~BlockSignals() { sigprocmask(SIG_SETMASK, &old_, nullptr); }

 private:
  sigset_t old_;
};

// When rcf owns its terminal (stdin is a terminal whose foreground process group is rcf's), the
// command's group gets it while the command runs, so that Ctrl-C, Ctrl-Z and reads from the
// terminal reach the command as if rcf were not there; rcf takes it back when the command ends.
class TerminalHandover {
 public:
  ~TerminalHandover() { take_back(); }
  void give(pid_t group) {
    owned_ = owned_ || (isatty(0) && tcgetpgrp(0) == getpgrp());
    if (owned_) set_foreground(group);
  }
  void take_back() {
    if (owned_) set_foreground(getpgrp());
  }
  bool active() const { return owned_; }
  // The command stopped at the terminal (Ctrl-Z): rcf takes the terminal back and stops too, so
  // that the shell sees the job stopped; once continued (fg), the command is continued with it.
  void stop_with(pid_t group) {
    take_back();
    ::raise(SIGTSTP);
    give(group);
    ::kill(-group, SIGCONT);
  }

 private:
  // tcsetpgrp from a background process group raises SIGTTOU unless it is blocked.
  static void set_foreground(pid_t group) {
    BlockSignals ttou({SIGTTOU});
    tcsetpgrp(0, group);
  }
  bool owned_ = false;
};

int exit_code_of(int status, CommandOutcome* out) {
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) {
    out->signal = WTERMSIG(status);
    return 128 + out->signal;
  }
  return 1;
}

pid_t wait_for(pid_t pid, int* status, int flags) {
  for (;;) {
    pid_t r = ::waitpid(pid, status, flags);
    if (r < 0 && errno == EINTR) continue;
    return r;
  }
}

// Copies the command's stdout and stderr pipes to the log files and to rcf's own outputs, and
// notes when each line arrived in the logs' line-time sidecars (pipeline/console_line_times.h).
class OutputCopy {
 public:
  OutputCopy(const int pipes[2], const int logs[2], const int times[2], const int pass[2]) {
    for (int i = 0; i < 2; ++i) {
      pipes_[i] = pipes[i];
      logs_[i] = logs[i];
      times_[i] = times[i];
      pass_[i] = pass[i];
      open_[i] = true;
    }
  }
  bool open() const { return open_[0] || open_[1]; }
  // Copies what arrives within `timeout_ms` (returns sooner when something did).
  void pump(int timeout_ms) {
    pollfd fds[2];
    for (int i = 0; i < 2; ++i) fds[i] = {open_[i] ? pipes_[i] : -1, POLLIN, 0};
    int n = ::poll(fds, 2, timeout_ms);
    for (int i = 0; n > 0 && i < 2; ++i)
      if (open_[i] && (fds[i].revents & (POLLIN | POLLHUP | POLLERR))) copy(i);
  }

 private:
  void copy(int i) {
    char* buffer = buffer_.get();
    ssize_t r = ::read(pipes_[i], buffer, kBufferBytes);
    if (r < 0 && (errno == EINTR || errno == EAGAIN)) return;
    if (r <= 0) {
      open_[i] = false;
      return;
    }
    write_all(logs_[i], buffer, static_cast<size_t>(r));
    note_line_times(i, std::count(buffer, buffer + r, '\n'));
    if (pass_[i] >= 0 && !write_all(pass_[i], buffer, static_cast<size_t>(r)))
      pass_[i] = -1;  // our stdout/stderr went away: keep logging
  }
  // Every line completed by this read arrived now.
  void note_line_times(int i, int64_t completed) {
    if (completed == 0 || times_[i] < 0) return;
    lines_[i] += completed;
    std::string row = format_line_time(lines_[i], wall_clock_ms());
    if (!write_all(times_[i], row.data(), row.size())) times_[i] = -1;
  }
  // A member, not a thread_local: every thread of every rcf process zeroed a thread_local's
  // 64 KiB at its start (docs/performance.md, "Small logs").
  static constexpr size_t kBufferBytes = 64 << 10;
  std::unique_ptr<char[]> buffer_ = std::make_unique_for_overwrite<char[]>(kBufferBytes);
  int pipes_[2], logs_[2], times_[2], pass_[2];
  int64_t lines_[2] = {0, 0};
  bool open_[2];
};

// True when the command ended (its status in `status`). A command stopped at the terminal that
// rcf handed it stops rcf too (TerminalHandover::stop_with); one stopped otherwise is recorded
// (its stop signal in `stopped_by`), and continued by the next signal rcf forwards.
bool command_ended(pid_t pid, int* status, TerminalHandover& terminal, int* stopped_by) {
  if (wait_for(pid, status, WNOHANG | WUNTRACED) != pid) return false;
  if (!WIFSTOPPED(*status)) return true;
  *stopped_by = WSTOPSIG(*status);
  if (terminal.active()) terminal.stop_with(pid);
  return false;
}

// After rcf has forwarded a signal, the command's group has this long to end before it is
// killed: rcf never waits forever for a command that ignores or cannot take the signal.
constexpr auto kEndAfterSignal = std::chrono::seconds(5);

// Kills the command's group once it has outlived kEndAfterSignal since the first forwarded
// signal; `first_signal` is that moment (unset until then).
void end_after_signal(pid_t pid, std::optional<Clock::time_point>& first_signal, bool& killed) {
  if (g_signals == 0 || killed) return;
  if (!first_signal) first_signal = Clock::now();
  if (Clock::now() - *first_signal < kEndAfterSignal) return;
  ::kill(-pid, SIGKILL);
  ::kill(-pid, SIGCONT);
  killed = true;
}

// Once the command has ended, output that processes it left running still write is copied for
// at most this long (or until rcf gets a signal); then rcf closes the pipes and goes on.
constexpr auto kDrainLimit = std::chrono::seconds(2);

void drain(OutputCopy& copy) {
  const int signals = g_signals;
  const auto deadline = Clock::now() + kDrainLimit;
  while (copy.open() && g_signals == signals) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
    if (left.count() <= 0) break;
    copy.pump(static_cast<int>(std::min<int64_t>(left.count(), 200)));
  }
}

}  // namespace

CommandOutcome run_teed(const std::vector<std::string>& argv, const std::vector<std::string>& env,
                        const std::string& stdout_log, const std::string& stderr_log, int out_fd,
                        int err_fd) {
  CommandOutcome outcome;
  Fd logs[2] = {Fd(::open(stdout_log.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644)),
                Fd(::open(stderr_log.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644))};
  // The sidecars are a help, not the record: one that cannot be created is left out.
  Fd times[2] = {Fd(open_line_times(line_times_path(stdout_log))),
                 Fd(open_line_times(line_times_path(stderr_log)))};
  for (int i = 0; i < 2; ++i)
    if (logs[i].get() < 0)
      throw Error(fmt::format("cannot create {}: {}", i == 0 ? stdout_log : stderr_log,
                              std::strerror(errno)));
  if (argv.empty()) throw Error("no command to run");
  Pipe pipes[2];

  SignalGuard guard;
  SpawnSetup setup;
  posix_spawn_file_actions_adddup2(&setup.actions, pipes[0].write.get(), 1);
  posix_spawn_file_actions_adddup2(&setup.actions, pipes[1].write.get(), 2);
  setup.own_group_default_signals(guard.child_defaults());
  CStrings args(argv), envp(env);
  TerminalHandover terminal;
  pid_t pid = 0;
  int rc = 0;
  {
    BlockSignals blocked({SIGINT, SIGTERM, SIGHUP, SIGQUIT});
    rc = posix_spawnp(&pid, argv[0].c_str(), &setup.actions, &setup.attr, args.data(), envp.data());
    if (rc == 0) {
      g_command_group = pid;
      terminal.give(pid);
    }
  }
  pipes[0].write.reset();
  pipes[1].write.reset();
  if (rc != 0) {
    outcome.spawn_error = rc;
    outcome.exit_code = rc == ENOENT ? 127 : 126;
    return outcome;
  }
  outcome.started = true;

  const int pipe_fds[2] = {pipes[0].read.get(), pipes[1].read.get()};
  const int log_fds[2] = {logs[0].get(), logs[1].get()};
  const int pass_fds[2] = {out_fd, err_fd};
  const int times_fds[2] = {times[0].get(), times[1].get()};
  OutputCopy copy(pipe_fds, log_fds, times_fds, pass_fds);
  int status = 0;
  std::optional<Clock::time_point> first_signal;
  bool killed = false;
  while (!command_ended(pid, &status, terminal, &outcome.stopped_by)) {
    copy.pump(200);
    end_after_signal(pid, first_signal, killed);
  }
  terminal.take_back();
  drain(copy);
  g_command_group = 0;
  outcome.output_held_open = copy.open();
  outcome.exit_code = exit_code_of(status, &outcome);
  return outcome;
}

HelperOutcome run_helper(const std::vector<std::string>& argv, const std::vector<std::string>& env,
                         std::chrono::milliseconds timeout, size_t max_output) {
  HelperOutcome outcome;
  if (argv.empty()) {
    outcome.error = "no command";
    return outcome;
  }
  Pipe out;
  SpawnSetup setup;
  posix_spawn_file_actions_addopen(&setup.actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&setup.actions, out.write.get(), 1);
  posix_spawn_file_actions_addopen(&setup.actions, 2, "/dev/null", O_WRONLY, 0);
  CStrings args(argv), envp(env);
  pid_t pid = 0;
  int rc =
      posix_spawnp(&pid, argv[0].c_str(), &setup.actions, &setup.attr, args.data(), envp.data());
  out.write.reset();
  if (rc != 0) {
    outcome.error = fmt::format("{}: {}", argv[0], std::strerror(rc));
    return outcome;
  }
  auto deadline = Clock::now() + timeout;
  char buffer[4096];
  bool timed_out = false;
  for (;;) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
    if (left.count() <= 0) {
      timed_out = true;
      break;
    }
    pollfd fd = {out.read.get(), POLLIN, 0};
    int n = ::poll(&fd, 1, static_cast<int>(left.count()));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) continue;
    ssize_t r = ::read(out.read.get(), buffer, sizeof buffer);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) break;
    if (outcome.output.size() < max_output)
      outcome.output.append(buffer,
                            std::min(static_cast<size_t>(r), max_output - outcome.output.size()));
  }
  int status = 0;
  if (timed_out) {
    ::kill(pid, SIGKILL);
    wait_for(pid, &status, 0);
    outcome.error = fmt::format("{} timed out after {:g} s", argv[0], timeout.count() / 1000.0);
    return outcome;
  }
  wait_for(pid, &status, 0);
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
    outcome.ok = true;
  } else if (WIFEXITED(status)) {
    outcome.error = fmt::format("{} exited with status {}", argv[0], WEXITSTATUS(status));
  } else {
    outcome.error = fmt::format("{} was killed by signal {}", argv[0], WTERMSIG(status));
  }
  return outcome;
}

}  // namespace rcf::pipeline
