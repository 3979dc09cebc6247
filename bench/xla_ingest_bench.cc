// XLA-side ingest benchmark: generates (never commits) a PT_XLA_DEBUG_LEVEL=2 log of about
// --debug-mb MB (mostly Execution blocks, some compiles) and an --xla_dump_to directory of
// --hlo-files HLO modules totalling about --hlo-mb MB, then times `rcf ingest` on each in a child
// process and prints MB/s and the child's peak RSS.
#include <fmt/format.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "tests/support/hlo_generator.h"
#include "tests/support/xla_log_generator.h"

namespace {

struct RunResult {
  double seconds = 0;
  long max_rss_kb = 0;
  int exit_code = -1;
};

RunResult run_rcf(const std::vector<std::string>& args) {
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

void report(const std::string& name, const std::string& dir, const std::string& input,
            int64_t bytes) {
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

}  // namespace

int main(int argc, char** argv) {
  int64_t debug_mb = 1024, hlo_mb = 512, hlo_files = 2000;
  std::string dir = "/tmp/rcf-xla-bench";
  for (int i = 1; i < argc; ++i) {
    if (!strcmp(argv[i], "--debug-mb") && i + 1 < argc) debug_mb = std::atoll(argv[++i]);
    else if (!strcmp(argv[i], "--hlo-mb") && i + 1 < argc) hlo_mb = std::atoll(argv[++i]);
    else if (!strcmp(argv[i], "--hlo-files") && i + 1 < argc) hlo_files = std::atoll(argv[++i]);
    else if (!strcmp(argv[i], "--dir") && i + 1 < argc) dir = argv[++i];
  }
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir + "/dump");
  fmt::print("rcf XLA ingest benchmark: inputs generated in {}\n", dir);

  // The debug log in 64 MB pieces, so the generator never holds the whole file.
  std::string debug_path = dir + "/pt_xla_debug_level2.log";
  int64_t debug_bytes = 0;
  {
    std::ofstream out(debug_path, std::ios::binary);
    for (uint32_t seed = 1; debug_bytes < (debug_mb << 20); ++seed) {
      std::string piece = rcf::testing::make_pt_xla_debug_log(size_t{64} << 20, seed);
      out.write(piece.data(), static_cast<std::streamsize>(piece.size()));
      debug_bytes += static_cast<int64_t>(piece.size());
    }
  }
  report("PT_XLA_DEBUG level 2 log", dir, debug_path, debug_bytes);
  std::filesystem::remove(debug_path);

  int64_t hlo_bytes = 0;
  size_t per_file = static_cast<size_t>((hlo_mb << 20) / hlo_files);
  for (int i = 0; i < hlo_files; ++i) {
    std::string text = rcf::testing::make_hlo_module_text(i, per_file, static_cast<uint32_t>(i + 1));
    std::string name = fmt::format("{}/dump/module_{:04d}.SyncTensorsGraph.{}.before_optimizations.txt",
                                   dir, i, 100 + i);
    std::ofstream(name, std::ios::binary) << text;
    hlo_bytes += static_cast<int64_t>(text.size());
  }
  report(fmt::format("--xla_dump_to dir ({} HLO files)", hlo_files), dir, dir + "/dump", hlo_bytes);
  std::filesystem::remove_all(dir);
  return 0;
}
