// A recompile whose HLO differs only in op attributes (a Python int baked into the graph as a
// slice bound) is a `constant`, and the instructions behind it are named from the HLO text:
// the skeleton fingerprint of the parser, the attribute diff of analysis/op_attribute_diff.h, the
// instructions as the store keeps them, and the whole path from logs to the recompiles view, which
// needs no input file once ingested. Its
// counterpart, a module with one more op, is a `graph_structure` change.
#include "analysis/op_attribute_diff.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <string>
#include <tuple>
#include <vector>

#include "analysis/run_analysis.h"
#include "ingest/xla/hlo_text_parser.h"
#include "pipeline/ingest_pipeline.h"
#include "store/hlo_instruction_text.h"
#include "store/store.h"
#include "tests/support/collecting_sink.h"
#include "tests/support/db_dump.h"
#include "tests/support/ingested_store.h"
#include "tests/support/temp_files.h"

namespace rcf::analysis {
namespace op_attribute_diff_test {

using ingest::HloInstructionText;
using ingest::HloModule;

// A torch_xla module that slices the first `width` columns of its input and scales them.
std::string slicing_module(int width, const std::string& extra_op = "") {
  const std::string w = std::to_string(width);
  return "HloModule SyncTensorsGraph.12, entry_computation_layout={(f32[8,256]{1,0})->(f32[8," + w +
         "]{1,0})}\n"
         "\n"
         "ENTRY %SyncTensorsGraph.12 (p0.1: f32[8,256]) -> (f32[8," +
         w +
         "]) {\n"
         "  %p0.1 = f32[8,256]{1,0} parameter(0)\n"
         "  %slice.2 = f32[8," +
         w + "]{1,0} slice(f32[8,256]{1,0} %p0.1), slice={[0:8], [0:" + w +
         "]}, metadata={op_type=\"xla__select\" op_name=\"xla__select\" "
         "source_file=\"forward@model.py\" source_line=42}\n"
         "  %constant.3 = f32[] constant(2)\n"
         "  %broadcast.4 = f32[8," +
         w +
         "]{1,0} broadcast(f32[] %constant.3), dimensions={}\n"
         "  %multiply.5 = f32[8," +
         w + "]{1,0} multiply(f32[8," + w + "]{1,0} %slice.2, f32[8," + w +
         "]{1,0} %broadcast.4)\n" + extra_op + "  ROOT %tuple.6 = (f32[8," + w +
         "]{1,0}) tuple(f32[8," + w +
         "]{1,0} %multiply.5)\n"
         "}\n";
}

// Parses `text`, which holds one module.
HloModule parse(const std::string& text) {
  ingest::HloTextParser parser;
  int64_t line_no = 0;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t nl = text.find('\n', pos);
    parser.feed(std::string_view(text).substr(pos, nl - pos), ++line_no);
    pos = nl + 1;
  }
  parser.finish();
  auto modules = parser.take_modules();
  EXPECT_EQ(modules.size(), 1u);
  return modules.empty() ? HloModule() : std::move(modules[0]);
}

// The instructions the parser encoded for `m`, decoded (empty, with a failure, when they do not
// decode).
std::vector<HloInstructionText> instructions_of(const HloModule& m) {
  auto decoded = ingest::decode_hlo_instructions(m.instruction_text);
  EXPECT_TRUE(decoded.has_value()) << m.instruction_text;
  return decoded.value_or(std::vector<HloInstructionText>());
}

TEST(OpAttributeDiff, ASliceBoundChangesTheStructureButNotTheSkeleton) {
  HloModule a = parse(slicing_module(128));
  HloModule b = parse(slicing_module(136));
  EXPECT_NE(a.structure_fingerprint, b.structure_fingerprint);
  EXPECT_EQ(a.skeleton_fingerprint, b.skeleton_fingerprint);
  EXPECT_EQ(a.op_histogram, b.op_histogram);
  // Another op, or the same ops wired otherwise, is another skeleton.
  HloModule added = parse(
      slicing_module(128, "  %negate.7 = f32[8,128]{1,0} negate(f32[8,128]{1,0} %multiply.5)\n"));
  EXPECT_NE(a.skeleton_fingerprint, added.skeleton_fingerprint);
  std::string rewired = slicing_module(128);
  rewired.replace(rewired.find("%slice.2, f32[8,128]{1,0} %broadcast.4"),
                  std::string("%slice.2, f32[8,128]{1,0} %broadcast.4").size(),
                  "%broadcast.4, f32[8,128]{1,0} %slice.2");
  EXPECT_NE(a.skeleton_fingerprint, parse(rewired).skeleton_fingerprint);
}

TEST(OpAttributeDiff, TheSliceIsTheOriginAndItsUsersFollow) {
  const std::vector<HloInstructionText> before = instructions_of(parse(slicing_module(128)));
  const std::vector<HloInstructionText> after = instructions_of(parse(slicing_module(136)));
  ASSERT_EQ(before.size(), 6u);
  EXPECT_EQ(after[1].opcode, "slice");
  EXPECT_EQ(after[1].op_name, "xla__select");
  EXPECT_EQ(after[1].source_file, "forward@model.py");
  EXPECT_EQ(after[1].source_line, 42);
  EXPECT_EQ(after[4].operands.size(), 2u);

  auto changes = describe_op_attribute_changes(before, after);
  ASSERT_TRUE(changes.has_value());
  EXPECT_EQ(changes->subject, "slice attributes");
  // The broadcast of a scalar takes its shape from nothing HLO shows: it is counted as an origin
  // too; the multiply and the tuple follow from their operands.
  EXPECT_EQ(changes->detail,
            "same inputs and ops; 4 instructions differ in op attributes or shape, 2 at the "
            "origin: slice.2 (slice): slice={[0:8], [0:128]} -> {[0:8], [0:136]}, shape "
            "f32[8,128]{1,0} -> f32[8,136]{1,0} (xla__select; forward@model.py:42); broadcast.4 "
            "(broadcast): shape f32[8,128]{1,0} -> f32[8,136]{1,0}; the other 2 follow from "
            "their operands");

  EXPECT_FALSE(describe_op_attribute_changes(before, before).has_value());
  const std::vector<HloInstructionText> added = instructions_of(parse(
      slicing_module(136, "  %negate.7 = f32[8,136]{1,0} negate(f32[8,136]{1,0} %multiply.5)\n")));
  EXPECT_FALSE(describe_op_attribute_changes(before, added).has_value());
}

// The store keeps every instruction in a text form that decodes to what was parsed, including
// fields holding the separators themselves.
TEST(OpAttributeDiff, StoredInstructionsDecodeToWhatWasParsed) {
  const std::string text = parse(slicing_module(136)).instruction_text;
  std::vector<HloInstructionText> parsed = instructions_of(parse(slicing_module(136)));
  ASSERT_EQ(parsed.size(), 6u);
  // What the parser wrote as it read is what the records encode to.
  EXPECT_EQ(ingest::encode_hlo_instructions(parsed), text);
  parsed[1].attributes.push_back({"backend_config", "\"a\\tb\"", "\"a\tb\\n\r\"", false});
  auto decoded = ingest::decode_hlo_instructions(ingest::encode_hlo_instructions(parsed));
  ASSERT_TRUE(decoded.has_value());
  ASSERT_EQ(decoded->size(), parsed.size());
  for (size_t i = 0; i < parsed.size(); ++i) {
    const HloInstructionText& a = parsed[i];
    const HloInstructionText& b = (*decoded)[i];
    EXPECT_EQ(std::tie(a.ordinal, a.name, a.opcode, a.shape, a.shown_shape, a.operands, a.op_name,
                       a.source_file, a.source_line),
              std::tie(b.ordinal, b.name, b.opcode, b.shape, b.shown_shape, b.operands, b.op_name,
                       b.source_file, b.source_line));
    ASSERT_EQ(a.attributes.size(), b.attributes.size()) << a.name;
    for (size_t k = 0; k < a.attributes.size(); ++k)
      EXPECT_EQ(std::tie(a.attributes[k].key, a.attributes[k].canonical, a.attributes[k].shown,
                         a.attributes[k].calls),
                std::tie(b.attributes[k].key, b.attributes[k].canonical, b.attributes[k].shown,
                         b.attributes[k].calls));
  }
  EXPECT_EQ(decoded->at(1).attributes.at(0).shown, "{[0:8], [0:136]}");
  EXPECT_FALSE(ingest::decode_hlo_instructions("1\tx\n").has_value());
  EXPECT_FALSE(ingest::decode_hlo_instructions("0\tp\tparameter\tf32[]\t\t\t\t\t-1").has_value());
}

std::string compile_block(const std::string& hash) {
  std::string p = "Compilation Analysis: ";
  return p + "================================================================================\n" +
         p + "Compilation Cause\n" + p + "  user mark_step\n" + p + "Graph Info: \n" + p +
         "  Graph Hash: " + hash + "\n" + p + "  Number of Graph Inputs: 1\n" + p +
         "  Number of Graph Outputs: 1\n" + p + "Python Frame Triggered Execution: \n" + p +
         "  mark_step "
         "(/usr/local/lib/python3.10/dist-packages/torch_xla/core/xla_model.py:1061)\n" +
         p + "  train_loop (/work/train.py:88)\n" + p +
         "--------------------------------------------------------------------------------\n" + p +
         "================================================================================\n";
}

std::string saved_graph_of(const std::string& hash, const std::string& module_text) {
  return "[ScheduleSyncTensorsGraph]\nTensorsGraphInfo:\n  mark_step "
         "(/usr/local/lib/python3.10/dist-packages/torch_xla/core/xla_model.py:1061)\n  "
         "train_loop (/work/train.py:88)\n\nRoot Hashes: (7e1f2a3b4c5d6e7f8091a2b3c4d5e6f7)\n\n"
         "## BEGIN_GRAPH\n" +
         module_text + "\nGraph Hash: " + hash + "\n\n## END_GRAPH\n\n";
}

std::string saved_graph(const std::string& hash, int width, const std::string& extra_op = "") {
  return saved_graph_of(hash, slicing_module(width, extra_op));
}

TEST(OpAttributeDiff, IngestNamesTheSliceOfARecompileFromTheSavedGraphs) {
  testing::TempDir dir;
  const std::string a = "5f0c1b2e3d4a69788796a5b4c3d2e1f0", b = "9a8b7c6d5e4f30211203f4e5d6c7b8a9";
  testing::write_file(dir.file("pt_xla_debug.log"), "Epoch 0: step 1\n\n" + compile_block(a) +
                                                        "Epoch 0: step 2\n\n" + compile_block(b));
  testing::write_file(dir.file("save_tensors.hlo.0"), saved_graph(a, 128) + saved_graph(b, 136));
  auto summary = testing::ingest_logs(
      dir.file("rcf.db"), {dir.file("pt_xla_debug.log"), dir.file("save_tensors.hlo.0")}, "slice",
      "r1");
  EXPECT_EQ(summary.rejected, 0);
  auto db = testing::read_store(dir.file("rcf.db"));
  EXPECT_EQ(testing::query_csv(*db,
                               "SELECT ordinal, cause, confidence, prev_program_key FROM "
                               "recompiles ORDER BY ordinal"),
            "ordinal,cause,confidence,prev_program_key\n2,constant,high," + a + "\n");
  const std::string detail =
      testing::scalar(*db, "SELECT detail FROM recompiles WHERE ordinal = 2");
  EXPECT_EQ(detail.rfind("same inputs and ops; 4 instructions differ in op attributes or shape, "
                         "2 at the origin: slice.2 (slice): slice={[0:8], [0:128]} -> {[0:8], "
                         "[0:136]}",
                         0),
            0u)
      << detail;
  EXPECT_EQ(testing::scalar(*db, "SELECT subject FROM fix_first"), "slice attributes");
}

// The store holds everything the analysis reads: with the input files gone, analysing the run
// again gives the same causes and details, down to the slice bound that changed. The module is
// torch_xla's real one (fixtures/xla/hlo_before_opt_issue7053.txt); the second program takes
// channels 2:4 instead of 0:2 where the first sliced them, as a Python int would make it.
TEST(OpAttributeDiff, AnalysisNeedsNoInputFileAfterIngest) {
  testing::TempDir dir;
  const std::string a = "5f0c1b2e3d4a69788796a5b4c3d2e1f0", b = "9a8b7c6d5e4f30211203f4e5d6c7b8a9";
  const std::string real = testing::read_fixture("xla/hlo_before_opt_issue7053.txt");
  const std::string first_slice = "slice={[0:28], [0:2], [0:480], [0:640]}";
  std::string shifted = real;
  ASSERT_NE(shifted.find(first_slice), std::string::npos);
  shifted.replace(shifted.find(first_slice), first_slice.size(),
                  "slice={[0:28], [2:4], [0:480], [0:640]}");
  testing::write_file(dir.file("pt_xla_debug.log"), "Epoch 0: step 1\n\n" + compile_block(a) +
                                                        "Epoch 0: step 2\n\n" + compile_block(b));
  testing::write_file(dir.file("save_tensors.hlo.0"),
                      saved_graph_of(a, real) + saved_graph_of(b, shifted));
  const std::string db_path = dir.file("rcf.db");
  EXPECT_EQ(
      testing::ingest_logs(db_path, {dir.file("pt_xla_debug.log"), dir.file("save_tensors.hlo.0")})
          .rejected,
      0);
  const std::string query =
      "SELECT ordinal, cause, confidence, detail, evidence, (SELECT group_concat(subject) FROM "
      "fix_first) AS subjects FROM recompiles ORDER BY ordinal";
  std::string at_ingest;
  {
    auto db = testing::read_store(db_path);
    at_ingest = testing::query_csv(*db, query);
  }
  EXPECT_NE(at_ingest.find("2,constant,high,\"same inputs and ops; 1 instruction "
                           "differ in op attributes or shape, 1 at the origin: slice.19 (slice): "
                           "slice={[0:28], [0:2], [0:480], [0:640]} -> {[0:28], [2:4], [0:480], "
                           "[0:640]}"),
            std::string::npos)
      << at_ingest;

  std::filesystem::remove(dir.file("pt_xla_debug.log"));
  std::filesystem::remove(dir.file("save_tensors.hlo.0"));
  auto db = store::open_store(db_path, store::OpenMode::kCreateOrWrite);
  const std::vector<int64_t> runs = {std::stoll(testing::scalar(*db, "SELECT run_id FROM runs"))};
  db->exec("BEGIN");
  db->exec("DELETE FROM compile_event");  // nothing of the first analysis can leak through
  analysis::analyze_runs(*db, runs);
  db->exec("COMMIT");
  EXPECT_EQ(testing::query_csv(*db, query), at_ingest);
}

// The same site compiling a program with one more op (not a flip-flop between two programs): a
// structure change, and the fix-first row tells to make the traced ops the same every step, not
// the alternation's remedy of wrapping an accumulation chain.
TEST(OpAttributeDiff, AnExtraOpIsAStructureChangeWithItsOwnRemedy) {
  testing::TempDir dir;
  const std::string a = "5f0c1b2e3d4a69788796a5b4c3d2e1f0", b = "9a8b7c6d5e4f30211203f4e5d6c7b8a9";
  testing::write_file(dir.file("pt_xla_debug.log"), "Epoch 0: step 1\n\n" + compile_block(a) +
                                                        "Epoch 0: step 2\n\n" + compile_block(b));
  const std::string add =
      "  %add.7 = f32[8,128]{1,0} add(f32[8,128]{1,0} %multiply.5, f32[8,128]{1,0} "
      "%multiply.5)\n";
  testing::write_file(dir.file("save_tensors.hlo.0"),
                      saved_graph(a, 128) + saved_graph(b, 128, add));
  EXPECT_EQ(testing::ingest_logs(dir.file("rcf.db"),
                                 {dir.file("pt_xla_debug.log"), dir.file("save_tensors.hlo.0")})
                .rejected,
            0);
  auto db = testing::read_store(dir.file("rcf.db"));
  EXPECT_EQ(testing::query_csv(*db, "SELECT cause, detail, remedy FROM fix_first"),
            "cause,detail,remedy\ngraph_structure,\"same inputs, different ops: +1 add; "
            "PT_XLA_DEBUG_LEVEL=2 (Execution blocks) would show whether this site alternates "
            "between its programs\",\"make the traced ops the same at every step: a Python "
            "branch, flag or mode that changes them (train/eval, an optional layer, a "
            "data-dependent path) becomes a tensor op (torch.where) or a compiled function of its "
            "own; the op delta in the detail shows what changed\"\n");
}

}  // namespace op_attribute_diff_test
}  // namespace rcf::analysis
