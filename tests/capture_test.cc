// `rcf capture`: the environment plan per level (what is set, appended, kept), the console-log
// sniffing, the command runner (pass-through, exit codes, signals) and the whole capture end to
// end with fixtures/capture/fake_train.sh, a fake training command that checks the variables it
// was given and writes real logs (copies of the fixtures) where they point.
#include "pipeline/capture.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "pipeline/capture_bundle.h"
#include "pipeline/capture_env.h"
#include "pipeline/capture_process.h"
#include "pipeline/console_line_times.h"
#include "store/store.h"
#include "tests/support/db_dump.h"
#include "tests/support/temp_files.h"
#include "tests/support/test_paths.h"
#include "util/hostname.h"

namespace rcf {
namespace capture_test {

namespace fs = std::filesystem;
using nlohmann::json;
using pipeline::CaptureEnv;
using pipeline::CaptureLayout;
using pipeline::CaptureLevel;
using pipeline::EnvAction;
using testing::read_file;
using testing::replace_all;
using testing::scalar;
using testing::TempDir;
using testing::write_file;

const std::string kFixtures = RCF_FIXTURES_DIR;
const std::string kFakeTrain = kFixtures + "/capture/fake_train.sh";
const std::string kFakePython = kFixtures + "/capture/fake_python.sh";
// What fake_train.sh prints on stdout with FAKE_STACK=xla.
const std::string kXlaStdout =
    "step 1 loss 0.8\nstep 2 loss 0.7\nstep 3 loss 0.6\nstep 4 loss 0.5\n"
    "FAKE STDOUT END\r\nno newline";

// Every variable capture manages: unset in the tests' commands so that the machine's own
// environment cannot leak in.
const char* const kManaged[] = {"PT_XLA_DEBUG",
                                "PT_XLA_DEBUG_LEVEL",
                                "PT_XLA_DEBUG_FILE",
                                "XLA_METRICS_FILE",
                                "XLA_FLAGS",
                                "XLA_SAVE_TENSORS_FILE",
                                "XLA_SAVE_TENSORS_FMT",
                                "TORCH_LOGS",
                                "TORCH_TRACE",
                                "JAX_LOG_COMPILES",
                                "JAX_EXPLAIN_CACHE_MISSES",
                                "PYTHONUNBUFFERED",
                                "PYTHON",
                                "FAKE_STACK",
                                "FAKE_LEVEL",
                                "FAKE_EXIT",
                                "FAKE_WAIT"};

const pipeline::EnvSetting* setting(const CaptureEnv& env, const std::string& name) {
  for (const auto& s : env.settings)
    if (s.name == name) return &s;
  return nullptr;
}

// ---- the environment plan ---------------------------------------------------------------------

TEST(CaptureEnvPlan, LightLevelSetsCompileLogsAndTheHloDump) {
  CaptureLayout layout{"/cap"};
  CaptureEnv env = pipeline::plan_capture_env({{"PATH", "/bin"}}, layout, CaptureLevel::kLight);
  std::map<std::string, std::string> expected = {
      {"PT_XLA_DEBUG", "1"},
      {"PT_XLA_DEBUG_LEVEL", "1"},
      {"PT_XLA_DEBUG_FILE", "/cap/logs/pt_xla_debug.log"},
      {"XLA_METRICS_FILE", "/cap/logs/metrics.txt"},
      {"XLA_FLAGS", "--xla_dump_to=/cap/logs/xla_dump --xla_dump_hlo_as_text"},
      {"TORCH_LOGS", "recompiles,graph_breaks"},
      {"TORCH_TRACE", "/cap/logs/torch_trace"},
      {"JAX_LOG_COMPILES", "1"},
      {"JAX_EXPLAIN_CACHE_MISSES", "1"},
      {"PYTHONUNBUFFERED", "1"},
  };
  std::map<std::string, std::string> got;
  for (const auto& s : env.settings) {
    got[s.name] = s.value;
    EXPECT_EQ(s.action, EnvAction::kSet) << s.name;
  }
  EXPECT_EQ(got, expected);
  EXPECT_EQ(env.env.at("PATH"), "/bin");  // everything else passes through
  EXPECT_EQ(env.env.count("XLA_SAVE_TENSORS_FILE"), 0u);
  EXPECT_TRUE(env.external_outputs.empty());
}

TEST(CaptureEnvPlan, FullLevelAddsExecutionsAndSavedGraphs) {
  CaptureEnv env = pipeline::plan_capture_env({}, CaptureLayout{"/cap"}, CaptureLevel::kFull);
  EXPECT_EQ(env.env.at("PT_XLA_DEBUG_LEVEL"), "2");
  EXPECT_EQ(env.env.at("XLA_SAVE_TENSORS_FILE"), "/cap/logs/save_tensors.hlo");
  EXPECT_EQ(env.env.at("XLA_SAVE_TENSORS_FMT"), "hlo");
  EXPECT_EQ(env.env.at("XLA_FLAGS"), "--xla_dump_to=/cap/logs/xla_dump --xla_dump_hlo_as_text");
}

TEST(CaptureEnvPlan, UserValuesAreKeptAndListsAppended) {
  std::map<std::string, std::string> user = {
      {"TORCH_LOGS", "+dynamo,recompiles"},
      {"XLA_FLAGS", "--xla_force_host_platform_device_count=8"},
      {"PT_XLA_DEBUG_LEVEL", "2"},
      {"PT_XLA_DEBUG_FILE", "/home/me/debug.log"},
      {"XLA_METRICS_FILE", "STDERR"},
      {"TORCH_TRACE", "/home/me/trace"},
      {"JAX_LOG_COMPILES", "0"},
      {"XLA_SAVE_TENSORS_FILE", ""},  // empty counts as unset
  };
  CaptureEnv env = pipeline::plan_capture_env(user, CaptureLayout{"/cap"}, CaptureLevel::kFull);
  EXPECT_EQ(env.env.at("TORCH_LOGS"), "+dynamo,recompiles,graph_breaks");
  EXPECT_EQ(setting(env, "TORCH_LOGS")->action, EnvAction::kAppended);
  EXPECT_EQ(setting(env, "TORCH_LOGS")->previous, "+dynamo,recompiles");
  EXPECT_EQ(env.env.at("XLA_FLAGS"),
            "--xla_force_host_platform_device_count=8 --xla_dump_to=/cap/logs/xla_dump "
            "--xla_dump_hlo_as_text");
  EXPECT_EQ(setting(env, "XLA_FLAGS")->action, EnvAction::kAppended);
  for (const char* kept : {"PT_XLA_DEBUG_LEVEL", "PT_XLA_DEBUG_FILE", "XLA_METRICS_FILE",
                           "TORCH_TRACE", "JAX_LOG_COMPILES"}) {
    EXPECT_EQ(env.env.at(kept), user.at(kept)) << kept;
    EXPECT_EQ(setting(env, kept)->action, EnvAction::kKept) << kept;
  }
  EXPECT_EQ(env.env.at("XLA_SAVE_TENSORS_FILE"), "/cap/logs/save_tensors.hlo");
  // What the user's own settings write is ingested too; STDERR is the console log already.
  EXPECT_EQ(env.external_outputs,
            (std::vector<std::string>{"/home/me/debug.log", "/home/me/trace"}));
}

TEST(CaptureEnvPlan, LightLevelStillReadsWhatTheUsersOwnSettingsWrite) {
  CaptureEnv env = pipeline::plan_capture_env(
      {{"XLA_FLAGS", "--xla_dump_to /dumps"}, {"XLA_SAVE_TENSORS_FILE", "/g/graphs.txt"}},
      CaptureLayout{"/cap"}, CaptureLevel::kLight);
  EXPECT_EQ(setting(env, "XLA_FLAGS")->action, EnvAction::kKept);  // the user's dump
  EXPECT_EQ(env.env.at("XLA_FLAGS"), "--xla_dump_to /dumps");
  EXPECT_EQ(env.external_outputs, (std::vector<std::string>{"/g/graphs.txt", "/dumps"}));
}

TEST(CaptureEnvPlan, ExistingDumpDirectoryIsKept) {
  CaptureEnv env =
      pipeline::plan_capture_env({{"XLA_FLAGS", "--xla_dump_to=/dumps --xla_dump_hlo_as_text"},
                                  {"TORCH_LOGS", "graph_breaks,+recompiles"}},
                                 CaptureLayout{"/cap"}, CaptureLevel::kFull);
  EXPECT_EQ(env.env.at("XLA_FLAGS"), "--xla_dump_to=/dumps --xla_dump_hlo_as_text");
  EXPECT_EQ(setting(env, "XLA_FLAGS")->action, EnvAction::kKept);
  EXPECT_EQ(setting(env, "TORCH_LOGS")->action, EnvAction::kKept);
  EXPECT_EQ(env.external_outputs, std::vector<std::string>{"/dumps"});
}

TEST(CaptureNames, DefaultLaneIsTheScriptName) {
  using pipeline::default_capture_lane;
  EXPECT_EQ(default_capture_lane({"python", "train.py", "--steps", "4"}), "train");
  EXPECT_EQ(default_capture_lane({"python3", "-m", "pkg.train"}), "pkg.train");
  EXPECT_EQ(default_capture_lane({"./run_tpu.sh"}), "run_tpu");
  EXPECT_EQ(default_capture_lane({"torchrun", "--nproc_per_node=8", "/w/moe/train.py"}), "train");
  EXPECT_EQ(default_capture_lane({"/usr/bin/make", "bench"}), "make");
}

TEST(CaptureBundle, RecordsVersionsLevelSettingsAndUserFlags) {
  CaptureLayout layout{"/w/rcf-capture/mtp1/run1"};
  std::map<std::string, std::string> parent = {
      {"XLA_FLAGS", "--xla_foo=1"}, {"LIBTPU_INIT_ARGS", "--xla_tpu_bar"}, {"HOME", "/root"}};
  CaptureEnv env = pipeline::plan_capture_env(parent, layout, CaptureLevel::kLight);
  json bundle =
      pipeline::capture_bundle({{"torch", "2.5.1"}}, "", CaptureLevel::kLight, env, parent,
                               {"python", "train.py", "--name", "a b"}, layout.dir);
  EXPECT_EQ(bundle["torch"], "2.5.1");
  EXPECT_EQ(bundle["capture_level"], "light");
  EXPECT_EQ(bundle["command"], "python train.py --name 'a b'");
  EXPECT_EQ(bundle["PT_XLA_DEBUG_FILE"], "<capture>/logs/pt_xla_debug.log");
  // The user's flags, with the dump appended.
  EXPECT_EQ(bundle["XLA_FLAGS"],
            "--xla_foo=1 --xla_dump_to=<capture>/logs/xla_dump --xla_dump_hlo_as_text");
  EXPECT_EQ(bundle["LIBTPU_INIT_ARGS"], "--xla_tpu_bar");
  EXPECT_FALSE(bundle.contains("HOME"));
  EXPECT_FALSE(bundle.contains("versions_probe"));
  json failed = pipeline::capture_bundle(json::object(), "python3: No such file or directory",
                                         CaptureLevel::kFull, env, {}, {"x"}, layout.dir);
  EXPECT_EQ(failed["versions_probe"], "python3: No such file or directory");
  EXPECT_EQ(failed["capture_level"], "full");
}

TEST(CaptureBundle, ProbeUsesTheCommandsPythonAndSurvivesFailures) {
  EXPECT_EQ(pipeline::python_for({"/opt/venv/bin/python3.11", "train.py"}, {}),
            "/opt/venv/bin/python3.11");
  EXPECT_EQ(pipeline::python_for({"torchrun", "train.py"}, {{"PYTHON", "/opt/py"}}), "/opt/py");
  EXPECT_EQ(pipeline::python_for({"torchrun", "train.py"}, {}), "python3");
  std::string error;
  json versions = pipeline::probe_stack_versions(kFakePython, {}, std::chrono::seconds(10), &error);
  EXPECT_EQ(error, "");
  EXPECT_EQ(versions["torch_xla"], "2.5.1");
  EXPECT_EQ(versions.size(), 6u);
  versions =
      pipeline::probe_stack_versions("/nonexistent/python", {}, std::chrono::seconds(10), &error);
  EXPECT_TRUE(versions.empty());
  EXPECT_NE(error.find("/nonexistent/python"), std::string::npos) << error;
}

TEST(CaptureProcess, HelperIsKilledAtItsDeadline) {
  auto start = std::chrono::steady_clock::now();
  pipeline::HelperOutcome out =
      pipeline::run_helper({"sh", "-c", "echo partial; sleep 30"}, {"PATH=/usr/bin:/bin"},
                           std::chrono::milliseconds(300));
  EXPECT_FALSE(out.ok);
  EXPECT_NE(out.error.find("timed out after 0.3 s"), std::string::npos) << out.error;
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(10));
}

// ---- console logs and the user's own outputs ---------------------------------------------------

TEST(CaptureInputs, ConsoleLogIsRecognisedWhereverItsLogStarts) {
  TempDir tmp;
  std::string noise;
  while (noise.size() < 100000) noise += "Epoch 0:  12%|#    | 12/100 [00:01<00:09, loss=0.51]\n";
  std::string dynamo = read_file(kFixtures + "/dynamo/recompiles_pytorch_issue128134_dtype.txt");
  write_file(tmp.file("late.log"), noise + dynamo);
  pipeline::ConsoleFormat late = pipeline::find_console_format(tmp.file("late.log"));
  EXPECT_EQ(late.format, "dynamo_text");
  EXPECT_GT(late.offset, 60 * 1024);  // not in the first window: no sniff would see it
  write_file(tmp.file("early.log"), dynamo + noise);
  EXPECT_EQ(pipeline::find_console_format(tmp.file("early.log")).offset, 0);
  write_file(tmp.file("noise.log"), noise);
  EXPECT_EQ(pipeline::find_console_format(tmp.file("noise.log")).format, "");
  // A step table counts only at the start of a file: a header in the middle is user output.
  write_file(tmp.file("table.log"), noise + "step,wall_ms\n1,10\n");
  EXPECT_EQ(pipeline::find_console_format(tmp.file("table.log")).format, "");
  write_file(tmp.file("steps.csv"), "step,wall_ms\n1,10\n");
  EXPECT_EQ(pipeline::find_console_format(tmp.file("steps.csv")).format, "step_timing");
}

TEST(CaptureInputs, OnlyFilesWrittenDuringTheRunAreTaken) {
  TempDir tmp;
  fs::create_directories(tmp.file("trace/sub"));
  write_file(tmp.file("trace/old.log"), "x");
  write_file(tmp.file("trace/sub/new.log"), "x");
  write_file(tmp.file("metrics.txt"), "x");
  write_file(tmp.file("metrics.txt.1"), "x");
  write_file(tmp.file("metrics.txt.bak"), "x");
  write_file(tmp.file("other.txt"), "x");
  auto now = fs::file_time_type::clock::now();
  fs::last_write_time(tmp.file("trace/old.log"), now - std::chrono::hours(2));
  auto files = pipeline::files_written_since({tmp.file("trace"), tmp.file("metrics.txt")},
                                             now - std::chrono::minutes(1));
  EXPECT_EQ(files, (std::vector<std::string>{tmp.file("metrics.txt"), tmp.file("metrics.txt.1"),
                                             tmp.file("trace/sub/new.log")}));
  EXPECT_TRUE(pipeline::files_written_since({tmp.file("missing")}, now).empty());
}

// ---- the command runner ------------------------------------------------------------------------

class CaptureRunner : public ::testing::Test {
 protected:
  // Runs `script` under run_teed with its pass-through going to two files.
  pipeline::CommandOutcome run(const std::string& script) {
    int out = ::open(tmp_.file("passed.out").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    int err = ::open(tmp_.file("passed.err").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    auto outcome = pipeline::run_teed({"sh", "-c", script}, {"PATH=/usr/bin:/bin"},
                                      tmp_.file("stdout.log"), tmp_.file("stderr.log"), out, err);
    ::close(out);
    ::close(err);
    return outcome;
  }
  TempDir tmp_;
};

TEST_F(CaptureRunner, OutputPassesThroughByteForByteAndIsKept) {
  std::string bytes;
  for (int i = 0; i < 256; ++i) bytes += static_cast<char>(i);
  write_file(tmp_.file("bytes.bin"), bytes);
  auto r = run("cat '" + tmp_.file("bytes.bin") + "'; printf 'err\\r\\nno newline' >&2; exit 7");
  EXPECT_TRUE(r.started);
  EXPECT_EQ(r.exit_code, 7);
  EXPECT_EQ(r.signal, 0);
  EXPECT_EQ(read_file(tmp_.file("passed.out")), bytes);
  EXPECT_EQ(read_file(tmp_.file("stdout.log")), bytes);
  EXPECT_EQ(read_file(tmp_.file("passed.err")), "err\r\nno newline");
  EXPECT_EQ(read_file(tmp_.file("stderr.log")), "err\r\nno newline");
}

TEST_F(CaptureRunner, LargeInterleavedOutputIsComplete) {
  auto r =
      run("i=0; while [ $i -lt 20000 ]; do echo \"out $i\"; echo \"err $i\" >&2; "
          "i=$((i+1)); done");
  EXPECT_EQ(r.exit_code, 0);
  std::string out = read_file(tmp_.file("stdout.log"));
  EXPECT_EQ(std::count(out.begin(), out.end(), '\n'), 20000);
  EXPECT_EQ(out, read_file(tmp_.file("passed.out")));
  EXPECT_NE(out.find("out 19999\n"), std::string::npos);
}

TEST_F(CaptureRunner, KilledBySignalGivesTheShellExitCode) {
  auto r = run("echo before; kill -TERM $$; echo after");
  EXPECT_EQ(r.signal, SIGTERM);
  EXPECT_EQ(r.exit_code, 128 + SIGTERM);
  EXPECT_EQ(read_file(tmp_.file("stdout.log")), "before\n");
}

TEST_F(CaptureRunner, MissingCommandIsReportedNotThrown) {
  auto r = pipeline::run_teed({"/nonexistent/train"}, {}, tmp_.file("o"), tmp_.file("e"));
  EXPECT_FALSE(r.started);
  EXPECT_EQ(r.spawn_error, ENOENT);
  EXPECT_EQ(r.exit_code, 127);
}

TEST_F(CaptureRunner, BackgroundProcessHoldingTheOutputDoesNotHang) {
  auto start = std::chrono::steady_clock::now();
  auto r = run("(sleep 5; echo late) & echo done");
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_TRUE(r.output_held_open);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(10));
  EXPECT_EQ(read_file(tmp_.file("stdout.log")), "done\n");
}

// ---- rcf capture end to end --------------------------------------------------------------------

std::string quote(const std::string& s) {
  return "'" + replace_all(s, "'", "'\\''") + "'";
}

struct CliRun {
  int rc = -1;
  std::string out, err;
};

class CaptureCli : public ::testing::Test {
 protected:
  // The shell command that runs `rcf ARGS` in the temp directory with `env` set, the managed
  // variables otherwise unset, and PYTHON pointing at the fake probe unless `env` says otherwise.
  std::string command_line(const std::vector<std::string>& args,
                           std::map<std::string, std::string> env) {
    env.emplace("PYTHON", kFakePython);
    std::string cmd = "cd " + quote(tmp_.path()) + " && exec env";
    for (const char* name : kManaged) cmd += std::string(" -u ") + name;
    for (const auto& [k, v] : env) cmd += " " + quote(k + "=" + v);
    cmd += " " + quote(RCF_BINARY);
    for (const auto& a : args) cmd += " " + quote(a);
    return cmd;
  }

  CliRun rcf(const std::vector<std::string>& args,
             const std::map<std::string, std::string>& env = {}) {
    std::string cmd = command_line(args, env) + " >" + quote(tmp_.file(".out")) + " 2>" +
                      quote(tmp_.file(".err")) + " </dev/null";
    int status = std::system(cmd.c_str());
    CliRun r;
    r.rc = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    r.out = read_file(tmp_.file(".out"));
    r.err = read_file(tmp_.file(".err"));
    return r;
  }

  std::vector<std::string> capture(const std::vector<std::string>& options) {
    std::vector<std::string> args = {"capture"};
    args.insert(args.end(), options.begin(), options.end());
    args.push_back("--");
    args.push_back(kFakeTrain);
    return args;
  }

  std::unique_ptr<store::Database> db() {
    return store::open_store(tmp_.file("rcf.db"), store::OpenMode::kRead);
  }
  json bundle(const std::string& lane, const std::string& run) {
    return json::parse(
        scalar(*db(), "SELECT bundle FROM runs WHERE lane='" + lane + "' AND run='" + run + "'"));
  }
  std::string formats(const std::string& run) {
    return scalar(*db(),
                  "SELECT group_concat(format, ' ') FROM (SELECT DISTINCT s.format FROM source s "
                  "JOIN run_table r USING (run_id) WHERE r.run='" +
                      run + "' ORDER BY 1)");
  }
  std::string dir(const std::string& lane, const std::string& run) {
    return tmp_.file("rcf-capture/" + lane + "/" + run);
  }

  TempDir tmp_;
};

// `--print-env` prints what a capture sets, runs nothing; the recompile zoo runs its scenarios
// with that list (examples/recompile_zoo/capture_env.txt), which must stay current.
TEST_F(CaptureCli, PrintEnvListsTheManagedVariablesAndIsWhatTheZooUses) {
  CliRun r = rcf({"capture", "--print-env", "--out", "@CAPTURE@"});
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(r.out.find("TORCH_TRACE=@CAPTURE@/logs/torch_trace\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("JAX_EXPLAIN_CACHE_MISSES=1\n"), std::string::npos);
  EXPECT_FALSE(std::filesystem::exists(tmp_.file("rcf.db")));
  EXPECT_EQ(r.out,
            read_file(std::string(RCF_FIXTURES_DIR) + "/../examples/recompile_zoo/capture_env.txt"))
      << "regenerate it: env -i PATH=/usr/bin:/bin rcf capture --print-env --out @CAPTURE@";
  // The user's own values are what a capture would give the command.
  r = rcf({"capture", "--print-env", "--out", "/c", "--level", "full"},
          {{"TORCH_LOGS", "+dynamo"}});
  EXPECT_NE(r.out.find("TORCH_LOGS=+dynamo,recompiles,graph_breaks\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("XLA_FLAGS=--xla_dump_to=/c/logs/xla_dump --xla_dump_hlo_as_text\n"),
            std::string::npos);
  EXPECT_EQ(rcf({"capture", "--print-env"}).rc, 2) << "--out is required";
}

TEST_F(CaptureCli, LightCaptureOfAnXlaRunIsIngestedAndExplained) {
  CliRun r = rcf(capture({}));
  ASSERT_EQ(r.rc, 0) << r.err;
  // The command's stdout is rcf's stdout, byte for byte; rcf speaks on stderr.
  EXPECT_EQ(r.out, kXlaStdout);
  EXPECT_NE(r.err.find("fake_train: environment ok (level light)"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("fake_train: done\r\nlast line without newline"), std::string::npos);
  EXPECT_NE(r.err.find("exited with code 0"), std::string::npos);
  const std::string d = dir("fake_train", "run1");
  EXPECT_EQ(read_file(d + "/stdout.log"), kXlaStdout);
  // When each complete line arrived, beside the log (the partial last line has no time yet).
  std::string error;
  auto times = pipeline::ConsoleLineTimes::read(d + "/stdout.log.times", &error);
  ASSERT_TRUE(times) << error;
  ASSERT_TRUE(times->time_of(5));
  EXPECT_NEAR(*times->time_of(5), pipeline::wall_clock_ms() / 1000.0, 120);
  EXPECT_FALSE(times->time_of(6));
  EXPECT_TRUE(pipeline::ConsoleLineTimes::read(d + "/stderr.log.times", &error)) << error;
  // The console's own `step N` lines are a progress console (plain_text): its steps.
  EXPECT_EQ(formats("run1"), "plain_text pt_xla_debug xla_metrics");
  EXPECT_EQ(scalar(*db(), "SELECT group_concat(DISTINCT host) FROM ingest_stats"),
            util::this_host());
  // fixtures/xla_bundle: 3 programs, settled after step 2.
  EXPECT_EQ(scalar(*db(), "SELECT count(*) FROM compiles WHERE lane='fake_train'"), "3");
  EXPECT_NE(r.err.find("settled at step 2"), std::string::npos) << r.err;
  json b = bundle("fake_train", "run1");
  EXPECT_EQ(b["capture_level"], "light");
  EXPECT_EQ(b["torch_xla"], "2.5.1");
  EXPECT_EQ(b["PT_XLA_DEBUG_LEVEL"], "1");
  EXPECT_EQ(b["PT_XLA_DEBUG_FILE"], "<capture>/logs/pt_xla_debug.log");
  EXPECT_EQ(b["command"], kFakeTrain);
  EXPECT_EQ(json::parse(read_file(d + "/bundle.json")), b);
  for (const char* f : {"report.html", "report.md", "explain.txt"})
    EXPECT_TRUE(fs::exists(d + "/" + f)) << f;
  EXPECT_NE(read_file(d + "/report.md").find("torch\\_xla `2.5.1`"), std::string::npos);
  EXPECT_NE(r.err.find(d + "/report.html"), std::string::npos) << r.err;
}

TEST_F(CaptureCli, FullCaptureAlsoReadsSavedGraphsAndHloDumps) {
  CliRun r = rcf(capture({"--level", "full", "--lane", "xla-full", "--host", "tpu-host-7"}),
                 {{"FAKE_LEVEL", "full"}});
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_EQ(formats("run1"), "hlo_text plain_text pt_xla_debug xla_metrics xla_saved_graph");
  // --host reaches the ingest: every source says where it came from (docs/merge.md).
  EXPECT_EQ(scalar(*db(), "SELECT group_concat(DISTINCT host) FROM ingest_stats"), "tpu-host-7");
  json b = bundle("xla-full", "run1");
  EXPECT_EQ(b["capture_level"], "full");
  EXPECT_EQ(b["XLA_SAVE_TENSORS_FMT"], "hlo");
  EXPECT_EQ(b["XLA_FLAGS"], "--xla_dump_to=<capture>/logs/xla_dump --xla_dump_hlo_as_text");
  EXPECT_TRUE(fs::exists(dir("xla-full", "run1") + "/logs/save_tensors.hlo.0"));
}

TEST_F(CaptureCli, TextLogAndTraceOfTheSameProcessCountEachCompileOnce) {
  CliRun r = rcf(capture({"--lane", "same"}),
                 {{"FAKE_STACK", "dynamo_same_process"}, {"PYTHON", "/nonexistent/py"}});
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_EQ(formats("run1"), "dynamo_text torch_trace");
  // The rank-3 trace alone: 7 compiles, 6 recompiles; the stderr log names the same 6.
  EXPECT_EQ(scalar(*db(), "SELECT count(*) FROM compiles WHERE lane='same'"), "7");
  EXPECT_EQ(scalar(*db(), "SELECT count(*) FROM recompiles WHERE lane='same'"), "6");
  EXPECT_NE(scalar(*db(), "SELECT evidence FROM merged_sources").find("pid 98102"),
            std::string::npos);
}

TEST_F(CaptureCli, DynamoLogOnStderrAfterLongOutputIsRead) {
  // No python for the probe: the versions come from the TORCH_TRACE log itself.
  CliRun r =
      rcf(capture({"--lane", "dyn"}), {{"FAKE_STACK", "dynamo"}, {"PYTHON", "/nonexistent/py"}});
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_EQ(formats("run1"), "dynamo_text torch_trace");
  EXPECT_GT(std::stoi(scalar(*db(), "SELECT count(*) FROM recompiles WHERE lane='dyn'")), 0);
  json b = bundle("dyn", "run1");
  EXPECT_EQ(b["torch"], "2.9.0a0+gitf23d314");
  EXPECT_EQ(b["python"], "3.11.13");
  EXPECT_NE(b["versions_probe"].get<std::string>().find("/nonexistent/py"), std::string::npos);
}

// --watch: the alerts of rcf watch on stderr while the command runs, the command's stdout left
// alone, and the same run recorded as without it (the watch's own store is gone afterwards).
TEST_F(CaptureCli, WatchPrintsAlertsWhileTheCommandRuns) {
  CliRun r = rcf(capture({"--lane", "dynw", "--watch"}),
                 {{"FAKE_STACK", "dynamo"}, {"PYTHON", "/nonexistent/py"}});
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(r.err.find("[recompile] dynw/run1"), std::string::npos) << r.err;
  EXPECT_EQ(r.out.find("[recompile]"), std::string::npos) << r.out;
  EXPECT_EQ(formats("run1"), "dynamo_text torch_trace");
  EXPECT_GT(std::stoi(scalar(*db(), "SELECT count(*) FROM recompiles WHERE lane='dynw'")), 0);
  EXPECT_FALSE(fs::exists(dir("dynw", "run1") + "/watch.db"));
}

TEST_F(CaptureCli, JaxLogIsRead) {
  CliRun r = rcf(capture({"--lane", "jax"}), {{"FAKE_STACK", "jax"}});
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_EQ(formats("run1"), "jax_log");
}

TEST_F(CaptureCli, ExitCodeOfAFailedCommandIsKeptAndItsLogsStillIngested) {
  CliRun r = rcf(capture({}), {{"FAKE_EXIT", "5"}});
  EXPECT_EQ(r.rc, 5) << r.err;
  EXPECT_NE(r.err.find("exited with code 5"), std::string::npos);
  EXPECT_EQ(scalar(*db(), "SELECT count(*) FROM compiles WHERE lane='fake_train'"), "3");
  // A second capture gets the next free run label, run2. The fake writes the same bytes again, as
  // a deterministic script does (a cold and a warm run whose cache was not read): they are run2's
  // own logs, in files of their own, not run1's read twice.
  r = rcf(capture({}));
  EXPECT_EQ(r.rc, 0) << r.err;
  EXPECT_EQ(r.err.find("same content as"), std::string::npos) << r.err;
  EXPECT_TRUE(fs::exists(dir("fake_train", "run2") + "/stdout.log"));
  EXPECT_EQ(scalar(*db(), "SELECT group_concat(run, ' ') FROM (SELECT run FROM runs ORDER BY 1)"),
            "run1 run2");
  EXPECT_EQ(scalar(*db(), "SELECT count(*) FROM compiles WHERE run='run2'"), "3");
}

TEST_F(CaptureCli, WrongEnvironmentMakesTheFakeFail) {
  // The check in fake_train.sh is real: at the light level it refuses full-level variables.
  CliRun r = rcf(capture({}), {{"FAKE_LEVEL", "full"}});
  EXPECT_EQ(r.rc, 3);
  EXPECT_NE(r.err.find("fake_train: PT_XLA_DEBUG_LEVEL='1' does not match '2'"), std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("nothing to ingest"), std::string::npos) << r.err;
}

TEST_F(CaptureCli, UserSettingsAreRespectedAndTheirFilesIngested) {
  std::string mine = tmp_.file("my_debug.log");
  CliRun r =
      rcf(capture({"--lane", "mine"}),
          {{"PT_XLA_DEBUG_FILE", mine}, {"TORCH_LOGS", "+dynamo"}, {"XLA_FLAGS", "--xla_x=1"}});
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_TRUE(fs::exists(mine));
  EXPECT_EQ(scalar(*db(), "SELECT count(*) FROM source WHERE path='" + mine + "'"), "1");
  json b = bundle("mine", "run1");
  EXPECT_EQ(b["PT_XLA_DEBUG_FILE"], mine);
  EXPECT_EQ(b["TORCH_LOGS"], "+dynamo,recompiles,graph_breaks");
  EXPECT_EQ(b["XLA_FLAGS"],
            "--xla_x=1 --xla_dump_to=<capture>/logs/xla_dump --xla_dump_hlo_as_text");
  EXPECT_NE(r.err.find("PT_XLA_DEBUG_FILE (kept)"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("TORCH_LOGS (appended)"), std::string::npos) << r.err;
}

TEST_F(CaptureCli, UsageErrorsStopBeforeTheCommandRuns) {
  CliRun missing = rcf({"capture", "--", "/nonexistent/train.py"});
  EXPECT_EQ(missing.rc, 127);
  EXPECT_NE(missing.err.find("cannot run '/nonexistent/train.py'"), std::string::npos);
  EXPECT_FALSE(fs::exists(tmp_.file("rcf.db")));
  EXPECT_FALSE(fs::exists(tmp_.file("rcf-capture")));

  CliRun no_dashes = rcf({"capture", kFakeTrain});
  EXPECT_EQ(no_dashes.rc, 2);
  EXPECT_NE(no_dashes.err.find("give the command after --"), std::string::npos) << no_dashes.err;

  ASSERT_EQ(rcf(capture({"--run", "cold"})).rc, 0);
  CliRun again = rcf(capture({"--run", "cold", "--out", tmp_.file("other")}));
  EXPECT_EQ(again.rc, 2);
  EXPECT_NE(again.err.find("run 'cold' of lane 'fake_train' already exists"), std::string::npos)
      << again.err;
  EXPECT_EQ(again.out, "");  // the command did not run

  fs::create_directories(tmp_.file("full"));
  write_file(tmp_.file("full/old.log"), "x");
  CliRun full = rcf(capture({"--out", tmp_.file("full")}));
  EXPECT_EQ(full.rc, 2);
  EXPECT_NE(full.err.find("is not empty"), std::string::npos) << full.err;

  CliRun level = rcf(capture({"--level", "huge"}));
  EXPECT_EQ(level.rc, 2);
}

// Starts `rcf ARGS` in its own process group (as a shell job would be) with stdout and stderr in
// files; returns its pid.
pid_t spawn(const std::string& command_line) {
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  posix_spawnattr_setpgroup(&attr, 0);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);
  std::vector<std::string> argv = {"/bin/sh", "-c", command_line};
  std::vector<char*> ptrs;
  for (auto& a : argv) ptrs.push_back(a.data());
  ptrs.push_back(nullptr);
  pid_t pid = 0;
  int rc = posix_spawn(&pid, "/bin/sh", nullptr, &attr, ptrs.data(), environ);
  posix_spawnattr_destroy(&attr);
  return rc == 0 ? pid : -1;
}

bool wait_for_text(const std::string& path, const std::string& text) {
  for (int i = 0; i < 200; ++i) {
    std::error_code ec;
    if (fs::exists(path, ec) && read_file(path).find(text) != std::string::npos) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return false;
}

int wait_exit(pid_t pid) {
  int status = 0;
  for (int i = 0; i < 400; ++i) {
    if (::waitpid(pid, &status, WNOHANG) == pid)
      return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  ::kill(pid, SIGKILL);
  ::waitpid(pid, &status, 0);
  return -2;
}

TEST_F(CaptureCli, SigtermToRcfIsForwardedToTheCommand) {
  pid_t pid = spawn(command_line(capture({}), {{"FAKE_WAIT", "30"}}) + " >" +
                    quote(tmp_.file(".out")) + " 2>" + quote(tmp_.file(".err")));
  ASSERT_GT(pid, 0);
  ASSERT_TRUE(wait_for_text(tmp_.file(".err"), "fake_train: waiting"));
  ::kill(pid, SIGTERM);  // to rcf only, as a job scheduler would
  EXPECT_EQ(wait_exit(pid), 143);
  std::string err = read_file(tmp_.file(".err"));
  EXPECT_NE(err.find("fake_train: got SIGTERM"), std::string::npos) << err;
  EXPECT_NE(err.find("exited with code 143"), std::string::npos) << err;
}

TEST_F(CaptureCli, CtrlCReachesTheCommandAndRcfReportsAfterIt) {
  pid_t pid = spawn(command_line(capture({}), {{"FAKE_WAIT", "30"}}) + " >" +
                    quote(tmp_.file(".out")) + " 2>" + quote(tmp_.file(".err")));
  ASSERT_GT(pid, 0);
  ASSERT_TRUE(wait_for_text(tmp_.file(".err"), "fake_train: waiting"));
  ::kill(-pid, SIGINT);  // the whole foreground group, as the terminal does on Ctrl-C
  EXPECT_EQ(wait_exit(pid), 130);
  std::string err = read_file(tmp_.file(".err"));
  EXPECT_NE(err.find("fake_train: got SIGINT"), std::string::npos) << err;
  EXPECT_NE(err.find("rcf capture: " + kFakeTrain), std::string::npos) << err;  // rcf survived
}

// Issue 25 item 3: a command that leaves a background child holding its output pipes (and
// writing to them forever) must not keep rcf capture from ending. Run under `timeout` so that a
// regression fails instead of hanging the suite.
const std::string kBackgroundTicker = "(while :; do echo tick; sleep .5; done) &";

std::string under_timeout(const std::string& command_line, int seconds) {
  return replace_all(command_line, "exec env",
                     "exec timeout -s KILL " + std::to_string(seconds) + " env");
}

TEST_F(CaptureCli, BackgroundChildHoldingTheOutputEndsWithTheCommand) {
  const std::string dynamo = kFixtures + "/dynamo/recompiles_pytorch_issue128134_dtype.txt";
  std::vector<std::string> args = {
      "capture",
      "--lane",
      "bg",
      "--",
      "sh",
      "-c",
      "cat " + quote(dynamo) + " >&2; " + kBackgroundTicker + " exit 5"};
  auto start = std::chrono::steady_clock::now();
  std::string cmd = under_timeout(command_line(args, {}), 60) + " >" + quote(tmp_.file(".out")) +
                    " 2>" + quote(tmp_.file(".err")) + " </dev/null";
  int status = std::system(cmd.c_str());
  double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_TRUE(WIFEXITED(status));
  std::string err = read_file(tmp_.file(".err"));
  EXPECT_EQ(WEXITSTATUS(status), 5) << err;  // the command's code, not timeout's 137
  EXPECT_LT(secs, 30) << err;
  EXPECT_NE(read_file(tmp_.file(".out")).find("tick\n"), std::string::npos);
  EXPECT_NE(err.find("still hold its output open"), std::string::npos) << err;
  // What it printed before it exited was ingested as the run.
  EXPECT_EQ(formats("run1"), "dynamo_text") << err;
  EXPECT_NE(read_file(dir("bg", "run1") + "/stdout.log").find("tick\n"), std::string::npos);
}

// The shell traps SIGINT before it says "started": a SIGINT that came between the words and a
// foreground `sleep` starting would be held by the shell until the sleep ended (60 s), and rcf
// would kill the group after 5 s (exit 137). CI saw that race once.
const std::string kTrappedSleep =
    " sleep 60 >/dev/null 2>&1 & s=$!; trap 'kill $s; exit 130' INT; echo started >&2; wait $s";

TEST_F(CaptureCli, SigintToRcfReachesTheCommandsGroupAndRcfEnds) {
  std::vector<std::string> args = {
      "capture", "--lane", "bg", "--", "sh", "-c", kBackgroundTicker + kTrappedSleep};
  pid_t pid = spawn(under_timeout(command_line(args, {}), 60) + " >" + quote(tmp_.file(".out")) +
                    " 2>" + quote(tmp_.file(".err")));
  ASSERT_GT(pid, 0);
  ASSERT_TRUE(wait_for_text(tmp_.file(".err"), "started"));
  // `timeout` runs rcf as its child: signal rcf only, as `kill PID` from a script would.
  pid_t rcf_pid = 0;
  for (int i = 0; i < 100 && rcf_pid == 0; ++i) {
    std::string children =
        read_file("/proc/" + std::to_string(pid) + "/task/" + std::to_string(pid) + "/children");
    rcf_pid = std::atoi(children.c_str());
    if (rcf_pid == 0) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  ASSERT_GT(rcf_pid, 0);
  auto start = std::chrono::steady_clock::now();
  ::kill(rcf_pid, SIGINT);
  EXPECT_EQ(wait_exit(pid), 130);  // sh ended on the forwarded SIGINT; rcf did not wait for more
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(15));
  std::string err = read_file(tmp_.file(".err"));
  EXPECT_NE(err.find("rcf capture: "), std::string::npos) << err;
}

}  // namespace capture_test
}  // namespace rcf
