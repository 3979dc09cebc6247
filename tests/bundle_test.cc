// The bundle of a run (stack versions and flags): the versions TORCH_TRACE logs print, what
// `rcf ingest --bundle / --bundle-set` declares and how the two merge, and where the bundle shows:
// the HTML, Markdown and JSON reports and `rcf diff`. Also the bounded `rcf restart` listings.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "pipeline/bundle_input.h"
#include "pipeline/ingest_pipeline.h"
#include "report/lane_diff.h"
#include "report/restart_output.h"
#include "store/run_bundle.h"
#include "store/store.h"
#include "tests/support/collecting_sink.h"
#include "tests/support/db_dump.h"
#include "tests/support/temp_files.h"
#include "tests/support/test_paths.h"

namespace rcf {
namespace bundle_test {

using nlohmann::json;
using testing::read_file;
using testing::replace_all;
using testing::scalar;
using testing::TempDir;
using testing::write_file;

const std::string kFixtures = RCF_FIXTURES_DIR;
const std::string kRank3 =
    kFixtures + "/torch_trace/multi_rank_logs/dedicated_log_torch_trace_rank_3.log";
const std::string kSimple = kFixtures + "/torch_trace/simple.log";

std::map<std::string, std::string> versions_of(const std::string& path) {
  auto sink = testing::run_importer("torch_trace", read_file(path));
  std::map<std::string, std::string> out;
  for (const auto& v : sink.all<ingest::StackVersion>()) {
    EXPECT_EQ(out.count(v.key), 0u) << "emitted twice: " << v.key;
    EXPECT_GT(v.line, 0);
    out[v.key] = v.value;
  }
  return out;
}

TEST(StackVersionsFromLogs, TorchTraceHeadersAndCompilationMetrics) {
  // rank 3: seven compiles, each with an fx_graph_runnable header and compilation_metrics; each
  // version is emitted once. CUDA is None (a CPU build) and triton empty: not versions.
  EXPECT_EQ(versions_of(kRank3), (std::map<std::string, std::string>{
                                     {"python", "3.11.13"},
                                     {"torch", "2.9.0a0+gitf23d314"},
                                     {"torch_git", "f23d31463ca452918e23063409a2bdc55efc0d46"}}));
  // simple.log: an older log whose compilation_metrics carry no versions; CUDA 12.2.
  EXPECT_EQ(versions_of(kSimple), (std::map<std::string, std::string>{
                                      {"cuda", "12.2"},
                                      {"torch", "2.6.0a0+giteece9ec"},
                                      {"torch_git", "eece9ecd62cae84bc2f915fc48cffe43e30256aa"}}));
}

TEST(StackVersionsFromLogs, OnlyTheRunnableHeaderCounts) {
  // The same comment line in another artifact, or in user code printed elsewhere, is not read.
  std::string text =
      "V1206 15:18:21.206000 1 torch/_inductor/compile_fx.py:835] {\"artifact\": {\"name\": "
      "\"inductor_output_code\", \"encoding\": \"string\"}, \"frame_id\": 0, "
      "\"frame_compile_id\": 0, \"attempt\": 0, \"has_payload\": "
      "\"00000000000000000000000000000000\"}\n"
      "\t# torch version: 9.9.9\n";
  auto sink = testing::run_importer("torch_trace", text);
  EXPECT_TRUE(sink.all<ingest::StackVersion>().empty());
}

// ---- rcf ingest --bundle ----------------------------------------------------------------------

struct Result {
  int rc = -1;
  std::string out, err;
};

class BundleCli : public ::testing::Test {
 protected:
  Result rcf(const std::string& args) {
    std::string cmd = "cd '" + tmp_.path() + "' && '" + RCF_BINARY + "' " + args + " >'" +
                      tmp_.file(".out") + "' 2>'" + tmp_.file(".err") + "' </dev/null";
    int status = std::system(cmd.c_str());
    Result r;
    r.rc = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    r.out = read_file(tmp_.file(".out"));
    r.err = read_file(tmp_.file(".err"));
    return r;
  }
  json bundle(const std::string& lane, const std::string& run) {
    auto db = store::open_store(tmp_.file("rcf.db"), store::OpenMode::kRead);
    std::string text =
        scalar(*db, "SELECT bundle FROM runs WHERE lane='" + lane + "' AND run='" + run + "'");
    return text == "<NULL>" ? json() : json::parse(text);
  }
  TempDir tmp_;
};

TEST_F(BundleCli, DeclaredBundleIsStoredAndMergedWithTheLogsVersions) {
  write_file(
      tmp_.file("b.json"),
      R"({"torch": "2.12.0", "torch_xla": "2.12.0", "libtpu": "0.0.21", "XLA_FLAGS": "--xla_a=1",
                 "nodes": 4})");
  Result r = rcf("ingest --lane mtp1 --run cold --bundle b.json --bundle-set jax=0.6.2 " + kRank3);
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(r.out.find("bundle of mtp1/cold: {"), std::string::npos) << r.out;
  // Declared keys win (torch); the log fills what was not declared (python, torch_git).
  EXPECT_EQ(bundle("mtp1", "cold"), json::parse(R"({
      "torch": "2.12.0", "torch_xla": "2.12.0", "libtpu": "0.0.21", "XLA_FLAGS": "--xla_a=1",
      "nodes": 4, "jax": "0.6.2", "python": "3.11.13",
      "torch_git": "f23d31463ca452918e23063409a2bdc55efc0d46"})"));

  // A bundle alone updates an existing run: KEY=VALUE replaces, KEY= removes.
  r = rcf("ingest --lane mtp1 --run cold --bundle-set torch=2.12.1 --bundle-set jax=");
  ASSERT_EQ(r.rc, 0) << r.err;
  json b = bundle("mtp1", "cold");
  EXPECT_EQ(b["torch"], "2.12.1");
  EXPECT_FALSE(b.contains("jax"));
  EXPECT_EQ(b["python"], "3.11.13");
  // Re-ingesting the log (a duplicate) changes nothing; the logs never overwrite.
  r = rcf("ingest --lane mtp1 --run cold " + kRank3);
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_EQ(bundle("mtp1", "cold")["torch"], "2.12.1");
}

TEST_F(BundleCli, LogsAloneGiveTheVersionsTheyPrint) {
  ASSERT_EQ(rcf("ingest --lane trace " + kSimple).rc, 0);
  EXPECT_EQ(bundle("trace", "default"), json::parse(R"({"cuda": "12.2",
      "torch": "2.6.0a0+giteece9ec", "torch_git": "eece9ecd62cae84bc2f915fc48cffe43e30256aa"})"));
  // Formats that print no version leave the bundle unrecorded (NULL).
  ASSERT_EQ(rcf("ingest --lane xla " + kFixtures + "/xla_bundle").rc, 0);
  EXPECT_TRUE(bundle("xla", "default").is_null());
}

TEST_F(BundleCli, BadBundleInputIsAClearErrorAndChangesNothing) {
  ASSERT_EQ(rcf("ingest --lane a " + kFixtures + "/xla_bundle").rc, 0);
  write_file(tmp_.file("bad.json"), "{\"torch\": ");
  write_file(tmp_.file("list.json"), "[\"torch\"]");
  struct Case {
    std::string args, message;
  };
  for (const Case& c : std::vector<Case>{
           {"ingest --lane a --bundle bad.json", "--bundle bad.json: not valid JSON at byte"},
           {"ingest --lane a --bundle list.json", "expected a JSON object"},
           {"ingest --lane a --bundle missing.json", "--bundle missing.json: cannot read"},
           {"ingest --lane a --bundle-set torch", "expected KEY=VALUE"},
           {"ingest --lane a --bundle-set =1", "expected KEY=VALUE"},
           {"ingest --lane nope --bundle-set torch=1", "no run 'default' in lane 'nope'"},
           {"ingest --db other.db --lane a --bundle-set torch=1", "other.db: no such database"},
           {"ingest --lane a", "no input paths given"},
       }) {
    Result r = rcf(c.args);
    EXPECT_EQ(r.rc, 2) << c.args;
    EXPECT_NE(r.err.find(c.message), std::string::npos) << c.args << ": " << r.err;
    EXPECT_EQ(r.err.find("internal error"), std::string::npos) << r.err;
  }
  EXPECT_TRUE(bundle("a", "default").is_null());
  EXPECT_FALSE(std::filesystem::exists(tmp_.file("other.db")));
}

// ---- where the bundle shows --------------------------------------------------------------------

TEST_F(BundleCli, ReportsShowTheBundleOfEachLane) {
  ASSERT_EQ(rcf("ingest --lane x --run cold --bundle-set torch=2.12.0 --bundle-set "
                "torch_xla=2.12.0 " +
                kFixtures + "/restart/proven/cold")
                .rc,
            0);
  ASSERT_EQ(rcf("ingest --lane x --run warm --bundle-set torch=2.12.0 --bundle-set "
                "torch_xla=2.12.0 " +
                kFixtures + "/restart/proven/warm")
                .rc,
            0);
  ASSERT_EQ(rcf("ingest --lane y " + kFixtures + "/xla_bundle").rc, 0);
  Result md = rcf("report --format md");
  ASSERT_EQ(md.rc, 0) << md.err;
  // Runs with the same bundle share one entry; stack order (torch before torch_xla).
  EXPECT_NE(md.out.find("- **Bundle:** runs `cold`, `warm`: torch `2.12.0`, torch\\_xla `2.12.0`"),
            std::string::npos)
      << md.out;
  EXPECT_NE(md.out.find("- **Bundle:** not recorded (the ingested logs do not print the torch / "
                        "torch_xla / libtpu / jax versions; `rcf ingest --bundle` or `rcf "
                        "capture` records them)"),
            std::string::npos)
      << md.out;
  Result html = rcf("report --format html --lane x");
  ASSERT_EQ(html.rc, 0);
  EXPECT_NE(html.out.find("<tr><th>torch_xla</th><td><code>2.12.0</code></td></tr>"),
            std::string::npos);
  Result j = rcf("report --format json --lane x");
  ASSERT_EQ(j.rc, 0);
  EXPECT_EQ(json::parse(j.out)["lanes"][0]["runs"][0]["bundle"]["torch"], "2.12.0");
}

TEST_F(BundleCli, DiffSaysWhichBundleEntriesChanged) {
  ASSERT_EQ(rcf("ingest --lane t211 --bundle-set torch=2.11.0 --bundle-set python=3.11 " +
                kFixtures + "/xla_bundle")
                .rc,
            0);
  ASSERT_EQ(rcf("ingest --lane t212 --bundle-set torch=2.12.0 --bundle-set python=3.11 "
                "--bundle-set libtpu=0.0.21 " +
                kFixtures + "/scenarios/optional_keys")
                .rc,
            0);
  Result text = rcf("diff t211 t212");
  ASSERT_EQ(text.rc, 0) << text.err;
  EXPECT_NE(text.out.find("   bundle: 2 of 3 entries differ\n"
                          "     libtpu: (not recorded) -> 0.0.21\n"
                          "     torch: 2.11.0 -> 2.12.0\n"),
            std::string::npos)
      << text.out;
  Result md = rcf("diff --format md t211 t212");
  EXPECT_NE(md.out.find("| `torch` | `2.11.0` | `2.12.0` |"), std::string::npos) << md.out;
  Result j = rcf("diff --json t211 t212");
  json changed = json::parse(j.out)["bundle"]["changed"];
  ASSERT_EQ(changed.size(), 2u);
  EXPECT_EQ(changed[0], json::parse(R"({"key": "libtpu", "a": null, "b": "0.0.21"})"));
}

TEST(BundleDiff, SameAndUnrecordedBundlesSaySo) {
  report::LaneFacts a, b;
  a.lane = "a";
  b.lane = "b";
  EXPECT_NE(report::render_diff_text(report::diff_lanes(a, b))
                .find("bundle: not recorded for either lane"),
            std::string::npos);
  a.bundle = b.bundle = {{"torch", "2.12.0"}, {"jax", "0.6.2"}};
  auto d = report::diff_lanes(a, b);
  EXPECT_TRUE(d.bundle_changes.empty());
  EXPECT_NE(report::render_diff_text(d).find("bundle: the same (2 entries)"), std::string::npos);
  EXPECT_NE(report::render_diff_markdown(d).find("**Bundle:** the same (2 entries)"),
            std::string::npos);
}

TEST(BundleStore, DeclaredReplacesLoggedFillsNullRemoves) {
  TempDir tmp;
  auto db = store::open_store(tmp.file("t.db"), store::OpenMode::kCreateOrWrite);
  db->exec("INSERT INTO run_table(lane, run, created_at) VALUES ('l', 'r', 'now')");
  int64_t id = *store::find_run_id(*db, "l", "r");
  EXPECT_FALSE(store::find_run_id(*db, "l", "other"));
  EXPECT_TRUE(store::read_run_bundle(*db, id).empty());
  store::add_logged_version(*db, id, "torch", "2.9.0");
  store::add_logged_version(*db, id, "torch", "2.8.0");  // the first read stays
  EXPECT_EQ(store::read_run_bundle(*db, id), json::parse(R"({"torch": "2.9.0"})"));
  store::merge_declared_bundle(*db, id, json::parse(R"({"torch": "2.12.0", "jax": "0.6"})"));
  store::add_logged_version(*db, id, "torch", "2.9.0");
  EXPECT_EQ(store::read_run_bundle(*db, id), json::parse(R"({"torch": "2.12.0", "jax": "0.6"})"));
  store::merge_declared_bundle(*db, id, json::parse(R"({"torch": null, "jax": null})"));
  EXPECT_EQ(scalar(*db, "SELECT bundle IS NULL FROM run_table"), "1");
  json sets;
  pipeline::apply_bundle_sets({"a=1", "b=x=y", "a=", "c=3"}, &sets);
  EXPECT_EQ(sets, json::parse(R"({"a": null, "b": "x=y", "c": "3"})"));
}

// ---- rcf restart --json stays bounded ----------------------------------------------------------

TEST(RestartOutput, RebuiltProgramsAreListedUpToABoundWithTheirTotal) {
  report::RestartReport r;
  r.lane = "big";
  r.cold_run = "cold";
  r.warm_run = "warm";
  r.proof.verdict = analysis::RestartVerdict::kPartial;
  r.proof.headline = "partial: 120 programs rebuilt";
  for (int i = 0; i < 120; ++i) {
    analysis::RebuiltProgram p;
    p.build.program_key = "key" + std::to_string(i);
    p.build.site = "train.py:1";
    p.why = "why";
    r.proof.rebuilt.push_back(p);
    r.proof.warm.builds.push_back(p.build);
  }
  json j = json::parse(report::render_restart_json(r));
  EXPECT_EQ(j["rebuilt"].size(), report::kRestartListed);
  EXPECT_EQ(j["rebuilt_total"], 120);
  EXPECT_EQ(j["rebuilt"].back()["program_key"], "key49");
  EXPECT_EQ(j["warm"]["builds"].size(), report::kRestartListed);
  EXPECT_EQ(j["warm"]["builds_total"], 120);
  EXPECT_EQ(j["cold"]["builds_total"], 0);
  std::string text = report::render_restart_text(r);
  EXPECT_NE(text.find("programs rebuilt in the warm run (120)"), std::string::npos);
  EXPECT_NE(text.find("key49 at"), std::string::npos);
  EXPECT_EQ(text.find("key50 at"), std::string::npos);
  EXPECT_NE(text.find("... 70 more not listed"), std::string::npos) << text;
}

}  // namespace bundle_test
}  // namespace rcf
