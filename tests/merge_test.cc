// rcf merge (docs/merge.md), end to end through the binary: the corpus's multi-rank TORCH_TRACE
// logs (tlparse's multi_rank_logs, ranks 0-3) ingested one rank per shard with --host, then
// merged, give the public views of one ingest of every rank; a shard merged twice adds nothing;
// a shard of another schema version, or a damaged one, leaves OUT as it was; other lanes of OUT
// stay.
#include <gtest/gtest.h>

#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "store/database.h"
#include "store/merge_stores.h"
#include "store/schema.h"
#include "store/schema_layers.h"
#include "store/store.h"
#include "tests/support/db_dump.h"
#include "tests/support/rcf_process.h"
#include "tests/support/temp_files.h"
#include "tests/support/test_paths.h"
#include "util/hostname.h"

namespace rcf {
namespace merge_test {

using testing::column;
using testing::dump_tables;
using testing::query_csv;
using testing::RcfRun;
using testing::run_rcf;
using testing::scalar;
using testing::TempDir;

const std::string kTrace = std::string(RCF_FIXTURES_DIR) + "/torch_trace/";

// tlparse's multi_rank_logs: ranks 0, 1 and 3 diverge in compile ids and cache events; rank 2
// (kept apart, multi_rank_logs_rest/README.md) fails its one compile.
std::string rank_log(int rank) {
  return kTrace + (rank == 2 ? "multi_rank_logs_rest" : "multi_rank_logs") +
         "/dedicated_log_torch_trace_rank_" + std::to_string(rank) + ".log";
}

// The views compared, with the columns that may differ between a merge and one ingest left out:
// the host each source came from (the point of a shard).
const std::vector<std::string> kViews = {"compiles",    "recompiles",      "convergence_summary",
                                         "convergence", "rank_divergence", "fix_first",
                                         "runs",        "merged_sources",  "ingest_stats"};

// Every row of `from` (a view, or a query in parentheses) without the columns named in `skip`,
// ordered by every column.
std::string view_rows(store::Database& db, const std::string& from,
                      const std::set<std::string>& skip = {"host"}) {
  auto probe = db.prepare("SELECT * FROM " + from);
  std::string columns;
  for (int i = 0; i < probe.column_count(); ++i)
    if (!skip.contains(probe.column_name(i)))
      columns += (columns.empty() ? "" : ", ") + probe.column_name(i);
  return query_csv(db, "SELECT " + columns + " FROM " + from + " ORDER BY " + columns);
}

std::string all_views(store::Database& db) {
  std::string out;
  for (const std::string& view : kViews) out += "# " + view + "\n" + view_rows(db, view);
  return out;
}

class MergeTest : public ::testing::Test {
 protected:
  std::string path(const std::string& name) const { return tmp_.file(name); }

  // `rcf ingest` of one rank into its own shard, as the rank's host would.
  std::string shard(int rank) {
    const std::string db = path("shard" + std::to_string(rank) + ".db");
    expect_ok(run_rcf({"ingest", "--db", db, "--host", "host" + std::to_string(rank), "--lane",
                       "multi", "--run", "r1", rank_log(rank)}));
    return db;
  }
  std::vector<std::string> shards() {
    std::vector<std::string> all;
    for (int rank = 0; rank < 4; ++rank) all.push_back(shard(rank));
    return all;
  }
  // One ingest of every rank: what the merge must equal.
  std::string one_store() {
    const std::string db = path("one.db");
    expect_ok(run_rcf({"ingest", "--db", db, "--lane", "multi", "--run", "r1", rank_log(0),
                       rank_log(1), rank_log(2), rank_log(3)}));
    return db;
  }
  RcfRun merge(const std::string& out, const std::vector<std::string>& shard_paths) {
    std::vector<std::string> args = {"merge", out};
    args.insert(args.end(), shard_paths.begin(), shard_paths.end());
    return run_rcf(args);
  }
  static void expect_ok(const RcfRun& r) { ASSERT_EQ(r.rc, 0) << r.err << r.out; }
  static std::unique_ptr<store::Database> open(const std::string& db) {
    return store::open_store(db, store::OpenMode::kRead);
  }
  // The whole store (every table, ids included) but the times of the ingests.
  static std::string whole(const std::string& db) { return dump_tables(*open(db)); }

  // A real PT_XLA_DEBUG log (deterministic: no time, no pid), for the versions of a growing log.
  static std::string debug_log() {
    return testing::read_file(std::string(RCF_FIXTURES_DIR) +
                              "/scenarios/multi_sync/pt_xla_debug.log");
  }
  // Writes `bytes` as the log at one path (the version the file holds now), then ingests it into
  // a shard of its own, as `host` would.
  void ingest_version(const std::string& db, const std::string& host, const std::string& bytes) {
    testing::write_file(version_path(), bytes);
    expect_ok(run_rcf(
        {"ingest", "--db", db, "--host", host, "--lane", "l", "--run", "r", version_path()}));
  }
  std::string version_path() const { return path("pt_xla_debug.log"); }
  // Another log with the same length and all but its 11th byte.
  static std::string one_byte_changed(std::string log) {
    log[10] = log[10] == 'x' ? 'y' : 'x';
    return log;
  }
  // A merge that kept two versions it could not tell apart, saying `said`.
  void expect_undecided(const RcfRun& merged, const std::string& db, const std::string& said) {
    expect_ok(merged);
    EXPECT_NE(merged.out.find(said), std::string::npos) << merged.out;
    EXPECT_EQ(scalar(*open(db), "SELECT count(*) FROM source"), "2");
  }
  // A merge that found two logs at one path: both kept, and not a word of versions.
  void expect_two_logs(const RcfRun& merged, const std::string& db) {
    expect_ok(merged);
    EXPECT_EQ(merged.out.find("earlier version"), std::string::npos) << merged.out;
    EXPECT_EQ(merged.out.find("unknown"), std::string::npos) << merged.out;
    EXPECT_EQ(scalar(*open(db), "SELECT count(*) FROM source"), "2");
  }

  TempDir tmp_;
};

// Rows of the raw tables a merge copies (every raw table but the file's facts, the texts and the
// runs), for the count the merge reports.
int64_t raw_rows(store::Database& db) {
  int64_t rows = 0;
  for (const std::string& table : store::raw_tables())
    if (store::merge_copies_rows(table))
      rows += std::stoll(scalar(db, "SELECT count(*) FROM " + table));
  return rows;
}

TEST_F(MergeTest, ShardsOfOneRankEachMergeIntoTheViewsOfOneIngest) {
  const std::string merged = path("merged.db");
  RcfRun r = merge(merged, shards());
  expect_ok(r);
  auto out = open(merged);
  EXPECT_EQ(r.out, "merged 4 shards: 4 sources added (" + std::to_string(raw_rows(*out)) +
                       " rows), 0 already in the store (unchanged); 1 run analysed\n");
  auto one = open(one_store());
  EXPECT_EQ(all_views(*out), all_views(*one));
  // The run split over four hosts is one run with every rank, and each source keeps its host.
  EXPECT_EQ(query_csv(*out, "SELECT lane, run, source_count FROM runs"),
            "lane,run,source_count\nmulti,r1,4\n");
  EXPECT_EQ(column(*out, "SELECT host || ' ' || source FROM ingest_stats ORDER BY host"),
            (std::vector<std::string>{"host0 " + rank_log(0), "host1 " + rank_log(1),
                                      "host2 " + rank_log(2), "host3 " + rank_log(3)}));
  EXPECT_EQ(column(*one, "SELECT DISTINCT host FROM ingest_stats"),
            std::vector<std::string>{util::this_host()});
  // Not an equality of empty views: the ranks' compiles, recompiles and divergences are there.
  EXPECT_GT(std::stoll(scalar(*out, "SELECT count(*) FROM compiles")), 4);
  EXPECT_GT(std::stoll(scalar(*out, "SELECT count(*) FROM recompiles")), 0);
  EXPECT_EQ(column(*out, "SELECT DISTINCT kind FROM rank_divergence ORDER BY kind"),
            (std::vector<std::string>{"cache", "compile_ids", "recompiles"}));
}

// After a merge of several hosts' stores, explain (text and JSON) and the reports name the hosts
// of a run that spans more than one; a run of one host says nothing of it in text.
TEST_F(MergeTest, ExplainAndReportsNameTheHostsOfARunThatSpansSeveral) {
  const std::string merged = path("merged.db");
  expect_ok(merge(merged, shards()));
  RcfRun text = run_rcf({"explain", "--db", merged});
  expect_ok(text);
  EXPECT_NE(text.out.find("   hosts: host0 (1 log), host1 (1 log), host2 (1 log), host3 (1 log)\n"),
            std::string::npos)
      << text.out;
  RcfRun json_run = run_rcf({"explain", "--db", merged, "--json"});
  expect_ok(json_run);
  auto hosts = nlohmann::json::parse(json_run.out)["runs"][0]["hosts"];
  ASSERT_EQ(hosts.size(), 4u);
  EXPECT_EQ(hosts[2]["host"], "host2");
  EXPECT_EQ(hosts[2]["sources"], 1);
  RcfRun md = run_rcf({"report", "--db", merged, "--format", "md", "-o", "-"});
  expect_ok(md);
  EXPECT_NE(md.out.find("hosts: host0 (1 log), host1 (1 log)"), std::string::npos) << md.out;
  RcfRun html = run_rcf({"report", "--db", merged, "-o", "-"});
  expect_ok(html);
  EXPECT_NE(html.out.find("<p>Hosts: host0 (1 log), host1 (1 log)"), std::string::npos);
  RcfRun one = run_rcf({"explain", "--db", one_store()});
  expect_ok(one);
  EXPECT_EQ(one.out.find("hosts:"), std::string::npos) << one.out;
}

TEST_F(MergeTest, MergingAShardAgainAddsNothing) {
  const std::vector<std::string> parts = shards();
  const std::string merged = path("merged.db");
  expect_ok(merge(merged, parts));
  const std::string before = whole(merged);
  RcfRun again = merge(merged, {parts[1]});
  expect_ok(again);
  EXPECT_EQ(again.out,
            "merged 1 shard: 0 sources added (0 rows), 1 already in the store (unchanged); 0 runs "
            "analysed\n  " +
                parts[1] + ": " + rank_log(1) + ": same content as " + rank_log(1) +
                ", nothing added (already in lane multi, run r1)\n");
  RcfRun all = merge(merged, parts);
  expect_ok(all);
  EXPECT_NE(all.out.find("0 sources added (0 rows), 4 already in the store"), std::string::npos)
      << all.out;
  EXPECT_EQ(whole(merged), before);
  // A shard that is the output itself is refused, not merged into itself.
  RcfRun self = merge(merged, {merged});
  EXPECT_EQ(self.rc, 2);
  EXPECT_NE(self.err.find("is the output store"), std::string::npos) << self.err;
}

TEST_F(MergeTest, AShardOfAnotherSchemaVersionIsRefusedAndOutIsUnchanged) {
  const std::string merged = path("merged.db");
  const std::string good = shard(0), old = shard(1);
  expect_ok(merge(merged, {good}));
  {
    store::Database raw(old, store::Database::Mode::kReadWrite);
    raw.exec("UPDATE schema_info SET value = '" + std::to_string(store::kSchemaVersion - 1) +
             "' WHERE key = 'schema_version'");
  }
  const std::string before = whole(merged);
  RcfRun r = merge(merged, {shard(3), old});
  EXPECT_EQ(r.rc, 2);
  EXPECT_EQ(r.err, "rcf: error: cannot merge shard " + old + ": database " + old +
                       " has schema version " + std::to_string(store::kSchemaVersion - 1) +
                       ", this rcf reads version " + std::to_string(store::kSchemaVersion) +
                       " (written by an older rcf: re-ingest the logs into a new database)\n");
  EXPECT_EQ(whole(merged), before);
  // Into an OUT that did not exist: it still does not.
  EXPECT_EQ(merge(path("new.db"), {good, old}).rc, 2);
  EXPECT_FALSE(std::filesystem::exists(path("new.db")));
}

// A failure in the middle of the copy (a shard whose rows name a text its strings table lacks)
// rolls back what the shards before it had added.
TEST_F(MergeTest, AFailureDuringTheCopyLeavesOutAsItWas) {
  const std::string merged = path("merged.db");
  expect_ok(merge(merged, {shard(0)}));
  const std::string damaged = shard(1);
  {
    store::Database raw(damaged, store::Database::Mode::kReadWrite);
    raw.exec("DELETE FROM strings WHERE string_id = (SELECT max(reason_sid) FROM guard_failure)");
  }
  const std::string before = whole(merged);
  RcfRun r = merge(merged, {shard(3), shard(2), damaged});
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.err.find("shard " + damaged + " is damaged: string id"), std::string::npos) << r.err;
  EXPECT_EQ(whole(merged), before);
  EXPECT_EQ(merge(path("new.db"), {shard(3), damaged}).rc, 2);
  EXPECT_FALSE(std::filesystem::exists(path("new.db")));
}

TEST_F(MergeTest, MergingIntoAStoreWithOtherLanesKeepsThem) {
  const std::string merged = path("merged.db");
  expect_ok(run_rcf({"ingest", "--db", merged, "--lane", "other", "--run", "r1",
                     kTrace + "comp_metrics.log", kTrace + "cache_hit_miss.log"}));
  // A lane's rows of the views, without run_id: the merged lane's run is the store's second.
  auto lane_views = [](store::Database& db, const std::string& lane) {
    std::string out;
    for (const std::string& view : kViews) {
      if (view == "merged_sources" || view == "ingest_stats") continue;  // no lane column
      out += view_rows(db, "(SELECT * FROM " + view + " WHERE lane = '" + lane + "')", {"run_id"});
    }
    return out;
  };
  const std::string other = lane_views(*open(merged), "other");
  ASSERT_NE(scalar(*open(merged), "SELECT count(*) FROM compiles"), "0");
  expect_ok(merge(merged, shards()));
  auto out = open(merged);
  EXPECT_EQ(lane_views(*out, "other"), other);
  EXPECT_EQ(lane_views(*out, "multi"), lane_views(*open(one_store()), "multi"));
  EXPECT_EQ(column(*out, "SELECT lane || '/' || run || ':' || source_count FROM runs ORDER BY 1"),
            (std::vector<std::string>{"multi/r1:4", "other/r1:2"}));
}

// A torch_xla run whose logs were ingested on two hosts, merged into a store that already holds
// the same kind of run: HLO module and execution-group ids of the shards start at 1 again, and
// must be renumbered for the compiles to find their HLO and the executions their groups.
TEST_F(MergeTest, AnXlaRunSplitOverTwoHostsKeepsItsHloAndExecutionGroups) {
  namespace fs = std::filesystem;
  const std::string bundle = std::string(RCF_FIXTURES_DIR) + "/xla_bundle/";
  for (const char* host : {"a", "b"}) fs::create_directory(path(host));
  for (const char* name : {"metrics.txt", "pt_xla_debug.log"})
    fs::copy_file(bundle + name, path("a/") + name);
  for (const char* name : {"save_tensors.hlo.0", "steps.csv"})
    fs::copy_file(bundle + name, path("b/") + name);
  const std::string merged = path("merged.db");
  expect_ok(run_rcf({"ingest", "--db", merged, "--lane", "before", "--run", "r1", bundle}));
  for (const char* host : {"a", "b"})
    expect_ok(run_rcf({"ingest", "--db", path(host) + ".db", "--host", host, "--lane", "xla",
                       "--run", "r1", path(host)}));
  expect_ok(merge(merged, {path("a.db"), path("b.db")}));
  expect_ok(run_rcf(
      {"ingest", "--db", path("one.db"), "--lane", "xla", "--run", "r1", path("a"), path("b")}));
  auto xla_views = [](store::Database& db) {
    std::string out;
    for (const char* view : {"compiles", "recompiles", "convergence", "convergence_summary",
                             "fix_first", "compile_artifacts"})
      out += view_rows(db, std::string("(SELECT * FROM ") + view + " WHERE lane = 'xla')",
                       {"run_id", "hlo_module_id"});
    return out;
  };
  auto out = open(merged);
  EXPECT_EQ(xla_views(*out), xla_views(*open(path("one.db"))));
  EXPECT_EQ(scalar(*out,
                   "SELECT count(*) FROM compile_artifacts WHERE lane = 'xla' AND "
                   "hlo_module IS NOT NULL"),
            "1");
  // Both runs' executions are counted under groups of their own run and source.
  EXPECT_EQ(scalar(*out,
                   "SELECT count(*) FROM xla_execution e JOIN xla_execution_group g USING "
                   "(group_id) WHERE e.source_id <> g.source_id"),
            "0");
  EXPECT_EQ(scalar(*out, "SELECT count(DISTINCT group_id) FROM xla_execution_group"),
            scalar(*out, "SELECT count(*) FROM xla_execution_group"));
  EXPECT_EQ(scalar(*out, "SELECT count(*) FROM hlo_module"), "2");
  EXPECT_EQ(scalar(*out,
                   "SELECT count(*) FROM hlo_parameter p LEFT JOIN hlo_module m USING "
                   "(hlo_module_id) WHERE m.run_id IS NULL"),
            "0");
}

// A log still being written, ingested into one shard early and into another later (on one host):
// the merge keeps the longer version, in either order, and the run is what one ingest of the
// longer version gives. A TORCH_TRACE log and a PT_XLA_DEBUG log, cut inside a line and at a
// line's end.
TEST_F(MergeTest, TwoVersionsOfAGrowingLogMergeIntoTheLongerOne) {
  namespace fs = std::filesystem;
  const std::string debug =
      std::string(RCF_FIXTURES_DIR) + "/scenarios/multi_sync/pt_xla_debug.log";
  struct Case {
    std::string log;
    int64_t cut;
    std::string name;
  };
  const std::string trace = testing::read_file(rank_log(1));
  const std::string xla = testing::read_file(debug);
  const std::string trace_name = "dedicated_log_torch_trace_rank_1.log";
  const std::vector<Case> cases = {
      {trace, 1500000, trace_name},
      {trace, static_cast<int64_t>(trace.find('\n', 200000)) + 1, trace_name},
      {xla, 80000, "pt_xla_debug.log"},
      {xla, static_cast<int64_t>(xla.find('\n', 30000)) + 1, "pt_xla_debug.log"}};
  int n = 0;
  for (const Case& c : cases) {
    SCOPED_TRACE(::testing::Message() << "case " << n << ", cut at " << c.cut);
    const std::string dir = path("run" + std::to_string(n++));
    fs::create_directory(dir);
    const std::string log = dir + "/" + c.name;
    auto ingest = [&](const std::string& db) {
      expect_ok(run_rcf({"ingest", "--db", db, "--host", "h", "--lane", "l", "--run", "r", log}));
    };
    testing::write_file(log, c.log.substr(0, static_cast<size_t>(c.cut)));
    ingest(dir + "/early.db");
    testing::write_file(log, c.log);
    ingest(dir + "/late.db");
    ingest(dir + "/one.db");
    const std::string expected = all_views(*open(dir + "/one.db"));
    ASSERT_NE(scalar(*open(dir + "/one.db"), "SELECT count(*) FROM compiles"), "0");
    RcfRun early_first = merge(dir + "/m1.db", {dir + "/early.db", dir + "/late.db"});
    expect_ok(early_first);
    EXPECT_NE(
        early_first.out.find(": grew from " + std::to_string(c.cut) + " bytes in the store to " +
                             std::to_string(c.log.size()) + ": the store's version replaced"),
        std::string::npos)
        << early_first.out;
    // The log is still here: every byte of the early version is compared with it.
    EXPECT_NE(early_first.out.find("all " + std::to_string(c.cut) +
                                   " bytes of the shorter compared with the file at that path"),
              std::string::npos)
        << early_first.out;
    // Gone (or elsewhere): the checkpoints decide, up to the early version's last one.
    std::filesystem::remove(log);
    RcfRun late_first = merge(dir + "/m2.db", {dir + "/late.db", dir + "/early.db"});
    expect_ok(late_first);
    EXPECT_NE(late_first.out.find("1 earlier version of a grown log left out"), std::string::npos)
        << late_first.out;
    EXPECT_NE(
        late_first.out.find(": an earlier version (" + std::to_string(c.cut) + " bytes) of the " +
                            std::to_string(c.log.size()) + " already in the store"),
        std::string::npos)
        << late_first.out;
    EXPECT_NE(late_first.out.find("compared by their checkpoints"), std::string::npos)
        << late_first.out;
    for (const char* merged : {"/m1.db", "/m2.db"}) {
      auto out = open(dir + merged);
      EXPECT_EQ(all_views(*out), expected) << merged;
      EXPECT_EQ(scalar(*out, "SELECT count(*) FROM source"), "1") << merged;
    }
  }
}

// What neither the checkpoints nor the file can decide keeps both versions and says so: two hosts'
// logs with the same start, and a shorter version under the first checkpoint (4 KiB) whose file
// is gone. A log whose bytes differ is another log, kept without a word.
TEST_F(MergeTest, VersionsTheCheckpointsCannotDecideAreBothKeptAndSaidUnknown) {
  const std::string debug = debug_log();
  ingest_version(path("a.db"), "a", debug.substr(0, 60000));
  ingest_version(path("small.db"), "b", debug.substr(0, 3000));
  ingest_version(path("other.db"), "a", one_byte_changed(debug));
  ingest_version(path("b.db"), "b", debug);

  expect_undecided(merge(path("m1.db"), {path("a.db"), path("b.db")}), path("m1.db"),
                   ": kept beside the source of the same path in lane l, run r: unknown whether "
                   "one is an earlier version of the other: the first 57344 bytes agree, but "
                   "they were ingested on two hosts (a, b)");
  std::filesystem::remove(version_path());
  expect_undecided(merge(path("m2.db"), {path("small.db"), path("b.db")}), path("m2.db"),
                   "the shorter (3000 bytes) ends before the first checkpoint (4096 bytes), so "
                   "the stores cannot compare their bytes, and the file at that path here does "
                   "not start with the longer");
  expect_two_logs(merge(path("m3.db"), {path("a.db"), path("other.db")}), path("m3.db"));
}

// Standard input is no file: two reads of it with the same start are two inputs, as for ingest.
TEST_F(MergeTest, TwoReadsOfStandardInputAreNeverVersionsOfOneLog) {
  const std::string debug = debug_log();
  const std::string early = path("early.log");
  testing::write_file(early, debug.substr(0, 60000));
  testing::write_file(version_path(), debug);
  for (const auto& [db, from] : {std::pair{path("a.db"), early}, {path("b.db"), version_path()}}) {
    testing::RcfOptions stdin_from;
    stdin_from.stdin_file = from;
    expect_ok(run_rcf({"ingest", "--db", db, "--host", "h", "--lane", "l", "--run", "r", "-"},
                      stdin_from));
  }
  expect_two_logs(merge(path("m.db"), {path("a.db"), path("b.db")}), path("m.db"));
}

// Where the file is still on this machine it decides what the checkpoints cannot: a version
// under 4 KiB is the start of the file (kept as an earlier version), or is not (another log).
TEST_F(MergeTest, TheFileOnThisMachineDecidesAVersionUnderTheFirstCheckpoint) {
  const std::string debug = debug_log();
  ingest_version(path("other.db"), "h", one_byte_changed(debug.substr(0, 3000)));
  ingest_version(path("small.db"), "h", debug.substr(0, 3000));
  ingest_version(path("whole.db"), "h", debug);  // the file now holds the whole log

  RcfRun grew = merge(path("m1.db"), {path("small.db"), path("whole.db")});
  expect_ok(grew);
  EXPECT_NE(grew.out.find(": grew from 3000 bytes in the store to " + std::to_string(debug.size()) +
                          ": the store's version replaced (lane l, run r; all 3000 bytes of the "
                          "shorter compared with the file at that path on this machine)"),
            std::string::npos)
      << grew.out;
  EXPECT_EQ(scalar(*open(path("m1.db")), "SELECT count(*) FROM source"), "1");

  expect_two_logs(merge(path("m2.db"), {path("other.db"), path("whole.db")}), path("m2.db"));
}

}  // namespace merge_test
}  // namespace rcf
