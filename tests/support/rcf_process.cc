#include "tests/support/rcf_process.h"

#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>

#include "tests/support/temp_files.h"
#include "tests/support/test_paths.h"

namespace rcf::testing {
namespace {

double now_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

std::string temp_path(const char* what) {
  const char* dir = std::getenv("TMPDIR");
  std::string pattern = std::string(dir && *dir ? dir : "/tmp") + "/rcf_" + what + "_XXXXXX";
  int fd = mkstemp(pattern.data());
  if (fd < 0) {
    perror("mkstemp");
    abort();
  }
  ::close(fd);
  return pattern;
}

bool nobody_ids(uid_t* uid, gid_t* gid) {
  passwd* pw = getpwnam("nobody");
  if (!pw) return false;
  *uid = pw->pw_uid;
  *gid = pw->pw_gid;
  return true;
}

}  // namespace

bool running_as_root() {
  return geteuid() == 0;
}

bool can_test_permissions() {
  uid_t uid;
  gid_t gid;
  return !running_as_root() || nobody_ids(&uid, &gid);
}

RcfChild::RcfChild(const std::vector<std::string>& args, const RcfOptions& options)
    : out_path_(temp_path("out")), err_path_(temp_path("err")) {
  // Everything the child needs is prepared before fork(): after it only async-signal-safe calls.
  std::vector<std::string> argv_strings = {RCF_BINARY};
  argv_strings.insert(argv_strings.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& a : argv_strings) argv.push_back(a.data());
  argv.push_back(nullptr);
  const std::string in_path = options.stdin_file.empty() ? "/dev/null" : options.stdin_file;
  uid_t uid = 0;
  gid_t gid = 0;
  bool drop = options.as_nobody && running_as_root() && nobody_ids(&uid, &gid);
  if (drop) {
    // The capture files must be writable by the child.
    if (chown(out_path_.c_str(), uid, gid) != 0 || chown(err_path_.c_str(), uid, gid) != 0) {
      perror("chown");
      abort();
    }
  }
  start_s_ = now_s();
  pid_ = fork();
  if (pid_ < 0) {
    perror("fork");
    abort();
  }
  if (pid_ == 0) {
    int in = ::open(in_path.c_str(), O_RDONLY);
    int out = ::open(out_path_.c_str(), O_WRONLY | O_TRUNC);
    int err = ::open(err_path_.c_str(), O_WRONLY | O_TRUNC);
    if (in < 0 || out < 0 || err < 0) _exit(126);
    dup2(in, 0);
    dup2(out, 1);
    dup2(err, 2);
    if (!options.cwd.empty() && chdir(options.cwd.c_str()) != 0) _exit(126);
    if (options.address_space_mb > 0) {
      rlimit limit;
      limit.rlim_cur = limit.rlim_max = static_cast<rlim_t>(options.address_space_mb) << 20;
      if (setrlimit(RLIMIT_AS, &limit) != 0) _exit(126);
    }
    if (drop && (setgroups(0, nullptr) != 0 || setgid(gid) != 0 || setuid(uid) != 0)) _exit(126);
    execv(argv[0], argv.data());
    _exit(127);
  }
}

RcfChild::~RcfChild() {
  if (pid_ > 0) {
    ::kill(pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
  }
  std::remove(out_path_.c_str());
  std::remove(err_path_.c_str());
}

void RcfChild::kill(int signal) {
  if (pid_ > 0) ::kill(pid_, signal);
}

RcfRun RcfChild::wait() {
  RcfRun run;
  int status = 0;
  rusage usage{};
  pid_t got;
  do {
    got = wait4(pid_, &status, 0, &usage);
  } while (got < 0 && errno == EINTR);
  pid_ = -1;
  run.wall_s = now_s() - start_s_;
  if (WIFEXITED(status)) run.rc = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) run.signal = WTERMSIG(status);
  run.max_rss_kb = usage.ru_maxrss;
  run.out = read_file(out_path_);
  run.err = read_file(err_path_);
  return run;
}

RcfRun run_rcf(const std::vector<std::string>& args, const RcfOptions& options) {
  RcfChild child(args, options);
  return child.wait();
}

}  // namespace rcf::testing
