// Every file of fixtures/xla (the XLA / torch_xla / JAX corpus, old and added 2026-11-26, and the
// constructed samples), ingested end to end (importer -> store -> attribution) through the CLI
// pipeline: its format, its compiles (the `compiles` view), the compile count a metrics report
// gives (convergence_summary.counted_compiles, docs/xla_formats.md) and its recompile causes in
// ordinal order, as fixtures/xla/README.md says the log shows.
//
// Wrappers (an app-log line, a shell prompt, a stray backtick, the xla_dist `date IP [N] ` prefix)
// are removed by line framing (ingest/reading/line_frame.h) before the importers see the lines; the
// rows that depend on it say so.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cctype>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "pipeline/ingest_pipeline.h"
#include "store/store.h"
#include "tests/support/db_dump.h"
#include "tests/support/ingested_store.h"
#include "tests/support/temp_files.h"
#include "tests/support/test_paths.h"

namespace rcf {
namespace xla_corpus_test {

using testing::column;
using testing::scalar;
using testing::TempDir;

struct XlaCase {
  const char* file;
  const char* format;
  int compiles;         // rows of the compiles view
  const char* counted;  // counted_compiles ("" = no metrics count)
  const char* causes;   // recompile causes in ordinal order, joined by ','
};

// grab_graphs_issue1368: the summary alone counts 134 recompiles at forward and 15 at mark_step
// (docs/causes.md); what changed between the programs it cannot say.
const std::string kGrabGraphsCauses = [] {
  std::string causes;
  for (int i = 0; i < 134 + 15; ++i) causes += i ? ",unknown" : "unknown";
  return causes;
}();

const XlaCase kCases[] = {
    // torch_xla PT_XLA_DEBUG (one Compilation Analysis block = one compile).
    {"pt_xla_debug_pr5947.txt", "pt_xla_debug", 1, "", ""},
    {"pt_xla_debug_pr7768.txt", "pt_xla_debug", 1, "", ""},
    {"pt_xla_debug_issue6614.txt", "pt_xla_debug", 1, "", "sync_fragment"},
    {"pt_xla_debug_lightning20665_a.txt", "pt_xla_debug", 1, "", ""},
    {"pt_xla_debug_lightning20665_b.txt", "pt_xla_debug", 1, "", ""},
    {"pt_xla_debug_pr5958_dynamo.txt", "pt_xla_debug", 0, "", ""},
    {"pt_xla_debug_pr7085_parallel_loader_resnet.txt", "pt_xla_debug", 1, "", ""},
    // 2 compilations, the first only partly shown; different sites, so no recompile.
    {"pt_xla_debug_issue8020_a_steptrace_cause.txt", "pt_xla_debug", 2, "", ""},
    // `CompileTime too frequent: N counts` is a running compile count (docs/pt_xla_debug.md):
    // 33 at its last line.
    {"pt_xla_profiler_pr5000.txt", "pt_xla_debug", 0, "33", ""},
    {"pt_xla_profiler_issue6015_tqdm_glued_multiproc.txt", "pt_xla_debug", 0, "", ""},  // tqdm glue
    {"pt_xla_profiler_issue4985_op_not_lowered_glued_counter.txt", "pt_xla_debug", 0, "", ""},
    {"pt_xla_profiler_issue8020_b_compiletime_too_slow_tqdm.txt", "pt_xla_debug", 0, "", ""},
    // Metrics reports: counted, not keyed. The last (cumulative) report wins.
    {"metrics_report_issue2757.txt", "xla_metrics", 0, "2", ""},
    {"metrics_report_issue6614.txt", "xla_metrics", 0, "3", ""},
    {"metrics_file_issue2511.txt", "xla_metrics", 0, "500", ""},
    {"metrics_report_issue2296.txt", "xla_metrics", 0, "10", ""},
    {"metrics_report_issue2918_backtick_glued_compile5.txt", "xla_metrics", 0, "5",
     ""},  // backtick
    {"metrics_report_issue836_2019_counter_field_app_log.txt", "xla_metrics", 0, "24",
     ""},  // app-log line in front; 2019 `Counter:` sum field
    {"metrics_report_issue3356_uncached_compile_markstep_counters.txt", "xla_metrics", 0, "5",
     ""},  // UncachedCompile 5, no CompileTime
    {"metrics_report_pr2597_shell_prompt_single_compile.txt", "xla_metrics", 0, "1",
     ""},  // shell prompt in front
    // xla_dist `date IP [N] ` prefix on every line (line framing); no CompileTime: not decided.
    {"metrics_report_issue2897_xla_dist_ip_ordinal_prefix.txt", "xla_metrics", 0, "", ""},
    // XLA_SAVE_TENSORS_FILE and the grab_graphs.py summary over one.
    {"save_tensors_pr5971.txt", "xla_saved_graph", 0, "", ""},
    {"save_tensors_issue4189.txt", "xla_saved_graph", 0, "", ""},
    {"grab_graphs_issue1368.txt", "xla_saved_graph", 152, "", kGrabGraphsCauses.c_str()},
    // HLO text (a module, or a fragment without its HloModule line).
    {"hlo_before_opt_issue7053.txt", "hlo_text", 0, "", ""},
    {"hlo_pr3920_hlo_debug.txt", "hlo_text", 0, "", ""},
    {"hlo_pr4205_no_python_frames.txt", "hlo_text", 0, "", ""},
    {"hlo_jax_openxla_test.txt", "hlo_text", 0, "", ""},
    // --xla_dump_to listings: no compile invented.
    {"xla_dump_listing_issue7053.txt", "xla_dump_listing", 0, "", ""},
    {"xla_dump_listing_openxla7193.txt", "xla_dump_listing", 0, "", ""},
    // VLOG: one compile per `Compiling IR graph hash` record, grouped by device.
    {"vlog_graph_hash_issue2757.txt", "xla_vlog", 5, "", ""},  // TPU:2..6, one each
    {"vlog_graph_hash_issue1400_2019_decimal_hash.txt", "xla_vlog", 1, "", ""},
    {"vlog_get_tensor_pr3036_pdb_noise.txt", "xla_vlog", 0, "", ""},  // no Compiling line
    // New hash (no HLO: unknown), then the first hash again (same-hash recompile: unknown).
    {"vlog_recompile_constructed.txt", "xla_vlog", 3, "", "sync_fragment,unknown"},
    // JAX.
    {"jax_log_compiles_desc1191.txt", "jax_log", 4, "", ""},
    {"jax_log_compiles_issue25768.txt", "jax_log", 1, "", ""},
    {"jax_explain_pr27980.txt", "jax_log", 2, "", "shape"},
    {"jax_explain_issue22281.txt", "jax_log", 1, "", ""},
    {"jax_persistent_cache_pr22556.txt", "jax_log", 0, "", ""},
    {"jax_log_compiles_issue19654_disable_jit_loop_prints.txt", "jax_log", 3, "", ""},
    {"jax_log_compiles_issue7155_2023_for_with_user_prints.txt", "jax_log", 2, "", ""},
    {"jax_log_compiles_jaxdocs_slow_tracing_glog_2026.txt", "jax_log", 1, "", ""},
    // The first miss is a first trace; the second a function re-defined on the same line.
    {"jax_explain_jaxdocs_slow_tracing_glog_redefined_fn.txt", "jax_log", 2, "", "object_identity"},
    {"jax_explain_flax_issue5512_nnx_cond_mixed_prefix.txt", "jax_log", 2, "",
     "object_identity,object_identity"},
    {"jax_explain_static_arg_constructed.txt", "jax_log", 3, "", "constant,constant"},
};

std::string joined(const std::vector<std::string>& v) {
  std::string out;
  for (const auto& s : v) out += (out.empty() ? "" : ",") + s;
  return out;
}

std::string fixture_path(const std::string& file) {
  return testing::fixture_path("xla/" + file);
}

class XlaCorpus : public ::testing::TestWithParam<XlaCase> {};

TEST_P(XlaCorpus, MatchesTheFixtureReadme) {
  const XlaCase& c = GetParam();
  TempDir dir;
  auto summary = testing::ingest_logs(dir.file("rcf.db"), {fixture_path(c.file)});
  ASSERT_EQ(summary.sources.size(), 1u);
  EXPECT_EQ(summary.sources[0].stats.format, c.format);
  EXPECT_EQ(summary.rejected, 0);
  auto db = testing::read_store(dir.file("rcf.db"));
  EXPECT_EQ(scalar(*db, "SELECT count(*) FROM compiles"), std::to_string(c.compiles));
  EXPECT_EQ(scalar(*db, "SELECT coalesce(counted_compiles, '') FROM convergence_summary"),
            c.counted);
  EXPECT_EQ(joined(column(*db, "SELECT cause FROM recompiles ORDER BY ordinal")), c.causes);
}

INSTANTIATE_TEST_SUITE_P(Fixtures, XlaCorpus, ::testing::ValuesIn(kCases),
                         [](const ::testing::TestParamInfo<XlaCase>& param_info) {
                           std::string name = param_info.param.file;
                           for (char& ch : name)
                             if (!isalnum(static_cast<unsigned char>(ch))) ch = '_';
                           return name;
                         });

// The table covers every file of fixtures/xla.
TEST(XlaCorpus, EveryFixtureHasARow) {
  for (const auto& entry :
       std::filesystem::directory_iterator(std::string(RCF_FIXTURES_DIR) + "/xla")) {
    std::string name = entry.path().filename().string();
    if (!name.ends_with(".txt")) continue;
    bool found = false;
    for (const auto& c : kCases) found = found || name == c.file;
    EXPECT_TRUE(found) << name << " has no row in kCases";
  }
}

std::unique_ptr<store::Database> ingest(TempDir& dir, const std::string& file) {
  testing::ingest_logs(dir.file("rcf.db"), {fixture_path(file)});
  return testing::read_store(dir.file("rcf.db"));
}

TEST(XlaCorpus, MetricsOnlyRunSaysWhereTheCountComesFrom) {
  TempDir dir;
  auto db = ingest(dir, "metrics_report_issue836_2019_counter_field_app_log.txt");
  EXPECT_EQ(scalar(*db, "SELECT counted_by FROM convergence_summary"),
            "metrics CompileTime TotalSamples at "
            "metrics_report_issue836_2019_counter_field_app_log.txt:3");
  // The 2019 `Counter:` field is the metric's sum (07s501ms263.438us).
  EXPECT_EQ(scalar(*db,
                   "SELECT value FROM metric_sample m JOIN strings n ON n.string_id = m.name_sid "
                   "WHERE n.text = 'CompileTime' AND field = 'Accumulator'"),
            "7501263438.0");
  TempDir dir2;
  auto uncached = ingest(dir2, "metrics_report_issue3356_uncached_compile_markstep_counters.txt");
  EXPECT_EQ(scalar(*uncached, "SELECT counted_by FROM convergence_summary"),
            "metrics UncachedCompile at "
            "metrics_report_issue3356_uncached_compile_markstep_counters.txt:19");
}

TEST(XlaCorpus, VlogSameHashAndNewHashAreToldApart) {
  TempDir dir;
  auto db = ingest(dir, "vlog_recompile_constructed.txt");
  EXPECT_EQ(joined(column(*db, "SELECT program_key || '|' || site FROM compiles ORDER BY ordinal")),
            "5b2e1b7c0d8a4f2e9a31c6d7e8f90a1b|<no python frames> device TPU:0,"
            "c41d0e2f9b3a7c5d1e8f2a4b6c8d0e1f|<no python frames> device TPU:0,"
            "5b2e1b7c0d8a4f2e9a31c6d7e8f90a1b|<no python frames> device TPU:0");
  auto details = column(*db, "SELECT detail FROM recompiles ORDER BY ordinal");
  ASSERT_EQ(details.size(), 2u);
  // The new hash is the graph of the GetTensor read just before it (line 6): a host sync.
  EXPECT_NE(details[0].find("graph compiled for a value read on the host (torch_xla VLOG line 6: "
                            "`Trying to get the value of 1 tensor(s)`)"),
            std::string::npos)
      << details[0];
  EXPECT_NE(details[0].find("seen only in the VLOG output"), std::string::npos) << details[0];
  EXPECT_NE(details[1].find("was already compiled earlier"), std::string::npos) << details[1];
  EXPECT_NE(details[1].find("PT_XLA_DEBUG_LEVEL=1"), std::string::npos) << details[1];
  // Compile time from the start and done timestamps (3.2505 s).
  EXPECT_EQ(scalar(*db, "SELECT round(compile_ms) FROM compiles WHERE ordinal = 1"), "3250.0");
  EXPECT_EQ(scalar(*db, "SELECT count(*) FROM xla_vlog WHERE kind = 'get_tensor' AND count = 1"),
            "1");
}

// A read whose graph was cached executes without a compile: a later compile of the same thread is
// not the read's. Another thread's read says nothing of this thread's graphs.
TEST(XlaCorpus, VlogValueReadOwnsOnlyTheNextGraphOfItsThread) {
  auto line = [&](int second, int thread, const std::string& text) {
    return fmt::format(
        "2024-03-05 09:12:0{}.000000: I0000 00:00:170962992{}.000000   {} "
        "xla_graph_executor.cpp:1398] {}\n",
        second, second, thread, text);
  };
  std::string log = line(1, 7, "Compiling IR graph hash aaaa on device TPU:0 ...") +
                    line(2, 7, "Compiling IR graph hash aaaa on device TPU:0 done!") +
                    line(3, 7, "Trying to get the value of 2 tensor(s)") +
                    line(3, 7, "Executing IR graph hash aaaa on device TPU:0 ...") +
                    line(4, 9, "Trying to get the value of 1 tensor(s)") +
                    line(5, 7, "Compiling IR graph hash bbbb on device TPU:0 ...") +
                    line(6, 7, "Compiling IR graph hash bbbb on device TPU:0 done!");
  TempDir dir;
  testing::write_file(dir.file("vlog.txt"), log);
  testing::ingest_logs(dir.file("rcf.db"), {dir.file("vlog.txt")});
  auto db = testing::read_store(dir.file("rcf.db"));
  EXPECT_EQ(scalar(*db, "SELECT group_concat(cause) FROM recompiles"), "unknown");
}

TEST(XlaCorpus, JaxStaticArgumentSaysOldAndNewValue) {
  TempDir dir;
  auto db = ingest(dir, "jax_explain_static_arg_constructed.txt");
  EXPECT_EQ(joined(column(*db, "SELECT detail FROM recompiles ORDER BY ordinal")),
            "a static argument took a new value: 64 -> 128,"
            "a static argument took a new value: {mode: 'train'} -> {mode: 'eval'}");
}

TEST(XlaCorpus, DumpListingRecordsModulesAndStages) {
  TempDir dir;
  auto db = ingest(dir, "xla_dump_listing_openxla7193.txt");
  EXPECT_EQ(scalar(*db, "SELECT count(DISTINCT module_id) || '/' || count(*) FROM xla_dump_file"),
            "2/10");
  EXPECT_EQ(scalar(*db, "SELECT stage FROM xla_dump_file WHERE line = 1"), "before_optimizations");
}

}  // namespace xla_corpus_test
}  // namespace rcf
