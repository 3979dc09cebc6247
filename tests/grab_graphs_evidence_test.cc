// grab_graphs.py frame groups (`Frame has N graph(s) (M unique):`) as compile evidence
// (docs/causes.md): alone, a group is M programs at its frame (M - 1 recompiles whose cause the
// summary cannot name); next to the compile records of the same frame it corroborates them and
// adds no compile. The real summary of pytorch/xla issue #1368, the bundle of fixtures/xla_bundle,
// and variants with other counts, prefixes, indentation, wraps and a cut-off file.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "report/explain.h"
#include "store/store.h"
#include "tests/support/db_dump.h"
#include "tests/support/ingested_store.h"
#include "tests/support/temp_files.h"

namespace rcf {
namespace grab_graphs_evidence_test {

using testing::query_csv;
using testing::scalar;
using testing::TempDir;

std::unique_ptr<store::Database> ingest(const TempDir& dir, const std::vector<std::string>& logs) {
  testing::ingest_logs(dir.file("rcf.db"), logs, "xla", "r1");
  return testing::read_store(dir.file("rcf.db"));
}

std::string write_log(const TempDir& dir, const std::string& name, const std::string& text) {
  testing::write_file(dir.file(name), text);
  return dir.file(name);
}

std::string per_site(store::Database& db) {
  return query_csv(
      db,
      "SELECT c.site, count(*) AS compiles, (SELECT count(*) FROM recompiles r WHERE "
      "r.site = c.site) AS recompiles FROM compiles c GROUP BY c.site ORDER BY c.site");
}

TEST(GrabGraphsEvidence, SummaryAloneIsTheEvidenceIssue1368) {
  TempDir dir;
  auto db = ingest(dir, {testing::fixture_path("xla/grab_graphs_issue1368.txt")});
  // 135 programs at forward (134 recompiles), 16 at mark_step (a library frame, the only one the
  // group shows), 1 at print_metrics (15 syncs, one program: no recompile).
  EXPECT_EQ(per_site(*db),
            "site,compiles,recompiles\n"
            "/content/ae-wavenet/netmisc.py:35 (print_metrics),1,0\n"
            "/content/ae-wavenet/wave_encoder.py:43 (forward),135,134\n"
            "/usr/local/lib/python3.6/dist-packages/torch_xla/core/xla_model.py:372 "
            "(mark_step),16,15\n");
  EXPECT_EQ(scalar(*db, "SELECT group_concat(DISTINCT cause) FROM recompiles"), "unknown");
  const std::string detail =
      scalar(*db,
             "SELECT detail FROM recompiles WHERE site LIKE '%wave_encoder%' ORDER BY ordinal "
             "DESC LIMIT 1");
  EXPECT_NE(detail.find("135 programs at this frame: 134 recompiles, 9 cache hits"),
            std::string::npos)
      << detail;
  EXPECT_NE(detail.find("the cause is unknown"), std::string::npos) << detail;
  EXPECT_NE(detail.find("XLA_SAVE_TENSORS_FILE"), std::string::npos) << detail;
  EXPECT_NE(detail.find("--xla_dump_to"), std::string::npos) << detail;

  auto model = report::build_explain(*db, "xla");
  const std::string text = report::render_explain_text(model);
  EXPECT_NE(text.find("evidence: grab_graphs.py `Frame has 144 graph(s) (135 unique)` at "
                      "grab_graphs_issue1368.txt:3"),
            std::string::npos)
      << text;
  auto json = nlohmann::json::parse(report::render_explain_json(model));
  const auto& reason = json["runs"][0]["sites"][0]["reasons"][0];
  EXPECT_EQ(reason["count"], 134);
  EXPECT_EQ(reason["evidence_lines"].size(), 1u);
}

// fixtures/xla_bundle: programs A and C at /work/train.py:88 (C a key_subset recompile of A).
std::vector<std::string> bundle_logs() {
  return {testing::fixture_path("xla_bundle/pt_xla_debug.log"),
          testing::fixture_path("xla_bundle/save_tensors.hlo.0")};
}

std::string bundle_summary(int graphs, int unique) {
  return "Parsed 4 graph(s)\n2 frame group(s)\nFrame has " + std::to_string(graphs) +
         " graph(s) (" + std::to_string(unique) +
         " unique):\n"
         "  mark_step (/usr/local/lib/python3.10/dist-packages/torch_xla/core/xla_model.py:1061)\n"
         "  train_loop (/work/train.py:88)\n\n";
}

TEST(GrabGraphsEvidence, SummaryCorroboratesTheCompileRecords) {
  TempDir dir;
  std::vector<std::string> logs = bundle_logs();
  logs.push_back(write_log(dir, "grab.txt", bundle_summary(3, 2)));
  auto db = ingest(dir, logs);
  // No compile is added: the PT_XLA_DEBUG records already count both programs.
  EXPECT_EQ(scalar(*db, "SELECT count(*) FROM compiles"), "3");
  EXPECT_EQ(query_csv(*db, "SELECT ordinal, cause FROM recompiles ORDER BY ordinal"),
            "ordinal,cause\n2,sync_fragment\n3,key_subset\n");
  const std::string evidence = scalar(*db, "SELECT evidence FROM recompiles WHERE ordinal = 3");
  EXPECT_NE(evidence.find("\ncorroborated by grab_graphs.py `Frame has 3 graph(s) (2 unique)` "
                          "at grab.txt:3: 2 programs at this frame: 1 recompile, 1 cache hit; "
                          "the compile records here show as many"),
            std::string::npos)
      << evidence;
  EXPECT_NE(scalar(*db, "SELECT detail FROM recompiles WHERE ordinal = 3")
                .find("decided by this compile's own records"),
            std::string::npos);
  // The fragment at train.py:61 is another frame: untouched.
  EXPECT_EQ(scalar(*db, "SELECT instr(evidence, 'grab_graphs') FROM recompiles WHERE ordinal = 2"),
            "0");

  auto model = report::build_explain(*db, "xla");
  const std::string text = report::render_explain_text(model);
  EXPECT_NE(text.find("           evidence: corroborated by grab_graphs.py"), std::string::npos)
      << text;
  auto json = nlohmann::json::parse(report::render_explain_json(model));
  bool found = false;
  for (const auto& site : json["runs"][0]["sites"])
    for (const auto& r : site["reasons"])
      if (r["cause"] == "key_subset") {
        ASSERT_EQ(r["evidence_lines"].size(), 2u);
        EXPECT_EQ(r["evidence_lines"][1].get<std::string>().rfind("corroborated by", 0), 0u);
        found = true;
      }
  EXPECT_TRUE(found);
}

TEST(GrabGraphsEvidence, DisagreeingCountIsSaid) {
  TempDir dir;
  std::vector<std::string> logs = bundle_logs();
  logs.push_back(write_log(dir, "grab.txt", bundle_summary(7, 5)));
  auto db = ingest(dir, logs);
  EXPECT_EQ(scalar(*db, "SELECT count(*) FROM compiles"), "3");
  EXPECT_NE(scalar(*db, "SELECT evidence FROM recompiles WHERE ordinal = 3")
                .find("the compile records here show 2:"),
            std::string::npos);
}

// The same group as pasted through launchers and terminals.
TEST(GrabGraphsEvidence, PrefixedIndentedWrappedAndCutVariants) {
  const std::vector<std::pair<std::string, std::string>> variants = {
      {"default_tag",
       "[default0]:Parsed 9 graph(s)\n[default0]:1 frame group(s)\n"
       "[default0]:Frame has 9 graphs (4 unique):\n[default0]:  step (/job/t.py:12)\n"},
      {"srun_label",
       "0: Parsed 9 graph(s)\n0: 1 frame group(s)\n0: Frame has 9 graph(s) (4 unique):\n"
       "0:   step (/job/t.py:12)\n0: \n"},
      {"indented",
       "    Parsed 9 graph(s)\n    Frame has 9 graph(s) (4 unique):\n"
       "      step (/job/t.py:12)\n"},
      {"wrapped", "Frame has 9 graph(s)\n(4 unique):\n  step (/job/\nt.py:12)\n"},
      {"joined", "Frame has 9 graph(s) (4 unique): step (/job/t.py:12)\n"},
  };
  for (const auto& [name, text] : variants) {
    TempDir dir;
    auto db = ingest(dir, {write_log(dir, name + ".txt", text)});
    EXPECT_EQ(per_site(*db), "site,compiles,recompiles\n/job/t.py:12 (step),4,3\n") << name;
  }
  // Cut off after the header: the programs are counted, the frame is not known.
  TempDir dir;
  auto db = ingest(dir, {write_log(dir, "cut.txt",
                                   "Parsed 9 graph(s)\nFrame has 9 graph(s) "
                                   "(4 unique):\n")});
  EXPECT_EQ(per_site(*db),
            "site,compiles,recompiles\n<frame cut off in the grab_graphs.py output>,4,3\n");
}

}  // namespace grab_graphs_evidence_test
}  // namespace rcf
