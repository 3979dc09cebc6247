// XLA_SAVE_TENSORS_FILE importer: exact SavedGraph events and line fates for the save_tensors
// and grab_graphs fixtures (values read off the files by hand), plus synthetic blocks of every
// format, dynamo re-appends, cut-off blocks, CRLF and junk.
#include "ingest/xla/xla_saved_graph_importer.h"

#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>
#include <vector>

#include "tests/support/importer_test.h"

namespace rcf::ingest {
namespace xla_saved_graph_importer_test {

using namespace rcf::testing;  // tests/support/importer_test.h

CollectingSink run(std::string_view text) {
  return rcf::testing::run_importer("xla_saved_graph", text);
}

std::string fixture(const std::string& name) {
  return rcf::testing::read_fixture("xla/" + name);
}

Lines concat(std::initializer_list<Lines> parts) {
  Lines out;
  for (const auto& p : parts) out.insert(out.end(), p.begin(), p.end());
  return out;
}

void expect_frame(const StackFrame& f, const std::string& function, const std::string& file,
                  int64_t line) {
  EXPECT_EQ(f.function, function);
  EXPECT_EQ(f.file, file);
  EXPECT_EQ(f.line, line);
}

Strings functions(const SavedGraph& g) {
  Strings out;
  for (const auto& f : g.frames) out.push_back(f.function);
  return out;
}

// --- fixtures --------------------------------------------------------------------------------

TEST(XlaSavedGraphImporter, OldHeaderIssue4189) {
  std::string text = fixture("save_tensors_issue4189.txt");
  CollectingSink sink = run(text);
  auto graphs = sink.all<SavedGraph>();
  ASSERT_EQ(graphs.size(), 2u);

  const SavedGraph& a = graphs[0];
  EXPECT_EQ(a.line, 1);
  EXPECT_EQ(a.format, "text");
  EXPECT_EQ(a.header_kind, "old");
  EXPECT_EQ(a.graph_hash, "");
  EXPECT_EQ(a.root_hashes,
            (Strings{"93624e0734594a74907abf208373774b", "c5803cddd1284946c30ae30915e9346a"}));
  EXPECT_EQ(a.graph_name, "");
  EXPECT_FALSE(a.dynamo);
  ASSERT_EQ(a.frames.size(), 5u);
  expect_frame(a.frames[0], "mark_step", "/pytorch/xla/torch_xla/core/xla_model.py", 955);
  expect_frame(a.frames[1], "next", "/pytorch/xla/torch_xla/distributed/parallel_loader.py", 46);
  expect_frame(a.frames[2], "__next__", "/pytorch/xla/torch_xla/distributed/parallel_loader.py",
               34);
  expect_frame(a.frames[3], "fn", "/test/test_inplace.py", 63);
  expect_frame(a.frames[4], "<module>", "/test/test_inplace.py", 75);
  EXPECT_EQ(a.ir_node_count, 7);
  EXPECT_FALSE(a.truncated);

  // The second block is cut inside its frame list.
  const SavedGraph& b = graphs[1];
  EXPECT_EQ(b.line, 25);
  EXPECT_EQ(b.format, "");
  EXPECT_EQ(b.header_kind, "");
  EXPECT_TRUE(b.root_hashes.empty());
  EXPECT_EQ(functions(b), (Strings{"mark_step", "next", "__next__"}));
  EXPECT_EQ(b.ir_node_count, 0);
  EXPECT_TRUE(b.truncated);

  EXPECT_EQ(sink.note_counts(), (Notes{{"skipped:blank", 5}, {"warning:truncated_block", 1}}));
  EXPECT_EQ(parsed_lines(sink, line_count(text)),
            concat({range(1, 7), {9, 11}, range(12, 20), {22}, range(25, 29)}));
  EXPECT_TRUE(sink.all<HloModule>().empty());
}

TEST(XlaSavedGraphImporter, NewHeaderPr5971) {
  std::string text = fixture("save_tensors_pr5971.txt");
  CollectingSink sink = run(text);
  auto graphs = sink.all<SavedGraph>();
  ASSERT_EQ(graphs.size(), 1u);
  const SavedGraph& g = graphs[0];
  EXPECT_EQ(g.line, 1);
  EXPECT_EQ(g.format, "text");
  EXPECT_EQ(g.header_kind, "new");
  EXPECT_EQ(g.graph_hash, "");  // cut inside the IR, before `Graph Hash:`
  EXPECT_EQ(g.root_hashes, (Strings{"1436329e82afaefef67b56ba9c737f05"}));
  EXPECT_FALSE(g.dynamo);
  ASSERT_EQ(g.frames.size(), 12u);
  expect_frame(g.frames[0], "test_2d_tensor_3d_mesh", "test_xla_sharding.py", 736);
  expect_frame(g.frames[1], "_callTestMethod", "/usr/local/lib/python3.8/unittest/case.py", 633);
  expect_frame(g.frames[10], "__init__", "/usr/local/lib/python3.8/unittest/main.py", 101);
  expect_frame(g.frames[11], "<module>", "test_xla_sharding.py", 1052);
  EXPECT_EQ(g.ir_node_count, 3);
  EXPECT_TRUE(g.truncated);

  EXPECT_EQ(sink.note_counts(), (Notes{{"skipped:blank", 2}, {"warning:truncated_block", 1}}));
  EXPECT_EQ(sink.notes.back().line, 1);  // the warning names the block's first line
  EXPECT_EQ(parsed_lines(sink, line_count(text)), concat({range(1, 14), {16}, range(18, 22)}));
}

TEST(XlaSavedGraphImporter, GrabGraphsSummaryIssue1368) {
  std::string text = fixture("grab_graphs_issue1368.txt");
  CollectingSink sink = run(text);
  auto groups = sink.all<GrabGraphsFrame>();
  ASSERT_EQ(groups.size(), 3u);
  EXPECT_EQ(groups[0].line, 3);
  EXPECT_EQ(groups[0].graphs, 144);
  EXPECT_EQ(groups[0].unique, 135);
  ASSERT_EQ(groups[0].frames.size(), 1u);
  expect_frame(groups[0].frames[0], "forward", "/content/ae-wavenet/wave_encoder.py", 43);
  EXPECT_FALSE(groups[0].frames_cut);
  EXPECT_EQ(groups[1].line, 5);
  EXPECT_EQ(groups[1].graphs, 16);
  EXPECT_EQ(groups[1].unique, 16);
  ASSERT_EQ(groups[1].frames.size(), 1u);
  expect_frame(groups[1].frames[0], "mark_step",
               "/usr/local/lib/python3.6/dist-packages/torch_xla/core/xla_model.py", 372);
  EXPECT_EQ(groups[2].line, 7);
  EXPECT_EQ(groups[2].graphs, 15);
  EXPECT_EQ(groups[2].unique, 1);
  expect_frame(groups[2].frames.at(0), "print_metrics", "/content/ae-wavenet/netmisc.py", 35);
  // `Parsed` and `frame group(s)` are counted; the groups are read.
  EXPECT_EQ(sink.note_counts(), (Notes{{"skipped:grab_graphs_summary", 2}}));
  EXPECT_EQ(parsed_lines(sink, line_count(text)), (Lines{3, 4, 5, 6, 7, 8}));
}

// One group as (line, N, M, functions, cut) for the variants below.
Strings grab_groups(const CollectingSink& sink) {
  Strings out;
  for (const auto& g : sink.all<GrabGraphsFrame>()) {
    std::string fns;
    for (const auto& f : g.frames)
      fns += f.function + "@" + f.file + ":" + std::to_string(f.line) + " ";
    out.push_back(std::to_string(g.line) + " " + std::to_string(g.graphs) + "/" +
                  std::to_string(g.unique) + " " + fns + (g.frames_cut ? "cut" : ""));
  }
  return out;
}

TEST(XlaSavedGraphImporter, GrabGraphsGroupVariants) {
  // Other counts, `graphs` and `graph`, a whole stack, the script's diff lines after it.
  const std::string text =
      "Parsed 12 graph(s)\n"                                                             // 1
      "2 frame group(s)\n"                                                               // 2
      "Frame has 9 graphs (4 unique):\n"                                                 // 3
      "  step_fn (/srv/job/trainer.py:210)\n"                                            // 4
      "  main (/srv/job/trainer.py:388)\n"                                               // 5
      "\n"                                                                               // 6
      "  Frame 2 (len=40, count=3, id=7, h=(ab)) vs 3 (len=41, count=1, id=8 h=(cd))\n"  // 7
      "  --- frame-2\n"                                                                  // 8
      "Frame has 3 graph (1 unique):\n"                                                  // 9
      "\tevaluate (eval.py:7)\n";                                                        // 10
  CollectingSink sink = run(text);
  EXPECT_EQ(grab_groups(sink),
            (Strings{"3 9/4 step_fn@/srv/job/trainer.py:210 main@/srv/job/trainer.py:388 ",
                     "9 3/1 evaluate@eval.py:7 "}));
  EXPECT_EQ(sink.note_counts(), (Notes{{"skipped:grab_graphs_summary", 2},
                                       {"skipped:blank", 1},
                                       {"skipped:other_output", 2}}));
}

TEST(XlaSavedGraphImporter, GrabGraphsJoinedAndWrappedLines) {
  // A paste that joined the frame onto the header; a header wrapped before `(M unique):`; a
  // frame line wrapped inside its path.
  const std::string text =
      "Frame has 144 graph(s) (135 unique): forward (/content/ae-wavenet/wave_encoder.py:43)\n"
      "Frame has 20 graph(s)\n"
      "(6 unique):\n"
      "  decode (/content/ae-wavenet/wave_\n"
      "decoder.py:91)\n";
  CollectingSink sink = run(text);
  EXPECT_EQ(grab_groups(sink), (Strings{"1 144/135 forward@/content/ae-wavenet/wave_encoder.py:43 ",
                                        "2 20/6 decode@/content/ae-wavenet/wave_decoder.py:91 "}));
  EXPECT_TRUE(sink.note_counts().empty());
}

TEST(XlaSavedGraphImporter, GrabGraphsFramesWithoutIndentation) {
  // A paste that lost the frames' indentation: the group still ends at its blank line.
  CollectingSink sink =
      run("Frame has 5 graph(s) (2 unique):\nstep (/job/t.py:12)\nmain (/job/t.py:40)\n\n"
          "Frame has 1 graph(s) (1 unique):\nlog (/job/log.py:3)\n");
  EXPECT_EQ(grab_groups(sink),
            (Strings{"1 5/2 step@/job/t.py:12 main@/job/t.py:40 ", "5 1/1 log@/job/log.py:3 "}));
}

TEST(XlaSavedGraphImporter, GrabGraphsCutOff) {
  // The input ends after a header: the count is kept, the frame is not known.
  CollectingSink cut =
      run("Parsed 30 graph(s)\n1 frame group(s)\nFrame has 30 graph(s) (5 unique):\n");
  EXPECT_EQ(grab_groups(cut), (Strings{"3 30/5 cut"}));
  // Cut before `(M unique):`: no count of programs, so no group.
  CollectingSink no_unique = run("Frame has 30 graph(s)\n");
  EXPECT_TRUE(no_unique.all<GrabGraphsFrame>().empty());
  EXPECT_EQ(no_unique.note_counts(), (Notes{{"skipped:grab_graphs_summary", 1}}));
  // M above N is no output of the script.
  CollectingSink impossible = run("Frame has 3 graph(s) (5 unique):\n  f (a.py:1)\n");
  EXPECT_TRUE(impossible.all<GrabGraphsFrame>().empty());
}

// --- synthetic blocks ------------------------------------------------------------------------

constexpr char kNewTextBlock[] =
    "[ScheduleSyncTensorsGraph]\n"                                                        // 1
    "Graph Name: my_step\n"                                                               // 2
    "TensorsGraphInfo:\n"                                                                 // 3
    "  sync (/usr/lib/python3.10/site-packages/torch_xla/torch_xla.py:86)\n"              // 4
    "  train_loop (C:\\work\\train.py:12)\n"                                              // 5
    "  forward (<eval_with_key>.7:5)\n"                                                   // 6
    "\n"                                                                                  // 7
    "Root Hashes: (28154e545cda11bab37107b9f995e0f, ABCDEF0123456789abcdef0123456789)\n"  // 8
    "\n"                                                                                  // 9
    "## BEGIN_GRAPH\n"                                                                    // 10
    "IR {\n"                                                                              // 11
    "  %0 = f32[] prim::Constant(), xla_shape=f32[]\n"                                    // 12
    "  %1 = f32[4]{0} xla::device_data(), xla_shape=f32[4]{0}\n"                          // 13
    "  %2 = f32[4]{0} aten::add(%1, %0), xla_shape=f32[4]{0}, ROOT=0\n"                   // 14
    "}\n"                                                                                 // 15
    "\n"                                                                                  // 16
    "Graph Hash: 5a3e1f0b2c4d6e8f0123456789abcdef\n"                                      // 17
    "\n"                                                                                  // 18
    "## END_GRAPH\n"                                                                      // 19
    "\n"                                                                                  // 20
    "\n";                                                                                 // 21

TEST(XlaSavedGraphImporter, NewHeaderTextBlock) {
  CollectingSink sink = run(kNewTextBlock);
  auto graphs = sink.all<SavedGraph>();
  ASSERT_EQ(graphs.size(), 1u);
  const SavedGraph& g = graphs[0];
  EXPECT_EQ(g.line, 1);
  EXPECT_EQ(g.format, "text");
  EXPECT_EQ(g.header_kind, "new");
  EXPECT_EQ(g.graph_name, "my_step");
  EXPECT_EQ(g.graph_hash, "5a3e1f0b2c4d6e8f0123456789abcdef");
  // Hex is kept unpadded (17-32 digits) and lowercased.
  EXPECT_EQ(g.root_hashes,
            (Strings{"28154e545cda11bab37107b9f995e0f", "abcdef0123456789abcdef0123456789"}));
  ASSERT_EQ(g.frames.size(), 3u);
  expect_frame(g.frames[0], "sync", "/usr/lib/python3.10/site-packages/torch_xla/torch_xla.py", 86);
  expect_frame(g.frames[1], "train_loop", "C:\\work\\train.py", 12);
  expect_frame(g.frames[2], "forward", "<eval_with_key>.7", 5);
  EXPECT_EQ(g.ir_node_count, 3);
  EXPECT_FALSE(g.truncated);
  EXPECT_FALSE(g.dynamo);
  EXPECT_EQ(sink.note_counts(), (Notes{{"skipped:blank", 6}}));
  EXPECT_EQ(parsed_lines(sink, 21), concat({range(1, 6), {8}, range(10, 15), {17, 19}}));
}

TEST(XlaSavedGraphImporter, HloBlockCarriesGraphHash) {
  const std::string text =
      "[ScheduleSyncTensorsGraph]\n"                                                // 1
      "TensorsGraphInfo:\n"                                                         // 2
      "  mark_step (/site/torch_xla/core/xla_model.py:1056)\n"                      // 3
      "\n"                                                                          // 4
      "Root Hashes: (1436329e82afaefef67b56ba9c737f05)\n"                           // 5
      "\n"                                                                          // 6
      "## BEGIN_GRAPH\n"                                                            // 7
      "HloModule IrToHlo.4, entry_computation_layout={(f32[2]{0})->(f32[2]{0})}\n"  // 8
      "\n"                                                                          // 9
      "ENTRY %IrToHlo.4 (p0.1: f32[2]) -> (f32[2]) {\n"                             // 10
      "  %p0.1 = f32[2]{0} parameter(0)\n"                                          // 11
      "  %add.2 = f32[2]{0} add(f32[2]{0} %p0.1, f32[2]{0} %p0.1)\n"                // 12
      "  ROOT %tuple.3 = (f32[2]{0}) tuple(f32[2]{0} %add.2)\n"                     // 13
      "}\n"                                                                         // 14
      "\n"                                                                          // 15
      "\n"                                                                          // 16
      "#OUTPUT_SHARDING_BEGIN\n"                                                    // 17
      "\n"                                                                          // 18
      "f32[2] {replicated}\n"                                                       // 19
      "\n"                                                                          // 20
      "#OUTPUT_SHARDING_END\n"                                                      // 21
      "\n"                                                                          // 22
      "Graph Hash: 9f86d081884c7d659a2feaa0c55ad015\n"                              // 23
      "\n"                                                                          // 24
      "## END_GRAPH\n";                                                             // 25
  CollectingSink sink = run(text);
  auto graphs = sink.all<SavedGraph>();
  ASSERT_EQ(graphs.size(), 1u);
  EXPECT_EQ(graphs[0].format, "hlo");
  EXPECT_EQ(graphs[0].header_kind, "new");
  EXPECT_EQ(graphs[0].graph_hash, "9f86d081884c7d659a2feaa0c55ad015");
  EXPECT_EQ(graphs[0].ir_node_count, 0);
  EXPECT_FALSE(graphs[0].truncated);
  auto modules = sink.all<HloModule>();
  ASSERT_EQ(modules.size(), 1u);
  EXPECT_EQ(modules[0].line, 8);
  EXPECT_EQ(modules[0].module_name, "IrToHlo.4");
  EXPECT_EQ(modules[0].graph_hash, "9f86d081884c7d659a2feaa0c55ad015");
  EXPECT_FALSE(modules[0].truncated);
  EXPECT_EQ(modules[0].instruction_count, 3);
  EXPECT_EQ(sink.note_counts(), (Notes{{"skipped:blank", 9}}));
  EXPECT_EQ(parsed_lines(sink, 25),
            concat({range(1, 3), {5, 7, 8}, range(10, 14), {17, 19, 21, 23, 25}}));
}

TEST(XlaSavedGraphImporter, DotBlock) {
  const std::string text =
      "[ScheduleSyncTensorsGraph]\n"                       // 1
      "TensorsGraphInfo:\n"                                // 2
      "  <module> (t.py:3)\n"                              // 3
      "\n"                                                 // 4
      "Hashes: (93624e0734594a74907abf208373774b)\n"       // 5
      "\n"                                                 // 6
      "## BEGIN_GRAPH\n"                                   // 7
      "digraph G {\n"                                      // 8
      "  node0 [label=\"xla::device_data\\nf32[4]\"]\n"    // 9
      "  node1 [label=\"aten::add\\nf32[4]\\nROOT=0\"]\n"  // 10
      "  node0 -> node1 [label=\"i=0\"]\n"                 // 11
      "}\n"                                                // 12
      "\n"                                                 // 13
      "## END_GRAPH\n";                                    // 14
  CollectingSink sink = run(text);
  auto graphs = sink.all<SavedGraph>();
  ASSERT_EQ(graphs.size(), 1u);
  EXPECT_EQ(graphs[0].format, "dot");
  EXPECT_EQ(graphs[0].header_kind, "old");
  EXPECT_EQ(graphs[0].ir_node_count, 0);
  EXPECT_FALSE(graphs[0].truncated);
  EXPECT_EQ(functions(graphs[0]), (Strings{"<module>"}));
  EXPECT_EQ(sink.note_counts(), (Notes{{"skipped:blank", 3}}));
  EXPECT_EQ(parsed_lines(sink, 14), concat({range(1, 3), {5}, range(7, 12), {14}}));
}

TEST(XlaSavedGraphImporter, StableHloBlock) {
  const std::string text =
      "[ScheduleSyncTensorsGraph]\n"                                           // 1
      "TensorsGraphInfo:\n"                                                    // 2
      "  f (a.py:1)\n"                                                         // 3
      "\n"                                                                     // 4
      "Root Hashes: (aa)\n"                                                    // 5
      "\n"                                                                     // 6
      "## BEGIN_GRAPH\n"                                                       // 7
      "module @IrToHlo.5 attributes {mhlo.cross_program_prefetches = []} {\n"  // 8
      "  func.func @main(%arg0: tensor<2xf32>) -> tuple<tensor<2xf32>> {\n"    // 9
      "    return %0 : tuple<tensor<2xf32>>\n"                                 // 10
      "  }\n"                                                                  // 11
      "}\n"                                                                    // 12
      "#loc = loc(unknown)\n"                                                  // 13
      "\n"                                                                     // 14
      "Graph Hash: bb\n"                                                       // 15
      "\n"                                                                     // 16
      "## END_GRAPH\n";                                                        // 17
  CollectingSink sink = run(text);
  auto graphs = sink.all<SavedGraph>();
  ASSERT_EQ(graphs.size(), 1u);
  EXPECT_EQ(graphs[0].format, "stablehlo");
  EXPECT_EQ(graphs[0].graph_hash, "bb");
  EXPECT_FALSE(graphs[0].truncated);
  EXPECT_EQ(sink.note_counts(), (Notes{{"skipped:blank", 4}}));
}

TEST(XlaSavedGraphImporter, DynamoBlocks) {
  const std::string text =
      "[dynamo]\n"                                                               // 1
      "TensorsGraphInfo:\n"                                                      // 2
      "  extract_graph_helper (/site/torch_xla/_dynamo/dynamo_bridge.py:300)\n"  // 3
      "\n"                                                                       // 4
      "Root Hashes: (c0ffee)\n"                                                  // 5
      "\n"                                                                       // 6
      "## BEGIN_GRAPH\n"                                                         // 7
      "IR {\n"                                                                   // 8
      "  %0 = f32[4]{0} xla::device_data(), xla_shape=f32[4]{0}, ROOT=0\n"       // 9
      "}\n"                                                                      // 10
      "\n"                                                                       // 11
      "Graph Hash: 1234567890abcdef1234567890abcdef\n"                           // 12
      "\n"                                                                       // 13
      "## END_GRAPH\n"                                                           // 14
      "\n"                                                                       // 15
      "[dynamo]\n"                                                               // 16
      "[ScheduleSyncTensorsGraph]\n"                                             // 17
      "TensorsGraphInfo:\n"                                                      // 18
      "  extract_graph_helper (/site/torch_xla/_dynamo/dynamo_bridge.py:300)\n"  // 19
      "\n"                                                                       // 20
      "Root Hashes: (c0ffee)\n"                                                  // 21
      "\n"                                                                       // 22
      "## BEGIN_GRAPH\n"                                                         // 23
      "IR {\n"                                                                   // 24
      "  %0 = f32[4]{0} xla::device_data(), xla_shape=f32[4]{0}, ROOT=0\n"       // 25
      "}\n"                                                                      // 26
      "\n"                                                                       // 27
      "Graph Hash: 1234567890abcdef1234567890abcdef\n"                           // 28
      "\n"                                                                       // 29
      "## END_GRAPH\n";                                                          // 30
  CollectingSink sink = run(text);
  auto graphs = sink.all<SavedGraph>();
  ASSERT_EQ(graphs.size(), 2u);
  for (const SavedGraph& g : graphs) {
    EXPECT_TRUE(g.dynamo);
    EXPECT_EQ(g.graph_hash, "1234567890abcdef1234567890abcdef");
    EXPECT_EQ(g.root_hashes, (Strings{"c0ffee"}));
    EXPECT_EQ(functions(g), (Strings{"extract_graph_helper"}));
    EXPECT_EQ(g.ir_node_count, 1);
    EXPECT_FALSE(g.truncated);
  }
  EXPECT_EQ(graphs[0].line, 1);
  EXPECT_EQ(graphs[1].line, 16);
  EXPECT_EQ(sink.note_counts(), (Notes{{"skipped:blank", 9}}));
}

TEST(XlaSavedGraphImporter, BlockCutAtEofAndByNextBlock) {
  const std::string text =
      "[ScheduleSyncTensorsGraph]\n"                          // 1
      "TensorsGraphInfo:\n"                                   // 2
      "  f (a.py:1)\n"                                        // 3
      "\n"                                                    // 4
      "Root Hashes: (aa)\n"                                   // 5
      "\n"                                                    // 6
      "## BEGIN_GRAPH\n"                                      // 7
      "IR {\n"                                                // 8
      "  %0 = f32[] prim::Constant(), xla_shape=f32[]\n"      // 9
      "[ScheduleSyncTensorsGraph]\n"                          // 10 (crash: trailer lost)
      "TensorsGraphInfo:\n"                                   // 11
      "  g (b.py:2)\n"                                        // 12
      "\n"                                                    // 13
      "Root Hashes: (bb, cc)\n"                               // 14
      "\n"                                                    // 15
      "## BEGIN_GRAPH\n"                                      // 16
      "IR {\n"                                                // 17
      "  %0 = f32[] prim::Constant(), xla_shape=f32[]\n"      // 18
      "  %1 = f32[] aten::neg(%0), xla_shape=f32[], ROOT=0";  // 19, no final newline
  CollectingSink sink = run(text);
  auto graphs = sink.all<SavedGraph>();
  ASSERT_EQ(graphs.size(), 2u);
  EXPECT_EQ(graphs[0].line, 1);
  EXPECT_TRUE(graphs[0].truncated);
  EXPECT_EQ(graphs[0].ir_node_count, 1);
  EXPECT_EQ(graphs[0].header_kind, "new");
  EXPECT_EQ(graphs[1].line, 10);
  EXPECT_TRUE(graphs[1].truncated);
  EXPECT_EQ(graphs[1].ir_node_count, 2);
  EXPECT_EQ(graphs[1].root_hashes, (Strings{"bb", "cc"}));
  EXPECT_EQ(sink.note_counts(), (Notes{{"skipped:blank", 4}, {"warning:truncated_block", 2}}));
}

TEST(XlaSavedGraphImporter, HeadlessBlockAndTrailingOutput) {
  // A paste that starts at the hashes line; a user print after the IR means the trailer is lost.
  const std::string text =
      "Root Hashes: (aa)\n"                               // 1
      "\n"                                                // 2
      "## BEGIN_GRAPH\n"                                  // 3
      "IR {\n"                                            // 4
      "  %0 = f32[] prim::Constant(), xla_shape=f32[]\n"  // 5
      "}\n"                                               // 6
      "Epoch 0: 100%\n"                                   // 7
      "## END_GRAPH\n"                                    // 8
      "Graph Hash: aa\n";                                 // 9
  CollectingSink sink = run(text);
  auto graphs = sink.all<SavedGraph>();
  ASSERT_EQ(graphs.size(), 1u);
  EXPECT_EQ(graphs[0].line, 1);
  EXPECT_TRUE(graphs[0].truncated);
  EXPECT_EQ(graphs[0].ir_node_count, 1);
  EXPECT_TRUE(graphs[0].frames.empty());
  EXPECT_EQ(sink.note_counts(), (Notes{{"skipped:blank", 1},
                                       {"skipped:other_output", 1},
                                       {"rejected:graph_trailer_without_block", 2},
                                       {"warning:truncated_block", 1}}));
}

TEST(XlaSavedGraphImporter, CrlfMatchesLf) {
  std::string crlf;
  for (char c : std::string(kNewTextBlock)) {
    if (c == '\n') crlf += '\r';
    crlf += c;
  }
  CollectingSink lf_sink = run(kNewTextBlock);
  CollectingSink crlf_sink = run(crlf);
  auto a = lf_sink.all<SavedGraph>();
  auto b = crlf_sink.all<SavedGraph>();
  ASSERT_EQ(a.size(), 1u);
  ASSERT_EQ(b.size(), 1u);
  EXPECT_EQ(b[0].graph_hash, a[0].graph_hash);
  EXPECT_EQ(b[0].root_hashes, a[0].root_hashes);
  EXPECT_EQ(b[0].graph_name, a[0].graph_name);
  EXPECT_EQ(functions(b[0]), functions(a[0]));
  EXPECT_EQ(b[0].frames[2].file, "<eval_with_key>.7");
  EXPECT_EQ(b[0].ir_node_count, 3);
  EXPECT_FALSE(b[0].truncated);
  EXPECT_EQ(crlf_sink.note_counts(), lf_sink.note_counts());
}

TEST(XlaSavedGraphImporter, MalformedLinesAreRejectedOnce) {
  const std::string text =
      "hello from the training script\n"                  // 1 other_output
      "[ScheduleSyncTensorsGraph]\n"                      // 2
      "TensorsGraphInfo:\n"                               // 3
      "  f (a.py:1)\n"                                    // 4
      "  not a frame\n"                                   // 5 bad_frame
      "  g (b.py:notanumber)\n"                           // 6 bad_frame
      "\n"                                                // 7
      "Root Hashes: (xyz, 12)\n"                          // 8 bad_hashes
      "\n"                                                // 9
      "## BEGIN_GRAPH\n"                                  // 10
      "IR {\n"                                            // 11
      "  %0 = f32[] prim::Constant(), xla_shape=f32[]\n"  // 12
      "  garbage here\n"                                  // 13 bad_ir_line
      "}\n"                                               // 14
      "\n"                                                // 15
      "Graph Hash: not-hex\n"                             // 16 bad_graph_hash
      "\n"                                                // 17
      "## END_GRAPH\n"                                    // 18
      "[ScheduleSyncTensorsGraph]\n"                      // 19
      "## BEGIN_GRAPH\n"                                  // 20
      "what is this\n"                                    // 21 unknown_graph_format
      "## END_GRAPH\n";                                   // 22
  CollectingSink sink = run(text);
  auto graphs = sink.all<SavedGraph>();
  ASSERT_EQ(graphs.size(), 2u);
  EXPECT_EQ(functions(graphs[0]), (Strings{"f"}));
  EXPECT_TRUE(graphs[0].root_hashes.empty());
  EXPECT_EQ(graphs[0].header_kind, "new");
  EXPECT_EQ(graphs[0].graph_hash, "");
  EXPECT_EQ(graphs[0].ir_node_count, 1);
  EXPECT_FALSE(graphs[0].truncated);
  EXPECT_EQ(graphs[1].format, "");
  EXPECT_FALSE(graphs[1].truncated);
  EXPECT_EQ(sink.note_counts(), (Notes{{"skipped:other_output", 1},
                                       {"skipped:blank", 4},
                                       {"rejected:bad_frame", 2},
                                       {"rejected:bad_hashes", 1},
                                       {"rejected:bad_ir_line", 1},
                                       {"rejected:bad_graph_hash", 1},
                                       {"rejected:unknown_graph_format", 1}}));
  parsed_lines(sink, 22);
}

TEST(XlaSavedGraphImporter, JunkNeverCrashes) {
  std::string junk;
  const char* pieces[] = {"[ScheduleSyncTensorsGraph]",
                          "[dynamo]",
                          "TensorsGraphInfo:",
                          "## BEGIN_GRAPH",
                          "## END_GRAPH",
                          "Graph Hash:",
                          "Root Hashes: (",
                          "Hashes: ()",
                          "  (",
                          "  f (:)",
                          "IR {",
                          "}",
                          "  %",
                          "HloModule",
                          "#OUTPUT_SHARDING_BEGIN",
                          "\t",
                          "Frame has 1 graph(s) (1 unique):",
                          "\xff\xfe",
                          "digraph",
                          "module",
                          ""};
  unsigned seed = 12345;
  int64_t lines = 0;
  for (int i = 0; i < 3000; ++i) {
    seed = seed * 1103515245 + 12345;
    junk += pieces[(seed >> 16) % (sizeof(pieces) / sizeof(pieces[0]))];
    if ((seed >> 8) % 3) {
      junk += '\n';
      ++lines;
    }
  }
  CollectingSink sink = run(junk);
  parsed_lines(sink, lines + 1);
  EXPECT_FALSE(sink.all<SavedGraph>().empty());
}

TEST(XlaSavedGraphImporter, Sniff) {
  const ImporterInfo info = xla_saved_graph_importer_info();
  EXPECT_EQ(info.name, "xla_saved_graph");
  EXPECT_EQ(info.sniff(fixture("save_tensors_issue4189.txt")), 95);
  EXPECT_EQ(info.sniff(fixture("save_tensors_pr5971.txt")), 95);
  EXPECT_EQ(info.sniff("junk\n## BEGIN_GRAPH\n"), 95);
  EXPECT_EQ(info.sniff("TensorsGraphInfo:\n"), 95);
  // The grab_graphs.py summary is recognised below the graph files themselves.
  EXPECT_EQ(info.sniff(fixture("grab_graphs_issue1368.txt")), 60);
  EXPECT_EQ(info.sniff(fixture("metrics_report_issue2757.txt")), 0);
  EXPECT_EQ(info.sniff(""), 0);
}

}  // namespace xla_saved_graph_importer_test
}  // namespace rcf::ingest
