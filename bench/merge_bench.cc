// `rcf merge` at fleet scale: 128 shards, one per rank, as 128 hosts would write them (`rcf ingest
// --host hostN` of one TORCH_TRACE log each: tlparse's multi_rank_logs rank 1, 3.6 MB, under the
// name dedicated_log_torch_trace_rank_N.log so that each shard is a distinct rank of one run),
// then one `rcf merge` of them all in a child process: wall time, shard rows per second and the
// child's peak RSS; then the same merge again (every source already there).
// Usage: merge_bench [--shards N] [--dir DIR] [--keep]
#include <fmt/format.h>
#include <sys/stat.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "bench/ingest_run.h"
#include "store/merge_stores.h"
#include "store/schema_layers.h"
#include "store/store.h"

namespace {

namespace fs = std::filesystem;

// Rows of the raw tables `rcf merge` copies (all but the file's facts, texts and runs).
int64_t raw_rows(const std::string& db_path) {
  auto db = rcf::store::open_store(db_path, rcf::store::OpenMode::kRead);
  int64_t rows = 0;
  for (const std::string& table : rcf::store::raw_tables()) {
    if (!rcf::store::merge_copies_rows(table)) continue;
    auto count = db->prepare("SELECT count(*) FROM " + table);
    count.step();
    rows += count.int64(0);
  }
  return rows;
}

// Writes the rank's log and ingests it into its own shard; returns the shard's path.
std::string make_shard(const std::string& dir, const std::string& log_source, int rank) {
  const std::string log = fmt::format("{}/logs/dedicated_log_torch_trace_rank_{}.log", dir, rank);
  fs::copy_file(log_source, log, fs::copy_options::overwrite_existing);
  const std::string shard = fmt::format("{}/shards/shard_{}.db", dir, rank);
  rcf::bench::remove_store(shard);
  auto r = rcf::bench::run_rcf({"ingest", "--db", shard, "--host", fmt::format("host{}", rank),
                                "--lane", "bench", "--run", "r1", log});
  if (r.exit_code != 0) {
    fmt::print(stderr, "ingest of shard {} failed (exit {})\n", rank, r.exit_code);
    std::exit(1);
  }
  return shard;
}

void report(const char* name, const rcf::bench::RunResult& r, int64_t rows, size_t shards) {
  if (r.exit_code != 0) {
    fmt::print("{:<28} FAILED (exit {})\n", name, r.exit_code);
    return;
  }
  fmt::print("{:<28} {:>4} shards {:>8} rows  {:>6.2f} s  {:>9.0f} rows/s  peak RSS {:>6.1f} MB\n",
             name, shards, rows, r.seconds, rows / r.seconds, r.max_rss_kb / 1024.0);
}

}  // namespace

int main(int argc, char** argv) {
  int shard_count = 128;
  std::string dir = "/tmp/rcf-merge-bench";
  bool keep = false;
  for (int i = 1; i < argc; ++i) {
    if (!strcmp(argv[i], "--shards") && i + 1 < argc)
      shard_count = std::atoi(argv[++i]);
    else if (!strcmp(argv[i], "--dir") && i + 1 < argc)
      dir = argv[++i];
    else if (!strcmp(argv[i], "--keep"))
      keep = true;
  }
  fs::create_directories(dir + "/logs");
  fs::create_directories(dir + "/shards");
  const std::string log_source =
      std::string(RCF_FIXTURES_DIR) +
      "/torch_trace/multi_rank_logs/dedicated_log_torch_trace_rank_1.log";
  fmt::print("rcf merge benchmark: {} shards of {} ({:.1f} MB each) in {}\n", shard_count,
             fs::path(log_source).filename().string(), fs::file_size(log_source) / 1e6, dir);

  std::vector<std::string> shards;
  int64_t shard_rows = 0;
  for (int rank = 0; rank < shard_count; ++rank) {
    shards.push_back(make_shard(dir, log_source, rank));
    shard_rows += raw_rows(shards.back());
  }
  const std::string out = dir + "/merged.db";
  rcf::bench::remove_store(out);
  std::vector<std::string> args = {"merge", out};
  args.insert(args.end(), shards.begin(), shards.end());
  report("merge into a new store", rcf::bench::run_rcf(args), shard_rows, shards.size());
  fmt::print("  merged store {:.1f} MB, {} rows\n", fs::file_size(out) / 1e6, raw_rows(out));
  report("merge again (nothing new)", rcf::bench::run_rcf(args), shard_rows, shards.size());

  if (!keep) fs::remove_all(dir);
  return 0;
}
