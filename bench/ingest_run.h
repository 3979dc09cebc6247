// Runs `rcf ingest` in a child process and prints wall time, MB/s and the child's peak RSS
// (from wait4): the measurement both ingest benchmarks share.
#pragma once

#include <fmt/format.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

namespace rcf::bench {

struct RunResult {
  double seconds = 0;
  long max_rss_kb = 0;
  int exit_code = -1;
};

inline RunResult run_rcf(const std::vector<std::string>& args) {
  auto start = std::chrono::steady_clock::now();
  std::fflush(stdout);  // the child must not re-print buffered output
  pid_t pid = fork();
  if (pid == 0) {
    std::vector<char*> argv;
    std::string bin = RCF_BINARY;
    argv.push_back(bin.data());
    for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    if (!freopen("/dev/null", "w", stdout)) _exit(126);
    execv(bin.c_str(), argv.data());
    _exit(127);
  }
  int status = 0;
  struct rusage usage;
  wait4(pid, &status, 0, &usage);
  RunResult r;
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  r.max_rss_kb = usage.ru_maxrss;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

// Ingests `input` into a fresh database under `dir` and prints one result line.
inline void ingest_and_report(const std::string& name, const std::string& dir,
                              const std::string& input, int64_t bytes) {
  std::string db = dir + "/bench.db";
  for (const char* suffix : {"", "-wal", "-shm"}) std::remove((db + suffix).c_str());
  RunResult r = run_rcf({"ingest", "--db", db, input});
  if (r.exit_code != 0) {
    fmt::print("{:<34} FAILED (exit {})\n", name, r.exit_code);
    return;
  }
  fmt::print("{:<34} {:>8.1f} MB  {:>7.2f} s  {:>7.1f} MB/s  peak RSS {:>6.1f} MB\n", name,
             bytes / 1e6, r.seconds, bytes / 1e6 / r.seconds, r.max_rss_kb / 1024.0);
}

}  // namespace rcf::bench
