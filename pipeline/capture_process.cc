#include "pipeline/capture_process.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "util/error.h"

namespace rcf::pipeline {
namespace {

using Clock = std::chrono::steady_clock;

// The command that SIGTERM is forwarded to (0: none).
volatile sig_atomic_t g_forward_pid = 0;

void forward_signal(int sig) {
  pid_t pid = g_forward_pid;
  if (pid > 0) ::kill(pid, sig);
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
  // The child starts with these signals at their default action and nothing blocked.
  void default_signals(const sigset_t& defaults) {
    sigset_t none;
    sigemptyset(&none);
    posix_spawnattr_setsigdefault(&attr, &defaults);
    posix_spawnattr_setsigmask(&attr, &none);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK);
  }
  posix_spawn_file_actions_t actions;
  posix_spawnattr_t attr;
};

// rcf's signal handling while the command runs, restored on destruction. Signals that were
// already ignored when rcf started stay ignored for the command too.
class SignalGuard {
 public:
  SignalGuard() {
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
      sigaction(sig, sig == SIGTERM ? &forward : &ignore, nullptr);
      sigaddset(&child_defaults_, sig);
    }
  }
  ~SignalGuard() {
    g_forward_pid = 0;
    for (const auto& [sig, old] : saved_) sigaction(sig, &old, nullptr);
  }
  const sigset_t& child_defaults() const { return child_defaults_; }

 private:
  std::vector<std::pair<int, struct sigaction>> saved_;
  sigset_t child_defaults_;
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

}  // namespace

CommandOutcome run_teed(const std::vector<std::string>& argv, const std::vector<std::string>& env,
                        const std::string& stdout_log, const std::string& stderr_log, int out_fd,
                        int err_fd) {
  CommandOutcome outcome;
  Fd logs[2] = {Fd(::open(stdout_log.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644)),
                Fd(::open(stderr_log.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644))};
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
  setup.default_signals(guard.child_defaults());
  CStrings args(argv), envp(env);
  // SIGTERM stays blocked until the pid is known, so that one arriving now is forwarded too.
  sigset_t term, old_mask;
  sigemptyset(&term);
  sigaddset(&term, SIGTERM);
  sigprocmask(SIG_BLOCK, &term, &old_mask);
  pid_t pid = 0;
  int rc =
      posix_spawnp(&pid, argv[0].c_str(), &setup.actions, &setup.attr, args.data(), envp.data());
  if (rc == 0) g_forward_pid = pid;
  sigprocmask(SIG_SETMASK, &old_mask, nullptr);
  pipes[0].write.reset();
  pipes[1].write.reset();
  if (rc != 0) {
    outcome.spawn_error = rc;
    outcome.exit_code = rc == ENOENT ? 127 : 126;
    return outcome;
  }
  outcome.started = true;

  const int pass_fds[2] = {out_fd, err_fd};
  bool passing[2] = {out_fd >= 0, err_fd >= 0};
  bool open[2] = {true, true};
  bool reaped = false;
  int status = 0;
  auto last_activity = Clock::now();
  // Once the command has ended, output still arriving from processes it left behind is copied
  // until it pauses this long; then rcf stops waiting for them.
  constexpr auto kDrainIdle = std::chrono::seconds(2);
  static thread_local char buffer[64 << 10];
  while (open[0] || open[1]) {
    pollfd fds[2];
    for (int i = 0; i < 2; ++i) fds[i] = {open[i] ? pipes[i].read.get() : -1, POLLIN, 0};
    int n = ::poll(fds, 2, 200);
    if (n < 0 && errno != EINTR) break;
    for (int i = 0; n > 0 && i < 2; ++i) {
      if (!open[i] || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      ssize_t r = ::read(pipes[i].read.get(), buffer, sizeof buffer);
      if (r < 0 && (errno == EINTR || errno == EAGAIN)) continue;
      if (r <= 0) {
        open[i] = false;
        continue;
      }
      last_activity = Clock::now();
      write_all(logs[i].get(), buffer, static_cast<size_t>(r));
      if (passing[i] && !write_all(pass_fds[i], buffer, static_cast<size_t>(r)))
        passing[i] = false;  // our stdout/stderr went away: keep logging
    }
    if (!reaped) {
      if (wait_for(pid, &status, WNOHANG) == pid) {
        reaped = true;
        g_forward_pid = 0;
        last_activity = Clock::now();
      }
    } else if ((open[0] || open[1]) && Clock::now() - last_activity > kDrainIdle) {
      outcome.output_held_open = true;
      break;
    }
  }
  if (!reaped) wait_for(pid, &status, 0);
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
