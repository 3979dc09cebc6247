// `rcf watch` while a log grows (docs/watch.md, "Budgets"): a writer appends a Dynamo console log
// (a recompile of a new frame, after the history's, every `--record-ms`, bytecode-trace lines of a
// chatty `+dynamo` log between them up to `--rate` MB/s) to a watched directory for `--seconds`,
// while `rcf watch --json` runs in a child process. Prints the latency from each recompile's write
// to its alert (p50, p90, p99, max), the alerts missing, and the child's CPU time per wall second
// and peak RSS.
// `--prefill N` writes N recompiles before the watch starts: a long run's history, which every
// batch's analysis goes over. `--warmup S`: the writer starts S seconds after the watch (which
// reads that history first), so that every latency is one of the watch reading on. With
// `--rate 0` and a `--record-ms` of seconds, each recompile comes alone after a pause (late in a
// run, the usual case). Each latency is printed when there are at most 20. `--prefill-sites K`
// spreads the history over K frames (each recompiled N / K times, one site each) instead of a new
// frame per recompile (a site each: the run's cause groups are then as many as its recompiles).
// `--steps 1` prints a progress line (`epoch 0 step N/...`) before each recompile, history
// included: the run's steps are then decided by its progress lines, each recompile in a step of
// its own, as in a training console. `--paced K` writes K recompiles one at a time instead, each
// once the one before was alerted and `--settle S` seconds (1.5) more passed, and prints the
// watch's CPU per recompile: the cost of one batch and its looks at a run of N compiles, without
// the writer's timing in it (write_paced).
// Usage: watch_bench [--rate MB_PER_S] [--seconds S] [--record-ms MS] [--prefill N]
//                    [--prefill-sites K] [--steps 0|1] [--warmup S] [--dir DIR] [--rcf PATH]
//                    [--paced K [--settle S]]
#include <fmt/format.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <mutex>
#include <set>
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
  int64_t prefill_sites = 0;  // the frames the history recompiles; 0: a new frame each
  bool steps = false;         // a progress line before each recompile
  double warmup_s = 0;        // the writer starts this long after the watch
  std::string dir = "/tmp/rcf-watch-bench";
  std::string rcf = RCF_BINARY;  // the rcf that watches (another build's, to compare two)
  int64_t paced = 0;      // > 0: that many recompiles, each after the last one's alert (below)
  double settle_s = 1.5;  // --paced: how long after an alert the watch's CPU is read
};

// The frames of the history are numbered from kHistoryFrames, those recompiled while the watch
// runs from kNewFrames: after the history's, so that a new recompile never names compile 0/0, the
// run's first, which would move every step's count of programs by one (the whole curve written
// again at each analysis: docs/performance.md, "One recompile at a time").
constexpr int64_t kHistoryFrames = 1000000;
constexpr int64_t kNewFrames = 2000000;

// The three lines of recompile `compile` of frame `frame`, rejected by the entry of the compile
// before (the first is the line the alert names).
std::string recompile_block(int64_t frame, int64_t compile = 1) {
  std::string out;
  const char* prefix = "V1126 20:42:45.142000 1003 torch/_dynamo/guards.py:4760]";
  out += fmt::format("{} [{}/{}] [__recompiles] Recompiling function fn_{} in /m/model.py:{}\n",
                     prefix, frame, compile, frame, frame + 10);
  out += fmt::format("{} [{}/{}] [__recompiles]     triggered by the following guard failure(s):\n",
                     prefix, frame, compile);
  out += fmt::format(
      "{} [{}/{}] [__recompiles]     - {}/{}: tensor 'x' size mismatch at index 0. "
      "expected {}, actual {}\n",
      prefix, frame, compile, frame, compile - 1, 7 + compile, 8 + compile);
  return out;
}

// Writes the log: a recompile every record_ms, filler to the rate. Records each recompile's
// first line number and write time.
// The history of a long run: `count` recompiles of frames numbered from 1 000 000, one after the
// other, or round the `sites` first of them. Returns the lines written.
// The progress line of step `step` (--steps).
std::string step_line(int64_t step) {
  return fmt::format("epoch 0 step {}/100000000 loss 0.0218\n", step);
}

// With `steps`, each recompile follows a progress line of a step of its own.
int64_t write_history(const std::string& path, int64_t count, int64_t sites, bool steps) {
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) std::exit(1);
  for (int64_t i = 0; i < count; ++i) {
    std::string block = sites > 0 ? recompile_block(kHistoryFrames + i % sites, 1 + i / sites)
                                  : recompile_block(kHistoryFrames + i);
    if (steps) block = step_line(i + 1) + block;
    std::fwrite(block.data(), 1, block.size(), f);
  }
  std::fclose(f);
  return count * (steps ? 4 : 3);
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
    if (o.steps) {
      chunk += step_line(o.prefill + frame + 1);
      ++line;
    }
    std::fwrite(chunk.data(), 1, chunk.size(), f);
    std::string block = recompile_block(kNewFrames + frame);
    std::fwrite(block.data(), 1, block.size(), f);
    std::fflush(f);
    std::lock_guard lock(mu);
    written[line + 1] = Clock::now();
    line += 3;
  }
  std::fclose(f);
}

// CPU seconds process `pid` has used so far (user + system, from /proc), 0 when unreadable.
double cpu_seconds_of(pid_t pid) {
  std::FILE* f = std::fopen(fmt::format("/proc/{}/stat", pid).c_str(), "r");
  if (!f) return 0;
  char buf[4096];
  size_t n = std::fread(buf, 1, sizeof buf - 1, f);
  std::fclose(f);
  buf[n] = 0;
  const char* p = std::strrchr(buf, ')');  // the name may hold spaces
  if (!p) return 0;
  unsigned long long utime = 0, stime = 0;
  // Fields 3.. after the name; utime and stime are fields 14 and 15.
  if (std::sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &utime, &stime) !=
      2)
    return 0;
  return static_cast<double>(utime + stime) / static_cast<double>(sysconf(_SC_CLK_TCK));
}

double percentile(std::vector<double> v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, static_cast<size_t>(p * v.size()))];
}

// --paced: o.paced recompiles (each after a progress line with --steps), one at a time: each is
// appended once the one before was alerted and the watch then had `settle_s` to finish its batch
// and its looks. What each recompile cost the watch is the CPU it took from before the append
// to the end of the settling: nothing else is written meanwhile, so the figure is the work a
// lone recompile of a run of `prefill` compiles costs, without the writer's timing in it.
void write_paced(const Options& o, const std::string& path, int64_t first_line, std::mutex& mu,
                 std::condition_variable& alerted_cv, const std::set<int64_t>& alerted,
                 std::map<int64_t, Clock::time_point>& written, pid_t watch,
                 std::vector<double>& cpu_ms) {
  int64_t line = first_line;
  for (int64_t i = 0; i < o.paced; ++i) {
    const double cpu_before = cpu_seconds_of(watch);
    std::string chunk = o.steps ? step_line(o.prefill + i + 1) : "";
    line += o.steps ? 1 : 0;
    chunk += recompile_block(kNewFrames + i);
    std::FILE* f = std::fopen(path.c_str(), "ab");
    if (!f) std::exit(1);
    std::fwrite(chunk.data(), 1, chunk.size(), f);
    std::fclose(f);
    const int64_t alert_line = line + 1;
    {
      std::unique_lock lock(mu);
      written[alert_line] = Clock::now();
      alerted_cv.wait_for(lock, std::chrono::seconds(30),
                          [&] { return alerted.count(alert_line) > 0; });
    }
    line += 3;
    std::this_thread::sleep_for(std::chrono::duration<double>(o.settle_s));
    cpu_ms.push_back(1000 * (cpu_seconds_of(watch) - cpu_before));
  }
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
    else if (!strcmp(argv[i], "--prefill-sites"))
      o.prefill_sites = std::atoll(argv[i + 1]);
    else if (!strcmp(argv[i], "--steps"))
      o.steps = std::atoi(argv[i + 1]) != 0;
    else if (!strcmp(argv[i], "--warmup"))
      o.warmup_s = std::atof(argv[i + 1]);
    else if (!strcmp(argv[i], "--dir"))
      o.dir = argv[i + 1];
    else if (!strcmp(argv[i], "--rcf"))
      o.rcf = argv[i + 1];
    else if (!strcmp(argv[i], "--paced"))
      o.paced = std::atoll(argv[i + 1]);
    else if (!strcmp(argv[i], "--settle"))
      o.settle_s = std::atof(argv[i + 1]);
  }
  // Paced, the writing takes as long as the recompiles take to be alerted and settle.
  if (o.paced > 0) o.seconds = static_cast<double>(o.paced) * (o.settle_s + 30);
  fs::remove_all(o.dir);
  fs::create_directories(o.dir + "/logs");
  int out_pipe[2];
  if (pipe(out_pipe) != 0) return 1;
  const std::string for_s = fmt::format("{}", o.warmup_s + o.seconds + 2);
  const std::string db = o.dir + "/rcf.db", logs = o.dir + "/logs";
  const int64_t history_lines =
      write_history(logs + "/train.log", o.prefill, o.prefill_sites, o.steps);
  const auto watch_started = Clock::now();
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
  std::condition_variable alerted_cv;  // --paced: a recompile was alerted
  std::set<int64_t> alerted;           // the lines of the recompiles alerted
  std::vector<double> paced_cpu_ms;    // --paced: each recompile's CPU
  double cpu_at_warmup_end = 0;        // the watch's CPU when the writer starts
  double cpu_at_write_end = 0;  // and when it stops (before the watch's last batch and summary)
  double writing_s = 0;
  std::thread writer([&] {
    std::this_thread::sleep_for(std::chrono::duration<double>(o.warmup_s));
    cpu_at_warmup_end = cpu_seconds_of(child);
    const auto started = Clock::now();
    if (o.paced > 0) {
      write_paced(o, logs + "/train.log", history_lines, mu, alerted_cv, alerted, written, child,
                  paced_cpu_ms);
      kill(child, SIGINT);  // the watch ends (its summary follows)
    } else {
      write_log(o, logs + "/train.log", history_lines, mu, written);
    }
    cpu_at_write_end = cpu_seconds_of(child);
    writing_s = std::chrono::duration<double>(Clock::now() - started).count();
  });
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
    alerted.insert(line);
    alerted_cv.notify_all();
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
  if (latency_ms.size() <= 20) {
    fmt::print("each, in order:");
    for (double ms : latency_ms) fmt::print(" {:.0f}", ms);
    fmt::print("\n");
  }
  if (o.paced > 0) {
    double total = 0;
    for (double ms : paced_cpu_ms) total += ms;
    fmt::print(
        "paced: {} recompiles after {} compiles of history, watch CPU per recompile (from its "
        "append to {:.1f} s after its alert): mean {:.1f} ms, median {:.0f} ms, p90 {:.0f} ms "
        "(/proc ticks of {:.0f} ms)\n",
        paced_cpu_ms.size(), o.prefill, o.settle_s,
        paced_cpu_ms.empty() ? 0.0 : total / static_cast<double>(paced_cpu_ms.size()),
        percentile(paced_cpu_ms, 0.5), percentile(paced_cpu_ms, 0.9),
        1000.0 / static_cast<double>(sysconf(_SC_CLK_TCK)));
  }
  const double wall_s = std::chrono::duration<double>(Clock::now() - watch_started).count();
  fmt::print("watch CPU {:.2f} s over {:.0f} s wall ({:.1f} % of one core), peak RSS {:.1f} MB\n",
             cpu_s, wall_s, 100 * cpu_s / wall_s, usage.ru_maxrss / 1024.0);
  if (o.warmup_s > 0) {
    const double after_s = wall_s - o.warmup_s, cpu = cpu_s - cpu_at_warmup_end;
    fmt::print("after the warm-up: {:.2f} s over {:.0f} s ({:.1f} % of one core)\n", cpu, after_s,
               100 * cpu / after_s);
  }
  // The budget's figure: the watch's CPU while the log grew, without its last batch and summary.
  const double growing_cpu = cpu_at_write_end - cpu_at_warmup_end;
  fmt::print("while the log grew: {:.2f} s over {:.1f} s ({:.1f} % of one core)\n", growing_cpu,
             writing_s, writing_s > 0 ? 100 * growing_cpu / writing_s : 0.0);
  return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : 1;
}
