// HloTextParser: exact parameters, constants and op counts for every fixtures/xla/hlo_* file
// (read off the files by hand), both printing styles, shapes, comments and fingerprints.
#include "ingest/xla/hlo_text_parser.h"

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "tests/support/collecting_sink.h"
#include "tests/support/hlo_generator.h"

namespace rcf::ingest {
namespace hlo_text_parser_test {

using Ops = std::map<std::string, int64_t>;
using Dims = std::vector<int64_t>;

// Feeds `text` line by line; returns the modules and the numbers of the refused lines.
std::vector<HloModule> parse(std::string_view text, std::vector<int64_t>* refused = nullptr) {
  HloTextParser parser;
  std::vector<HloModule> out;
  int64_t line_no = 0;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t nl = text.find('\n', pos);
    size_t end = nl == std::string_view::npos ? text.size() : nl;
    std::string_view line = text.substr(pos, end - pos);
    if (!parser.feed(line, ++line_no) && refused) refused->push_back(line_no);
    for (auto& m : parser.take_modules()) out.push_back(std::move(m));
    pos = end + 1;
  }
  parser.finish();
  for (auto& m : parser.take_modules()) out.push_back(std::move(m));
  return out;
}

HloModule parse_one(std::string_view text) {
  auto modules = parse(text);
  EXPECT_EQ(modules.size(), 1u);
  return modules.empty() ? HloModule() : modules[0];
}

std::string fixture(const std::string& name) {
  return rcf::testing::read_fixture("xla/" + name);
}

void expect_param(const HloParameter& p, int64_t number, std::string_view name,
                  std::string_view dtype, const Dims& dims, std::string_view layout,
                  std::string_view shape_text) {
  EXPECT_EQ(p.number, number);
  EXPECT_EQ(p.name, name);
  EXPECT_EQ(p.dtype, dtype);
  EXPECT_EQ(p.dims, dims);
  EXPECT_EQ(p.layout, layout);
  EXPECT_EQ(p.shape_text, shape_text);
}

void expect_constant(const HloConstant& c, std::string_view name, std::string_view shape,
                     std::string_view value, std::string_view user_op, std::string_view op_name,
                     std::string_view file, int64_t line) {
  EXPECT_EQ(c.name, name);
  EXPECT_EQ(c.shape_text, shape);
  EXPECT_EQ(c.value_text, value);
  EXPECT_EQ(c.elided, value == "{...}");
  EXPECT_EQ(c.user_op, user_op);
  EXPECT_EQ(c.op_name, op_name);
  EXPECT_EQ(c.source_file, file);
  EXPECT_EQ(c.source_line, line);
}

TEST(HloTextParser, ShortStyleDumpCutInsideEntry) {
  std::vector<int64_t> refused;
  auto modules = parse(fixture("hlo_before_opt_issue7053.txt"), &refused);
  ASSERT_EQ(modules.size(), 1u);
  const HloModule& m = modules[0];
  EXPECT_EQ(refused, std::vector<int64_t>{2});  // the blank line
  EXPECT_EQ(m.line, 1);
  EXPECT_EQ(m.module_name, "SyncTensorsGraph.68");
  EXPECT_TRUE(m.entry_layout.starts_with("{(s64[], f32[3]{0}, f32[3,3,1,1]{3,2,1,0}"));
  EXPECT_TRUE(m.entry_layout.ends_with("f32[28,3,480,640]{3,2,1,0})}"));
  EXPECT_TRUE(m.truncated);
  // 11 inputs: p0.3 and p3.9 from parameter(N) lines, the rest from entry_computation_layout.
  ASSERT_EQ(m.parameters.size(), 11u);
  expect_param(m.parameters[0], 0, "p0.3", "s64", {}, "", "s64[]");
  expect_param(m.parameters[1], 1, "", "f32", {3}, "{0}", "f32[3]{0}");
  expect_param(m.parameters[2], 2, "", "f32", {3, 3, 1, 1}, "{3,2,1,0}", "f32[3,3,1,1]{3,2,1,0}");
  expect_param(m.parameters[3], 3, "p3.9", "f32", {28, 4, 480, 640}, "{3,2,1,0}",
               "f32[28,4,480,640]{3,2,1,0}");
  expect_param(m.parameters[4], 4, "", "f32", {1}, "{0}", "f32[1]{0}");
  expect_param(m.parameters[5], 5, "", "f32", {1, 2, 1, 1}, "{3,2,1,0}",
               "f32[1,2,1,1]{3,2,1,0}");  // `/*index=5*/` dropped
  for (int k = 6; k <= 9; ++k) expect_param(m.parameters[k], k, "", "f32", {3}, "{0}", "f32[3]{0}");
  expect_param(m.parameters[10], 10, "", "f32", {}, "", "f32[]");
  ASSERT_EQ(m.constants.size(), 2u);
  expect_constant(m.constants[0], "constant.2", "s64[]", "1", "multiply", "", "", -1);
  expect_constant(m.constants[1], "constant.1", "s64[]", "1", "multiply", "", "", -1);
  EXPECT_EQ(m.op_histogram,
            (Ops{{"add", 1}, {"constant", 2}, {"multiply", 1}, {"parameter", 2}, {"slice", 3}}));
  EXPECT_EQ(m.instruction_count, 9);
  EXPECT_EQ(m.structure_fingerprint.size(), 16u);
  EXPECT_EQ(m.full_fingerprint.size(), 16u);
}

TEST(HloTextParser, JaxModuleIndentedWithTiledLayoutAndTrailingComment) {
  std::vector<int64_t> refused;
  auto modules = parse(fixture("hlo_jax_openxla_test.txt"), &refused);
  ASSERT_EQ(modules.size(), 1u);
  const HloModule& m = modules[0];
  EXPECT_EQ(refused, std::vector<int64_t>{2});
  EXPECT_EQ(m.module_name, "jit_f");
  EXPECT_EQ(m.entry_layout, "{(s32[8,2]{0,1:T(2,128)S(1)})->s32[8,2]{0,1:T(2,128)}}");
  EXPECT_FALSE(m.truncated);  // `} // main.8 ` closes ENTRY
  ASSERT_EQ(m.parameters.size(), 1u);
  // The parameter instruction's own shape wins over the tiled entry layout.
  expect_param(m.parameters[0], 0, "Arg_0.1", "s32", {8, 2}, "{1,0}", "s32[8,2]{1,0}");
  ASSERT_EQ(m.constants.size(), 1u);
  expect_constant(m.constants[0], "constant.2", "s32[]", "2", "broadcast", "", "", -1);
  EXPECT_EQ(m.op_histogram, (Ops{{"broadcast", 1},
                                 {"constant", 1},
                                 {"custom-call", 2},
                                 {"multiply", 2},
                                 {"parameter", 1}}));
  EXPECT_EQ(m.instruction_count, 7);
}

TEST(HloTextParser, LongStyleWithWrappedParameterAndDebugMetadata) {
  std::vector<int64_t> refused;
  auto modules = parse(fixture("hlo_pr3920_hlo_debug.txt"), &refused);
  ASSERT_EQ(modules.size(), 1u);
  const HloModule& m = modules[0];
  EXPECT_EQ(refused, std::vector<int64_t>{2});
  EXPECT_EQ(m.module_name, "SyncTensorsGraph.23.31");
  // torch_xla wrapped the 4 inputs into one tuple in the layout.
  EXPECT_EQ(m.entry_layout, "{((f32[], f32[], f32[], f32[]))->(f32[])}");
  EXPECT_TRUE(m.truncated);
  // The computation (last one, no ENTRY keyword) lists its 4 parameters in its header; p3.22
  // also has its parameter(3) line.
  ASSERT_EQ(m.parameters.size(), 4u);
  expect_param(m.parameters[0], 0, "p0.8", "f32", {}, "", "f32[]");
  expect_param(m.parameters[1], 1, "p1.11", "f32", {}, "", "f32[]");
  expect_param(m.parameters[2], 2, "p2.14", "f32", {}, "", "f32[]");
  expect_param(m.parameters[3], 3, "p3.22", "f32", {}, "", "f32[]");
  ASSERT_EQ(m.constants.size(), 4u);
  const std::string file = "<module>@test_para.py";
  expect_constant(m.constants[0], "constant.20", "f32[]", "0", "multiply", "prim__Constant", file,
                  11);
  expect_constant(m.constants[1], "constant.19", "f32[]", "1", "multiply", "prim__Constant", file,
                  11);
  expect_constant(m.constants[2], "constant.17", "f32[]", "1", "", "prim__Constant", file, 11);
  expect_constant(m.constants[3], "constant.16", "f32[]", "1", "", "prim__Constant", file, 11);
  EXPECT_EQ(m.op_histogram, (Ops{{"add", 1}, {"constant", 4}, {"multiply", 1}, {"parameter", 1}}));
  EXPECT_EQ(m.instruction_count, 7);
}

TEST(HloTextParser, HeadlessFragmentNoPythonFrames) {
  std::vector<int64_t> refused;
  auto modules = parse(fixture("hlo_pr4205_no_python_frames.txt"), &refused);
  ASSERT_EQ(modules.size(), 1u);
  const HloModule& m = modules[0];
  EXPECT_TRUE(refused.empty());
  EXPECT_EQ(m.line, 1);
  EXPECT_EQ(m.module_name, "");
  EXPECT_TRUE(m.truncated);  // its start is missing
  EXPECT_TRUE(m.parameters.empty());
  EXPECT_TRUE(m.constants.empty());
  EXPECT_EQ(m.op_histogram, (Ops{{"add", 1}, {"broadcast", 2}, {"reshape", 2}, {"tuple", 1}}));
  EXPECT_EQ(m.instruction_count, 6);
}

TEST(HloTextParser, NoPythonFramesMetadataOnConstant) {
  auto m = parse_one(
      "HloModule IrToHlo.9, entry_computation_layout={()->f32[]}\n"
      "ENTRY %IrToHlo.9 () -> f32[] {\n"
      "  ROOT %constant.1 = f32[] constant(-inf), metadata={op_type=\"prim__Constant\" "
      "op_name=\"prim__Constant\" source_file=\"@No Python Frames\" source_line=-1}\n"
      "}\n");
  ASSERT_EQ(m.constants.size(), 1u);
  expect_constant(m.constants[0], "constant.1", "f32[]", "-inf", "", "prim__Constant",
                  "@No Python Frames", -1);
  EXPECT_FALSE(m.truncated);
  EXPECT_TRUE(m.parameters.empty());
}

TEST(HloTextParser, JaxMetadataOpTypeFallbackAndEscapes) {
  auto m = parse_one(
      "HloModule jit_g\n"
      "ENTRY main.3 {\n"
      "  c.1 = f32[] constant(1), metadata={op_type=\"cst\" source_file=\"a \\\"q\\\".py\" "
      "source_line=7 source_end_line=8}\n"
      "  ROOT n.2 = f32[] negate(c.1), metadata={op_name=\"jit(g)/jit(main)/neg\"}\n"
      "}\n");
  ASSERT_EQ(m.constants.size(), 1u);
  expect_constant(m.constants[0], "c.1", "f32[]", "1", "negate", "cst", "a \"q\".py", 7);
}

TEST(HloTextParser, ElidedAndArrayConstants) {
  auto m = parse_one(
      "HloModule m\n"
      "ENTRY e {\n"
      "  big = f32[64]{0} constant({...})\n"
      "  small = s32[3]{0} constant({0, 1, 2})\n"
      "  nested = f32[2,2]{1,0} constant({ { 1, 2 }, { 3, 4 } })\n"
      "  a = f32[64]{0} add(big, big)\n"
      "  ROOT t = (s32[3]{0}, f32[2,2]{1,0}, f32[64]{0}) tuple(small, nested, a)\n"
      "}\n");
  ASSERT_EQ(m.constants.size(), 3u);
  expect_constant(m.constants[0], "big", "f32[64]{0}", "{...}", "add", "", "", -1);
  EXPECT_TRUE(m.constants[0].elided);
  expect_constant(m.constants[1], "small", "s32[3]{0}", "{0, 1, 2}", "tuple", "", "", -1);
  expect_constant(m.constants[2], "nested", "f32[2,2]{1,0}", "{ { 1, 2 }, { 3, 4 } }", "tuple", "",
                  "", -1);
  EXPECT_FALSE(m.constants[1].elided);
}

TEST(HloTextParser, TupleShapesTiledLayoutsAndDynamicDims) {
  auto m = parse_one(
      "HloModule m, entry_computation_layout={((f32[2]{0}, s32[]), s32[8,2]{0,1:T(2,128)S(1)}, "
      "f32[<=16,?]{1,0})->f32[2]{0}}\n"
      "ENTRY e {\n"
      "  p0 = (f32[2]{0}, s32[]) parameter(0)\n"
      "  p1 = s32[8,2]{0,1:T(2,128)S(1)} parameter(1)\n"
      "  p2 = f32[<=16,?]{1,0} parameter(2)\n"
      "  g = f32[2]{0} get-tuple-element(p0), index=0\n"
      "  ROOT t = (f32[2]{0}, (s32[], s32[8,2]{0,1:T(2,128)S(1)})) tuple(g, p1)\n"
      "}\n");
  ASSERT_EQ(m.parameters.size(), 3u);
  expect_param(m.parameters[0], 0, "p0", "tuple", {}, "", "(f32[2]{0}, s32[])");
  expect_param(m.parameters[1], 1, "p1", "s32", {8, 2}, "{0,1:T(2,128)S(1)}",
               "s32[8,2]{0,1:T(2,128)S(1)}");
  expect_param(m.parameters[2], 2, "p2", "f32", {16, -1}, "{1,0}", "f32[<=16,?]{1,0}");
  EXPECT_EQ(m.op_histogram, (Ops{{"get-tuple-element", 1}, {"parameter", 3}, {"tuple", 1}}));
}

TEST(HloTextParser, WrappedParameterShortStyle) {
  // XLA_PARAMETER_WRAPPING: one tuple parameter, unpacked with get-tuple-element.
  auto m = parse_one(
      "HloModule SyncTensorsGraph.9, entry_computation_layout={((f32[], f32[]))->(f32[])}\n"
      "ENTRY SyncTensorsGraph.9 {\n"
      "  in.1 = (f32[], f32[]) parameter(0)\n"
      "  a.2 = f32[] get-tuple-element(in.1), index=0\n"
      "  b.3 = f32[] get-tuple-element(in.1), index=1\n"
      "  s.4 = f32[] add(a.2, b.3)\n"
      "  ROOT t.5 = (f32[]) tuple(s.4)\n"
      "}\n");
  ASSERT_EQ(m.parameters.size(), 1u);
  expect_param(m.parameters[0], 0, "in.1", "tuple", {}, "", "(f32[], f32[])");
  EXPECT_EQ(m.instruction_count, 5);
  EXPECT_FALSE(m.truncated);
}

TEST(HloTextParser, CommentsEverywhere) {
  std::vector<int64_t> refused;
  auto modules = parse(
      "// leading comment outside a module\n"
      "HloModule m, entry_computation_layout={(f32[], f32[], f32[], f32[], f32[], "
      "/*index=5*/f32[])->f32[]}\n"
      "// a comment line inside the module\n"
      "ENTRY e { // trailing\n"
      "  p0 = f32[] parameter(0)  // first\n"
      "  p5 = f32[] parameter(5)\n"
      "  ROOT r = f32[] add(p0, /*index=1*/p5), metadata={op_name=\"a//b\"} // done\n"
      "} // e\n",
      &refused);
  ASSERT_EQ(modules.size(), 1u);
  EXPECT_EQ(refused, std::vector<int64_t>{1});
  const HloModule& m = modules[0];
  ASSERT_EQ(m.parameters.size(), 6u);
  expect_param(m.parameters[5], 5, "p5", "f32", {}, "", "f32[]");
  EXPECT_EQ(m.instruction_count, 3);
  EXPECT_FALSE(m.truncated);
}

TEST(HloTextParser, CalledComputationsAndStackFrameIndex) {
  auto m = parse_one(
      "HloModule jit_f, is_scheduled=true, entry_computation_layout={(f32[8]{0})->f32[]}\n"
      "\n"
      "FileNames\n"
      "1 \"train.py\"\n"
      "FunctionNames\n"
      "1 \"f\"\n"
      "FileLocations\n"
      "1 {file_name_id=1 function_name_id=1 line=3 end_line=3 column=1 end_column=9}\n"
      "StackFrames\n"
      "1 {file_location_id=1 parent_frame_id=1}\n"
      "\n"
      "region_0.4 {\n"
      "  Arg_0.5 = f32[] parameter(0)\n"
      "  Arg_1.6 = f32[] parameter(1)\n"
      "  ROOT add.7 = f32[] add(Arg_0.5, Arg_1.6)\n"
      "}, execution_thread=\"main\"\n"
      "\n"
      "ENTRY main.9 {\n"
      "  Arg_0.1 = f32[8]{0} parameter(0), metadata={stack_frame_id=1}\n"
      "  constant.2 = f32[] constant(0)\n"
      "  ROOT reduce.8 = f32[] reduce(Arg_0.1, constant.2), dimensions={0}, to_apply=region_0.4\n"
      "}\n");
  ASSERT_EQ(m.parameters.size(), 1u);  // region_0.4's parameters are local
  expect_param(m.parameters[0], 0, "Arg_0.1", "f32", {8}, "{0}", "f32[8]{0}");
  ASSERT_EQ(m.constants.size(), 1u);
  EXPECT_EQ(m.constants[0].user_op, "reduce");
  EXPECT_EQ(m.op_histogram, (Ops{{"add", 1}, {"constant", 1}, {"parameter", 3}, {"reduce", 1}}));
  EXPECT_FALSE(m.truncated);
}

TEST(HloTextParser, SeveralModulesAndTruncation) {
  std::string one = fixture("hlo_jax_openxla_test.txt");
  std::string text = one + "\n" + one +
                     "HloModule cut, entry_computation_layout={(f32[4]{0})->f32[4]{0}}\n"
                     "ENTRY cut.3 {\n"
                     "  p = f32[4]{0} parameter(0)\n";
  auto modules = parse(text);
  ASSERT_EQ(modules.size(), 3u);
  EXPECT_FALSE(modules[0].truncated);
  EXPECT_FALSE(modules[1].truncated);
  EXPECT_EQ(modules[1].line, 13);
  EXPECT_EQ(modules[0].full_fingerprint, modules[1].full_fingerprint);
  EXPECT_EQ(modules[2].module_name, "cut");
  EXPECT_TRUE(modules[2].truncated);
  ASSERT_EQ(modules[2].parameters.size(), 1u);
  EXPECT_EQ(modules[2].instruction_count, 1);

  // Header only: truncated, parameters from the layout.
  auto header_only = parse_one("HloModule h, entry_computation_layout={(f32[2,3]{1,0})->f32[]}\n");
  EXPECT_TRUE(header_only.truncated);
  ASSERT_EQ(header_only.parameters.size(), 1u);
  expect_param(header_only.parameters[0], 0, "", "f32", {2, 3}, "{1,0}", "f32[2,3]{1,0}");
}

// --- Fingerprints -----------------------------------------------------------------------------

constexpr std::string_view kBase =
    "HloModule jit_f.1, entry_computation_layout={(f32[8]{0}, f32[8]{0})->f32[]}\n"
    "add_comp.10 {\n"
    "  x.11 = f32[] parameter(0)\n"
    "  y.12 = f32[] parameter(1)\n"
    "  ROOT s.13 = f32[] add(x.11, y.12)\n"
    "}\n"
    "ENTRY main.20 {\n"
    "  Arg_0.1 = f32[8]{0} parameter(0), metadata={op_name=\"x\"}\n"
    "  Arg_1.2 = f32[8]{0} parameter(1)\n"
    "  constant.3 = f32[] constant(2), metadata={op_name=\"c\" source_line=3}\n"
    "  broadcast.4 = f32[8]{0} broadcast(constant.3), dimensions={}\n"
    "  multiply.5 = f32[8]{0} multiply(Arg_0.1, broadcast.4)\n"
    "  add.6 = f32[8]{0} add(multiply.5, Arg_1.2)\n"
    "  zero.7 = f32[] constant(0)\n"
    "  ROOT reduce.8 = f32[] reduce(add.6, zero.7), dimensions={0}, to_apply=add_comp.10\n"
    "}\n";

std::string replace_all(std::string s, std::string_view from, std::string_view to) {
  for (size_t pos = s.find(from); pos != std::string::npos; pos = s.find(from, pos + to.size()))
    s.replace(pos, from.size(), to);
  return s;
}

TEST(HloTextParser, FingerprintIgnoresNamesAndMetadata) {
  HloModule base = parse_one(kBase);
  std::string renamed(kBase);
  for (auto [from, to] : std::vector<std::pair<std::string, std::string>>{
           {"add_comp.10", "region_0.99"},
           {"Arg_0.1", "p0.41"},
           {"constant.3", "constant.77"},
           {"multiply.5", "multiply.123"},
           {"main.20", "main.3"},
           {"jit_f.1", "jit_f.7"},
           {"op_name=\"c\" source_line=3", "op_name=\"moved\" source_line=99"}})
    renamed = replace_all(renamed, from, to);
  ASSERT_NE(renamed, kBase);
  HloModule other = parse_one(renamed);
  EXPECT_EQ(base.structure_fingerprint, other.structure_fingerprint);
  EXPECT_EQ(base.full_fingerprint, other.full_fingerprint);
  EXPECT_NE(base.structure_fingerprint, base.full_fingerprint);
}

TEST(HloTextParser, FingerprintConstantValueChangesOnlyFull) {
  HloModule base = parse_one(kBase);
  HloModule other = parse_one(replace_all(std::string(kBase), "constant(2)", "constant(3)"));
  EXPECT_EQ(base.structure_fingerprint, other.structure_fingerprint);
  EXPECT_NE(base.full_fingerprint, other.full_fingerprint);
  EXPECT_EQ(other.constants[0].value_text, "3");
}

TEST(HloTextParser, FingerprintAddedOpOrChangedShapeChangesBoth) {
  HloModule base = parse_one(kBase);
  HloModule added = parse_one(replace_all(
      std::string(kBase), "  add.6 = f32[8]{0} add(multiply.5, Arg_1.2)\n",
      "  neg.9 = f32[8]{0} negate(multiply.5)\n  add.6 = f32[8]{0} add(neg.9, Arg_1.2)\n"));
  EXPECT_NE(base.structure_fingerprint, added.structure_fingerprint);
  EXPECT_NE(base.full_fingerprint, added.full_fingerprint);
  HloModule reshaped = parse_one(replace_all(std::string(kBase), "f32[8]", "f32[16]"));
  EXPECT_NE(base.structure_fingerprint, reshaped.structure_fingerprint);
  HloModule rewired = parse_one(
      replace_all(std::string(kBase), "add(multiply.5, Arg_1.2)", "add(Arg_1.2, multiply.5)"));
  EXPECT_NE(base.structure_fingerprint, rewired.structure_fingerprint);
  HloModule attr = parse_one(
      replace_all(std::string(kBase), "dimensions={0}, to_apply", "dimensions={0}, to_apply"));
  EXPECT_EQ(base.structure_fingerprint, attr.structure_fingerprint);
}

TEST(HloTextParser, FingerprintSameInBothPrintingStyles) {
  std::string long_style =
      "HloModule jit_f.1, entry_computation_layout={(f32[8]{0}, f32[8]{0})->f32[]}\n"
      "%add_comp.10 (x.11: f32[], y.12: f32[]) -> f32[] {\n"
      "  %x.11 = f32[] parameter(0)\n"
      "  %y.12 = f32[] parameter(1)\n"
      "  ROOT %s.13 = f32[] add(f32[] %x.11, f32[] %y.12)\n"
      "}\n"
      "ENTRY %main.20 (Arg_0.1: f32[8], Arg_1.2: f32[8]) -> f32[] {\n"
      "  %Arg_0.1 = f32[8]{0} parameter(0), metadata={op_name=\"x\"}\n"
      "  %Arg_1.2 = f32[8]{0} parameter(1)\n"
      "  %constant.3 = f32[] constant(2)\n"
      "  %broadcast.4 = f32[8]{0} broadcast(f32[] %constant.3), dimensions={}\n"
      "  %multiply.5 = f32[8]{0} multiply(f32[8]{0} %Arg_0.1, f32[8]{0} %broadcast.4)\n"
      "  %add.6 = f32[8]{0} add(f32[8]{0} %multiply.5, f32[8]{0} %Arg_1.2)\n"
      "  %zero.7 = f32[] constant(0)\n"
      "  ROOT %reduce.8 = f32[] reduce(f32[8]{0} %add.6, f32[] %zero.7), dimensions={0}, "
      "to_apply=%add_comp.10\n"
      "}\n";
  HloModule a = parse_one(kBase);
  HloModule b = parse_one(long_style);
  EXPECT_EQ(a.structure_fingerprint, b.structure_fingerprint);
  EXPECT_EQ(a.full_fingerprint, b.full_fingerprint);
}

TEST(HloTextParser, RefusesNonHloAndSurvivesGarbage) {
  std::vector<int64_t> refused;
  auto modules = parse(
      "just some text\n"
      "x = 3\n"
      "}\n"
      "foo {\n",
      &refused);
  EXPECT_TRUE(modules.empty());
  EXPECT_EQ(refused, (std::vector<int64_t>{1, 2, 3, 4}));
  // Unbalanced and odd lines inside a module: refused, never a crash.
  std::string garbage = "HloModule g, entry_computation_layout={(f32[\n";
  for (std::string_view l :
       {"  a = f32[2 add(", "  b = (((((", "ROOT", "  %c = f32[] constant(\"", "  d = f32[]{ x(",
        "\"", "/*", "  e = f32[] add(a, b), x={\"}", "ENTRY (", "}", "}"}) {
    garbage += l;
    garbage += '\n';
  }
  auto g = parse(garbage);
  ASSERT_EQ(g.size(), 1u);
  EXPECT_TRUE(g[0].truncated);
}

TEST(HloTextParser, GeneratedModule) {
  std::string text = rcf::testing::make_hlo_module_text(3, 256 * 1024, 42);
  EXPECT_GE(text.size(), 250u * 1024);
  EXPECT_EQ(text, rcf::testing::make_hlo_module_text(3, 256 * 1024, 42));
  std::vector<int64_t> refused;
  text += rcf::testing::make_hlo_module_text(4, 64 * 1024, 42);
  auto modules = parse(text, &refused);
  ASSERT_EQ(modules.size(), 2u);
  for (int64_t line : refused) {
    // Only blank lines are refused.
    size_t pos = 0;
    for (int64_t k = 1; k < line; ++k) pos = text.find('\n', pos) + 1;
    EXPECT_EQ(text[pos], '\n') << "line " << line;
  }
  const HloModule& m = modules[0];
  EXPECT_EQ(m.module_name, "SyncTensorsGraph.1003");
  EXPECT_FALSE(m.truncated);
  EXPECT_GT(m.instruction_count, 1000);
  EXPECT_GT(m.constants.size(), 50u);
  EXPECT_GE(m.parameters.size(), 4u);
  for (size_t k = 0; k < m.parameters.size(); ++k) {
    EXPECT_EQ(m.parameters[k].number, static_cast<int64_t>(k));
    EXPECT_FALSE(m.parameters[k].name.empty());
  }
  int64_t total = 0;
  for (auto& [op, count] : m.op_histogram) total += count;
  EXPECT_EQ(total, m.instruction_count);
  EXPECT_EQ(m.op_histogram.at("parameter"), static_cast<int64_t>(m.parameters.size()) + 2);
  bool any_elided = false, any_metadata = false;
  for (const auto& c : m.constants) {
    any_elided |= c.elided;
    any_metadata |= c.source_line > 0 && c.source_file.find('@') != std::string::npos;
  }
  EXPECT_TRUE(any_elided);
  EXPECT_TRUE(any_metadata);
  EXPECT_NE(modules[0].structure_fingerprint, modules[1].structure_fingerprint);
}

}  // namespace hlo_text_parser_test
}  // namespace rcf::ingest
