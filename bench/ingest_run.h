// Runs `rcf ingest` in a child process and prints wall time, MB/s, the child's peak RSS (from
// wait4) and its time over `wc -l` on the same file in the same run (the distance to what reading
// the bytes costs at all): the measurement both ingest benchmarks share.
#pragma once

#include <fmt/format.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
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

// Runs `bin args...` with its stdout discarded.
inline RunResult run_child(std::string bin, const std::vector<std::string>& args) {
  auto start = std::chrono::steady_clock::now();
  std::fflush(stdout);  // the child must not re-print buffered output
  pid_t pid = fork();
  if (pid == 0) {
    std::vector<char*> argv;
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

// The rcf binary the benches run: this build's, or another named by the bench's --rcf (a
// baseline build, measured in the same run).
inline std::string& rcf_binary() {
  static std::string binary = RCF_BINARY;
  return binary;
}

inline RunResult run_rcf(const std::vector<std::string>& args) {
  return run_child(rcf_binary(), args);
}

// Seconds `wc -l` takes on `input` (a directory: on all its files, each read by wc itself, as rcf
// reads them; piping them through `cat` measured the pipe instead: 1.4 s against 0.21 s for the
// 537 MB HLO dump on the project's VM): the best of three (the bytes are in the page cache, as
// they are for rcf, which read them just before); 0 when wc cannot be run.
inline double wc_l_seconds(const std::string& input) {
  double best = 0;
  for (int i = 0; i < 3; ++i) {
    RunResult r = run_child(
        "/bin/sh", {"-c",
                    "if [ -d \"$1\" ]; then find \"$1\" -type f -exec wc -l {} + > /dev/null; "
                    "else wc -l \"$1\"; fi",
                    "sh", input});
    if (r.exit_code != 0) return 0;
    best = i == 0 ? r.seconds : std::min(best, r.seconds);
  }
  return best;
}

// "N.Nx wc -l (S s)": `seconds` over what wc -l took on the same input (wc_l_seconds), or a note
// that wc could not be run.
inline std::string wc_ratio(double seconds, double wc_s) {
  return wc_s > 0 ? fmt::format("{:.1f}x wc -l ({:.3f} s)", seconds / wc_s, wc_s)
                  : std::string("wc -l not run");
}

// Removes the SQLite store at `path` with its side files, so that the next ingest starts afresh.
inline void remove_store(const std::string& path) {
  for (const char* suffix : {"", "-wal", "-shm", "-journal"}) std::remove((path + suffix).c_str());
}

// The store ingest_and_report ingests into under `dir`.
inline std::string bench_store(const std::string& dir) {
  return dir + "/bench.db";
}

// Ingests `input` into a fresh database under `dir` and prints one result line. `wc_input`: the
// file `wc -l` reads for the ratio (the uncompressed bytes of a gzip input); `input` when empty.
// `fresh` false: into the database the last call left (a log ingested again once it has grown).
inline void ingest_and_report(const std::string& name, const std::string& dir,
                              const std::string& input, int64_t bytes,
                              const std::string& wc_input = "", bool fresh = true) {
  const std::string db = bench_store(dir);
  if (fresh) remove_store(db);
  RunResult r = run_rcf({"ingest", "--db", db, input});
  if (r.exit_code != 0) {
    fmt::print("{:<34} FAILED (exit {})\n", name, r.exit_code);
    return;
  }
  double wc_s = wc_l_seconds(wc_input.empty() ? input : wc_input);
  fmt::print("{:<34} {:>8.1f} MB  {:>7.2f} s  {:>7.1f} MB/s  peak RSS {:>6.1f} MB  {}\n", name,
             bytes / 1e6, r.seconds, bytes / 1e6 / r.seconds, r.max_rss_kb / 1024.0,
             wc_ratio(r.seconds, wc_s));
}

}  // namespace rcf::bench
