// End-to-end ingest benchmark. Builds large logs at run time from real fixtures (never
// committed), runs `rcf ingest` on each in a child process and prints wall time, MB/s and the
// child's peak RSS. Usage: ingest_cli_bench [--mb N] [--dir DIR] [--keep] [--dense-curve MB,MB,...]
// [--only torch_trace|dynamo_text] [--rounds N]
// --dense-curve: only the dense Dynamo text, at each size (e.g. 100,1024,4096), to show how time
// and peak memory grow with the input. --only: only the inputs whose name starts so (e.g.
// torch_trace: the plain and the gzipped trace). --rounds: each input ingested N times in a row.
// --grown P: each plain input is first ingested cut to its first P % (at a line end), then
// ingested again once it has grown to the whole (`rcf ingest` reads it on, docs/watch.md), then
// ingested whole into a fresh store, in that order. --rcf PATH: run that rcf binary instead of
// this build's (a baseline, measured in the same run).
#include <fmt/format.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "bench/ingest_run.h"

namespace {

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    fmt::print(stderr, "cannot read {}\n", path);
    std::exit(2);
  }
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Writes `unit` repeated until the file reaches `target_bytes`.
int64_t write_repeated(const std::string& path, const std::string& unit, int64_t target_bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  int64_t written = 0;
  while (written < target_bytes) {
    out.write(unit.data(), static_cast<std::streamsize>(unit.size()));
    written += static_cast<int64_t>(unit.size());
  }
  return written;
}

// The log at `path` cut to its first `percent` % at a line end and ingested into a fresh store,
// then grown back to the whole and ingested again into that store; prints both. The whole is kept
// in a file beside it, not in this process: a child's peak RSS counts the pages it shares with
// the parent it was forked from.
void ingest_grown(const std::string& name, const std::string& dir, const std::string& path,
                  int percent) {
  namespace fs = std::filesystem;
  const std::string whole = path + ".whole";
  fs::copy_file(path, whole, fs::copy_options::overwrite_existing);
  const auto size = static_cast<int64_t>(fs::file_size(whole));
  int64_t cut = size;
  {
    std::ifstream in(whole, std::ios::binary);
    in.seekg(size * percent / 100);
    std::string rest;
    std::getline(in, rest);  // to the end of the line the cut falls in
    if (in) cut = static_cast<int64_t>(in.tellg());
  }
  fs::resize_file(path, static_cast<uintmax_t>(cut));
  rcf::bench::ingest_and_report(fmt::format("{}, first {} %", name, percent), dir, path, cut);
  fs::copy_file(whole, path, fs::copy_options::overwrite_existing);
  fs::remove(whole);
  rcf::bench::ingest_and_report(fmt::format("{}, grown to 100 %", name), dir, path, size, "",
                                /*fresh=*/false);
}

}  // namespace

int main(int argc, char** argv) {
  int64_t mb = 512;
  std::string dir = "/tmp/rcf-bench";
  bool keep = false;
  std::vector<int64_t> dense_curve;
  std::string only;
  int rounds = 1;
  int grown_percent = 0;
  for (int i = 1; i < argc; ++i) {
    if (!strcmp(argv[i], "--mb") && i + 1 < argc)
      mb = std::atoll(argv[++i]);
    else if (!strcmp(argv[i], "--dir") && i + 1 < argc)
      dir = argv[++i];
    else if (!strcmp(argv[i], "--keep"))
      keep = true;
    else if (!strcmp(argv[i], "--only") && i + 1 < argc)
      only = argv[++i];
    else if (!strcmp(argv[i], "--grown") && i + 1 < argc)
      grown_percent = std::clamp(std::atoi(argv[++i]), 1, 99);
    else if (!strcmp(argv[i], "--rcf") && i + 1 < argc)
      rcf::bench::rcf_binary() = argv[++i];
    else if (!strcmp(argv[i], "--rounds") && i + 1 < argc)
      rounds = std::max(1, std::atoi(argv[++i]));
    else if (!strcmp(argv[i], "--dense-curve") && i + 1 < argc)
      for (std::stringstream list(argv[++i]); list.good();) {
        std::string size;
        std::getline(list, size, ',');
        if (!size.empty()) dense_curve.push_back(std::atoll(size.c_str()));
      }
  }
  ::mkdir(dir.c_str(), 0755);
  fmt::print("rcf ingest benchmark: inputs generated in {} ({} MB each)\n", dir, mb);

  std::string fixtures = RCF_FIXTURES_DIR;

  // Dynamo text: every bundled text log, concatenated, repeated.
  std::string text_unit;
  for (const char* name :
       {"recompiles_pytorch_issue161119_shape_rank0_vllm.txt",
        "recompiles_diffusers_pr11970_obj_id.txt", "recompiles_tensordict_issue1606_dict_keys.txt",
        "graph_breaks_primerl_pr999_backend_item_attempt.txt",
        "recompile_limit_thunder_issue2682_constant_int.txt",
        "recompiles_sglang_issue7230_rank_shapeenv.txt"})
    text_unit += read_file(fixtures + "/dynamo/" + name);
  std::string text_path = dir + "/dynamo_text_repeated.log";
  if (!dense_curve.empty()) {
    for (int64_t size : dense_curve) {
      int64_t bytes = write_repeated(text_path, text_unit, size << 20);
      rcf::bench::ingest_and_report(fmt::format("dynamo_text dense, {} MB", size), dir, text_path,
                                    bytes);
      if (!keep) std::remove(text_path.c_str());
    }
    return 0;
  }
  // Runs `name` unless --only names another input; `rounds` times.
  auto wanted = [&](const std::string& name) { return name.starts_with(only); };
  auto ingest = [&](const std::string& name, const std::string& path, int64_t bytes,
                    const std::string& wc_input = "") {
    for (int round = 0; round < rounds; ++round) {
      if (grown_percent > 0 && wc_input.empty()) ingest_grown(name, dir, path, grown_percent);
      rcf::bench::ingest_and_report(name, dir, path, bytes, wc_input);
    }
  };

  std::string trace_unit =
      read_file(fixtures + "/torch_trace/multi_rank_logs/dedicated_log_torch_trace_rank_1.log");
  std::string trace_path = dir + "/torch_trace_rank1_repeated.log";
  std::string trace_gz = trace_path + ".gz";
  if (wanted("torch_trace")) {
    int64_t trace_bytes = write_repeated(trace_path, trace_unit, mb << 20);
    ingest("torch_trace (rank_1 x N)", trace_path, trace_bytes);
    // The same log gzipped (as logs are archived): inflating overlaps parsing on a second
    // thread. MB/s and the wc -l ratio are of the uncompressed bytes.
    if (rcf::bench::run_child("/bin/sh",
                              {"-c", "gzip -1 -c \"$1\" > \"$2\"", "sh", trace_path, trace_gz})
            .exit_code == 0)
      ingest("torch_trace gzip -1 (rank_1 x N)", trace_gz, trace_bytes, trace_path);
  }

  if (wanted("dynamo_text")) {
    int64_t text_bytes = write_repeated(text_path, text_unit, (mb / 4) << 20);
    ingest("dynamo_text dense (corpus x N)", text_path, text_bytes);
  }

  // A training job's stdout: the same Dynamo records, each copy of the corpus followed by 4000
  // ordinary lines (step metrics, other loggers' glog lines, tqdm redraws), as in real logs.
  std::string mixed_path = dir + "/training_stdout.log";
  if (wanted("dynamo_text")) {
    std::string noise;
    for (int i = 0; i < 4000; ++i) {
      switch (i % 4) {
        case 0:
          noise += fmt::format(
              "step {} | loss {:.4f} | lr 3.0e-04 | grad_norm {:.3f} | tokens/s 51234\n", i,
              2.0 + (i % 97) / 100.0, 0.5 + (i % 13) / 10.0);
          break;
        case 1:
          noise += fmt::format(
              "I1122 06:22:06.195000 886349 torch/distributed/elastic/agent.py:{}] "
              "[default] worker group heartbeat ok\n",
              100 + i % 50);
          break;
        case 2:
          noise += fmt::format("Epoch 1: {:3d}%|#####     | {}/4000 [00:{:02d}<00:10, 95.2it/s]\n",
                               i * 100 / 4000, i, i % 60);
          break;
        default:
          noise += "[2026-11-22 06:22:06,195] trainer INFO: checkpoint not due yet\n";
      }
    }
    int64_t mixed_bytes = write_repeated(mixed_path, text_unit + noise, mb << 20);
    ingest("dynamo_text in training log", mixed_path, mixed_bytes);
  }

  if (!keep) {
    std::remove(trace_path.c_str());
    std::remove(trace_gz.c_str());
    std::remove(text_path.c_str());
    std::remove(mixed_path.c_str());
    rcf::bench::remove_store(rcf::bench::bench_store(dir));
  }
  return 0;
}
