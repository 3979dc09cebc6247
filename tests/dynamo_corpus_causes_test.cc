// Every Dynamo text sample of the corpus, ingested end to end (importer -> store -> attribution),
// gives the cause that fixtures/dynamo/README.md says the log shows. Causes are read from the
// public views only. Compiles that a fragmentary log knows only by reference (cause `unknown`,
// confidence `low`) are excluded from the "decided" set and counted separately.
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "analysis/guard_reason.h"
#include "pipeline/ingest_pipeline.h"
#include "store/store.h"
#include "tests/support/db_dump.h"
#include "tests/support/ingested_store.h"
#include "tests/support/temp_files.h"

namespace rcf {
namespace dynamo_corpus_causes_test {

using testing::column;
using testing::fixture_path;
using testing::ingest_logs;
using testing::read_store;
using testing::scalar;
using testing::TempDir;

struct CorpusCase {
  const char* file;
  // Distinct causes of the recompiles the log decides (confidence above low), sorted, joined by
  // ','.
  const char* decided_causes;
  // Recompile-limit hits as "limit_type:value:hard_failure:cause of the last reason" ('' = none).
  const char* limit_hits;
  // Graph breaks as "count/with host-sync signature".
  const char* graph_breaks;
  // Distinct causes of the guard failures that caused no compile (a guard that raised, a guard
  // failing on its own frame, a recompile refused by fail_on_recompile).
  const char* uncompiled_guard_causes = "";
};

// Expected causes: fixtures/dynamo/README.md, mapped to the design vocabulary (its "constant-value"
// is `constant`, "key-subset" is `key_subset`, "cache-limit" is a limit hit, a resume function's
// recompile is `sync_fragment`, "other" is `unknown`).
const CorpusCase kCases[] = {
    {"recompiles_pytorch_issue128134_dtype.txt", "dtype", "", "0/0"},
    {"recompiles_verbose_pytorch_issue149406_constant_float.txt", "constant", "", "0/0"},
    {"recompiles_pytorch_issue143670_dict_len.txt", "key_subset", "", "0/0"},
    {"recompiles_tensordict_issue1606_dict_keys.txt", "key_subset", "", "0/0"},
    {"recompiles_diffusers_pr11970_obj_id.txt", "object_identity", "", "0/0"},
    {"recompile_limit_dion_issue23_shape_param.txt", "", "recompile_limit:8:1:shape", "0/0"},
    {"recompile_limit_thunder_issue2682_constant_int.txt", "", "recompile_limit:8:0:constant",
     "0/0"},
    {"recompiles_pytorch_issue114293_constant_int_2023fmt.txt", "constant", "", "0/0"},
    {"recompiles_pytorch_issue114293_turn2_ambient_guard_comment.txt", "constant", "", "0/0"},
    {"cache_size_limit_torchdynamo_issue1673_stride_2022fmt.txt", "", "cache_size_limit:64:0:shape",
     "0/0"},
    {"graph_breaks_pytorch_scatter_issue457_item.txt", "", "", "1/1"},
    {"graph_breaks_specforge_pr222_item_rank.txt", "", "", "1/1"},
    {"recompiles_pytorch_issue123784_global_state_2024fmt.txt", "global_state", "", "0/0"},
    {"cache_size_limit_pytorch_issue128090_other.txt", "", "cache_size_limit:8:0:unknown", "0/0"},
    {"recompiles_sglang_issue7230_rank_shapeenv.txt", "shape", "", "0/0"},
    {"recompiles_pytorch_issue148179_shape_multi_entry.txt", "shape", "", "0/0"},
    {"recompiles_pytorch_issue161119_shape_rank0_vllm.txt", "shape", "", "0/0"},
    {"recompiles_pytorch_pr110325_shape_2023fmt.txt", "shape", "", "0/0"},
    // Constant and type guards of a resume function: the cause is the fragment, the guard is the
    // proximate reason in the detail (checked below).
    {"recompiles_verbose_pytorch_issue128071_type_id_const.txt", "constant,sync_fragment", "",
     "0/0"},
    {"graph_breaks_pytorch_issue128071_details_suppressed.txt", "", "", "2/0"},
    {"explain_pytensor_issue1110_data_dependent.txt", "", "", "3/3"},
    {"recompiles_pytorch_pr164992_empty_reason_dispatchkey.txt", "", "", "0/0"},
    {"cache_size_limit_pyg_issue8418_2023_noreason.txt", "", "cache_size_limit:8:0:", "0/0"},
    {"graph_breaks_primerl_pr999_backend_item_attempt.txt", "", "", "1/1"},
    {"recompiles_pytorch_issue100455_2023_tuple_fmt_string_const.txt", "constant", "", "0/0"},
    {"graph_breaks_torchdynamo_issue930_2022fmt.txt", "", "", "1/1"},
    // Added 2026-11-26 (fixtures/dynamo/README.md, rows after compilation_metrics_repr).
    {"recompiles_pytorch_issue163093_hash_comment_prefix_type.txt", "type", "", "0/0"},
    {"cache_size_limit_torchdynamo_pr494_2022_old_and_new_wording.txt", "",
     "cache_size_limit:64:0:unknown,cache_size_limit:64:0:unknown", "0/0"},
    {"cache_size_limit_torchdynamo_pr281_2022_gt_quoted_check_tensors.txt", "",
     "cache_size_limit:2:0:shape", "0/0"},
    {"recompiles_pytorch_pr110927_2023oct_guard_failures_list_noprefix.txt", "type", "", "0/0"},
    {"guard_eval_error_pytorch_issue111522_attributeerror_2023.txt", "", "", "0/0", "key_subset"},
    {"recompile_limit_pytorch_issue167504_failonrecompilelimithit_type_id.txt", "",
     "recompile_limit:8:1:type", "0/0"},
    // The [0/15] message starts at `last reason:` (its header, with the limit, was cut): it takes
    // the limit of the next hit of frame 0, [0/16], which has no last reason.
    {"recompile_limit_pytorch_issue123177_unexpected_recompilation_2026.txt", "",
     "recompile_limit:8:0:unknown,recompile_limit:8:0:", "0/0"},
    {"recompile_limit_hepattn_issue57_cut_prefix_resume_mark_unbacked.txt", "",
     "recompile_limit:8:0:shape", "0/0"},
    {"recompile_limit_intel_xpu_triton_pr5838_limit100_shape.txt", "",
     "recompile_limit:100:0:shape", "0/0"},
    {"recompile_limit_torchtitan_issue3898_unsupported_limit_type_2026.txt", "",
     "recompile_limit:8:1:", "0/0"},
    {"cache_size_limit_heavyball_issue16_jupyter_cachelimitexceeded_shape.txt", "",
     "cache_size_limit:8:0:shape", "0/0"},
    // The header's reason line was cut from the excerpt: the recompile is there, its cause is not.
    {"recompiles_pytorch_issue138813_gt_quoted_rank_interleaved_truncated.txt", "", "", "0/0"},
    {"fail_on_recompile_pytorch_pr156433_guard_debug_info_type.txt", "", "", "0/0", "type"},
    {"guard_sanity_pytorch_issue172088_indented_same_frame_mode_count.txt", "", "", "0/0",
     "global_state"},
    {"cache_size_limit_torchdynamo_pr496_2022_weakref_finalized.txt", "",
     "cache_size_limit:64:0:object_identity", "0/0"},
    {"recompiles_pytorch_docs_recompilation_page_notebook_noprefix.txt", "constant,shape", "",
     "0/0"},
    {"recompile_limit_pytorch_issue171593_shell_prompt_unknown_source_float.txt", "",
     "recompile_limit:8:0:constant", "0/0"},
    // No recompile message: the guard dumps of [0/0]..[0/4] are five compiles, and what changed
    // between consecutive ones (the `_parameters` version in `__nn_module_guard_0`) decides.
    {"guards_pytorch_issue110048_2023sep_nn_module_guard_versions_trimmed.txt", "object_identity",
     "", "0/0"},
};

void PrintTo(const CorpusCase& c, std::ostream* os) {
  *os << c.file;
}

class DynamoCorpusCauses : public ::testing::TestWithParam<CorpusCase> {};

std::string joined(const std::vector<std::string>& v) {
  std::string out;
  for (const auto& s : v) out += (out.empty() ? "" : ",") + s;
  return out;
}

TEST_P(DynamoCorpusCauses, MatchesTheCorpusReadme) {
  const CorpusCase& c = GetParam();
  TempDir dir;
  auto summary = ingest_logs(dir.file("rcf.db"), {fixture_path(std::string("dynamo/") + c.file)});
  ASSERT_EQ(summary.sources.size(), 1u);
  EXPECT_EQ(summary.sources[0].stats.format, "dynamo_text");
  EXPECT_EQ(summary.rejected, 0);

  auto db = read_store(dir.file("rcf.db"));
  EXPECT_EQ(joined(column(*db,
                          "SELECT DISTINCT cause FROM recompiles WHERE confidence <> 'low' "
                          "ORDER BY cause")),
            c.decided_causes);
  // Every low-confidence attribution says what to enable or that the log is a fragment.
  for (const auto& detail : column(*db, "SELECT detail FROM recompiles WHERE confidence = 'low'"))
    EXPECT_TRUE(detail.find("TORCH_LOGS") != std::string::npos ||
                detail.find("TORCH_TRACE") != std::string::npos)
        << detail;
  std::vector<std::string> hits;
  auto limits = db->prepare(
      "SELECT limit_type, coalesce(limit_value, ''), hard_failure, coalesce(last_reason, '') "
      "FROM recompile_limit_hits ORDER BY line");
  while (limits.step()) {
    std::string last_reason = limits.str(3);
    hits.push_back(limits.str(0) + ":" + limits.str(1) + ":" + limits.str(2) + ":" +
                   (last_reason.empty() ? "" : analysis::classify_guard_reason(last_reason).cause));
  }
  EXPECT_EQ(joined(hits), c.limit_hits);
  EXPECT_EQ(
      scalar(*db, "SELECT count(*) || '/' || coalesce(sum(sync_signature), 0) FROM graph_breaks"),
      c.graph_breaks);
  std::set<std::string> uncompiled;
  for (const auto& reason : column(*db,
                                   "SELECT reason FROM guard_failures WHERE origin IN "
                                   "('text_guard_eval_error', 'text_guard_sanity', "
                                   "'text_fail_on_recompile')"))
    uncompiled.insert(analysis::classify_guard_reason(reason).cause);
  EXPECT_EQ(joined({uncompiled.begin(), uncompiled.end()}), c.uncompiled_guard_causes);
  // None of them is a compile.
  if (*c.uncompiled_guard_causes) {
    EXPECT_EQ(scalar(*db, "SELECT count(*) FROM recompiles"), "0");
  }
}

INSTANTIATE_TEST_SUITE_P(Corpus, DynamoCorpusCauses, ::testing::ValuesIn(kCases),
                         [](const ::testing::TestParamInfo<CorpusCase>& param_info) {
                           std::string name = param_info.param.file;
                           name = name.substr(0, name.find('.'));
                           for (char& ch : name)
                             if (!isalnum(static_cast<unsigned char>(ch))) ch = '_';
                           return name;
                         });

TEST(DynamoCorpusDetails, ResumeFunctionKeepsTheProximateGuard) {
  TempDir dir;
  ingest_logs(dir.file("rcf.db"),
              {fixture_path("dynamo/recompiles_verbose_pytorch_issue128071_type_id_const.txt")});
  auto db = read_store(dir.file("rcf.db"));
  std::string detail = scalar(*db, "SELECT detail FROM recompiles WHERE program_key = '16/8'");
  EXPECT_NE(detail.find("torch_dynamo_resume_in_forward_at_172"), std::string::npos) << detail;
  EXPECT_NE(detail.find("layer_idx == (8, 'conv')"), std::string::npos) << detail;
  EXPECT_EQ(scalar(*db, "SELECT prev_program_key FROM recompiles WHERE program_key = '16/8'"),
            "16/7");
}

TEST(DynamoCorpusDetails, DtypeFlipNamesTensorAndTypes) {
  TempDir dir;
  ingest_logs(dir.file("rcf.db"),
              {fixture_path("dynamo/recompiles_pytorch_issue128134_dtype.txt")});
  auto db = read_store(dir.file("rcf.db"));
  EXPECT_EQ(scalar(*db, "SELECT detail FROM recompiles WHERE cause = 'dtype' ORDER BY ordinal"),
            "tensor 'tgt' dtype: Half -> Float");
  // The resume function recompiled for the same dtype flip: that is its cause, and the detail
  // names the fragment (its existence is not what recompiled it).
  EXPECT_EQ(
      scalar(*db, "SELECT site || ' | ' || detail FROM recompiles WHERE site LIKE '%resume%'"),
      "/workspace/networks/layers/transformer.py:836 (torch_dynamo_resume_in_forward_at_836) | "
      "tensor 'tgt' dtype: Half -> Float; resume function torch_dynamo_resume_in_forward_at_836 "
      "exists because of a graph break in forward at line 836; the break itself is not in the "
      "logs (enable TORCH_LOGS=graph_breaks to see its reason)");
  EXPECT_EQ(scalar(*db, "SELECT count(*) FROM recompiles WHERE cause = 'sync_fragment'"), "0");
}

TEST(DynamoCorpusDetails, ShapeStormListsEveryValueOfTheDim) {
  TempDir dir;
  ingest_logs(dir.file("rcf.db"),
              {fixture_path("dynamo/recompiles_pytorch_issue148179_shape_multi_entry.txt")});
  auto db = read_store(dir.file("rcf.db"));
  EXPECT_EQ(scalar(*db, "SELECT detail FROM recompiles WHERE program_key = '5/3'"),
            "tensor 'x' dim 1: 1024 -> 128; dim 1 of 'x' has taken 4 values at this frame: 128, "
            "256, 512, 1024 (+2 older cache entries also rejected the inputs)");
  EXPECT_EQ(scalar(*db, "SELECT prev_program_key FROM recompiles WHERE program_key = '5/3'"),
            "5/2");
  // 5/4's block is cut off after its header: unknown, saying so.
  EXPECT_NE(scalar(*db, "SELECT detail FROM recompiles WHERE program_key = '5/4'")
                .find("cut inside the block"),
            std::string::npos);
}

}  // namespace dynamo_corpus_causes_test
}  // namespace rcf
