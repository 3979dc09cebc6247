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

#include "bench/ingest_run.h"
#include "tests/support/hlo_generator.h"
#include "tests/support/xla_log_generator.h"

namespace {}  // namespace

int main(int argc, char** argv) {
  int64_t debug_mb = 1024, hlo_mb = 512, hlo_files = 2000;
  std::string dir = "/tmp/rcf-xla-bench";
  bool keep = false;  // --keep: leave the generated log and HLO dump for profiling
  for (int i = 1; i < argc; ++i) {
    if (!strcmp(argv[i], "--debug-mb") && i + 1 < argc)
      debug_mb = std::atoll(argv[++i]);
    else if (!strcmp(argv[i], "--hlo-mb") && i + 1 < argc)
      hlo_mb = std::atoll(argv[++i]);
    else if (!strcmp(argv[i], "--hlo-files") && i + 1 < argc)
      hlo_files = std::atoll(argv[++i]);
    else if (!strcmp(argv[i], "--dir") && i + 1 < argc)
      dir = argv[++i];
    else if (!strcmp(argv[i], "--keep"))
      keep = true;
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
  rcf::bench::ingest_and_report("PT_XLA_DEBUG level 2 log", dir, debug_path, debug_bytes);
  if (!keep) std::filesystem::remove(debug_path);

  int64_t hlo_bytes = 0;
  size_t per_file = static_cast<size_t>((hlo_mb << 20) / hlo_files);
  for (int i = 0; i < hlo_files; ++i) {
    std::string text =
        rcf::testing::make_hlo_module_text(i, per_file, static_cast<uint32_t>(i + 1));
    std::string name = fmt::format(
        "{}/dump/module_{:04d}.SyncTensorsGraph.{}.before_optimizations.txt", dir, i, 100 + i);
    std::ofstream(name, std::ios::binary) << text;
    hlo_bytes += static_cast<int64_t>(text.size());
  }
  rcf::bench::ingest_and_report(fmt::format("--xla_dump_to dir ({} HLO files)", hlo_files), dir,
                                dir + "/dump", hlo_bytes);
  if (!keep) std::filesystem::remove_all(dir);
  return 0;
}
