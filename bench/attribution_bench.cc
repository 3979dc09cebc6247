// Attribution benchmark: writes large scenario bundles with fixtures/scenarios/generate.py
// (--scale; never committed), ingests each as one lane with `rcf ingest` in a child process
// (wall time, MB/s, peak RSS), then re-runs the analysis of all runs in this process with
// rcf::analysis::analyze_runs and prints compile events, seconds and peak RSS.
//
//   attribution_bench [--dynamo-scale K] [--xla-scale K] [--only a,b] [--dir DIR] [--keep]
//   attribution_bench --reanalyze [--dir DIR]   (time the analysis of a database left by --keep)
//
// The Dynamo lane grows by K copies of the compiled layer (11 compiles each), the torch_xla lanes
// by K times their 25 steps (the constant_counter lane compiles in most steps). The defaults are
// the target, about 1 M compile events (1.0 GB of Dynamo text, ~1 min of generation).
#include <fmt/format.h>
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "analysis/run_analysis.h"
#include "bench/ingest_run.h"
#include "store/store.h"
#include "util/error.h"

namespace {

namespace fs = std::filesystem;

constexpr const char* kXlaLanes =
    "constant_counter,optional_keys,item_sync,capacity_shape,grad_alternation,clean_settle,"
    "mixed_causes";

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

long peak_rss_kb() {
  struct rusage usage;
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_maxrss;
}

int64_t tree_bytes(const fs::path& dir) {
  int64_t n = 0;
  for (const auto& e : fs::recursive_directory_iterator(dir))
    if (e.is_regular_file()) n += static_cast<int64_t>(e.file_size());
  return n;
}

// Runs generate.py; returns false (after printing why) when it fails.
bool generate(const std::string& out, int scale, const std::string& only) {
  std::string cmd = fmt::format(
      "python3 -B '{}/scenarios/generate.py' --out '{}' --scale {} "
      "--only {} > '{}/generate.log' 2>&1",
      RCF_FIXTURES_DIR, out, scale, only, out);
  fs::create_directories(out);
  auto start = std::chrono::steady_clock::now();
  int rc = std::system(cmd.c_str());
  double s = seconds_since(start);
  if (rc != 0) {
    fmt::print("generate.py --scale {} --only {} FAILED (see {}/generate.log)\n", scale, only, out);
    return false;
  }
  fmt::print("generated --scale {} {}: {:.1f} MB in {:.1f} s\n", scale, only, tree_bytes(out) / 1e6,
             s);
  return true;
}

int64_t count(rcf::store::Database& db, const char* sql) {
  auto st = db.prepare(sql);
  return st.step() ? st.int64(0) : 0;
}

}  // namespace

int main(int argc, char** argv) {
  int dynamo_scale = 91000, xla_scale = 40;
  std::string dir = "/tmp/rcf-attribution-bench", only;
  bool keep = false;
  bool reanalyze = false;  // --reanalyze: time the analysis of DIR/bench.db left by --keep
  for (int i = 1; i < argc; ++i) {
    if (!strcmp(argv[i], "--dynamo-scale") && i + 1 < argc)
      dynamo_scale = std::atoi(argv[++i]);
    else if (!strcmp(argv[i], "--xla-scale") && i + 1 < argc)
      xla_scale = std::atoi(argv[++i]);
    else if (!strcmp(argv[i], "--dir") && i + 1 < argc)
      dir = argv[++i];
    else if (!strcmp(argv[i], "--only") && i + 1 < argc)
      only = argv[++i];
    else if (!strcmp(argv[i], "--keep"))
      keep = true;
    else if (!strcmp(argv[i], "--reanalyze"))
      reanalyze = keep = true;
    else {
      fmt::print(stderr,
                 "usage: attribution_bench [--dynamo-scale K] [--xla-scale K] "
                 "[--only a,b] [--dir DIR] [--keep] [--reanalyze]\n");
      return 2;
    }
  }
  if (std::system("command -v python3 > /dev/null 2>&1") != 0) {
    fmt::print(stderr, "attribution_bench: python3 is needed to run the scenario generator\n");
    return 2;
  }
  std::string db_path = dir + "/bench.db";
  if (reanalyze && !fs::exists(db_path)) {
    fmt::print(stderr, "attribution_bench: --reanalyze needs {} (run once with --keep)\n", db_path);
    return 2;
  }
  if (!reanalyze) {
    fs::remove_all(dir);
    fmt::print("rcf attribution benchmark: inputs generated in {}\n", dir);

    std::string xla_only = only.empty() ? kXlaLanes : only;
    std::vector<std::pair<std::string, int>> jobs;  // (lanes, scale)
    if (xla_scale > 0 && xla_only != "dynamo_lane") {
      std::string lanes;
      for (const char* l : {"constant_counter", "optional_keys", "item_sync", "capacity_shape",
                            "grad_alternation", "clean_settle", "mixed_causes"})
        if (("," + xla_only + ",").find(fmt::format(",{},", l)) != std::string::npos)
          lanes += (lanes.empty() ? "" : ",") + std::string(l);
      if (!lanes.empty()) jobs.emplace_back(lanes, xla_scale);
    }
    if (dynamo_scale > 0 && (only.empty() || only.find("dynamo_lane") != std::string::npos))
      jobs.emplace_back("dynamo_lane", dynamo_scale);
    std::vector<fs::path> bundles;
    for (size_t j = 0; j < jobs.size(); ++j) {
      std::string out = fmt::format("{}/gen{}", dir, j);
      if (!generate(out, jobs[j].second, jobs[j].first)) return 1;
      for (const auto& e : fs::directory_iterator(out))
        if (e.is_directory()) bundles.push_back(e.path());
    }
    std::sort(bundles.begin(), bundles.end());

    // Ingest: one `rcf ingest` per lane into one database (the bundle files, not truth.json).
    double ingest_s = 0;
    int64_t ingest_bytes = 0;
    long ingest_rss = 0;
    double ingest_wc_s = 0;
    for (const auto& bundle : bundles) {
      std::vector<std::string> args = {
          "ingest", "--db", db_path, "--lane", bundle.filename().string(), "--run", "bench"};
      std::vector<std::string> inputs;
      for (const auto& e : fs::directory_iterator(bundle))
        if (e.path().filename() != "truth.json") inputs.push_back(e.path().string());
      args.insert(args.end(), inputs.begin(), inputs.end());
      int64_t bytes =
          tree_bytes(bundle) - static_cast<int64_t>(fs::file_size(bundle / "truth.json"));
      rcf::bench::RunResult r = rcf::bench::run_rcf(args);
      if (r.exit_code != 0) {
        fmt::print("ingest {} FAILED (exit {})\n", bundle.filename().string(), r.exit_code);
        return 1;
      }
      double wc_s = 0;  // wc -l over the same files (a lane's trace directory included)
      for (const auto& input : inputs) wc_s += rcf::bench::wc_l_seconds(input);
      fmt::print(
          "  ingest {:<18} {:>8.1f} MB  {:>7.2f} s  {:>6.1f} MB/s  peak RSS {:>6.1f} MB  {}\n",
          bundle.filename().string(), bytes / 1e6, r.seconds, bytes / 1e6 / r.seconds,
          r.max_rss_kb / 1024.0, rcf::bench::wc_ratio(r.seconds, wc_s));
      ingest_s += r.seconds;
      ingest_wc_s += wc_s;
      ingest_bytes += bytes;
      ingest_rss = std::max(ingest_rss, r.max_rss_kb);
    }
    fmt::print("ingest total: {:.1f} MB in {:.2f} s (analysis included), peak RSS {:.1f} MB, {}\n",
               ingest_bytes / 1e6, ingest_s, ingest_rss / 1024.0,
               rcf::bench::wc_ratio(ingest_s, ingest_wc_s));
  }

  // Re-analysis of every run, timed on its own, in one transaction as `rcf ingest` does it.
  try {
    auto db = rcf::store::open_store(db_path, rcf::store::OpenMode::kCreateOrWrite);
    std::vector<int64_t> runs;
    auto st = db->prepare("SELECT run_id FROM run_table ORDER BY run_id");
    while (st.step()) runs.push_back(st.int64(0));
    rcf::store::create_indexes(*db);  // as the last ingest left them (kept databases may lack some)
    long rss_before = peak_rss_kb();
    db->exec("BEGIN");
    auto start = std::chrono::steady_clock::now();
    rcf::analysis::AnalysisTimings phases;
    rcf::analysis::analyze_runs(*db, runs, &phases);
    double analysis_s = seconds_since(start);
    db->exec("COMMIT");
    int64_t compiles = count(*db, "SELECT count(*) FROM compiles");
    int64_t recompiles = count(*db, "SELECT count(*) FROM recompiles");
    int64_t events = count(*db, "SELECT sum(events) FROM source");
    fmt::print(
        "analysis of {} runs ({} ingested events): {} compile events, {} recompiles, in {:.2f} s "
        "= {:.0f} compiles/s; peak RSS {:.1f} MB (before: {:.1f} MB)\n",
        runs.size(), events, compiles, recompiles, analysis_s, compiles / analysis_s,
        peak_rss_kb() / 1024.0, rss_before / 1024.0);
    fmt::print(
        "  phases: load Dynamo rows {:.2f} s, torch_xla {:.2f} s, prepare {:.2f} s (the previous "
        "analysis is deleted meanwhile), attribute {:.2f} s, finish {:.2f} s\n",
        phases.load_dynamo_s, phases.xla_s, phases.prepare_s, phases.attribute_s, phases.finish_s);
  } catch (const rcf::Error& e) {
    fmt::print("analysis FAILED: {}\n", e.what());
    return 1;
  }
  if (!keep) fs::remove_all(dir);
  return 0;
}
