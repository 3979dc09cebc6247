// `rcf ingest` of a directory of many small files: N one-line PT_XLA_DEBUG profiler logs (each
// line distinct, so that no file is a duplicate of another), as a fleet's per-process logs or a
// crawl of small outputs are. Times the ingest of the directory into a fresh store in a child
// process (wall time, files per second, the child's peak RSS), then the same ingest again (every
// file already in the store: the duplicate-source lookup, docs/bad_input.md "many small files"),
// each with its ratio to `wc -l` over the same files.
// Usage: many_files_bench [--files N] [--dir DIR] [--keep]
#include <fmt/format.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>

#include "bench/ingest_run.h"

namespace {

namespace fs = std::filesystem;

// Writes `count` one-line logs under `logs`, 1000 to a subdirectory (as a walker meets them in a
// tree of runs); returns their bytes in all.
int64_t write_logs(const std::string& logs, int count) {
  int64_t bytes = 0;
  for (int i = 0; i < count; ++i) {
    const std::string sub = fmt::format("{}/d{:03}", logs, i / 1000);
    if (i % 1000 == 0) fs::create_directories(sub);
    const std::string line = fmt::format(
        "pt-xla-profiler: CompileTime too frequent: {} counts during {} steps\n", i + 1, i + 2);
    std::FILE* f = std::fopen(fmt::format("{}/rank{}.log", sub, i).c_str(), "wb");
    if (!f || std::fwrite(line.data(), 1, line.size(), f) != line.size() || std::fclose(f) != 0) {
      fmt::print(stderr, "cannot write log {} under {}\n", i, sub);
      std::exit(1);
    }
    bytes += static_cast<int64_t>(line.size());
  }
  return bytes;
}

// `wc_s`: what wc -l took on the same files (rcf::bench::wc_l_seconds).
void report(const char* name, const rcf::bench::RunResult& r, int files, int64_t bytes,
            double wc_s) {
  if (r.exit_code != 0) {
    fmt::print("{:<34} FAILED (exit {})\n", name, r.exit_code);
    return;
  }
  fmt::print(
      "{:<34} {:>7} files {:>6.1f} MB  {:>7.2f} s  {:>8.0f} files/s  peak RSS {:>6.1f} MB  {}\n",
      name, files, bytes / 1e6, r.seconds, files / r.seconds, r.max_rss_kb / 1024.0,
      rcf::bench::wc_ratio(r.seconds, wc_s));
}

}  // namespace

int main(int argc, char** argv) {
  int files = 100000;
  std::string dir = "/tmp/rcf-many-files-bench";
  bool keep = false;
  for (int i = 1; i < argc; ++i) {
    if ((!strcmp(argv[i], "--files") || !strcmp(argv[i], "--many-files")) && i + 1 < argc)
      files = std::atoi(argv[++i]);
    else if (!strcmp(argv[i], "--dir") && i + 1 < argc)
      dir = argv[++i];
    else if (!strcmp(argv[i], "--keep"))
      keep = true;
  }
  if (files <= 0) {
    fmt::print(stderr, "--files wants a positive count\n");
    return 2;
  }
  const std::string logs = dir + "/logs";
  fs::remove_all(logs);
  const int64_t bytes = write_logs(logs, files);
  const std::string db = rcf::bench::bench_store(dir);
  rcf::bench::remove_store(db);
  const rcf::bench::RunResult fresh = rcf::bench::run_rcf({"ingest", "--db", db, logs});
  const rcf::bench::RunResult again = rcf::bench::run_rcf({"ingest", "--db", db, logs});
  const double wc_s = rcf::bench::wc_l_seconds(logs);  // after: the files are in the page cache
  report("ingest (fresh store)", fresh, files, bytes, wc_s);
  report("ingest again (all already there)", again, files, bytes, wc_s);
  if (!keep) fs::remove_all(dir);
  return 0;
}
