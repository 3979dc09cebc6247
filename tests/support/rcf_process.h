// Runs the `rcf` binary (RCF_BINARY) as a child process without a shell: arguments as given,
// stdin from a file or /dev/null, stdout and stderr captured, and what the parent can only learn
// from wait4(): the signal that ended it and its peak memory. Started children can be killed at
// a chosen moment (atomicity tests) or run as the unprivileged user `nobody` (permission tests
// when the suite runs as root, where chmod does not stop reads).
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <vector>

namespace rcf::testing {

struct RcfOptions {
  std::string cwd;               // working directory; empty = the test's
  std::string stdin_file;        // empty = /dev/null
  bool as_nobody = false;        // drop to uid/gid of `nobody` (only possible as root)
  int64_t address_space_mb = 0;  // RLIMIT_AS of the child (0 = unlimited): allocations then fail
};

struct RcfRun {
  int rc = -1;             // exit status, -1 when ended by a signal
  int signal = 0;          // the signal that ended it, 0 when it exited
  std::string out;         // stdout
  std::string err;         // stderr
  int64_t max_rss_kb = 0;  // peak resident memory of the process
  double wall_s = 0;
};

// A started `rcf` process.
class RcfChild {
 public:
  RcfChild(const std::vector<std::string>& args, const RcfOptions& options = {});
  ~RcfChild();  // kills and reaps a child that was not waited for
  RcfChild(const RcfChild&) = delete;
  RcfChild& operator=(const RcfChild&) = delete;

  pid_t pid() const { return pid_; }
  void kill(int signal);
  RcfRun wait();

 private:
  pid_t pid_ = -1;
  std::string out_path_, err_path_;
  double start_s_ = 0;
};

// Runs `rcf ARGS...` to completion.
RcfRun run_rcf(const std::vector<std::string>& args, const RcfOptions& options = {});

// True when children can run as a user that file permissions apply to: not root, or root with
// the `nobody` account to drop to (then pass as_nobody).
bool can_test_permissions();
bool running_as_root();

}  // namespace rcf::testing
