#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>

#include "cli/commands.h"
#include "cli/output_file.h"
#include "cli/print_text.h"
#include "pipeline/ingest_pipeline.h"
#include "report/explain.h"
#include "report/html_report.h"
#include "report/markdown_report.h"
#include "report/report_json.h"
#include "report/report_model.h"
#include "store/store.h"
#include "util/error.h"
#include "util/output_guard.h"
#include "util/safe_text.h"

namespace rcf::cli {
namespace {

// The bundled scenarios: each is one lane/run of logs from fixtures/ (real logs, and synthetic
// torch_xla bundles where no public run holds every output; see each fixture's README).
struct DemoScenario {
  const char* lane;
  const char* run;
  std::vector<const char*> paths;  // relative to the fixtures directory
};

const std::vector<DemoScenario>& demo_scenarios() {
  static const std::vector<DemoScenario> scenarios = {
      {"shape-storm", "trace", {"torch_trace/multi_rank_logs"}},
      {"object-identity", "trace", {"torch_trace/multi_rank_runtime"}},
      {"graph-break-restarts", "trace", {"torch_trace/comp_metrics.log"}},
      {"dynamo-text-corpus", "issues", {"dynamo"}},
      {"xla-bundle", "run1", {"xla_bundle"}},
      {"moe-constant-counter",
       "run1",
       {"scenarios/constant_counter/pt_xla_debug.log", "scenarios/constant_counter/metrics.txt",
        "scenarios/constant_counter/save_tensors.hlo.0", "scenarios/constant_counter/steps.csv"}},
      {"moe-optional-keys",
       "run1",
       {"scenarios/optional_keys/pt_xla_debug.log", "scenarios/optional_keys/metrics.txt",
        "scenarios/optional_keys/save_tensors.hlo.0", "scenarios/optional_keys/steps.csv"}},
      // Real torch.compile / jax.jit runs of the recompile zoo on an H100, with their truth
      // (fixtures/real_runs/README.md): a .item() + list.append storm, a recompile-limit hit, a
      // static argument, and a proven Inductor warm restart.
      {"zoo-item-list-append",
       "run1",
       {"real_runs/item_sync_list_append/run1/logs",
        "real_runs/item_sync_list_append/run1/stderr.log"}},
      {"zoo-recompile-limit",
       "run1",
       {"real_runs/recompile_limit/run1/logs", "real_runs/recompile_limit/run1/stderr.log"}},
      {"zoo-jax-static-arg", "run1", {"real_runs/jax_static_arg/run1/stderr.log"}},
      {"zoo-inductor-cache",
       "cold",
       {"real_runs/inductor_cache/cold/logs", "real_runs/inductor_cache/cold/stderr.log"}},
      {"zoo-inductor-cache",
       "warm",
       {"real_runs/inductor_cache/warm/logs", "real_runs/inductor_cache/warm/stderr.log"}},
      // Cold/warm pairs of one lane: a proven warm restart and the executable-cache bug.
      {"moe4b-restart", "cold", {"restart/proven/cold"}},
      {"moe4b-restart", "warm", {"restart/proven/warm"}},
      {"moe4b-restart-unread", "cold", {"restart/unread/cold"}},
      {"moe4b-restart-unread", "warm", {"restart/unread/warm"}},
  };
  return scenarios;
}

// Where the bundled fixtures are looked for when neither --fixtures nor RCF_FIXTURES names them:
// relative to the running binary, so it holds no path of the machine that built it. The build
// tree has them next to the binary (BUILD/share/rcf/fixtures), an installed PREFIX/bin/rcf one
// level up (PREFIX/share/rcf/fixtures; docs/usage.md, "rcf demo").
std::vector<std::string> fixture_candidates() {
  std::error_code ec;
  std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) return {};
  std::filesystem::path dir = exe.parent_path();
  return {(dir / "share/rcf/fixtures").string(),
          (dir / "../share/rcf/fixtures").lexically_normal().string()};
}

std::string find_fixtures() {
  if (const char* env = std::getenv("RCF_FIXTURES"); env != nullptr && *env != '\0') return env;
  std::vector<std::string> candidates = fixture_candidates();
  if (candidates.empty())
    throw Error(
        "cannot locate the rcf binary (/proc/self/exe) to find the demo's fixtures; "
        "give --fixtures DIR");
  for (const auto& dir : candidates)
    if (std::filesystem::is_directory(dir)) return dir;
  throw Error(fmt::format("no bundled fixtures for rcf demo in {} or {}; give --fixtures DIR",
                          util::field_text(candidates[0]), util::field_text(candidates[1])));
}

// --fixtures (or RCF_FIXTURES) when given, else the bundled fixtures; a directory either way.
std::string resolve_fixtures(const std::string& given) {
  std::string dir = given.empty() ? find_fixtures() : given;
  if (!std::filesystem::is_directory(dir))
    throw Error(fmt::format("{} {}: not a directory", given.empty() ? "RCF_FIXTURES" : "--fixtures",
                            util::field_text(dir)));
  return dir;
}

const char* const kDemoOutputs[] = {"explain.txt", "explain.json", "report.html", "report.md",
                                    "report.json"};

// The demo writes a fresh store: one already in the directory (or its journal files) is
// replaced only with --force, and no report goes over a SQLite file.
void prepare_demo_dir(const std::string& dir, const std::string& db_path, bool force) {
  ::mkdir(dir.c_str(), 0755);
  for (const char* name : kDemoOutputs)
    util::refuse_output_over_store("--out", dir + "/" + name, {db_path});
  bool existing = false;
  for (const char* suffix : {"", "-wal", "-shm", "-journal"})
    existing = existing || ::access((db_path + suffix).c_str(), F_OK) == 0;
  if (existing && !force)
    throw Error(
        fmt::format("--out {}: {} already exists and rcf demo writes a fresh database; "
                    "give another --out, or --force to replace it",
                    dir, db_path));
  for (const char* suffix : {"", "-wal", "-shm", "-journal"})
    std::remove((db_path + suffix).c_str());
}

}  // namespace

Command add_demo_command(CLI::App& app) {
  struct Options {
    std::string fixtures;  // empty: RCF_FIXTURES, else share/rcf/fixtures by the binary
    std::string out = "rcf-demo";
    bool force = false;
  };
  auto opt = std::make_shared<Options>();
  auto* cmd = app.add_subcommand(
      "demo",
      "Ingest the bundled fixtures into a fresh database; write the explanation and the reports");
  cmd->add_option("--fixtures", opt->fixtures,
                  "Fixtures directory (default: $RCF_FIXTURES, else share/rcf/fixtures beside "
                  "the rcf binary or in its parent directory)");
  cmd->add_option("--out", opt->out, "Output directory (database and reports)")
      ->capture_default_str();
  cmd->add_flag("--force", opt->force, "Replace the rcf.db an earlier demo left in --out");
  return {cmd, [opt]() {
            const std::string fixtures = resolve_fixtures(opt->fixtures);
            std::string db_path = opt->out + "/rcf.db";
            prepare_demo_dir(opt->out, db_path, opt->force);
            for (const auto& s : demo_scenarios()) {
              bool present = true;
              for (const char* p : s.paths)
                present = present && ::access((fixtures + "/" + p).c_str(), R_OK) == 0;
              if (!present) {
                print_text(fmt::format("[{}/{}] skipped: fixtures not found under {}\n", s.lane,
                                       s.run, util::field_text(fixtures)));
                continue;
              }
              pipeline::IngestRequest req;
              req.db_path = db_path;
              req.lane = s.lane;
              req.run = s.run;
              for (const char* p : s.paths) req.paths.push_back(fixtures + "/" + p);
              auto summary = pipeline::run_ingest(req);
              print_text(fmt::format("[{}/{}] {}", s.lane, s.run,
                                     pipeline::render_ingest_summary(summary)));
            }
            auto db = store::open_store(db_path, store::OpenMode::kRead);
            auto model = report::build_explain(*db, "", report::ExplainListing{});
            std::string text = report::render_explain_text(model);
            write_output_file(opt->out + "/explain.txt", text);
            write_output_file(opt->out + "/explain.json", report::render_explain_json(model));
            auto full = report::build_report(*db, "");
            write_output_file(opt->out + "/report.html", report::render_report_html(full));
            write_output_file(opt->out + "/report.md", report::render_report_markdown(full));
            write_output_file(opt->out + "/report.json", report::render_report_json(full));
            print_text("\n" + text);
            const std::string out = util::field_text(opt->out);
            print_text(
                fmt::format("Wrote {0}/rcf.db, {0}/explain.txt and {0}/explain.json\n"
                            "Reports: {0}/report.html (open in a browser; works offline), "
                            "{0}/report.md (upgrade note), {0}/report.json\n",
                            out));
            return kExitOk;
          }};
}

}  // namespace rcf::cli
