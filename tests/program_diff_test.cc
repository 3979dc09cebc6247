// diff_programs / input_signature / choose_previous: one hand-written pair of programs per rule,
// then the whole way from HLO text (real fixtures, parsed by HloTextParser) to a cause.
#include "analysis/program_diff.h"

#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <vector>

#include "ingest/xla/hlo_text_parser.h"
#include "tests/support/collecting_sink.h"
#include "tests/support/hlo_generator.h"

namespace rcf::analysis {
namespace program_diff_test {

using Dims = std::vector<int64_t>;

ProgramParameter param(int64_t number, std::string dtype, Dims dims) {
  ProgramParameter p;
  p.number = number;
  p.dtype = std::move(dtype);
  p.dims = std::move(dims);
  std::string d;
  for (size_t i = 0; i < p.dims.size(); ++i)
    d += (i ? "," : "") + (p.dims[i] < 0 ? std::string("?") : std::to_string(p.dims[i]));
  p.shape_text = p.dtype + "[" + d + "]";
  if (p.dims.size() >= 2) p.shape_text += "{1,0}";  // layouts never matter
  return p;
}

// A program with HLO whose parameters are numbered in order; fingerprints derived from the
// parameters so that equal inputs give equal fingerprints unless a test says otherwise.
ProgramView hlo_program(std::string key, std::vector<std::pair<std::string, Dims>> params) {
  ProgramView v;
  v.program_key = std::move(key);
  v.has_hlo = true;
  for (size_t i = 0; i < params.size(); ++i)
    v.parameters.push_back(param(static_cast<int64_t>(i), params[i].first, params[i].second));
  v.op_histogram = {
      {"add", 2}, {"multiply", 1}, {"parameter", static_cast<int64_t>(params.size())}};
  v.structure_fingerprint = "s-" + input_signature(v);
  v.full_fingerprint = "f-" + input_signature(v);
  return v;
}

ProgramView debug_only(std::string key, std::optional<int64_t> inputs,
                       std::optional<int64_t> outputs) {
  ProgramView v;
  v.program_key = std::move(key);
  v.input_count = inputs;
  v.output_count = outputs;
  return v;
}

ProgramConstant constant(int64_t ordinal, std::string name, std::string shape, std::string value) {
  ProgramConstant c;
  c.ordinal = ordinal;
  c.name = std::move(name);
  c.shape_text = std::move(shape);
  c.value_text = std::move(value);
  c.elided = c.value_text == "{...}";
  return c;
}

void expect_diff(const ProgramDiff& d, std::string_view cause, std::string_view confidence,
                 std::string_view subject, std::string_view detail, std::string_view evidence) {
  EXPECT_EQ(d.cause, cause);
  EXPECT_EQ(d.confidence, confidence);
  EXPECT_EQ(d.subject, subject);
  EXPECT_EQ(d.detail, detail);
  EXPECT_EQ(d.evidence, evidence);
}

void expect_no_shape(const ProgramDiff& d) {
  EXPECT_EQ(d.shape_param, -1);
  EXPECT_EQ(d.shape_dim, -1);
  EXPECT_FALSE(d.old_dim_value.has_value());
  EXPECT_FALSE(d.new_dim_value.has_value());
}

// --- input_signature ---------------------------------------------------------------------

TEST(InputSignature, DtypeAndDimsInOrderWithoutLayouts) {
  ProgramView v = hlo_program("k", {{"f32", {8, 128}}, {"s32", {}}, {"bf16", {4}}});
  EXPECT_EQ(input_signature(v), "f32[8,128] s32[] bf16[4]");
  v.parameters[0].shape_text = "f32[8,128]{0,1:T(8,128)}";  // another layout, same signature
  EXPECT_EQ(input_signature(v), "f32[8,128] s32[] bf16[4]");
}

TEST(InputSignature, TuplesDynamicDimsAndNoHlo) {
  ProgramView v = hlo_program("k", {{"f32", {-1, 16}}});
  ProgramParameter tuple;
  tuple.number = 1;
  tuple.dtype = "tuple";
  tuple.shape_text = "(f32[2]{0}, s32[])";
  v.parameters.push_back(tuple);
  EXPECT_EQ(input_signature(v), "f32[?,16] (f32[2], s32[])");
  EXPECT_EQ(input_signature(debug_only("k", 7, 1)), "");
}

// --- key_subset ----------------------------------------------------------------------------

TEST(DiffPrograms, OptionalKeyInsertedInTheMiddleIsOneAddedParameter) {
  // An enriched batch: a mask appears as param 3; the params after it shift by one.
  ProgramView before = hlo_program(
      "a",
      {{"s64", {}}, {"s32", {8, 512}}, {"f32", {768, 768}}, {"f32", {768}}, {"f32", {8, 512}}});
  ProgramView after = hlo_program("b", {{"s64", {}},
                                        {"s32", {8, 512}},
                                        {"f32", {768, 768}},
                                        {"s32", {8, 512}},
                                        {"f32", {768}},
                                        {"f32", {8, 512}}});
  ProgramDiff d = diff_programs(before, after);
  expect_diff(d, "key_subset", "high", "input s32[8,512]",
              "graph inputs changed (5 -> 6 parameters): +param 3 s32[8,512]", "HLO parameters");
  expect_no_shape(d);

  // The key going away again aggregates under the same subject.
  ProgramDiff back = diff_programs(after, before);
  expect_diff(back, "key_subset", "high", "input s32[8,512]",
              "graph inputs changed (6 -> 5 parameters): -param 3 s32[8,512]", "HLO parameters");
}

TEST(DiffPrograms, OneParameterReplacedByAnotherIsKeySubset) {
  ProgramView before = hlo_program("a", {{"f32", {8, 128}}, {"s32", {8}}, {"f32", {128}}});
  ProgramView after = hlo_program("b", {{"f32", {8, 128}}, {"f32", {8, 16}}, {"f32", {128}}});
  expect_diff(diff_programs(before, after), "key_subset", "high", "input f32[8,16]",
              "graph inputs changed (3 -> 3 parameters): +param 1 f32[8,16]; -param 1 s32[8]",
              "HLO parameters");
}

TEST(DiffPrograms, RemovalAndAdditionWithSameCountIsKeySubsetNotShapes) {
  // param 1 dropped, a new last param: read position by position it would be 3 shape changes.
  ProgramView before = hlo_program("a", {{"f32", {4}}, {"f32", {8}}, {"f32", {16}}, {"f32", {32}}});
  ProgramView after = hlo_program("b", {{"f32", {4}}, {"f32", {16}}, {"f32", {32}}, {"f32", {64}}});
  expect_diff(diff_programs(before, after), "key_subset", "high", "input f32[64]",
              "graph inputs changed (4 -> 4 parameters): +param 3 f32[64]; -param 1 f32[8]",
              "HLO parameters");
}

TEST(DiffPrograms, SameShapesInAnotherOrderIsKeySubsetMedium) {
  ProgramView before = hlo_program("a", {{"f32", {8}}, {"s32", {4}}, {"f32", {2}}});
  ProgramView after = hlo_program("b", {{"s32", {4}}, {"f32", {8}}, {"f32", {2}}});
  expect_diff(diff_programs(before, after), "key_subset", "medium", "input order",
              "graph inputs reordered (same 3 parameter shapes, other positions): param 0: f32[8] "
              "-> s32[4]; param 1: s32[4] -> f32[8]",
              "HLO parameters");
}

TEST(DiffPrograms, ManyAddedParametersAreCappedDeterministically) {
  std::vector<std::pair<std::string, Dims>> few = {{"s64", {}}};
  std::vector<std::pair<std::string, Dims>> many = few;
  for (int i = 0; i < 60; ++i) many.push_back({"bf16", {1024, 4096 + i}});
  ProgramDiff d = diff_programs(hlo_program("a", few), hlo_program("b", many));
  EXPECT_EQ(d.cause, "key_subset");
  EXPECT_EQ(d.subject, "input bf16[1024,4096]");
  EXPECT_TRUE(d.detail.starts_with(
      "graph inputs changed (1 -> 61 parameters): +param 1 bf16[1024,4096]; +param 2 "
      "bf16[1024,4097]; "))
      << d.detail;
  EXPECT_TRUE(d.detail.ends_with(" (+52 more)")) << d.detail;  // 8 listed
  EXPECT_LE(d.detail.size(), 400u);
  EXPECT_EQ(diff_programs(hlo_program("a", few), hlo_program("b", many)).detail, d.detail);
}

// --- dtype ---------------------------------------------------------------------------------

TEST(DiffPrograms, DtypeChangesListEveryChangedParameter) {
  ProgramView before = hlo_program(
      "a", {{"s64", {}}, {"f32", {8}}, {"f32", {8, 128}}, {"f32", {128, 128}}, {"s32", {8}}});
  ProgramView after = hlo_program(
      "b", {{"s64", {}}, {"f32", {8}}, {"bf16", {8, 128}}, {"bf16", {128, 128}}, {"s32", {8}}});
  ProgramDiff d = diff_programs(before, after);
  expect_diff(d, "dtype", "high", "param 2",
              "param 2: f32[8,128] -> bf16[8,128]; param 3: f32[128,128] -> bf16[128,128]",
              "HLO parameters");
  expect_no_shape(d);
}

TEST(DiffPrograms, DtypeWinsOverShapeAndBothAreListed) {
  ProgramView before = hlo_program("a", {{"f32", {8, 128}}, {"f32", {4}}});
  ProgramView after = hlo_program("b", {{"f32", {16, 128}}, {"f16", {4}}});
  ProgramDiff d = diff_programs(before, after);
  expect_diff(d, "dtype", "high", "param 1", "param 0 dim 0: 8 -> 16; param 1: f32[4] -> f16[4]",
              "HLO parameters");
  expect_no_shape(d);
}

// --- shape ---------------------------------------------------------------------------------

TEST(DiffPrograms, ShapeListsEveryChangedDimAndFillsTheFirst) {
  ProgramView before = hlo_program(
      "a",
      {{"s64", {}}, {"f32", {8, 128}}, {"f32", {128, 128}}, {"f32", {128}}, {"f32", {128, 64}}});
  ProgramView after = hlo_program(
      "b",
      {{"s64", {}}, {"f32", {8, 256}}, {"f32", {128, 128}}, {"f32", {128}}, {"f32", {256, 64}}});
  ProgramDiff d = diff_programs(before, after);
  expect_diff(d, "shape", "high", "param 1 dim 1",
              "param 1 dim 1: 128 -> 256; param 4 dim 0: 128 -> 256", "HLO parameters");
  EXPECT_EQ(d.shape_param, 1);
  EXPECT_EQ(d.shape_dim, 1);
  EXPECT_EQ(d.old_dim_value, 128);
  EXPECT_EQ(d.new_dim_value, 256);
}

TEST(DiffPrograms, ShapeWithSeveralDimsOfOneParameterAndDynamicDims) {
  ProgramView before = hlo_program("a", {{"f32", {8, 128, 3}}, {"s32", {8}}});
  ProgramView after = hlo_program("b", {{"f32", {16, 128, 5}}, {"s32", {-1}}});
  ProgramDiff d = diff_programs(before, after);
  expect_diff(d, "shape", "high", "param 0 dim 0",
              "param 0 dim 0: 8 -> 16; param 0 dim 2: 3 -> 5; param 1 dim 0: 8 -> ?",
              "HLO parameters");
  EXPECT_EQ(d.shape_param, 0);
  EXPECT_EQ(d.shape_dim, 0);
  EXPECT_EQ(d.old_dim_value, 8);
  EXPECT_EQ(d.new_dim_value, 16);
}

TEST(DiffPrograms, EveryShapeDoubledIsShapeEvenWhenShapesCoincide) {
  // Old param 1 and new param 0 are both f32[16]: still two in-place changes, not a shift.
  ProgramView before = hlo_program("a", {{"f32", {8}}, {"f32", {16}}});
  ProgramView after = hlo_program("b", {{"f32", {16}}, {"f32", {32}}});
  expect_diff(diff_programs(before, after), "shape", "high", "param 0 dim 0",
              "param 0 dim 0: 8 -> 16; param 1 dim 0: 16 -> 32", "HLO parameters");
}

TEST(DiffPrograms, RankChange) {
  ProgramView before = hlo_program("a", {{"s64", {}}, {"f32", {4}}, {"f32", {8, 128}}});
  ProgramView after = hlo_program("b", {{"s64", {}}, {"f32", {4}}, {"f32", {8, 128, 4}}});
  ProgramDiff d = diff_programs(before, after);
  expect_diff(d, "shape", "high", "param 2", "param 2: rank 2 -> 3 (f32[8,128] -> f32[8,128,4])",
              "HLO parameters");
  EXPECT_EQ(d.shape_param, 2);
  EXPECT_EQ(d.shape_dim, -1);
  EXPECT_FALSE(d.old_dim_value.has_value());
}

// --- graph_structure -----------------------------------------------------------------------

TEST(DiffPrograms, GraphStructureGivesTheOpDeltaSortedByOpcode) {
  ProgramView before = hlo_program("a", {{"f32", {8, 128}}});
  ProgramView after = before;
  after.program_key = "b";
  before.op_histogram = {{"add", 3}, {"copy", 1}, {"multiply", 2}, {"parameter", 1}};
  after.op_histogram = {{"add", 4}, {"multiply", 2}, {"parameter", 1}, {"zeros", 2}};
  after.structure_fingerprint = "s-other";
  after.full_fingerprint = "f-other";
  expect_diff(diff_programs(before, after), "graph_structure", "high", "ops",
              "same inputs, different ops: +1 add, -1 copy, +2 zeros",
              "HLO structure fingerprints and op histograms");
}

TEST(DiffPrograms, GraphStructureWithEqualHistograms) {
  ProgramView before = hlo_program("a", {{"f32", {8, 128}}});
  ProgramView after = before;
  after.structure_fingerprint = "s-rewired";
  after.full_fingerprint = "f-rewired";
  expect_diff(diff_programs(before, after), "graph_structure", "high", "ops",
              "same inputs, ops differ (same op counts; order or operands changed)",
              "HLO structure fingerprints and op histograms");
}

// --- constant ------------------------------------------------------------------------------

TEST(DiffPrograms, ScalarConstantWithMetadataReadsNaturally) {
  ProgramView before = hlo_program("a", {{"f32", {8, 128}}});
  before.constants = {constant(0, "constant.3", "f32[]", "0.5"),
                      constant(1, "constant.12", "s64[]", "3")};
  before.constants[1].user_op = "multiply";
  before.constants[1].source_file = "train.py";
  before.constants[1].source_line = 88;
  before.constants[1].op_name = "aten::mul";
  ProgramView after = before;
  after.constants[1].value_text = "4";
  after.full_fingerprint = "f-counter-4";
  ProgramDiff d = diff_programs(before, after);
  expect_diff(d, "constant", "high", "constant.12",
              "constant.12 s64[]: 3 -> 4 (used by multiply; train.py:88; aten::mul)",
              "HLO constants");
  expect_no_shape(d);
}

TEST(DiffPrograms, ConstantsWithoutMetadataAndWithoutNames) {
  ProgramView before = hlo_program("a", {{"f32", {8, 128}}});
  before.constants = {constant(0, "constant.3", "f32[]", "0.5"),
                      constant(1, "", "s32[2]", "{1, 2}"),
                      constant(2, "constant.9", "pred[]", "true")};
  ProgramView after = before;
  after.constants[0].value_text = "0.25";
  after.constants[1].value_text = "{1, 3}";
  after.full_fingerprint = "f-other";
  expect_diff(diff_programs(before, after), "constant", "high", "constant.3",
              "constant.3 f32[]: 0.5 -> 0.25; constant #1 s32[2]: {1, 2} -> {1, 3}",
              "HLO constants");
}

TEST(DiffPrograms, ManyChangedConstantsAreCapped) {
  ProgramView before = hlo_program("a", {{"f32", {8}}});
  for (int i = 0; i < 30; ++i)
    before.constants.push_back(
        constant(i, "constant." + std::to_string(100 + i), "f32[]", std::to_string(i)));
  before.constants[0].value_text = std::string(200, '7');  // a long value is clipped
  ProgramView after = before;
  for (auto& c : after.constants) c.value_text += "1";
  after.full_fingerprint = "f-other";
  ProgramDiff d = diff_programs(before, after);
  EXPECT_EQ(d.cause, "constant");
  EXPECT_EQ(d.subject, "constant.100");
  EXPECT_TRUE(d.detail.starts_with("constant.100 f32[]: " + std::string(37, '7') + "... -> " +
                                   std::string(37, '7') + "...; constant.101 f32[]: 1 -> 11; "))
      << d.detail;
  EXPECT_TRUE(d.detail.ends_with(" (+22 more)")) << d.detail;
  EXPECT_LE(d.detail.size(), 400u);
}

TEST(DiffPrograms, ElidedConstantsAreMediumAndSayValuesAreNotVisible) {
  ProgramView before = hlo_program("a", {{"f32", {8, 128}}});
  before.constants = {constant(0, "constant.1", "f32[]", "1"),
                      constant(1, "constant.2", "f32[8,128]", "{...}")};
  ProgramView after = before;
  after.full_fingerprint = "f-other";  // the elided table changed
  expect_diff(diff_programs(before, after), "constant", "medium", "elided constant",
              "same signature and structure, different constant values; the values are not "
              "visible (large constants are printed as {...})",
              "HLO fingerprints and constants");
}

TEST(DiffPrograms, FullFingerprintChangeWithNoVisibleConstantChangeIsMedium) {
  ProgramView before = hlo_program("a", {{"f32", {8, 128}}});
  before.constants = {constant(0, "constant.1", "f32[]", "1")};
  ProgramView after = before;
  after.full_fingerprint = "f-other";
  ProgramDiff d = diff_programs(before, after);
  EXPECT_EQ(d.cause, "constant");
  EXPECT_EQ(d.confidence, "medium");
  EXPECT_EQ(d.subject, "constants");
  // Different constant counts cannot be paired: also medium, with the counts.
  after.constants.push_back(constant(1, "constant.2", "f32[]", "2"));
  d = diff_programs(before, after);
  EXPECT_EQ(d.confidence, "medium");
  EXPECT_TRUE(d.detail.ends_with("; constant count 1 -> 2")) << d.detail;
}

TEST(DiffPrograms, VisibleChangeBeatsElidedOnes) {
  ProgramView before = hlo_program("a", {{"f32", {8, 128}}});
  before.constants = {constant(0, "constant.2", "f32[8,128]", "{...}"),
                      constant(1, "constant.7", "f32[]", "0.1")};
  ProgramView after = before;
  after.constants[1].value_text = "0.01";
  after.full_fingerprint = "f-other";
  expect_diff(diff_programs(before, after), "constant", "high", "constant.7",
              "constant.7 f32[]: 0.1 -> 0.01", "HLO constants");
}

// --- identical / no HLO --------------------------------------------------------------------

TEST(DiffPrograms, EqualFingerprintsAreTheSameProgramCompiledAgain) {
  ProgramView before = hlo_program("a", {{"f32", {8, 128}}});
  before.constants = {constant(0, "constant.1", "f32[]", "1")};
  ProgramView after = before;
  after.program_key = "b";
  ProgramDiff d = diff_programs(before, after);
  expect_diff(d, "unknown", "low", "same program",
              "the same program was compiled again: same inputs, ops and constants (HLO "
              "fingerprint f-f32[8,128]); the cache missed for a reason outside the program "
              "(cache eviction, another device or different compile options)",
              "HLO fingerprints");
  expect_no_shape(d);
}

TEST(DiffPrograms, NoHloInputCountChangeIsKeySubsetMedium) {
  expect_diff(diff_programs(debug_only("a", 7, 3), debug_only("b", 9, 3)), "key_subset", "medium",
              "graph inputs", "number of graph inputs changed: 7 -> 9",
              "PT_XLA_DEBUG graph input counts");
  expect_diff(diff_programs(debug_only("a", 9, 4), debug_only("b", 7, 3)), "key_subset", "medium",
              "graph inputs", "number of graph inputs changed: 9 -> 7; graph outputs: 4 -> 3",
              "PT_XLA_DEBUG graph input counts");
}

TEST(DiffPrograms, NoHloSameInputsIsUnknownWithAdvice) {
  ProgramDiff d = diff_programs(debug_only("a", 7, 3), debug_only("b", 7, 4));
  expect_diff(d, "unknown", "low", "no HLO",
              "no HLO captured for either program; graph inputs unchanged (7); graph outputs "
              "changed: 3 -> 4; capture HLO to decide: XLA_SAVE_TENSORS_FILE=FILE with "
              "XLA_SAVE_TENSORS_FMT=hlo, or XLA_FLAGS=--xla_dump_to=DIR",
              "PT_XLA_DEBUG graph input counts");
  ProgramDiff nothing = diff_programs(debug_only("a", {}, {}), debug_only("b", {}, {}));
  EXPECT_EQ(nothing.cause, "unknown");
  EXPECT_EQ(nothing.evidence, "none");
  EXPECT_EQ(nothing.detail,
            "no HLO captured for either program; capture HLO to decide: "
            "XLA_SAVE_TENSORS_FILE=FILE with XLA_SAVE_TENSORS_FMT=hlo, or "
            "XLA_FLAGS=--xla_dump_to=DIR");
}

TEST(DiffPrograms, HloOnOneSideOnlyComparesInputCounts) {
  ProgramView with_hlo = hlo_program("a", {{"f32", {8}}, {"f32", {8}}, {"s64", {}}});
  expect_diff(diff_programs(with_hlo, debug_only("b", 4, 1)), "key_subset", "medium",
              "graph inputs", "number of graph inputs changed: 3 -> 4",
              "PT_XLA_DEBUG graph input counts");
  ProgramDiff same = diff_programs(debug_only("b", 3, 1), with_hlo);
  EXPECT_EQ(same.cause, "unknown");
  EXPECT_TRUE(
      same.detail.starts_with("no HLO captured for the previous program; graph inputs "
                              "unchanged (3); "))
      << same.detail;
}

// --- choose_previous -----------------------------------------------------------------------

TEST(ChoosePrevious, PrefersSameSignatureAndStructureOverNewer) {
  ProgramView current = hlo_program("cur", {{"f32", {8, 128}}});
  ProgramView match = hlo_program("old", {{"f32", {8, 128}}});
  ProgramView other_structure = match;
  other_structure.structure_fingerprint = "s-other";
  ProgramView other_signature = hlo_program("new", {{"f32", {16, 128}}});
  other_signature.structure_fingerprint = current.structure_fingerprint;
  std::vector<const ProgramView*> earlier = {&match, &other_structure, &other_signature};
  EXPECT_EQ(choose_previous(earlier, current), 0);
  // Without the exact match: same signature beats same structure.
  earlier = {&other_structure, &other_signature};
  EXPECT_EQ(choose_previous(earlier, current), 0);
  // Then the same structure.
  ProgramView unrelated = hlo_program("x", {{"s32", {3}}});
  earlier = {&other_signature, &unrelated};
  EXPECT_EQ(choose_previous(earlier, current), 0);
  // Then simply the latest.
  ProgramView unrelated2 = hlo_program("y", {{"s32", {5}}});
  earlier = {&unrelated, &unrelated2};
  EXPECT_EQ(choose_previous(earlier, current), 1);
}

TEST(ChoosePrevious, TheMostRecentOfEqualCandidatesAndEmpty) {
  ProgramView current = hlo_program("cur", {{"f32", {8}}});
  ProgramView a = hlo_program("a", {{"f32", {8}}});
  ProgramView b = hlo_program("b", {{"f32", {8}}});
  ProgramView c = hlo_program("c", {{"f32", {2}}});
  EXPECT_EQ(choose_previous({&a, &b, &c}, current), 1);
  EXPECT_EQ(choose_previous({}, current), -1);
}

TEST(ChoosePrevious, WithoutHloByInputCount) {
  ProgramView current = debug_only("cur", 7, 2);
  ProgramView seven = debug_only("a", 7, 2);
  ProgramView nine = debug_only("b", 9, 2);
  ProgramView unknown_count = debug_only("c", {}, {});
  EXPECT_EQ(choose_previous({&seven, &nine, &unknown_count}, current), 0);
  EXPECT_EQ(choose_previous({&nine, &unknown_count}, current), 1);
  // A program with HLO is compared by input count against one without.
  ProgramView hlo_seven = hlo_program("h", {{"f32", {1}}});
  hlo_seven.input_count = 7;
  EXPECT_EQ(choose_previous({&hlo_seven, &nine}, current), 0);
}

// --- from HLO text -------------------------------------------------------------------------

ingest::HloModule parse_module(std::string_view text) {
  ingest::HloTextParser parser;
  int64_t line_no = 0;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t nl = text.find('\n', pos);
    size_t end = nl == std::string_view::npos ? text.size() : nl;
    parser.feed(text.substr(pos, end - pos), ++line_no);
    pos = end + 1;
  }
  parser.finish();
  auto modules = parser.take_modules();
  EXPECT_EQ(modules.size(), 1u);
  return modules.empty() ? ingest::HloModule() : modules[0];
}

// What the loader does with hlo_module / hlo_parameter / hlo_constant rows.
ProgramView view_of(const ingest::HloModule& m, std::string key) {
  ProgramView v;
  v.program_key = std::move(key);
  v.has_hlo = true;
  for (const auto& p : m.parameters)
    v.parameters.push_back({p.number, p.dtype, p.dims, p.shape_text});
  for (size_t i = 0; i < m.constants.size(); ++i) {
    const auto& c = m.constants[i];
    v.constants.push_back({static_cast<int64_t>(i), c.name, c.shape_text, c.value_text, c.elided,
                           c.user_op, c.op_name, c.source_file, c.source_line});
  }
  v.op_histogram = m.op_histogram;
  v.structure_fingerprint = m.structure_fingerprint;
  v.full_fingerprint = m.full_fingerprint;
  return v;
}

std::string replace_all(std::string text, std::string_view from, std::string_view to) {
  size_t count = 0;
  for (size_t pos = text.find(from); pos != std::string::npos; pos = text.find(from, pos)) {
    text.replace(pos, from.size(), to);
    pos += to.size();
    ++count;
  }
  EXPECT_GT(count, 0u) << from;
  return text;
}

TEST(DiffProgramsFromHlo, ScalarConstantChangeInRealTorchXlaModule) {
  const std::string text = rcf::testing::read_fixture("xla/hlo_pr3920_hlo_debug.txt");
  ProgramView before = view_of(parse_module(text), "g1");
  ProgramView after = view_of(
      parse_module(replace_all(text, "constant(0), metadata", "constant(2), metadata")), "g2");
  ASSERT_EQ(input_signature(before), "f32[] f32[] f32[] f32[]");
  ProgramDiff d = diff_programs(before, after);
  expect_diff(d, "constant", "high", "constant.20",
              "constant.20 f32[]: 0 -> 2 (used by multiply; <module>@test_para.py:11; "
              "prim__Constant)",
              "HLO constants");
  EXPECT_EQ(choose_previous({&before}, after), 0);
}

TEST(DiffProgramsFromHlo, ParameterDimChangeInRealDumpModule) {
  const std::string text = rcf::testing::read_fixture("xla/hlo_before_opt_issue7053.txt");
  ProgramView before = view_of(parse_module(text), "g1");
  ProgramView after =
      view_of(parse_module(replace_all(text, "f32[28,4,480,640]", "f32[32,4,480,640]")), "g2");
  ProgramDiff d = diff_programs(before, after);
  expect_diff(d, "shape", "high", "param 3 dim 0", "param 3 dim 0: 28 -> 32", "HLO parameters");
  EXPECT_EQ(d.shape_param, 3);
  EXPECT_EQ(d.shape_dim, 0);
  EXPECT_EQ(d.old_dim_value, 28);
  EXPECT_EQ(d.new_dim_value, 32);
}

TEST(DiffProgramsFromHlo, GeneratedModuleCompiledTwiceAndWithAnEditedConstant) {
  const std::string text = rcf::testing::make_hlo_module_text(3, 6000, 11);
  ProgramView before = view_of(parse_module(text), "g1");
  ASSERT_FALSE(before.constants.empty());
  EXPECT_EQ(diff_programs(before, view_of(parse_module(text), "g2")).cause, "unknown");

  // Edit the first visible scalar constant: `= f32[] constant(V)` -> `constant(42)`.
  const ProgramConstant* target = nullptr;
  for (const auto& c : before.constants)
    if (!c.elided && c.shape_text == "f32[]") {
      target = &c;
      break;
    }
  ASSERT_NE(target, nullptr);
  const std::string from = "%" + target->name + " = f32[] constant(" + target->value_text + ")";
  const std::string to = "%" + target->name + " = f32[] constant(42)";
  ProgramView after = view_of(parse_module(replace_all(text, from, to)), "g2");
  ProgramDiff d = diff_programs(before, after);
  EXPECT_EQ(d.cause, "constant");
  EXPECT_EQ(d.confidence, "high");
  EXPECT_EQ(d.subject, target->name);
  ASSERT_FALSE(target->user_op.empty());
  EXPECT_TRUE(d.detail.starts_with(target->name + " f32[]: " + target->value_text +
                                   " -> 42 (used by " + target->user_op + "; "))
      << d.detail;

  // A different generated module at the same site: its inputs or structure differ.
  ProgramView other = view_of(parse_module(rcf::testing::make_hlo_module_text(4, 6000, 11)), "g3");
  EXPECT_NE(diff_programs(before, other).cause, "unknown");
}

}  // namespace program_diff_test
}  // namespace rcf::analysis
