// hlo_text importer: sniffing, line accounting and HloModule events for every fixtures/xla/hlo_*
// file (exact module contents are tested in hlo_text_parser_test.cc).
#include "ingest/xla/hlo_text_importer.h"

#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>

#include "tests/support/hlo_generator.h"
#include "tests/support/importer_test.h"

namespace rcf::ingest {
namespace hlo_text_importer_test {

using namespace rcf::testing;  // tests/support/importer_test.h

CollectingSink run(std::string_view text) {
  return rcf::testing::run_importer("hlo_text", text);
}

std::string fixture(const std::string& name) {
  return rcf::testing::read_fixture("xla/" + name);
}

int sniff(std::string_view head) {
  return find_importer("hlo_text")->sniff(head);
}

// Every line has at most one kSkipped/kRejected note and every note names a real line.
void expect_strict_accounting(const CollectingSink& sink, int64_t lines) {
  std::set<int64_t> noted;
  for (const auto& n : sink.notes) {
    EXPECT_GE(n.line, 1);
    EXPECT_LE(n.line, lines);
    if (n.fate == LineFate::kWarning) continue;
    EXPECT_TRUE(noted.insert(n.line).second) << "line " << n.line << " noted twice";
  }
}

TEST(HloTextImporter, Sniff) {
  EXPECT_EQ(sniff(fixture("hlo_before_opt_issue7053.txt")), 90);
  EXPECT_EQ(sniff(fixture("hlo_pr3920_hlo_debug.txt")), 90);
  EXPECT_EQ(sniff(fixture("hlo_jax_openxla_test.txt")), 90);  // indented header
  // No HloModule line: a fragment of instructions, recognised with less confidence.
  EXPECT_EQ(sniff(fixture("hlo_pr4205_no_python_frames.txt")), 50);
  EXPECT_EQ(sniff("  %a = f32[] parameter(0)\n  %b = f32[] negate(%a)\n"), 0);  // too few
  // Saved-graph IR is not HLO.
  EXPECT_EQ(sniff("  %0 = f32[] xla::device_data()\n  %1 = f32[] aten::mul(%0, %0)\n"
                  "  %2 = f32[] aten::add(%1, %0)\n"),
            0);
  EXPECT_EQ(sniff("some log\nHloModule jit_f\n"), 90);
  // Other files of a dump directory.
  EXPECT_EQ(sniff("BufferAssignment:\nallocation 0: size 4, parameter 0, shape |f32[]| at "
                  "ShapeIndex {}:\n value: <1 p0.1 @0> (size=4,offset=0): f32[]\n"),
            0);
  EXPECT_EQ(sniff("; ModuleID = 'SyncTensorsGraph.68'\nsource_filename = \"SyncTensorsGraph.68\"\n"
                  "target datalayout = \"e-i64:64-i128:128-v16:16-v32:32-n16:32:64\"\n"),
            0);
  EXPECT_EQ(sniff("gpu_device_info {\n  threads_per_block_limit: 1024\n}\nplatform_name: "
                  "\"CUDA\"\n"),
            0);
  EXPECT_EQ(sniff("--xla_dump_to=/tmp/dump\n--xla_dump_hlo_as_text\n"), 0);
  EXPECT_EQ(sniff("HloModuleFoo\n"), 0);
  EXPECT_EQ(sniff(""), 0);
}

TEST(HloTextImporter, ShortStyleFixture) {
  std::string text = fixture("hlo_before_opt_issue7053.txt");
  CollectingSink sink = run(text);
  expect_strict_accounting(sink, line_count(text));
  EXPECT_EQ(sink.note_counts(), (Notes{{"skipped:blank", 1}, {"warning:truncated_module", 1}}));
  auto modules = sink.all<HloModule>();
  ASSERT_EQ(modules.size(), 1u);
  EXPECT_EQ(modules[0].line, 1);
  EXPECT_EQ(modules[0].module_name, "SyncTensorsGraph.68");
  EXPECT_EQ(modules[0].parameters.size(), 11u);
  EXPECT_EQ(modules[0].instruction_count, 9);
  EXPECT_TRUE(modules[0].truncated);
  // The file name is unknown to the importer.
  EXPECT_FALSE(modules[0].module_id.has_value());
  EXPECT_EQ(modules[0].stage, "");
  EXPECT_EQ(modules[0].file_name, "");
  EXPECT_EQ(sink.notes.back().line, 1);
}

TEST(HloTextImporter, DumpFileNameFillsModuleIdAndStage) {
  std::string text = fixture("hlo_before_opt_issue7053.txt");
  CollectingSink sink;
  auto importer = find_importer("hlo_text")->create(sink);
  importer->set_source_name("/tmp/dump/module_0001.SyncTensorsGraph.68.before_optimizations.txt");
  int64_t line_no = 0;
  for (size_t pos = 0; pos < text.size();) {
    size_t nl = text.find('\n', pos);
    if (nl == std::string::npos) nl = text.size();
    importer->on_line(std::string_view(text).substr(pos, nl - pos), ++line_no);
    pos = nl + 1;
  }
  importer->finish();
  auto modules = sink.all<HloModule>();
  ASSERT_EQ(modules.size(), 1u);
  EXPECT_EQ(modules[0].module_id, 1);
  EXPECT_EQ(modules[0].stage, "before_optimizations");
  EXPECT_EQ(modules[0].file_name, "module_0001.SyncTensorsGraph.68.before_optimizations.txt");

  // A name that is no dump name leaves the fields empty.
  CollectingSink other;
  auto plain = find_importer("hlo_text")->create(other);
  plain->set_source_name("my_module.txt");
  plain->on_line("HloModule m", 1);
  plain->finish();
  ASSERT_EQ(other.all<HloModule>().size(), 1u);
  EXPECT_FALSE(other.all<HloModule>()[0].module_id.has_value());
  EXPECT_EQ(other.all<HloModule>()[0].file_name, "");
}

TEST(HloTextImporter, JaxFixture) {
  std::string text = fixture("hlo_jax_openxla_test.txt");
  CollectingSink sink = run(text);
  expect_strict_accounting(sink, line_count(text));
  EXPECT_EQ(sink.note_counts(), (Notes{{"skipped:blank", 1}}));
  auto modules = sink.all<HloModule>();
  ASSERT_EQ(modules.size(), 1u);
  EXPECT_EQ(modules[0].module_name, "jit_f");
  EXPECT_EQ(modules[0].instruction_count, 7);
  EXPECT_FALSE(modules[0].truncated);
}

TEST(HloTextImporter, LongStyleFixture) {
  std::string text = fixture("hlo_pr3920_hlo_debug.txt");
  CollectingSink sink = run(text);
  expect_strict_accounting(sink, line_count(text));
  EXPECT_EQ(sink.note_counts(), (Notes{{"skipped:blank", 1}, {"warning:truncated_module", 1}}));
  auto modules = sink.all<HloModule>();
  ASSERT_EQ(modules.size(), 1u);
  EXPECT_EQ(modules[0].constants.size(), 4u);
  EXPECT_EQ(modules[0].parameters.size(), 4u);
}

TEST(HloTextImporter, FragmentFixture) {
  // With --format hlo_text a fragment without its header is still read (as a truncated module).
  std::string text = fixture("hlo_pr4205_no_python_frames.txt");
  CollectingSink sink = run(text);
  expect_strict_accounting(sink, line_count(text));
  EXPECT_EQ(sink.note_counts(), (Notes{{"warning:truncated_module", 1}}));
  auto modules = sink.all<HloModule>();
  ASSERT_EQ(modules.size(), 1u);
  EXPECT_EQ(modules[0].instruction_count, 6);
}

TEST(HloTextImporter, OtherTextAndMalformedLines) {
  std::string text =
      "XLA dump of step 3\n"                                      // 1 not_hlo
      "\n"                                                        // 2 blank
      "HloModule a, entry_computation_layout={(f32[])->f32[]}\n"  // 3
      "ENTRY a.1 {\n"                                             // 4
      "  p = f32[] parameter(0)\n"                                // 5
      "  q = f32[ broken(p)\n"                                    // 6 bad_instruction
      "  ROOT n = f32[] negate(p)\n"                              // 7
      "}\n"                                                       // 8
      "trailing words\n"                                          // 9 unexpected_text
      "weird header (x) {\n"                                      // 10 bad header
      "HloModule b\n"                                             // 11
      "ENTRY b.1 {\n"                                             // 12
      "  p = f32[] parameter(0)\n";                               // 13 (cut)
  CollectingSink sink = run(text);
  expect_strict_accounting(sink, 13);
  EXPECT_EQ(sink.note_counts(), (Notes{{"skipped:blank", 1},
                                       {"skipped:not_hlo", 1},
                                       {"rejected:bad_instruction", 1},
                                       {"rejected:unexpected_text", 1},
                                       {"rejected:bad_computation_header", 1},
                                       {"warning:truncated_module", 1}}));
  auto modules = sink.all<HloModule>();
  ASSERT_EQ(modules.size(), 2u);
  EXPECT_EQ(modules[0].module_name, "a");
  EXPECT_FALSE(modules[0].truncated);
  EXPECT_EQ(modules[0].instruction_count, 2);
  EXPECT_EQ(modules[1].module_name, "b");
  EXPECT_EQ(modules[1].line, 11);
  EXPECT_TRUE(modules[1].truncated);
}

TEST(HloTextImporter, GeneratedModulesAreFullyParsed) {
  std::string text = rcf::testing::make_hlo_module_text(0, 200 * 1024, 7) +
                     rcf::testing::make_hlo_module_text(1, 100 * 1024, 7);
  CollectingSink sink = run(text);
  expect_strict_accounting(sink, line_count(text));
  for (const auto& n : sink.notes) EXPECT_EQ(n.reason, "blank") << n.line << ": " << n.excerpt;
  EXPECT_EQ(sink.all<HloModule>().size(), 2u);
}

TEST(HloTextImporter, NeverCrashesOnGarbage) {
  std::string text;
  uint64_t x = 88172645463325252ull;
  const std::string pieces[] = {
      "HloModule ", "ENTRY ",     "%",   "ROOT ", " = ", "f32[",       "]",  "{",
      "}",          "(",          ")",   ",",     "\"",  "/*",         "*/", "//",
      "constant(",  "parameter(", "a.1", "\n",    "  ",  "metadata={", "->", "s32[]"};
  for (int k = 0; k < 20000; ++k) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    text += pieces[x % (sizeof pieces / sizeof pieces[0])];
  }
  CollectingSink sink = run(text);
  expect_strict_accounting(sink, line_count(text));
}

}  // namespace hlo_text_importer_test
}  // namespace rcf::ingest
