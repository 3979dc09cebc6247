// `rcf watch` while a log grows (docs/watch.md, "Budgets"): a writer appends a Dynamo console log
// (a recompile of a new frame every `--record-ms`, bytecode-trace lines of a chatty `+dynamo`
// log between them up to `--rate` MB/s) to a watched directory for `--seconds`, while `rcf watch
// --json` runs in a child process. Prints the latency from each recompile's write to its alert
// (p50, p90, p99, max), the alerts missing, and the child's CPU time per wall second and peak RSS.
// `--prefill N` writes N recompiles before the watch starts: a long run's history, which every
// batch's analysis goes over.
// Usage: watch_bench [--rate MB_PER_S] [--seconds S] [--record-ms MS] [--prefill N] [--dir DIR]
//                    [--rcf PATH]
#include <fmt/format.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

struct Options {
  double rate_mb = 1.0;
  double seconds = 20;
  int record_ms = 100;
  int64_t prefill = 0;  // recompiles in the log before the watch starts (a long run's history)
  std::string dir = "/tmp/rcf-watch-bench";
  std::string rcf = RCF_BINARY;  // the rcf that watches (another build's, to compare two)
};

// The three lines of one recompile of frame `frame` (the first is the line the alert names).
std::string recompile_block(int64_t frame) {
  std::string out;
  const char* prefix = "V1126 20:42:45.142000 1003 torch/_dynamo/guards.py:4760]";
  out += fmt::format("{} [{}/1] [__recompiles] Recompiling function fn_{} in /m/model.py:{}\n",
                     prefix, frame, frame, frame + 10);
  out += fmt::format("{} [{}/1] [__recompiles]     triggered by the following guard failure(s):\n",
                     prefix, frame);
  out += fmt::format(
      "{} [{}/1] [__recompiles]     - {}/0: tensor 'x' size mismatch at index 0. "
      "expected 8, actual 9\n",
      prefix, frame, frame);
  return out;
}

// Writes the log: a recompile every record_ms, filler to the rate. Records each recompile's
// first line number and write time.
// The history of a long run: `count` recompiles of frames numbered from 1 000 000, one after the
// other. Returns the lines written.
int64_t write_history(const std::string& path, int64_t count) {
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) std::exit(1);
  for (int64_t i = 0; i < count; ++i) {
    std::string block = recompile_block(1000000 + i);
    std::fwrite(block.data(), 1, block.size(), f);
  }
  std::fclose(f);
  return count * 3;
}

void write_log(const Options& o, const std::string& path, int64_t first_line, std::mutex& mu,
               std::map<int64_t, Clock::time_point>& written) {
  std::FILE* f = std::fopen(path.c_str(), "ab");
  if (!f) std::exit(1);
  const auto start = Clock::now();
  const double bytes_per_record = o.rate_mb * 1e6 * o.record_ms / 1000.0;
  int64_t line = first_line;
  for (int64_t frame = 0;; ++frame) {
    auto due = start + std::chrono::milliseconds(o.record_ms * frame);
    std::this_thread::sleep_until(due);
    if (Clock::now() - start >= std::chrono::duration<double>(o.seconds)) break;
    std::string chunk;
    for (int64_t i = 0; static_cast<double>(chunk.size()) < bytes_per_record - 300; ++i) {
      chunk += fmt::format(
          "V1126 20:42:45.142000 1003 torch/_dynamo/symbolic_convert.py:1234] [{}/1] "
          "[__trace_bytecode] TRACE LOAD_FAST x{} [TensorVariable()]\n",
          frame, i);
      ++line;
    }
    std::fwrite(chunk.data(), 1, chunk.size(), f);
    std::string block = recompile_block(frame);
    std::fwrite(block.data(), 1, block.size(), f);
    std::fflush(f);
    std::lock_guard lock(mu);
    written[line + 1] = Clock::now();
    line += 3;
  }
  std::fclose(f);
}

double percentile(std::vector<double> v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, static_cast<size_t>(p * v.size()))];
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!strcmp(argv[i], "--rate"))
      o.rate_mb = std::atof(argv[i + 1]);
    else if (!strcmp(argv[i], "--seconds"))
      o.seconds = std::atof(argv[i + 1]);
    else if (!strcmp(argv[i], "--record-ms"))
      o.record_ms = std::atoi(argv[i + 1]);
    else if (!strcmp(argv[i], "--prefill"))
      o.prefill = std::atoll(argv[i + 1]);
    else if (!strcmp(argv[i], "--dir"))
      o.dir = argv[i + 1];
    else if (!strcmp(argv[i], "--rcf"))
      o.rcf = argv[i + 1];
  }
  fs::remove_all(o.dir);
  fs::create_directories(o.dir + "/logs");
  int out_pipe[2];
  if (pipe(out_pipe) != 0) return 1;
  const std::string for_s = fmt::format("{}", o.seconds + 2);
  const std::string db = o.dir + "/rcf.db", logs = o.dir + "/logs";
  const int64_t history_lines = write_history(logs + "/train.log", o.prefill);
  pid_t child = fork();
  if (child == 0) {
    dup2(out_pipe[1], 1);
    close(out_pipe[0]);
    execl(o.rcf.c_str(), o.rcf.c_str(), "watch", "--json", "--db", db.c_str(), "--for",
          for_s.c_str(), logs.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  close(out_pipe[1]);
  std::mutex mu;
  std::map<int64_t, Clock::time_point> written;
  std::thread writer(write_log, std::cref(o), logs + "/train.log", history_lines, std::ref(mu),
                     std::ref(written));
  std::vector<double> latency_ms;
  std::FILE* alerts = fdopen(out_pipe[0], "r");
  char buf[65536];
  while (std::fgets(buf, sizeof buf, alerts)) {
    auto now = Clock::now();
    const char* key = std::strstr(buf, "\"kind\":\"recompile\"");
    const char* at = std::strstr(buf, "\"line\":");
    if (!key || !at) continue;
    int64_t line = std::atoll(at + 7);
    std::lock_guard lock(mu);
    if (auto it = written.find(line); it != written.end())
      latency_ms.push_back(std::chrono::duration<double, std::milli>(now - it->second).count());
  }
  writer.join();
  int status = 0;
  rusage usage{};
  wait4(child, &status, 0, &usage);
  double cpu_s = usage.ru_utime.tv_sec + usage.ru_stime.tv_sec +
                 (usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6;
  int64_t log_bytes = static_cast<int64_t>(fs::file_size(logs + "/train.log"));
  fmt::print("rate {:.2f} MB/s for {:.0f} s ({:.1f} MB, {} recompiles written, {} alerted)\n",
             o.rate_mb, o.seconds, log_bytes / 1e6, written.size(), latency_ms.size());
  fmt::print("latency write->alert ms: p50 {:.0f}  p90 {:.0f}  p99 {:.0f}  max {:.0f}\n",
             percentile(latency_ms, 0.5), percentile(latency_ms, 0.9), percentile(latency_ms, 0.99),
             percentile(latency_ms, 1.0));
  fmt::print("watch CPU {:.2f} s over {:.0f} s wall ({:.1f} % of one core), peak RSS {:.1f} MB\n",
             cpu_s, o.seconds + 2, 100 * cpu_s / (o.seconds + 2), usage.ru_maxrss / 1024.0);
  return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : 1;
}
