// Dynamo text importer: exact events and line fates for every fixtures/dynamo file (expected
// values read off the files by hand), plus grouping, era and robustness cases.
#include "ingest/dynamo/dynamo_text_importer.h"

#include <gtest/gtest.h>

#include <charconv>
#include <cmath>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "tests/support/importer_test.h"

namespace rcf::ingest {
namespace dynamo_text_importer_test {

using namespace rcf::testing;  // tests/support/importer_test.h

CollectingSink run(std::string_view text) {
  return rcf::testing::run_importer("dynamo_text", text);
}

std::string fixture(const std::string& name) {
  return rcf::testing::read_fixture("dynamo/" + name);
}

std::string ref_text(const CompileRef& ref) {
  return "r" + std::to_string(ref.rank) + " " + (ref.id.known() ? ref.id.text() : "-");
}

std::string number(double value) {
  char buf[64];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, value, std::chars_format::fixed);
  return std::string(buf, end);
}

// One line per event with every field the importer fills, so a mismatch shows the whole event.
std::string describe(const DynamoCompile& c) {
  return "L" + std::to_string(c.line) + " " + c.kind + " " + ref_text(c.ref) + " " + c.co_name +
         " @ " + c.co_filename + ":" + std::to_string(c.co_firstlineno);
}
std::string describe(const GuardFailure& g) {
  return "L" + std::to_string(g.line) + " " + ref_text(g.ref) + " #" +
         std::to_string(g.entry_index) + " g" + std::to_string(g.verbose_group) +
         " old=" + g.old_compile_id + " " + g.origin + " | " + g.reason;
}
std::string describe(const RecompileLimitHit& h) {
  return "L" + std::to_string(h.line) + " " + ref_text(h.ref) + " " + h.limit_type + "=" +
         std::to_string(h.limit_value) + " " + h.function + " @ " + h.file + ":" +
         std::to_string(h.firstlineno) + " hard=" + std::to_string(h.hard_failure) + " " +
         h.origin + " | " + h.last_reason;
}
std::string describe(const GraphBreak& g) {
  std::string out = "L" + std::to_string(g.line) + " " + ref_text(g.ref) + " " + g.origin + " " +
                    g.user_file + ":" + std::to_string(g.user_line) + " fn=" + g.user_function +
                    " type=" + g.gb_type + " suppressed=" + std::to_string(g.suppressed) +
                    " sync=" + std::to_string(g.sync_signature) + " | " + g.reason;
  for (const auto& f : g.user_stack)
    out += "\n  at " + f.file + ":" + std::to_string(f.line) + " " + f.function + " | " + f.code;
  return out;
}
std::string describe(const CompileTimesRow& r) {
  std::string out = "L" + std::to_string(r.line) + " " + r.function;
  for (double s : r.seconds) out += " " + number(s);
  return out;
}

template <typename T>
Strings all(const CollectingSink& sink) {
  Strings out;
  for (const T& e : sink.all<T>()) out.push_back(describe(e));
  return out;
}

// A guard code part padded to `column` as Dynamo prints it, then its source comment.
std::string commented(std::string code, size_t column, std::string comment) {
  code.resize(column, ' ');
  return code + comment;
}

// Every event type the importer can emit, for "nothing else was emitted" checks.
size_t event_count(const CollectingSink& sink) {
  return sink.events.size();
}

// ---------------------------------------------------------------------------------------------
// Recompile blocks, current glog era.

TEST(DynamoTextImporter, Issue128134DtypeThreadIdAndResumeFunction) {
  std::string text = fixture("recompiles_pytorch_issue128134_dtype.txt");
  CollectingSink sink = run(text);
  EXPECT_EQ(
      all<DynamoCompile>(sink),
      (Strings{"L1 recompile_block r-1 1/1 forward @ /workspace/networks/layers/transformer.py:753",
               "L5 recompile_block r-1 8/1 torch_dynamo_resume_in_forward_at_836 @ "
               "/workspace/networks/layers/transformer.py:836"}));
  EXPECT_EQ(all<GuardFailure>(sink),
            (Strings{"L3 r-1 1/1 #0 g-1 old= text_recompiles | tensor 'L['tgt']' dtype mismatch. "
                     "expected Half, actual Float",
                     "L7 r-1 8/1 #0 g-1 old= text_recompiles | tensor 'L['tgt']' dtype mismatch. "
                     "expected Half, actual Float"}));
  EXPECT_EQ(event_count(sink), 4u);
  // Line 4 (symbolic_shapes warning of the same process) ends the first block.
  EXPECT_EQ(sink.note_counts(),
            (Notes{{"skipped:other_logger", 1}, {"warning:truncated_block", 1}}));
  EXPECT_EQ(warning_lines(sink), (Lines{5}));
  EXPECT_EQ(parsed_lines(sink, line_count(text)), (Lines{1, 2, 3, 5, 6, 7}));
}

TEST(DynamoTextImporter, Issue143670DictLenSecondBlockTruncated) {
  std::string text = fixture("recompiles_pytorch_issue143670_dict_len.txt");
  CollectingSink sink = run(text);
  const std::string file = "/Users/ryanguo99/Documents/work/scratch/test-dict-contains-guards.py";
  EXPECT_EQ(all<DynamoCompile>(sink), (Strings{"L1 recompile_block r-1 0/1 f @ " + file + ":3",
                                               "L3 referenced r-1 0/0 f @ " + file + ":3",
                                               "L4 recompile_block r-1 0/2 f @ " + file + ":3"}));
  EXPECT_EQ(all<GuardFailure>(sink),
            (Strings{"L3 r-1 0/1 #0 g-1 old=0/0 text_recompiles | len(L['int_dict']) == 1"}));
  EXPECT_EQ(event_count(sink), 4u);
  EXPECT_EQ(sink.note_counts(), (Notes{{"warning:truncated_block", 1}}));
  EXPECT_EQ(warning_lines(sink), (Lines{4}));
  EXPECT_EQ(parsed_lines(sink, line_count(text)), range(1, 5));
}

TEST(DynamoTextImporter, Issue148179ShapeMultiEntryWithInterleavedInductorWarning) {
  std::string text = fixture("recompiles_pytorch_issue148179_shape_multi_entry.txt");
  CollectingSink sink = run(text);
  const std::string where = " forward @ yolov7/inference/cpu/yolov7/models/common.py:35";
  EXPECT_EQ(all<DynamoCompile>(sink),
            (Strings{"L1 recompile_block r-1 5/3" + where, "L3 referenced r-1 5/2" + where,
                     "L4 referenced r-1 5/1" + where, "L5 referenced r-1 5/0" + where,
                     "L7 recompile_block r-1 5/4" + where}));
  EXPECT_EQ(all<GuardFailure>(sink),
            (Strings{"L3 r-1 5/3 #0 g-1 old=5/2 text_recompiles | tensor 'L['x']' size mismatch at "
                     "index 1. expected 1024, actual 128",
                     "L4 r-1 5/3 #1 g-1 old=5/1 text_recompiles | tensor 'L['x']' size mismatch at "
                     "index 1. expected 512, actual 128",
                     "L5 r-1 5/3 #2 g-1 old=5/0 text_recompiles | tensor 'L['x']' size mismatch at "
                     "index 1. expected 256, actual 128"}));
  EXPECT_EQ(event_count(sink), 8u);
  EXPECT_EQ(sink.note_counts(),
            (Notes{{"skipped:other_logger", 1}, {"warning:truncated_block", 1}}));
  EXPECT_EQ(warning_lines(sink), (Lines{7}));
  EXPECT_EQ(parsed_lines(sink, line_count(text)), (Lines{1, 2, 3, 4, 5, 7, 8}));
}

TEST(DynamoTextImporter, Issue161119ShapeStormRank0SitePackages) {
  std::string text = fixture("recompiles_pytorch_issue161119_shape_rank0_vllm.txt");
  CollectingSink sink = run(text);
  const std::string where =
      " forward_cuda @ "
      "/data/users/pianpwk/vllm/vllm/model_executor/layers/mamba/mamba_mixer.py:203";
  Strings compiles = {"L1 recompile_block r0 3/36" + where};
  Strings failures;
  const int expected[] = {1, 2, 4, 8, 16};
  for (int i = 0; i < 5; ++i) {
    std::string old = "3/" + std::to_string(35 - i);
    std::string line = "L" + std::to_string(3 + i);
    compiles.push_back(line + " referenced r0 " + old + where);
    failures.push_back(line + " r0 3/36 #" + std::to_string(i) + " g-1 old=" + old +
                       " text_recompiles | tensor 'hidden_states' size mismatch at index 0. "
                       "expected " +
                       std::to_string(expected[i]) + ", actual 22");
  }
  EXPECT_EQ(all<DynamoCompile>(sink), compiles);
  EXPECT_EQ(all<GuardFailure>(sink), failures);
  EXPECT_EQ(event_count(sink), 11u);
  EXPECT_EQ(sink.note_counts(), (Notes{{"warning:truncated_block", 1}}));
  EXPECT_EQ(parsed_lines(sink, line_count(text)), range(1, 7));
}

TEST(DynamoTextImporter, Diffusers11970ObjectIdentity) {
  std::string text = fixture("recompiles_diffusers_pr11970_obj_id.txt");
  CollectingSink sink = run(text);
  const std::string where =
      " forward @ /home/aryan/work/diffusers/src/diffusers/models/transformers/"
      "transformer_flux.py:381";
  const char* ids[] = {"140462015041104", "140462015040240", "140462015039376",
                       "140462015038512", "140462015037648", "140466393496880"};
  Strings compiles = {"L1 recompile_block r-1 1/37" + where};
  Strings failures;
  for (int i = 0; i < 6; ++i) {
    std::string old = "1/" + std::to_string(36 - i);
    std::string line = "L" + std::to_string(3 + i);
    compiles.push_back(line + " referenced r-1 " + old + where);
    failures.push_back(line + " r-1 1/37 #" + std::to_string(i) + " g-1 old=" + old +
                       " text_recompiles | ___check_obj_id(self._modules['attn'].processor, " +
                       ids[i] + ")");
  }
  EXPECT_EQ(all<DynamoCompile>(sink), compiles);
  EXPECT_EQ(all<GuardFailure>(sink), failures);
  EXPECT_EQ(event_count(sink), 13u);
  EXPECT_EQ(sink.note_counts(), (Notes{{"warning:truncated_block", 1}}));
  EXPECT_EQ(parsed_lines(sink, line_count(text)), range(1, 8));
}

TEST(DynamoTextImporter, Tensordict1606StartsMidBlock) {
  std::string text = fixture("recompiles_tensordict_issue1606_dict_keys.txt");
  CollectingSink sink = run(text);
  const std::string comment =
      "# self._tensordict[key] = value  # tensordict/_td.py:2486 in _set_str";
  // Lines 1-3 are the tail of the [0/5] block: its header (and so co_name) is not in the file.
  // The [0/6] block's mention of 0/5 is then still a record: the only one with its co_name.
  EXPECT_EQ(all<DynamoCompile>(sink),
            (Strings{"L1 recompile_block r-1 0/5  @ :-1", "L1 referenced r-1 0/2  @ :-1",
                     "L2 referenced r-1 0/1  @ :-1", "L3 referenced r-1 0/0  @ :-1",
                     "L4 recompile_block r-1 0/6 fn @ <ipython-input-1-e15185e7bc2b>:6",
                     "L6 referenced r-1 0/5 fn @ <ipython-input-1-e15185e7bc2b>:6"}));
  EXPECT_EQ(all<GuardFailure>(sink),
            (Strings{"L1 r-1 0/5 #0 g-1 old=0/2 text_recompiles | " +
                         commented("len(td._tensordict) == 2", 57, comment),
                     "L2 r-1 0/5 #1 g-1 old=0/1 text_recompiles | " +
                         commented("len(td._tensordict) == 1", 57, comment),
                     "L3 r-1 0/5 #2 g-1 old=0/0 text_recompiles | " +
                         commented("not td._tensordict", 57, comment),
                     "L6 r-1 0/6 #0 g-1 old=0/5 text_recompiles | " +
                         commented("len(td._tensordict) == 5", 57, comment)}));
  EXPECT_EQ(event_count(sink), 10u);
  EXPECT_EQ(sink.note_counts(), (Notes{{"warning:truncated_block", 1}}));
  EXPECT_EQ(warning_lines(sink), (Lines{4}));
  EXPECT_EQ(parsed_lines(sink, line_count(text)), range(1, 6));
}

TEST(DynamoTextImporter, Issue123784GlobalStateWithoutTraceId) {
  std::string text = fixture("recompiles_pytorch_issue123784_global_state_2024fmt.txt");
  CollectingSink sink = run(text);
  EXPECT_EQ(
      all<DynamoCompile>(sink),
      (Strings{"L2 recompile_block r-1 - fn @ /home/dberard/local/scripts/global_recompile.py:3"}));
  EXPECT_EQ(all<GuardFailure>(sink),
            (Strings{"L4 r-1 - #0 g-1 old= text_recompiles | ___check_global_state()"}));
  EXPECT_EQ(event_count(sink), 2u);
  EXPECT_EQ(sink.note_counts(),
            (Notes{{"skipped:unprefixed_text", 1}, {"warning:truncated_block", 1}}));
  EXPECT_EQ(parsed_lines(sink, line_count(text)), range(2, 4));
}

TEST(DynamoTextImporter, Sglang7230InterleavedRanks) {
  std::string text = fixture("recompiles_sglang_issue7230_rank_shapeenv.txt");
  CollectingSink sink = run(text);
  EXPECT_EQ(all<DynamoCompile>(sink),
            (Strings{"L1 recompile_block r6 1/1  @ :-1", "L2 referenced r6 1/0  @ :-1",
                     "L3 recompile_block r2 1/1 select_top_k_tokens @ "
                     "/usr/local/lib/python3.12/dist-packages/sglang/srt/speculative/"
                     "eagle_utils.py:781"}));
  EXPECT_EQ(all<GuardFailure>(sink),
            (Strings{"L2 r6 1/1 #0 g-1 old=1/0 text_recompiles | topk_index._base.size()[0] == "
                     "topk_index.size()[0]  # (unknown var s1, please file a bug)"}));
  EXPECT_EQ(event_count(sink), 4u);
  // Both ranks' blocks are still open at the end of the excerpt.
  EXPECT_EQ(sink.note_counts(), (Notes{{"warning:truncated_block", 2}}));
  EXPECT_EQ(warning_lines(sink), (Lines{1, 3}));
  EXPECT_EQ(parsed_lines(sink, line_count(text)), range(1, 4));
}

TEST(DynamoTextImporter, Pr164992EmptyReasonsBarePrefix) {
  std::string text = fixture("recompiles_pytorch_pr164992_empty_reason_dispatchkey.txt");
  CollectingSink sink = run(text);
  const std::string where =
      " f @ "
      "/data/users/pianpwk/ptclone/pytorch/test/distributed/tensor/debug/test_debug_mode.py:268";
  // The [0/2] block names 0/1 and 0/0 again: both already have a record (0/1 its own block's,
  // 0/0 the first mention's), so only the guard failures repeat them.
  EXPECT_EQ(all<DynamoCompile>(sink),
            (Strings{"L1 recompile_block r-1 0/1" + where, "L3 referenced r-1 0/0" + where,
                     "L4 recompile_block r-1 0/2" + where}));
  EXPECT_EQ(all<GuardFailure>(sink), (Strings{"L3 r-1 0/1 #0 g-1 old=0/0 text_recompiles | ",
                                              "L6 r-1 0/2 #0 g-1 old=0/1 text_recompiles | ",
                                              "L7 r-1 0/2 #1 g-1 old=0/0 text_recompiles | "}));
  EXPECT_EQ(event_count(sink), 6u);
  EXPECT_EQ(sink.note_counts(), (Notes{{"warning:truncated_block", 1}}));
  EXPECT_EQ(warning_lines(sink), (Lines{4}));
  EXPECT_EQ(parsed_lines(sink, line_count(text)), range(1, 7));
}

// ---------------------------------------------------------------------------------------------
// recompiles_verbose.

TEST(DynamoTextImporter, Issue149406VerboseConstantFloat) {
  std::string text = fixture("recompiles_verbose_pytorch_issue149406_constant_float.txt");
  CollectingSink sink = run(text);
  EXPECT_EQ(all<DynamoCompile>(sink),
            (Strings{"L1 recompile_block r-1 6/1 model @ /tmp/ipykernel_2002586/874691697.py:9",
                     "L4 referenced r-1 6/0 model @ /tmp/ipykernel_2002586/874691697.py:9"}));
  EXPECT_EQ(all<GuardFailure>(sink),
            (Strings{"L4 r-1 6/1 #0 g0 old=6/0 text_recompiles_verbose | L['y'] == 1.5"}));
  EXPECT_EQ(event_count(sink), 3u);
  EXPECT_EQ(sink.note_counts(), (Notes{{"warning:truncated_block", 1}}));
  EXPECT_EQ(parsed_lines(sink, line_count(text)), range(1, 4));
}

TEST(DynamoTextImporter, Issue128071VerboseUserTrimmedPrefix) {
  std::string text = fixture("recompiles_verbose_pytorch_issue128071_type_id_const.txt");
  CollectingSink sink = run(text);
  const std::string where =
      " torch_dynamo_resume_in_forward_at_172 @ /home/ryanguo99/pt/based/based/models/block.py:172";
  EXPECT_EQ(all<DynamoCompile>(sink),
            (Strings{"L1 recompile_block r-1 16/8" + where, "L4 referenced r-1 16/7" + where,
                     "L7 referenced r-1 16/2" + where, "L10 referenced r-1 16/6" + where}));
  // Entries are in cache order, not id order; trailing padding is trimmed.
  EXPECT_EQ(all<GuardFailure>(sink),
            (Strings{"L4 r-1 16/8 #0 g0 old=16/7 text_recompiles_verbose | "
                     "L['self']._modules['mixer']._modules['conv'].layer_idx == (8, 'conv')",
                     "L7 r-1 16/8 #1 g1 old=16/2 text_recompiles_verbose | "
                     "___check_type_id(L['self']._modules['mixer'], 157671424)",
                     "L10 r-1 16/8 #2 g2 old=16/6 text_recompiles_verbose | "
                     "___check_type_id(L['self']._modules['mixer'], 157226352)"}));
  EXPECT_EQ(event_count(sink), 7u);
  EXPECT_EQ(sink.note_counts(), (Notes{{"warning:truncated_block", 1}}));
  EXPECT_EQ(parsed_lines(sink, line_count(text)), range(1, 12));
}

// ---------------------------------------------------------------------------------------------
// 2023 eras.

TEST(DynamoTextImporter, Issue100455TupleRepr2023) {
  std::string text = fixture("recompiles_pytorch_issue100455_2023_tuple_fmt_string_const.txt");
  CollectingSink sink = run(text);
  EXPECT_EQ(all<DynamoCompile>(sink), (Strings{"L1 recompile_block r-1 - predict @ test.py:-1"}));
  EXPECT_EQ(all<GuardFailure>(sink),
            (Strings{"L1 r-1 - #0 g-1 old= text_tuple_2023 | L['text'] == 'This is a note about "
                     "Frank Sinatra who was in Saint Genis Pouilly during summer of 75. He was "
                     "not r'"}));
  EXPECT_EQ(event_count(sink), 2u);
  EXPECT_TRUE(sink.notes.empty());
}

TEST(DynamoTextImporter, Issue114293ConstantIntWithInterleavedPrints) {
  std::string text = fixture("recompiles_pytorch_issue114293_constant_int_2023fmt.txt");
  CollectingSink sink = run(text);
  const std::string where = " accumulate @ <ipython-input-6-4764417fa0ae>:6";
  EXPECT_EQ(all<DynamoCompile>(sink),
            (Strings{"L2 recompile_block r-1 -" + where, "L6 recompile_block r-1 -" + where}));
  const std::string end_guard = commented(
      "L['end'] == 10", 62,
      "# for i in range(start+1, end):  # <ipython-input-6-4764417fa0ae>:9 in accumulate");
  const std::string start_guard =
      commented("L['start'] == 1", 62,
                "# result = X0[start]  # <ipython-input-6-4764417fa0ae>:8 in accumulate");
  EXPECT_EQ(all<GuardFailure>(sink),
            (Strings{"L4 r-1 - #0 g-1 old= text_recompiles | " + end_guard,
                     "L8 r-1 - #0 g-1 old= text_recompiles | " + start_guard,
                     "L9 r-1 - #1 g-1 old= text_recompiles | " + end_guard}));
  EXPECT_EQ(event_count(sink), 5u);
  EXPECT_EQ(sink.note_counts(),
            (Notes{{"skipped:unprefixed_text", 2}, {"warning:truncated_block", 1}}));
  EXPECT_EQ(warning_lines(sink), (Lines{6}));
  EXPECT_EQ(parsed_lines(sink, line_count(text)), (Lines{2, 3, 4, 6, 7, 8, 9}));
}

TEST(DynamoTextImporter, Issue114293AmbientGuardCommentStartsMidBlock) {
  std::string text = fixture("recompiles_pytorch_issue114293_turn2_ambient_guard_comment.txt");
  CollectingSink sink = run(text);
  EXPECT_EQ(all<DynamoCompile>(sink),
            (Strings{"L1 recompile_block r-1 -  @ :-1",
                     "L3 recompile_block r-1 - accumulate @ <ipython-input-6-4764417fa0ae>:6"}));
  const std::string ambient = "# _dynamo/output_graph.py:366 in init_ambient_guards";
  Strings failures = {"L1 r-1 - #0 g-1 old= text_recompiles | " +
                      commented("L['end'] == 10", 62,
                                "# for i in range(start+1, end):  # "
                                "<ipython-input-6-4764417fa0ae>:9 in accumulate")};
  for (int i = 0; i < 4; ++i)
    failures.push_back("L" + std::to_string(5 + i) + " r-1 - #" + std::to_string(i) +
                       " g-1 old= text_recompiles | " +
                       commented("L['start'] == " + std::to_string(6 - i), 62, ambient));
  EXPECT_EQ(all<GuardFailure>(sink), failures);
  EXPECT_EQ(event_count(sink), 7u);
  EXPECT_EQ(sink.note_counts(),
            (Notes{{"skipped:unprefixed_text", 1}, {"warning:truncated_block", 1}}));
  EXPECT_EQ(warning_lines(sink), (Lines{3}));
  EXPECT_EQ(parsed_lines(sink, line_count(text)), (Lines{1, 3, 4, 5, 6, 7, 8}));
}

TEST(DynamoTextImporter, Pr110325ShapeNoCompileIds2023) {
  std::string text = fixture("recompiles_pytorch_pr110325_shape_2023fmt.txt");
  CollectingSink sink = run(text);
  const std::string where =
      " _forward_impl @ /data/users/williamwen/torchvision/torchvision/models/resnet.py:266";
  EXPECT_EQ(all<DynamoCompile>(sink),
            (Strings{"L1 recompile_block r-1 -  @ :-1", "L2 recompile_block r-1 -" + where,
                     "L6 recompile_block r-1 -" + where}));
  auto shape = [](int expected, int actual) {
    return "tensor 'L['x']' size mismatch at index 0. expected " + std::to_string(expected) +
           ", actual " + std::to_string(actual);
  };
  EXPECT_EQ(all<GuardFailure>(sink),
            (Strings{"L1 r-1 - #0 g-1 old= text_recompiles | " + shape(24, 25),
                     "L4 r-1 - #0 g-1 old= text_recompiles | " + shape(25, 26),
                     "L5 r-1 - #1 g-1 old= text_recompiles | " + shape(24, 26),
                     "L8 r-1 - #0 g-1 old= text_recompiles | " + shape(26, 27),
                     "L9 r-1 - #1 g-1 old= text_recompiles | " + shape(25, 27)}));
  EXPECT_EQ(event_count(sink), 8u);
  EXPECT_EQ(sink.note_counts(), (Notes{{"warning:truncated_block", 1}}));
  EXPECT_EQ(warning_lines(sink), (Lines{6}));
  EXPECT_EQ(parsed_lines(sink, line_count(text)), range(1, 9));
}

// ---------------------------------------------------------------------------------------------
// Recompile / cache-size limit warnings.

TEST(DynamoTextImporter, Thunder2682RecompileLimitConstantInt) {
  std::string text = fixture("recompile_limit_thunder_issue2682_constant_int.txt");
  CollectingSink sink = run(text);
  const std::string reason = commented(
      "y == 7", 57,
      "# return x + y  # pt/pytorch/lightning-thunder/test_thunder_recompile.py:5 in foo");
  EXPECT_EQ(all<RecompileLimitHit>(sink),
            (Strings{"L1 r-1 0/8 recompile_limit=8 foo @ "
                     "/opt/pytorch/lightning-thunder/test_thunder_recompile.py:4 hard=0 "
                     "text_limit_warning | 0/7: " +
                     reason}));
  EXPECT_EQ(all<GuardFailure>(sink),
            (Strings{"L3 r-1 0/8 #0 g-1 old=0/7 text_limit_warning | " + reason}));
  EXPECT_EQ(event_count(sink), 2u);
  EXPECT_TRUE(sink.notes.empty());  // complete: ends with its `To diagnose` line
}

TEST(DynamoTextImporter, Dion23RecompileLimitWithFailOnRecompileLimitHit) {
  std::string text = fixture("recompile_limit_dion_issue23_shape_param.txt");
  CollectingSink sink = run(text);
  const std::string reason =
      "tensor 'X[0]' size mismatch at index 1. expected 640, actual 8. Guard failed on a "
      "parameter, consider using torch._dynamo.config.force_parameter_static_shapes = False to "
      "allow dynamism on parameters.";
  // The exception on line 5 marks the same hit as a hard failure; it is not a second hit.
  EXPECT_EQ(all<RecompileLimitHit>(sink),
            (Strings{"L1 r-1 2/8 recompile_limit=8 dion2_post_orthogonalize @ "
                     "/usr/local/lib/python3.12/dist-packages/dion/dion2.py:621 hard=1 "
                     "text_limit_warning | 2/7: " +
                     reason}));
  EXPECT_EQ(all<GuardFailure>(sink),
            (Strings{"L3 r-1 2/8 #0 g-1 old=2/7 text_limit_warning | " + reason}));
  EXPECT_EQ(event_count(sink), 2u);
  EXPECT_EQ(sink.note_counts(), (Notes{{"skipped:blank", 1}}));
  EXPECT_EQ(parsed_lines(sink, line_count(text)), (Lines{1, 2, 3, 5}));
}

TEST(DynamoTextImporter, Issue128090CacheSizeLimitGuardEvalError) {
  std::string text = fixture("cache_size_limit_pytorch_issue128090_other.txt");
  CollectingSink sink = run(text);
  EXPECT_EQ(all<RecompileLimitHit>(sink),
            (Strings{"L1 r-1 4/8 cache_size_limit=8 forward @ [redacted]:149 hard=0 "
                     "text_limit_warning | name 'Trunc' is not defined"}));
  EXPECT_EQ(all<GuardFailure>(sink),
            (Strings{"L3 r-1 4/8 #0 g-1 old= text_limit_warning | name 'Trunc' is not defined"}));
  EXPECT_EQ(event_count(sink), 2u);
  EXPECT_EQ(sink.note_counts(), (Notes{{"warning:truncated_block", 1}}));
  EXPECT_EQ(parsed_lines(sink, line_count(text)), range(1, 4));
}

TEST(DynamoTextImporter, Pyg8418CacheSizeLimitWithoutReason2023) {
  std::string text = fixture("cache_size_limit_pyg_issue8418_2023_noreason.txt");
  CollectingSink sink = run(text);
  EXPECT_EQ(all<RecompileLimitHit>(sink),
            (Strings{"L5 r-1 - cache_size_limit=8 forward @ /workspace/examples/compile/gcn.py:36 "
                     "hard=0 text_limit_warning | "}));
  EXPECT_EQ(event_count(sink), 1u);
  EXPECT_EQ(sink.note_counts(), (Notes{{"skipped:unprefixed_text", 4}}));
  EXPECT_EQ(parsed_lines(sink, line_count(text)), range(5, 7));
}

TEST(DynamoTextImporter, Torchdynamo1673ReasonsList2022) {
  std::string text = fixture("cache_size_limit_torchdynamo_issue1673_stride_2022fmt.txt");
  CollectingSink sink = run(text);
  const std::string reason =
      "tensor 'x' strides mismatch at index 0. expected 562500, actual 2447991";
  EXPECT_EQ(all<RecompileLimitHit>(sink),
            (Strings{"L1 r-1 - cache_size_limit=64 forward @ "
                     "/usr/local/lib/python3.9/dist-packages/torchvision/models/resnet.py:284 "
                     "hard=0 text_limit_warning | " +
                     reason}));
  EXPECT_EQ(all<GuardFailure>(sink),
            (Strings{"L3 r-1 - #0 g-1 old= text_reasons_2022 | " + reason}));
  EXPECT_EQ(event_count(sink), 2u);
  EXPECT_EQ(sink.note_counts(), (Notes{{"warning:truncated_block", 1}}));
  EXPECT_EQ(parsed_lines(sink, line_count(text)), range(1, 3));
}

// ---------------------------------------------------------------------------------------------
// Graph breaks.

TEST(DynamoTextImporter, Scatter457ItemWarning) {
  std::string text = fixture("graph_breaks_pytorch_scatter_issue457_item.txt");
  CollectingSink sink = run(text);
  EXPECT_EQ(all<GraphBreak>(sink),
            (Strings{"L1 r-1 0/0 text_item_warning "
                     "/workspaces/molcrafts/molpot/src/molpot/potential/base.py:32 fn=forward "
                     "type= suppressed=0 sync=1 | Graph break from `Tensor.item()`, consider "
                     "setting:\n    torch._dynamo.config.capture_scalar_outputs = True\nor:\n"
                     "    env TORCHDYNAMO_CAPTURE_SCALAR_OUTPUTS=1\nto include these operations "
                     "in the captured graph.\n"
                     "  at /workspaces/molcrafts/molpot/src/molpot/potential/base.py:32 forward | "
                     "inputs = module(inputs)"}));
  EXPECT_EQ(event_count(sink), 1u);
  EXPECT_EQ(sink.note_counts(), (Notes{{"warning:truncated_block", 1}}));
  EXPECT_EQ(parsed_lines(sink, line_count(text)), range(1, 9));
}

TEST(DynamoTextImporter, SpecForge222ItemWarningStartsMidMessage) {
  std::string text = fixture("graph_breaks_specforge_pr222_item_rank.txt");
  CollectingSink sink = run(text);
  const std::string file =
      "/home/ubuntu/SpecForge/.venv/lib/python3.12/site-packages/specforge/core/eagle3.py";
  EXPECT_EQ(all<GraphBreak>(sink),
            (Strings{"L1 r1 7/0 text_item_warning " + file +
                     ":789 fn=_compute_metric_acc type= suppressed=0 sync=1 | "
                     "    torch._dynamo.config.capture_scalar_outputs = True\nor:\n"
                     "    env TORCHDYNAMO_CAPTURE_SCALAR_OUTPUTS=1\nto include these operations "
                     "in the captured graph.\n  at " +
                     file +
                     ":789 _compute_metric_acc | ).sum().item() / (loss_mask.sum().item() + "
                     "1e-6)"}));
  EXPECT_EQ(event_count(sink), 1u);
  EXPECT_EQ(sink.note_counts(), (Notes{{"warning:truncated_block", 1}}));
  EXPECT_EQ(parsed_lines(sink, line_count(text)), range(1, 10));
}

TEST(DynamoTextImporter, PrimeRl999BackendFailureFragment) {
  std::string text = fixture("graph_breaks_primerl_pr999_backend_item_attempt.txt");
  CollectingSink sink = run(text);
  EXPECT_EQ(all<GraphBreak>(sink),
            (Strings{"L1 r0 5/0_2 text_graph_breaks :-1 fn= type= suppressed=0 sync=1 | "
                     "  Hint: Report an issue to the backend compiler repo.\n\n"
                     "  Developer debug context: Backend: inductor\n"
                     "    Exception:aten._local_scalar_dense.default\n\n"
                     "    While executing %item : [num_users=2] = call_method[target=item](args = "
                     "(%getitem,), kwargs = {})\n"
                     "    GraphModule: class GraphModule(torch.nn.Module):\n"
                     "        def forward(self, L_num_tokens_per_expert_: \"i32[8][1]\"):\n"
                     "            l_num_tokens_per_expert_ = L_num_tokens_per_expert_"}));
  EXPECT_EQ(event_count(sink), 1u);
  EXPECT_EQ(sink.note_counts(), (Notes{{"warning:truncated_block", 1}}));
  EXPECT_EQ(parsed_lines(sink, line_count(text)), range(1, 10));
}

TEST(DynamoTextImporter, Issue128071DetailsSuppressedAfterTracebackTail) {
  std::string text = fixture("graph_breaks_pytorch_issue128071_details_suppressed.txt");
  CollectingSink sink = run(text);
  const std::string file =
      "/home/ryanguo99/.conda/envs/based/lib/python3.12/site-packages/flash_attn/ops/layer_norm.py";
  EXPECT_EQ(all<GraphBreak>(sink),
            (Strings{"L1 r-1 0/0 text_graph_breaks " + file +
                         ":13 fn=maybe_align type= suppressed=0 sync=0 | \n  at " + file +
                         ":13 maybe_align | return x if x.data_ptr() % alignment_in_bytes == 0 "
                         "else x.clone()",
                     "L4 r-1 1/0 text_graph_breaks " + file +
                         ":13 fn= type= suppressed=1 sync=0 | Unsupported: builtin: mod [<class "
                         "'torch._dynamo.variables.tensor.DataPtrVariable'>, <class "
                         "'torch._dynamo.variables.constant.ConstantVariable'>] False"}));
  EXPECT_EQ(event_count(sink), 2u);
  EXPECT_EQ(sink.note_counts(), (Notes{{"warning:truncated_block", 1}}));
  EXPECT_EQ(warning_lines(sink), (Lines{4}));
  EXPECT_EQ(parsed_lines(sink, line_count(text)), range(1, 5));
}

TEST(DynamoTextImporter, Torchdynamo930GraphBreak2022) {
  std::string text = fixture("graph_breaks_torchdynamo_issue930_2022fmt.txt");
  CollectingSink sink = run(text);
  const std::string dir = "/scratch/panyj/work/cpy/torchdynamo/benchmarks/";
  EXPECT_EQ(all<GraphBreak>(sink),
            (Strings{"L1 r-1 - text_2022 " + dir +
                     "common.py:1072 fn=run_one_model type= suppressed=0 sync=1 | generic_jump "
                     "TensorVariable()\n  at " +
                     dir +
                     "torchbench.py:363 <module> | main(TorchBenchmarkRunner(), original_dir)"
                     "\n  at " +
                     dir + "common.py:1725 main | runner.run_one_model(\n  at " + dir +
                     "common.py:1072 run_one_model | "}));
  EXPECT_EQ(event_count(sink), 1u);
  EXPECT_EQ(sink.note_counts(), (Notes{{"warning:truncated_block", 1}}));
  EXPECT_EQ(parsed_lines(sink, line_count(text)), range(1, 6));
}

TEST(DynamoTextImporter, Pytensor1110ExplainBreakReasons) {
  std::string text = fixture("explain_pytensor_issue1110_data_dependent.txt");
  CollectingSink sink = run(text);
  const std::string reason =
      "data dependent operator: aten._local_scalar_dense.default; to enable, set "
      "torch._dynamo.config.capture_scalar_outputs = True";
  const std::string join =
      "/Users/ch0ronomato/dev/pytensor/pytensor/link/pytorch/dispatch/basic.py";
  const std::string tmp = "/var/folders/2z/y4z6q41j7l93ysr2y2k_gsnh0000gn/T/tmpo4p1bvf1";
  const std::string head =
      " r-1 - text_explain " + join + ":129 fn=join type= suppressed=0 sync=1 | " + reason;
  EXPECT_EQ(all<GraphBreak>(sink),
            (Strings{"L5" + head + "\n  at " + tmp + ":33 pytorch_funcified_fgraph | \n  at " +
                         join + ":129 join | ",
                     "L10" + head + "\n  at " + join + ":129 join | ",
                     "L14" + head + "\n  at " + tmp +
                         ":73 torch_dynamo_resume_in_pytorch_funcified_fgraph_at_33 | \n  at " +
                         join + ":129 join | "}));
  EXPECT_EQ(event_count(sink), 3u);
  EXPECT_EQ(sink.note_counts(), (Notes{{"warning:truncated_block", 1}}));
  EXPECT_EQ(parsed_lines(sink, line_count(text)), range(1, 18));
}

// ---------------------------------------------------------------------------------------------
// compile_times, CompileProfiler, CompilationMetrics.

TEST(DynamoTextImporter, Issue181428CompileTimesCommaFormAtExit) {
  std::string text = fixture("compile_times_pytorch_issue181428_atexit_dump.txt");
  CollectingSink sink = run(text);
  EXPECT_EQ(
      all<CompileTimesRow>(sink),
      (Strings{"L7 _compile.compile_inner 24.8579", "L8 compile_attempt_0 24.8",
               "L9 bytecode_tracing 0.2581", "L10 get_fake_value 0.0308", "L11 create_proxy 0.0065",
               "L12 wrap_to_fake_tensor_and_record 0.0022", "L13 variable_builder_call 0.0742"}));
  EXPECT_EQ(event_count(sink), 7u);
  EXPECT_EQ(sink.note_counts(), (Notes{{"skipped:unprefixed_text", 1},
                                       {"skipped:unused_dynamo_message", 3},
                                       {"warning:truncated_block", 1}}));
  EXPECT_EQ(warning_lines(sink), (Lines{5}));
  EXPECT_EQ(parsed_lines(sink, line_count(text)), range(5, 13));
}

TEST(DynamoTextImporter, Pr97890CompileTimesTabulate2023) {
  std::string text = fixture("compile_times_pytorch_pr97890_tabulate_2023.txt");
  CollectingSink sink = run(text);
  EXPECT_EQ(all<CompileTimesRow>(sink),
            (Strings{"L4 torch._dynamo.convert_frame._compile 6.4824",
                     "L5 torch._dynamo.output_graph.OutputGraph.call_user_compiler 6.4595",
                     "L6 torch._functorch.aot_autograd.create_aot_dispatcher_function 4.3077",
                     "L7 torch._inductor.compile_fx.compile_fx.<locals>.fw_compiler_base 4.1946",
                     "L8 torch._inductor.graph.GraphLowering.run 0.0046 0.0017",
                     "L9 torch._inductor.graph.GraphLowering.compile_to_module 4.184 0.0092",
                     "L10 torch._inductor.scheduler.Scheduler.__init__ 4.1714 0.0028",
                     "L11 torch._inductor.scheduler.Scheduler.codegen 0.0079 0.0043",
                     "L12 torch._inductor.codegen.wrapper.WrapperCodeGen.generate 0.0012 0.0004",
                     "L13 torch._inductor.compile_fx.compile_fx.<locals>.bw_compiler 0.0152"}));
  EXPECT_EQ(event_count(sink), 10u);
  EXPECT_EQ(sink.note_counts(), (Notes{{"warning:truncated_block", 1}}));
  EXPECT_EQ(parsed_lines(sink, line_count(text)), range(1, 13));
}

TEST(DynamoTextImporter, Issue110803CompileProfilerTable) {
  std::string text = fixture("compile_profiler_pytorch_issue110803_nn_module_guard.txt");
  CollectingSink sink = run(text);
  EXPECT_EQ(
      all<GuardFailure>(sink),
      (Strings{"L21 r-1 - #0 g-1 old= text_compile_profiler | __nn_module_guard_0(L['self'])",
               "L22 r-1 - #1 g-1 old= text_compile_profiler | __nn_module_guard_0(L['self'])"}));
  EXPECT_EQ(event_count(sink), 2u);
  EXPECT_EQ(sink.note_counts(), (Notes{{"skipped:blank", 4},
                                       {"skipped:unprefixed_text", 14},
                                       {"warning:truncated_block", 1}}));
  EXPECT_EQ(parsed_lines(sink, line_count(text)), range(19, 22));
}

TEST(DynamoTextImporter, Pr126629CompilationMetricsRepr) {
  std::string text = fixture("compilation_metrics_repr_pytorch_pr126629.txt");
  CollectingSink sink = run(text);
  auto compiles = sink.all<DynamoCompile>();
  ASSERT_EQ(compiles.size(), 1u);
  const DynamoCompile& c = compiles[0];
  EXPECT_EQ(describe(c), "L1 forward r-1 0/0 forward @ /data/users/ybliang/debug/debug2.py:10");
  EXPECT_EQ(c.cache_size, 0);
  EXPECT_EQ(c.accumulated_cache_size, 0);
  EXPECT_EQ(c.guard_count, 11);
  EXPECT_EQ(c.shape_env_guard_count, 0);
  EXPECT_EQ(c.graph_op_count, 1);
  EXPECT_EQ(c.graph_node_count, 3);
  EXPECT_EQ(c.graph_input_count, 1);
  EXPECT_EQ(c.has_guarded_code, true);
  EXPECT_EQ(c.fail_type, "");
  EXPECT_EQ(c.fail_reason, "");
  EXPECT_EQ(c.start_time_us, 1716247236616598);  // start_time=1716247236.6165977
  ASSERT_TRUE(c.duration_ms.has_value());        // entire_frame_compile_time_s=7.926939964294434
  EXPECT_DOUBLE_EQ(*c.duration_ms, 7926.939964294434);
  EXPECT_EQ(c.restart_reasons,
            (Strings{"'skip function graph_break in file "
                     "/home/ybliang/local/pytorch/torch/_dynamo/decorators.py'"}));
  EXPECT_EQ(event_count(sink), 1u);
  EXPECT_TRUE(sink.notes.empty());
}

// ---------------------------------------------------------------------------------------------
// Grouping, eras and edge cases on synthetic input.

// Rank 0 and rank 1 write the same recompile at the same time, line by line interleaved.
TEST(DynamoTextImporter, InterleavedRanksKeepTheirBlocks) {
  std::string text;
  for (int line = 0; line < 4; ++line) {
    for (int rank = 0; rank < 2; ++rank) {
      std::string prefix = "[rank" + std::to_string(rank) + "]:V0616 10:01:38.800000 " +
                           std::to_string(100 + rank) +
                           " torch/_dynamo/guards.py:3006] [1/2] "
                           "[__recompiles] ";
      const char* messages[] = {"Recompiling function f in /a.py:7",
                                "    triggered by the following guard failure(s):",
                                "    - 1/1: x == 2", "    - 1/0: x == 1"};
      text += prefix + messages[line] + "\n";
    }
    if (line == 1) text += "a user print\n";
  }
  text += "V0616 10:01:39.000000 100 torch/_inductor/graph.py:1] done\n";
  CollectingSink sink = run(text);
  EXPECT_EQ(all<DynamoCompile>(sink),
            (Strings{"L1 recompile_block r0 1/2 f @ /a.py:7", "L6 referenced r0 1/1 f @ /a.py:7",
                     "L8 referenced r0 1/0 f @ /a.py:7", "L2 recompile_block r1 1/2 f @ /a.py:7",
                     "L7 referenced r1 1/1 f @ /a.py:7", "L9 referenced r1 1/0 f @ /a.py:7"}));
  EXPECT_EQ(all<GuardFailure>(sink),
            (Strings{"L6 r0 1/2 #0 g-1 old=1/1 text_recompiles | x == 2",
                     "L8 r0 1/2 #1 g-1 old=1/0 text_recompiles | x == 1",
                     "L7 r1 1/2 #0 g-1 old=1/1 text_recompiles | x == 2",
                     "L9 r1 1/2 #1 g-1 old=1/0 text_recompiles | x == 1"}));
  // The last line has no rank and another pid: neither block is closed by it.
  EXPECT_EQ(sink.note_counts(), (Notes{{"skipped:other_logger", 1},
                                       {"skipped:unprefixed_text", 1},
                                       {"warning:truncated_block", 2}}));
}

// A user print inside a glog block and inside a 2023 block does not split them.
TEST(DynamoTextImporter, UserPrintsInsideBlocks) {
  const std::string glog =
      "V0101 00:00:00.000000 7 torch/_dynamo/guards.py:1] [0/1] [__recompiles] ";
  const std::string dated = "[2023-11-21 19:02:13,073] torch._dynamo.guards.__recompiles: [DEBUG] ";
  std::string text = glog + "Recompiling function f in a.py:1\n" + "1\n" + glog +
                     "    triggered by the following guard failure(s):\n" + "tqdm 50%\n" + glog +
                     "    - 0/0: n == 1\n" + dated + "Recompiling function g in b.py:2\n" + "0\n" +
                     dated + "    triggered by the following guard failure(s):\n" + dated +
                     "    - L['n'] == 3\n" +
                     "V0101 00:00:01.000000 7 torch/_inductor/debug.py:9] [0/1] next record\n" +
                     "[2023-11-21 19:02:14,000] torch._dynamo.output_graph: [INFO] next record\n";
  CollectingSink sink = run(text);
  EXPECT_EQ(all<DynamoCompile>(sink),
            (Strings{"L1 recompile_block r-1 0/1 f @ a.py:1", "L5 referenced r-1 0/0 f @ a.py:1",
                     "L6 recompile_block r-1 - g @ b.py:2"}));
  EXPECT_EQ(all<GuardFailure>(sink),
            (Strings{"L5 r-1 0/1 #0 g-1 old=0/0 text_recompiles | n == 1",
                     "L9 r-1 - #0 g-1 old= text_recompiles | L['n'] == 3"}));
  // Each next record of the same stream closes its block: nothing is left open at the end.
  EXPECT_EQ(sink.note_counts(), (Notes{{"skipped:other_logger", 1},
                                       {"skipped:unprefixed_text", 3},
                                       {"skipped:unused_dynamo_message", 1}}));
}

TEST(DynamoTextImporter, CrlfLinesGiveTheSameEvents) {
  for (const char* name : {"recompiles_verbose_pytorch_issue128071_type_id_const.txt",
                           "graph_breaks_torchdynamo_issue930_2022fmt.txt",
                           "compile_times_pytorch_pr97890_tabulate_2023.txt"}) {
    std::string lf = fixture(name);
    std::string crlf;
    for (char c : lf) crlf += c == '\n' ? std::string("\r\n") : std::string(1, c);
    CollectingSink a = run(lf);
    CollectingSink b = run(crlf);
    EXPECT_EQ(all<GuardFailure>(a), all<GuardFailure>(b)) << name;
    EXPECT_EQ(all<DynamoCompile>(a), all<DynamoCompile>(b)) << name;
    EXPECT_EQ(all<GraphBreak>(a), all<GraphBreak>(b)) << name;
    EXPECT_EQ(all<CompileTimesRow>(a), all<CompileTimesRow>(b)) << name;
    EXPECT_EQ(a.note_counts(), b.note_counts()) << name;
  }
  // A stray '\r' left inside the line (CR CR LF) is trimmed from the reasons too.
  CollectingSink sink =
      run("V0101 00:00:00.000000 7 torch/_dynamo/guards.py:1] [0/1] [__recompiles] Recompiling "
          "function f in a.py:3\r\r\n"
          "V0101 00:00:00.000000 7 torch/_dynamo/guards.py:1] [0/1] [__recompiles]     - 0/0: x == "
          "1\r\r\n");
  EXPECT_EQ(all<DynamoCompile>(sink),
            (Strings{"L1 recompile_block r-1 0/1 f @ a.py:3", "L2 referenced r-1 0/0 f @ a.py:3"}));
  EXPECT_EQ(all<GuardFailure>(sink),
            (Strings{"L2 r-1 0/1 #0 g-1 old=0/0 text_recompiles | x == 1"}));
}

TEST(DynamoTextImporter, TruncatedBlockAtEndOfFile) {
  const std::string prefix =
      "W1021 10:44:18.989000 2926727 torch/_dynamo/convert_frame.py:1355] [0/8] ";
  CollectingSink sink = run(prefix + "torch._dynamo hit config.recompile_limit (8)\n" + prefix +
                            "   function: 'foo' (/t.py:4)");
  EXPECT_EQ(all<RecompileLimitHit>(sink),
            (Strings{"L1 r-1 0/8 recompile_limit=8 foo @ /t.py:4 hard=0 text_limit_warning | "}));
  ASSERT_EQ(sink.notes.size(), 1u);
  EXPECT_EQ(sink.notes[0].fate, LineFate::kWarning);
  EXPECT_EQ(sink.notes[0].reason, "truncated_block");
  EXPECT_EQ(sink.notes[0].line, 1);
}

TEST(DynamoTextImporter, MultiLineReasonWithUserStackTrace) {
  const std::string p = "V0101 00:00:00.000000 7 torch/_dynamo/guards.py:1] [0/2] [__recompiles] ";
  CollectingSink sink = run(
      p + "Recompiling function <resume in forward> in C:\\src\\m.py:12\n" + p +
      "    triggered by the following guard failure(s):\n" + p +
      "    - 0/1: ___check_obj_id(fn, 1), type=<function f> \n" + p + "    - User stack trace:\n" +
      p + "    -   File \"C:\\src\\m.py\", line 14, in forward\n" + p + "    - 0/0: x == 1\n");
  EXPECT_EQ(all<DynamoCompile>(sink),
            (Strings{"L1 recompile_block r-1 0/2 <resume in forward> @ C:\\src\\m.py:12",
                     "L3 referenced r-1 0/1 <resume in forward> @ C:\\src\\m.py:12",
                     "L6 referenced r-1 0/0 <resume in forward> @ C:\\src\\m.py:12"}));
  EXPECT_EQ(all<GuardFailure>(sink),
            (Strings{"L3 r-1 0/2 #0 g-1 old=0/1 text_recompiles | ___check_obj_id(fn, 1), "
                     "type=<function f>\nUser stack trace:\n  File \"C:\\src\\m.py\", line 14, "
                     "in forward",
                     "L6 r-1 0/2 #1 g-1 old=0/0 text_recompiles | x == 1"}));
}

TEST(DynamoTextImporter, VerboseEntryWithSeveralReasonsStaysOneReason) {
  const std::string p =
      "V0101 00:00:00.000000 7 torch/_dynamo/guards.py:1] [3/1] [__recompiles_verbose] ";
  CollectingSink sink =
      run(p + "Recompiling function f in a.py:1\n" + p +
          "    triggered by the following guard failure(s):\n" + p + "    guard 0 failures:\n" + p +
          "    - 3/0: tensor 'x' size mismatch at index 0. expected 2, actual 3; "
          "n == 4\n" +
          p + " \n" + p + "    guard 1 failures:\n");
  EXPECT_EQ(all<GuardFailure>(sink),
            (Strings{"L4 r-1 3/1 #0 g0 old=3/0 text_recompiles_verbose | tensor 'x' size mismatch "
                     "at index 0. expected 2, actual 3; n == 4"}));
}

TEST(DynamoTextImporter, ShortFormatContinuationLines) {
  CollectingSink sink =
      run("DEBUG:torch._dynamo.guards.__recompiles:Recompiling function f in /tmp/a.py:3\n"
          "    triggered by the following guard failure(s):\n"
          "    - 0/0: n == 1\n"
          "Epoch 2\n"
          "WARNING:torch._dynamo.convert_frame:torch._dynamo hit config.recompile_limit (8)\n"
          "   function: 'f' (/tmp/a.py:3)\n"
          "   last reason: 0/7: n == 8\n"
          "To log all recompilation reasons, use TORCH_LOGS=\"recompiles\".\n"
          "To diagnose recompilation issues, see https://pytorch.org/docs/main/x.html\n"
          "Epoch 3\n");
  // The header has no id; the reasons list every entry of frame 0 (just 0/0): it is 0/1.
  EXPECT_EQ(all<DynamoCompile>(sink), (Strings{"L1 recompile_block r-1 0/1 f @ /tmp/a.py:3",
                                               "L3 referenced r-1 0/0 f @ /tmp/a.py:3"}));
  EXPECT_EQ(all<GuardFailure>(sink),
            (Strings{"L3 r-1 0/1 #0 g-1 old=0/0 text_recompiles | n == 1",
                     "L7 r-1 - #0 g-1 old=0/7 text_limit_warning | n == 8"}));
  EXPECT_EQ(all<RecompileLimitHit>(sink),
            (Strings{"L5 r-1 - recompile_limit=8 f @ /tmp/a.py:3 hard=0 text_limit_warning | "
                     "0/7: n == 8"}));
  EXPECT_EQ(sink.note_counts(), (Notes{{"skipped:unprefixed_text", 2}}));
}

TEST(DynamoTextImporter, OneLineLimitWarningOfMay2022) {
  CollectingSink sink =
      run("[2022-05-20 10:00:00,000] torchdynamo.convert_frame: [WARNING] torchdynamo hit "
          "recompilation cache limit (2) for function 'model' (warn.py:39), due to the following "
          "guard failures: [['___check_tensors(input)'], ['___check_obj_id(a, 1)', 'b == 2']]\n");
  EXPECT_EQ(all<RecompileLimitHit>(sink),
            (Strings{"L1 r-1 - cache_size_limit=2 model @ warn.py:39 hard=0 text_limit_warning | "
                     "___check_obj_id(a, 1); b == 2"}));
  EXPECT_EQ(all<GuardFailure>(sink),
            (Strings{"L1 r-1 - #0 g-1 old= text_reasons_2022 | ___check_tensors(input)",
                     "L1 r-1 - #1 g-1 old= text_reasons_2022 | ___check_obj_id(a, 1); b == 2"}));
}

// A log cut right after `recompilation cache limit` (a truncated gzip, a killed job): the header
// is rejected, never read past its end (it was: found by the gzip read-ahead test).
TEST(DynamoTextImporter, LimitWarningCutAfterItsSubject) {
  for (std::string_view cut : {"", " ", "  \t"}) {
    CollectingSink sink =
        run("[2022-05-20 10:00:00,000] torchdynamo.convert_frame: [WARNING] torchdynamo hit "
            "recompilation cache limit" +
            std::string(cut));
    EXPECT_EQ(all<GuardFailure>(sink), Strings{});
    EXPECT_EQ(sink.note_counts()["rejected:bad_limit_header"], 1) << "cut after '" << cut << "'";
  }
}

TEST(DynamoTextImporter, StandaloneFailOnRecompileLimitHit) {
  CollectingSink sink =
      run("[rank3]: torch._dynamo.exc.FailOnRecompileLimitHit: recompile_limit reached with "
          "fullgraph=True. Excessive recompilations can degrade performance.\n");
  EXPECT_EQ(all<RecompileLimitHit>(sink),
            (Strings{"L1 r3 - recompile_limit=-1  @ :-1 hard=1 text_fail_on_recompile_limit | "}));
  EXPECT_TRUE(sink.notes.empty());
}

TEST(DynamoTextImporter, CurrentGraphBreakBlockAndDuplicate) {
  const std::string p =
      "V0101 00:00:00.000000 7 torch/_dynamo/symbolic_convert.py:1] [0/0] [__graph_breaks] ";
  const std::string q =
      "V0101 00:00:01.000000 7 torch/_dynamo/symbolic_convert.py:1] [1/0] [__graph_breaks] ";
  CollectingSink sink = run(
      p + "Graph break in user code at /w/m.py:9\n" + p +
      "Graph Break Reason: Unsupported Tensor.item() call with capture_scalar_outputs=False\n" + p +
      "  Explanation: Dynamo does not support tracing `Tensor.item()`.\n" + p + " \n" + p +
      " For more details about this graph break, please visit: https://x/gb/GB0124\n" + p +
      "User code traceback:\n" + p + "  File \"/w/m.py\", line 20, in forward\n" + p +
      "    y = self.f(x)\n" + p + "  File \"/w/m.py\", line 9, in f\n" + p +
      "    return x.sum().item()\n" + p + " \n" + q +
      "Graph break (user stack suppressed due to duplicate graph break) in user code at "
      "/w/m.py:9\n" +
      q + "Graph Break Reason: Unsupported Tensor.item() call with capture_scalar_outputs=False\n");
  EXPECT_EQ(all<GraphBreak>(sink),
            (Strings{"L1 r-1 0/0 text_graph_breaks /w/m.py:9 fn=f type=Unsupported Tensor.item() "
                     "call with capture_scalar_outputs=False suppressed=0 sync=1 | Unsupported "
                     "Tensor.item() call with capture_scalar_outputs=False\n  Explanation: Dynamo "
                     "does not support tracing `Tensor.item()`.\n\n For more details about this "
                     "graph break, please visit: https://x/gb/GB0124\n"
                     "  at /w/m.py:20 forward | y = self.f(x)\n  at /w/m.py:9 f | return "
                     "x.sum().item()",
                     "L12 r-1 1/0 text_graph_breaks /w/m.py:9 fn= type= suppressed=1 sync=1 | "
                     "Unsupported Tensor.item() call with capture_scalar_outputs=False"}));
  EXPECT_EQ(sink.note_counts(), (Notes{{"warning:truncated_block", 1}}));
}

TEST(DynamoTextImporter, GraphBreak2023FormWithPrefixedFrames) {
  const std::string p =
      "[2023-06-01 10:00:00,000] torch._dynamo.symbolic_convert.__graph_breaks: [DEBUG] ";
  CollectingSink sink =
      run(p + "Graph break: call_method TensorVariable() item () {} from user code at:\n" + p +
          "  File \"/w/a.py\", line 5, in f\n" + p + "    return x.item()\n");
  EXPECT_EQ(all<GraphBreak>(sink),
            (Strings{"L1 r-1 - text_graph_breaks /w/a.py:5 fn=f type= suppressed=0 sync=0 | "
                     "call_method TensorVariable() item () {}\n  at /w/a.py:5 f | return "
                     "x.item()"}));
}

TEST(DynamoTextImporter, UnsupportedExceptionText) {
  CollectingSink sink =
      run("Traceback (most recent call last):\n"
          "[rank0]: torch._dynamo.exc.Unsupported: Data-dependent branching\n"
          "[rank0]:   Explanation: Detected data-dependent branching.\n"
          "[rank0]: \n"
          "[rank0]: from user code:\n"
          "[rank0]:    File \"/w/a.py\", line 5, in f\n"
          "[rank0]:     if x.sum() > 0:\n"
          "[rank0]: \n"
          "[rank0]: Set TORCHDYNAMO_VERBOSE=1 for the internal stack trace.\n"
          "[rank0]: \n");
  EXPECT_EQ(all<GraphBreak>(sink),
            (Strings{"L2 r0 - text_unsupported /w/a.py:5 fn=f type=Data-dependent branching "
                     "suppressed=0 sync=1 | Data-dependent branching\n  Explanation: Detected "
                     "data-dependent branching.\n  at /w/a.py:5 f | if x.sum() > 0:"}));
  EXPECT_EQ(sink.note_counts(), (Notes{{"skipped:blank", 1}, {"skipped:unprefixed_text", 1}}));
  EXPECT_EQ(parsed_lines(sink, 10), range(2, 9));
}

TEST(DynamoTextImporter, RecompileErrorExceptionText) {
  CollectingSink sink =
      run("torch._dynamo.exc.RecompileError: Recompiling function f in /w/a.py:3\n"
          "    triggered by the following guard failure(s):\n"
          "    - 0/0: L['n'] == 1\n"
          "done\n");
  EXPECT_EQ(all<DynamoCompile>(sink), (Strings{"L1 recompile_block r-1 0/1 f @ /w/a.py:3",
                                               "L3 referenced r-1 0/0 f @ /w/a.py:3"}));
  EXPECT_EQ(all<GuardFailure>(sink),
            (Strings{"L3 r-1 0/1 #0 g-1 old=0/0 text_recompiles | L['n'] == 1"}));
  EXPECT_EQ(sink.note_counts(), (Notes{{"skipped:unprefixed_text", 1}}));
}

TEST(DynamoTextImporter, FailOnRecompileStanceError) {
  CollectingSink sink =
      run("RuntimeError: Detected recompile when torch.compile stance is 'fail_on_recompile'. "
          "filename: '/w/a.py', function name: 'f', line number: 3\n"
          "    triggered by the following guard failure(s):\n"
          "    - 0/0: tensor 'x' size mismatch at index 0. expected 2, actual 3\n");
  // Refused, not compiled: the failure is kept, the only compile is the entry it names.
  EXPECT_EQ(all<DynamoCompile>(sink), (Strings{"L3 referenced r-1 0/0 f @ /w/a.py:3"}));
  EXPECT_EQ(all<GuardFailure>(sink),
            (Strings{"L3 r-1 0/1 #0 g-1 old=0/0 text_fail_on_recompile | tensor 'x' size "
                     "mismatch at index 0. expected 2, actual 3"}));
  EXPECT_EQ(sink.note_counts(), (Notes{{"warning:truncated_block", 1}}));
}

TEST(DynamoTextImporter, MalformedRecordsAreRejectedWithReasons) {
  const std::string p = "V0101 00:00:00.000000 7 torch/_dynamo/guards.py:1] [0/1] [__recompiles] ";
  CollectingSink sink =
      run(p + "Recompiling function\n" + p + "    this is not an entry\n" +
          "[2023-05-15 11:33:09,972] torch._dynamo.convert_frame.__recompiles: [DEBUG] "
          "('Recompiling function f in a.py', 42)\n" +
          "I0101 00:00:00.000000 7 torch/_dynamo/utils.py:9] TorchDynamo compilation metrics:\n" +
          "I0101 00:00:00.000000 7 torch/_dynamo/utils.py:9] Function, Runtimes (s)\n" +
          "I0101 00:00:00.000000 7 torch/_dynamo/utils.py:9] gc, fast\n" +
          "%s CompilationMetrics(frame_key='1', co_name='f')\n");
  EXPECT_EQ(all<DynamoCompile>(sink), (Strings{"L1 recompile_block r-1 0/1  @ :-1"}));
  EXPECT_EQ(sink.note_counts(), (Notes{{"rejected:bad_compilation_metrics", 1},
                                       {"rejected:bad_compile_times_row", 1},
                                       {"rejected:bad_recompile_header", 1},
                                       {"rejected:bad_recompile_line", 1},
                                       {"rejected:bad_recompile_tuple", 1},
                                       {"skipped:empty_compile_times", 2},
                                       {"warning:truncated_block", 1}}));
}

// A CompilationMetrics line's times out of range are no evidence (util/plausible.h): the compile
// is kept without them, and its line warned.
TEST(DynamoTextImporter, CompilationMetricsTimesOutOfRangeAreDropped) {
  const std::string p = "I1205 10:00:00.000000 7 torch/_dynamo/utils.py:9] ";
  CollectingSink sink = run(p +
                            "CompilationMetrics(compile_id='0/0', co_name='f', "
                            "start_time_us=1000, duration_us=-5000000)\n" +
                            p +
                            "CompilationMetrics(compile_id='0/1', co_name='f', "
                            "start_time=1733392800.5, entire_frame_compile_time_s=-1.5)\n" +
                            p +
                            "CompilationMetrics(compile_id='1/0', co_name='g', "
                            "start_time_us=1733392800000000, duration_us=2500)\n");
  Strings times;
  for (const DynamoCompile& c : sink.all<DynamoCompile>())
    times.push_back(
        c.ref.id.text() + " " +
        (c.duration_ms ? std::to_string(std::llround(*c.duration_ms * 1000)) + "us" : "-") + " " +
        (c.start_time_us ? std::to_string(*c.start_time_us) : "-"));
  EXPECT_EQ(times, (Strings{"0/0 - -", "0/1 - 1733392800500000", "1/0 2500us 1733392800000000"}));
  EXPECT_EQ(sink.note_counts(),
            (Notes{{"warning:implausible_duration", 2}, {"warning:implausible_timestamp", 1}}));
}

TEST(DynamoTextImporter, NeverCrashesOnJunk) {
  std::string junk;
  for (int i = 0; i < 4096; ++i) junk += char((i * 7919) % 256);
  std::string huge(10 << 20, 'x');
  std::string text = junk + "\n" + huge + "\n" + "\xff\xfe\x00 Recompiling function \xc3\x28\n" +
                     "V0101 00:00:00.000000 7 torch/_dynamo/guards.py:1] [0/1] [__recompiles] " +
                     "Recompiling function f in " + std::string(1 << 20, '\xff') + ":1\n" +
                     "[0/1] [__graph_breaks] Graph break in user code at :\n" +
                     "torch._dynamo.exc.Unsupported: \n" + "Graph Count: x\n" +
                     "Function  Recompiles  Recompile Reasons\n" + "--  --\n" +
                     "TorchDynamo compilation metrics:\n" + "Function\n" + "\n" +
                     "CompilationMetrics(\n" +
                     "CompilationMetrics(compile_id='0/0', co_name='f', x=[1, (2, {\"a\n";
  CollectingSink sink = run(text);
  int64_t lines = line_count(text);
  Lines parsed = parsed_lines(sink, lines);  // checks no line is noted twice
  EXPECT_LE(parsed.size(), size_t(lines));
  EXPECT_FALSE(sink.events.empty());
}

// Documents spliced from random fixture lines, cut at random bytes: no crash, and no line gets
// two skipped/rejected notes (run under RCF_SANITIZE=ON to check memory safety).
TEST(DynamoTextImporter, RandomSplicesOfFixtures) {
  const char* names[] = {"recompiles_verbose_pytorch_issue128071_type_id_const.txt",
                         "recompiles_pytorch_issue114293_constant_int_2023fmt.txt",
                         "cache_size_limit_torchdynamo_issue1673_stride_2022fmt.txt",
                         "graph_breaks_torchdynamo_issue930_2022fmt.txt",
                         "graph_breaks_pytorch_scatter_issue457_item.txt",
                         "recompile_limit_dion_issue23_shape_param.txt",
                         "compile_profiler_pytorch_issue110803_nn_module_guard.txt",
                         "explain_pytensor_issue1110_data_dependent.txt",
                         "compilation_metrics_repr_pytorch_pr126629.txt",
                         "compile_times_pytorch_pr97890_tabulate_2023.txt"};
  std::vector<std::string> lines;
  for (const char* name : names) {
    std::string text = fixture(name);
    for (size_t pos = 0; pos < text.size();) {
      size_t nl = text.find('\n', pos);
      if (nl == std::string::npos) nl = text.size();
      lines.push_back(text.substr(pos, nl - pos));
      pos = nl + 1;
    }
  }
  uint64_t state = 42;
  auto next = [&state] {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return uint32_t(state >> 33);
  };
  for (int round = 0; round < 300; ++round) {
    std::string text;
    int count = 1 + next() % 40;
    for (int i = 0; i < count; ++i) {
      std::string line = lines[next() % lines.size()];
      if (next() % 4 == 0) line = line.substr(next() % (line.size() + 1));
      if (next() % 4 == 0) line = line.substr(0, next() % (line.size() + 1));
      text += line + "\n";
    }
    CollectingSink sink = run(text);
    parsed_lines(sink, line_count(text));
  }
}

// ---------------------------------------------------------------------------------------------
// Sniffing.

TEST(DynamoTextImporter, SniffsEveryFixture) {
  const ImporterInfo* info = find_importer("dynamo_text");
  ASSERT_NE(info, nullptr);
  for (const char* name : {"recompiles_pytorch_issue128134_dtype.txt",
                           "recompiles_pytorch_issue100455_2023_tuple_fmt_string_const.txt",
                           "cache_size_limit_torchdynamo_issue1673_stride_2022fmt.txt",
                           "graph_breaks_torchdynamo_issue930_2022fmt.txt",
                           "compile_profiler_pytorch_issue110803_nn_module_guard.txt",
                           "compile_times_pytorch_pr97890_tabulate_2023.txt",
                           "explain_pytensor_issue1110_data_dependent.txt",
                           "compilation_metrics_repr_pytorch_pr126629.txt",
                           "recompiles_pytorch_pr164992_empty_reason_dispatchkey.txt"}) {
    EXPECT_EQ(info->sniff(fixture(name)), 80) << name;
  }
  // Only a glog line with a torch/_dynamo path: a modest score.
  EXPECT_EQ(info->sniff(fixture("graph_breaks_primerl_pr999_backend_item_attempt.txt")), 30);
  EXPECT_EQ(info->sniff("hello world\nEpoch 1\n"), 0);
  // TORCH_TRACE structured logs belong to the torch_trace importer.
  EXPECT_EQ(info->sniff("V0401 12:00:00.000000 1234 torch/_logging/structured.py:22] "
                        "{\"dynamo_start\": {\"stack\": []}, \"frame_id\": 0}\n"
                        "V0401 12:00:00.100000 1234 torch/_dynamo/guards.py:22] "
                        "{\"dynamo_guards\": {}, \"frame_id\": 0}\n"),
            0);
}

}  // namespace dynamo_text_importer_test
}  // namespace rcf::ingest
