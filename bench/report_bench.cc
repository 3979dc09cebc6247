// Report benchmark: a store holding one run with a million compile events (written straight into
// the derived tables by tests/support/report_store_generator, as analysis leaves them), then
// `rcf report` in a child process for each format: wall time, output size and the child's peak
// RSS (wait4). The target: reports of a 1 M-event store render in seconds, HTML < 5 MB.
//
//   report_bench [--compiles N] [--steps N] [--sites N] [--dir DIR] [--keep]
#include <fmt/format.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "store/store.h"
#include "tests/support/report_store_generator.h"
#include "util/error.h"

namespace fs = std::filesystem;

namespace {

struct ChildResult {
  double wall_s = 0, cpu_s = 0;  // cpu: user + system (the machine may be shared)
  long max_rss_kb = 0;
  int exit_code = -1;
};

// Runs `rcf ARGS...` in a child (stdout and stderr to /dev/null) and measures it with wait4.
ChildResult run_rcf(const std::vector<std::string>& args) {
  auto start = std::chrono::steady_clock::now();
  std::fflush(stdout);
  pid_t pid = fork();
  if (pid == 0) {
    std::vector<char*> argv;
    std::string bin = RCF_BINARY;
    argv.push_back(bin.data());
    for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    if (!freopen("/dev/null", "w", stdout) || !freopen("/dev/null", "w", stderr)) _exit(126);
    execv(bin.c_str(), argv.data());
    _exit(127);
  }
  int status = 0;
  struct rusage usage;
  wait4(pid, &status, 0, &usage);
  ChildResult r;
  r.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  r.cpu_s = usage.ru_utime.tv_sec + usage.ru_utime.tv_usec / 1e6 + usage.ru_stime.tv_sec +
            usage.ru_stime.tv_usec / 1e6;
  r.max_rss_kb = usage.ru_maxrss;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

}  // namespace

int main(int argc, char** argv) {
  rcf::testing::ReportStoreSpec spec;
  std::string dir = (fs::temp_directory_path() / "rcf_report_bench").string();
  bool keep = false;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto next = [&]() -> std::string {
      if (i + 1 >= argc) {
        fmt::print(stderr, "{} needs a value\n", a);
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "--compiles")
      spec.compiles = std::stoll(next());
    else if (a == "--steps")
      spec.steps = std::stoll(next());
    else if (a == "--sites")
      spec.sites = std::stoll(next());
    else if (a == "--dir")
      dir = next();
    else if (a == "--keep")
      keep = true;
    else {
      fmt::print(
          stderr,
          "usage: report_bench [--compiles N] [--steps N] [--sites N] [--dir DIR] [--keep]\n");
      return 2;
    }
  }
  fs::remove_all(dir);
  fs::create_directories(dir);
  const std::string db_path = dir + "/rcf.db";
  try {
    auto start = std::chrono::steady_clock::now();
    auto db = rcf::store::open_store(db_path, rcf::store::OpenMode::kCreateOrWrite);
    rcf::testing::generate_report_store(*db, spec);
    rcf::store::create_indexes(*db);
    double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    fmt::print(
        "store: {} compile events over {} steps at {} sites, written in {:.1f} s ({:.0f} MB)\n",
        spec.compiles, spec.steps, spec.sites, s, fs::file_size(db_path) / 1e6);
  } catch (const rcf::Error& e) {
    fmt::print(stderr, "cannot write the store: {}\n", e.what());
    return 1;
  }
  fmt::print("{:<8} {:>8} {:>8} {:>12} {:>12}\n", "format", "wall s", "cpu s", "output",
             "peak RSS");
  int failures = 0;
  for (const char* format : {"html", "md", "json"}) {
    std::string out = fmt::format("{}/report.{}", dir, format);
    auto r = run_rcf({"report", "--db", db_path, "--format", format, "-o", out});
    if (r.exit_code != 0) {
      fmt::print("{:<8} FAILED (exit {})\n", format, r.exit_code);
      ++failures;
      continue;
    }
    fmt::print("{:<8} {:>8.2f} {:>8.2f} {:>9.2f} MB {:>9.1f} MB\n", format, r.wall_s, r.cpu_s,
               fs::file_size(out) / 1e6, r.max_rss_kb / 1024.0);
  }
  if (keep)
    fmt::print("kept {}\n", dir);
  else
    fs::remove_all(dir);
  return failures == 0 ? 0 : 1;
}
