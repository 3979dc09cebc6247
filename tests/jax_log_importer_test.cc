// JAX log importer: exact events and line fates for every fixtures/xla/jax_* file (expected values
// read off the files by hand), one synthetic line per wording era of docs/jax_log.md,
// and robustness cases.
#include "ingest/jax/jax_log_importer.h"

#include <gtest/gtest.h>

#include <charconv>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "tests/support/importer_test.h"

namespace rcf::ingest {
namespace jax_log_importer_test {

using namespace rcf::testing;  // tests/support/importer_test.h

CollectingSink run(std::string_view text) {
  return rcf::testing::run_importer("jax_log", text);
}

std::string fixture(const std::string& name) {
  return rcf::testing::read_fixture("xla/" + name);
}

std::string number(std::optional<double> value) {
  if (!value) return "-";
  char buf[64];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, *value);
  return std::string(buf, end);
}

std::string describe(const JaxCompile& c) {
  return "L" + std::to_string(c.line) + " " + c.phase + " " + c.function + " " + number(c.seconds) +
         " | " + c.signature;
}
std::string describe(const JaxCacheMiss& m) {
  return "L" + std::to_string(m.line) + " " + m.cause_class + " " + m.function + " @ " + m.location;
}
std::string describe(const JaxPersistentCache& p) {
  return "L" + std::to_string(p.line) + " " + p.event + " " + p.function + " " + number(p.seconds) +
         " key=" + p.key;
}

template <typename T>
Strings all(const CollectingSink& sink) {
  Strings out;
  for (const T& e : sink.all<T>()) out.push_back(describe(e));
  return out;
}

int sniff(std::string_view head) {
  return find_importer("jax_log")->sniff(head);
}

const std::string kMatmulKey =
    "jit_matrix_multiply-fa478e4ead6882a4c14cc1366d30f8efc783165c9cb16536e025357428373990";
const std::string kHex = "2d711642b726b04401627ca9fbac32f5c8530fb1903cc4db02258717921a4881";

// ---------------------------------------------------------------------------------------------
// Fixtures.

TEST(JaxLogImporter, Desc1191BarePjitEra) {
  std::string text = fixture("jax_log_compiles_desc1191.txt");
  CollectingSink sink = run(text);
  const std::string f64 = "[ShapedArray(float64[298])]";
  EXPECT_EQ(
      all<JaxCompile>(sink),
      (Strings{"L1 trace jac_scaled 2.1464920043945312 | ", "L2 compiling jac_scaled - | []",
               "L3 lower jac_scaled 0.13467741012573242 | ",
               "L4 compile jac_scaled 0.7804932594299316 | ",
               "L5 trace compute_scaled_error 0.4098942279815674 | ",
               "L6 compiling compute_scaled_error - | " + f64,
               "L7 lower compute_scaled_error 0.09883785247802734 | ",
               "L8 compile compute_scaled_error 0.16284894943237305 | ",
               "L9 trace project 0.0073757171630859375 | ", "L10 compiling project - | " + f64,
               "L11 lower project 0.014415740966796875 | ",
               "L12 compile project 0.07303285598754883 | ",
               "L13 trace recover 0.01389932632446289 | ",
               "L14 compiling recover - | [ShapedArray(float64[120])]"}));
  EXPECT_EQ(sink.events.size(), 14u);
  EXPECT_EQ(sink.all<JaxCompile>()[3].raw,
            "Finished XLA compilation of jit(jac_scaled) in 0.7804932594299316 sec");
  EXPECT_TRUE(sink.notes.empty());
  EXPECT_EQ(parsed_lines(sink, line_count(text)), range(1, 14));
  EXPECT_EQ(sniff(text), 85);
}

TEST(JaxLogImporter, Issue25768JaxFormatterPrefix) {
  std::string text = fixture("jax_log_compiles_issue25768.txt");
  CollectingSink sink = run(text);
  EXPECT_EQ(all<JaxCompile>(sink),
            (Strings{"L1 trace broadcast_in_dim 0.000183344 | ",
                     "L2 compiling broadcast_in_dim - | [ShapedArray(float32[])]"}));
  EXPECT_EQ(sink.all<JaxCompile>()[1].raw,
            "Compiling broadcast_in_dim with global shapes and types [ShapedArray(float32[])]. "
            "Argument mapping: (UnspecifiedValue,).");
  EXPECT_EQ(sink.events.size(), 2u);
  EXPECT_TRUE(sink.notes.empty());
  EXPECT_EQ(sniff(text), 85);
}

TEST(JaxLogImporter, PersistentCachePr22556UserFormatter) {
  std::string text = fixture("jax_persistent_cache_pr22556.txt");
  CollectingSink sink = run(text);
  EXPECT_EQ(all<JaxPersistentCache>(sink),
            (Strings{"L1 write matrix_multiply - key=" + kMatmulKey,
                     "L2 miss convert_element_type - key=jit_convert_element_type-"
                     "92121ef34fa61ce74b4dad69c9ff3d93d790dbdf2ac0c7664ab8933c8cb46c27",
                     "L3 miss matrix_multiply - key=" + kMatmulKey,
                     "L4 hit matrix_multiply - key=" + kMatmulKey}));
  EXPECT_EQ(sink.events.size(), 4u);
  EXPECT_TRUE(sink.notes.empty());
  EXPECT_EQ(sniff(text), 85);
}

TEST(JaxLogImporter, ExplainPr27980PytestNeverSeenAndShape) {
  std::string text = fixture("jax_explain_pr27980.txt");
  CollectingSink sink = run(text);
  const std::string test_file = "/Users/necula/Source/jax/tests/api_test.py";
  EXPECT_EQ(all<JaxCacheMiss>(sink), (Strings{"L1 never_seen f @ " + test_file + ":4480",
                                              "L5 shape f @ " + test_file + ":4662"}));
  auto misses = sink.all<JaxCacheMiss>();
  ASSERT_EQ(misses.size(), 2u);
  EXPECT_EQ(misses[0].detail,
            "  never seen function:\n    f id=5904421952 defined at " + test_file + ":4480");
  EXPECT_EQ(misses[1].detail,
            "  for f defined at " + test_file +
                ":4662\n"
                "  all previously seen cache keys are different. Several previous keys are "
                "closest:\n"
                "  * key with different input types:\n"
                "      types now: x: f32[8]\n"
                "        * at x, now f32[8] and before f32[4]\n"
                "  * key with different tracing context, e.g. due to config or context "
                "manager.\n"
                "    found differences at positions\n"
                "      [6]: now raise and before warn\n"
                "    compare to tuple returned by config.trace_context() in jax/_src/config.py.");
  EXPECT_EQ(sink.events.size(), 2u);
  EXPECT_EQ(sink.note_counts(), (Notes{{"skipped:pytest_noise", 2}}));
  EXPECT_EQ(parsed_lines(sink, line_count(text)),
            (Lines{1, 2, 3, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14}));
  EXPECT_EQ(sniff(text), 85);
}

TEST(JaxLogImporter, ExplainIssue22281WithDebugCompilerLines) {
  std::string text = fixture("jax_explain_issue22281.txt");
  CollectingSink sink = run(text);
  EXPECT_EQ(all<JaxCacheMiss>(sink),
            (Strings{"L1 never_seen convert_element_type @ "
                     "/nix/store/769bv4hg2xakyd6fw81sg8h1i6sp3a1c-python3-3.11.9-env/lib/"
                     "python3.11/site-packages/jax/_src/dispatch.py:94"}));
  EXPECT_EQ(sink.events.size(), 1u);
  EXPECT_EQ(sink.note_counts(), (Notes{{"skipped:other_jax_message", 2}}));
  EXPECT_EQ(parsed_lines(sink, line_count(text)), (Lines{1, 2, 3}));
  EXPECT_EQ(sniff(text), 85);
}

// ---------------------------------------------------------------------------------------------
// jax_log_compiles wordings (docs/jax_log.md).

TEST(JaxLogImporter, CompileWordingsOfEveryEra) {
  CollectingSink sink = run(
      // HEAD (jax >= 0.10): top-level jit only.
      "WARNING:2026-08-01 10:00:00,001:jax._src.pjit:100: Finished tracing f for jit in "
      "0.000123456 sec\n"
      // 2021-22.
      "WARNING:absl:Finished tracing + transforming g for jit in 0.0012 sec\n"
      // 0.7+: `jit(f)` in the Compiling line; tuple argument mapping.
      "Compiling jit(f) with global shapes and types [ShapedArray(float32[8])]. Argument "
      "mapping: (UnspecifiedValue,).\n"
      // Jul 2022 - 0.4.28: `for with` (sic), no argument mapping, trailing space.
      "WARNING:jax._src.interpreters.pxla:Compiling g for with global shapes and types "
      "[ShapedArray(float32[3]), ShapedArray(int32[], weak_type=True)]. \n"
      // 2021.
      "WARNING:absl:Compiling h (140417529333056) for args (ShapedArray(float32[], "
      "weak_type=True),).\n"
      // pmap.
      "WARNING:absl:Compiling p (140417529333999) for 8 devices with args "
      "[ShapedArray(float32[8,4])]. (num_replicas=8 num_partitions=1)\n"
      "Finished jaxpr to MLIR module conversion jit(f) in 0.001 sec\n"
      "Finished XLA compilation of jit(_psum) in 5e-05 sec\n");
  EXPECT_EQ(all<JaxCompile>(sink),
            (Strings{"L1 trace f 0.000123456 | ", "L2 trace g 0.0012 | ",
                     "L3 compiling f - | [ShapedArray(float32[8])]",
                     "L4 compiling g - | [ShapedArray(float32[3]), ShapedArray(int32[], "
                     "weak_type=True)]",
                     "L5 compiling h - | (ShapedArray(float32[], weak_type=True),)",
                     "L6 compiling p - | [ShapedArray(float32[8,4])]", "L7 lower f 0.001 | ",
                     "L8 compile _psum 5e-05 | "}));
  EXPECT_TRUE(sink.notes.empty());
}

TEST(JaxLogImporter, PrefixesPytestAndUnknownFormatters) {
  CollectingSink sink =
      run("2024-07-22 11:56:03,008 - jax._src.compiler - DEBUG - Finished XLA compilation of "
          "jit(a) in 0.5 sec\n"
          "tests/a_test.py::T::test_b WARNING:absl:Finished XLA compilation of jit(b) in 0.25 sec "
          "PASSED\n"
          "tests/a_test.py::T::test_c PASSED [ 50%]\n"
          "[rank0] 12:00:01 | Finished XLA compilation of jit(c) in 1.5 sec\n"
          "I0108 11:37:25.064000 140 pxla.py:1906] Finished XLA compilation of jit(d) in 2 sec\n"
          "Epoch 1: loss 0.25\n"
          "Compiling the model...\n"
          "\n");
  EXPECT_EQ(all<JaxCompile>(sink), (Strings{"L1 compile a 0.5 | ", "L2 compile b 0.25 | ",
                                            "L4 compile c 1.5 | ", "L5 compile d 2 | "}));
  EXPECT_EQ(
      sink.note_counts(),
      (Notes{{"skipped:pytest_noise", 1}, {"skipped:other_output", 2}, {"skipped:blank", 1}}));
  EXPECT_EQ(parsed_lines(sink, 8), (Lines{1, 2, 4, 5}));
}

TEST(JaxLogImporter, BadCompileLinesAreRejected) {
  CollectingSink sink =
      run("Finished XLA compilation of jit(f) in soon sec\n"
          "Finished tracing + transforming f for xmap in 0.1 sec\n"
          "Finished jaxpr to MLIR module conversion  in 0.1 sec\n");
  EXPECT_TRUE(sink.events.empty());
  EXPECT_EQ(sink.note_counts(), (Notes{{"rejected:bad_jax_compile_line", 3}}));
}

// A negative, non-finite or year-long time is no evidence (util/plausible.h): the compile or
// cache event is kept without it, and its line warned.
TEST(JaxLogImporter, TimesOutOfRangeAreDroppedAndWarned) {
  CollectingSink sink =
      run("Finished XLA compilation of jit(f) in -0.5 sec\n"
          "Finished XLA compilation of jit(g) in nan sec\n"
          "Finished tracing + transforming h for pjit in 1e300 sec\n"
          "Finished jaxpr to MLIR module conversion jit(k) in inf sec\n"
          "Finished XLA compilation of jit(m) in 0.25 sec\n"
          "Not writing persistent cache entry for 'jit_n' because it took < 1.00 seconds to "
          "compile (-3.5s)\n");
  EXPECT_EQ(all<JaxCompile>(sink),
            (Strings{"L1 compile f - | ", "L2 compile g - | ", "L3 trace h - | ", "L4 lower k - | ",
                     "L5 compile m 0.25 | "}));
  EXPECT_EQ(all<JaxPersistentCache>(sink), (Strings{"L6 skip n - key="}));
  EXPECT_EQ(sink.note_counts(), (Notes{{"warning:implausible_duration", 5}}));
}

// ---------------------------------------------------------------------------------------------
// jax_explain_cache_misses wordings (docs/jax_log.md).

struct MissCase {
  const char* name;
  std::string text;
  std::string expected;  // describe() of the one event
};

TEST(JaxLogImporter, CacheMissCausesOfEveryEra) {
  const std::string head =
      "WARNING:2026-08-01 10:00:00,000:jax._src.interpreters.partial_eval:123: TRACING CACHE "
      "MISS at /u/train.py:40:8 (main):\n";
  const std::string head_for = head +
                               "  for step defined at /u/train.py:12\n"
                               "  all previously seen cache keys differ. For the closest "
                               "previous key:\n";
  const std::string old =
      "WARNING:jax._src.pjit:TRACING CACHE MISS at /u/t.py:9:2 (<module>) because:\n";
  const std::string old_for = old +
                              "  for g defined at /u/t.py:3\n"
                              "  all previously seen cache keys are different. Closest "
                              "previous key:\n";
  const std::vector<MissCase> cases = {
      {"head_never_seen_redefined",
       head + "  never seen function:\n    step id=4400 defined at /u/train.py:12\n"
              "  but seen another function defined on the same line; maybe the function is\n"
              "  being re-defined repeatedly, preventing caching?\n",
       "L1 never_seen step @ /u/train.py:12"},
      {"head_shape",
       head_for + "  different input types:\n  * at x, now f32[2] and before f32[1]\n",
       "L1 shape step @ /u/train.py:12"},
      {"head_dtype",
       head_for + "  different input types:\n  * at x, now i32[8] and before f32[8]\n",
       "L1 dtype step @ /u/train.py:12"},
      {"head_weak_type",
       head_for + "  different input types:\n  * at y, now f32[] and before "
                  "f32[]{weak_type=True}https://docs.jax.dev/en/latest/"
                  "type_promotion.html#weak-types\n",
       "L1 weak_type step @ /u/train.py:12"},
      {"head_sharding_only",
       head_for + "  different input types:\n  * at x, now f32[8]({Auto: ('x',)}) and before "
                  "f32[8]\n",
       "L1 other step @ /u/train.py:12"},
      {"head_context",
       head_for + "  Tracing context doesn't match, e.g. due to config or context manager.\n"
                  "  * jax_enable_x64 differs: now True and before False\n",
       "L1 context step @ /u/train.py:12"},
      {"head_pytree",
       head_for + "  different input pytree:\n  * at input path [0]['a'], now dict and before "
                  "list, so the node types differ\n",
       "L1 pytree step @ /u/train.py:12"},
      {"head_debug_info", head_for + "  Debug info doesn't match.\n",
       "L1 other step @ /u/train.py:12"},
      {"head_unavailable", head_for + "  cache miss explanation unavailable\n",
       "L1 other step @ /u/train.py:12"},
      {"v06_static_args",
       old_for + "  * key with different value of static args:\n  now (2,) and before (1,)\n",
       "L1 static_arg g @ /u/t.py:3"},
      {"v06_static_argnums", old_for + "  * key with different static_argnums:\n",
       "L1 static_arg g @ /u/t.py:3"},
      {"v06_pytree_args",
       old_for + "  * key with different input pytree:\n"
                 "  different number of args and kwargs, but same total number.\n",
       "L1 pytree g @ /u/t.py:3"},
      {"v06_unavailable",
       old_for +
           "explanation unavailable! please open an issue at https://github.com/jax-ml/jax.\n",
       "L1 other g @ /u/t.py:3"},
      {"v06_generic_field",
       old_for + "  different donate_argnums:\n    now: (0,)\n != before: ().\n",
       "L1 other g @ /u/t.py:3"},
      {"v0424_shape",
       old + "  never seen input type signature:\n    x: f32[4]\n"
             "  closest seen input type signature has 1 mismatches, including:\n"
             "    * at x, seen f32[3], but now given f32[4]\n",
       "L1 shape  @ /u/t.py:9"},
      {"v0424_weak_type_hint",
       old + "  never seen input type signature:\n    y: f32[]\n"
             "  closest seen input type signature has 1 mismatches, including:\n"
             "    * at y, seen f32[]{weak_type=True}, but now given f32[]\n"
             "where weak_type=True often means a Python builtin numeric value, and \n"
             "weak_type=False means a jax.Array.\n"
             "See https://jax.readthedocs.io/en/latest/type_promotion.html#weak-types\n",
       "L1 weak_type  @ /u/t.py:9"},
      {"v0424_passing_args",
       old + "  never seen passing 2 positional args and 1 keyword args with keys:\n    b\n",
       "L1 pytree  @ /u/t.py:9"},
      {"v0424_context",
       old + "  tracing context doesn't match, e.g. due to config or context manager\n",
       "L1 context  @ /u/t.py:9"},
      {"v0424_pytree", old + "  never seen input pytree\n", "L1 pytree  @ /u/t.py:9"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    CollectingSink sink = run(c.text);
    EXPECT_EQ(all<JaxCacheMiss>(sink), (Strings{c.expected}));
    EXPECT_EQ(sink.events.size(), 1u);
    EXPECT_TRUE(sink.notes.empty()) << sink.notes.front().reason;
    // Every line of the explanation is part of the event; detail keeps them verbatim.
    int64_t lines = line_count(c.text);
    EXPECT_EQ(parsed_lines(sink, lines), range(1, lines));
    std::string body = c.text.substr(c.text.find('\n') + 1);
    body.pop_back();
    EXPECT_EQ(sink.all<JaxCacheMiss>()[0].detail, body);
  }
}

TEST(JaxLogImporter, ExplanationGroupedAcrossInterleavedDebugLines) {
  CollectingSink sink = run(
      "WARNING:2024-07-04 16:05:36,300:jax._src.pjit:1365: TRACING CACHE MISS at /u/t.py:17:4 "
      "(<module>) because:\n"
      "DEBUG:2024-07-04 16:05:36,312:jax._src.compiler:143: get_compile_options: num_replicas=1\n"
      "  for g defined at /u/t.py:3\n"
      "DEBUG:2024-07-04 16:05:36,312:jax._src.dispatch:182: Finished tracing + transforming "
      "convert_element_type for pjit in 0.0001 sec\n"
      "  never seen input type signature:\n"
      "    x: f32[4]\n"
      "  closest seen input type signature has 1 mismatches, including:\n"
      "    * at x, seen i32[4], but now given f32[4]\n"
      "Step 3 done\n"
      "  this indented line belongs to nothing\n");
  EXPECT_EQ(all<JaxCacheMiss>(sink), (Strings{"L1 dtype g @ /u/t.py:3"}));
  EXPECT_EQ(all<JaxCompile>(sink), (Strings{"L4 trace convert_element_type 1e-04 | "}));
  EXPECT_EQ(sink.all<JaxCacheMiss>()[0].detail,
            "  for g defined at /u/t.py:3\n  never seen input type signature:\n    x: f32[4]\n"
            "  closest seen input type signature has 1 mismatches, including:\n"
            "    * at x, seen i32[4], but now given f32[4]");
  // `Step 3 done` is the user's progress line (docs/training_steps.md), a step marker.
  ASSERT_EQ(sink.all<StepMarker>().size(), 1u);
  EXPECT_EQ(sink.all<StepMarker>()[0].step, 3);
  EXPECT_EQ(sink.note_counts(),
            (Notes{{"skipped:other_jax_message", 1}, {"skipped:other_output", 1}}));
  EXPECT_EQ(parsed_lines(sink, 10), (Lines{1, 3, 4, 5, 6, 7, 8, 9}));
}

TEST(JaxLogImporter, ExplanationsEndAtTheNextHeaderAndAtLinesNotTheirsAfterOtherOutput) {
  CollectingSink sink =
      run("TRACING CACHE MISS at a.py:1:0 (<module>) because:\n"
          "  never seen function:\n"
          "    f id=1 defined at a.py:1\n"
          "TRACING CACHE MISS at a.py:2:0 (<module>) because:\n"
          "  never seen function:\n"
          "    g id=2 defined at a.py:2\n"
          "\n"
          "  an indented line of some other output\n");
  EXPECT_EQ(all<JaxCacheMiss>(sink),
            (Strings{"L1 never_seen f @ a.py:1", "L4 never_seen g @ a.py:2"}));
  EXPECT_EQ(sink.all<JaxCacheMiss>()[1].detail,
            "  never seen function:\n    g id=2 defined at a.py:2");
  EXPECT_EQ(sink.note_counts(), (Notes{{"skipped:blank", 1}, {"skipped:other_output", 1}}));
}

// Another thread's output (a print, a blank line) can land inside an explanation, even right
// after its header (fixtures/real_runs, a console with other output between its lines): up to
// two such lines in a row, the explanation goes on when its own wording follows.
TEST(JaxLogImporter, AnExplanationGoesOnAcrossInterleavedOutput) {
  CollectingSink sink = run(
      "TRACING CACHE MISS at z.py:63:15 (step_fn):\n"
      "Epoch 1/3\n"
      "  for apply_layers defined at z.py:53\n"
      "\n"
      "  all previously seen cache keys differ. For the closest previous key:\n"
      "  cache miss explanation unavailable\n"
      "step 2/6 loss 0.1\n"
      "Compiling jit(apply_layers) with global shapes and types (ShapedArray(float32[16,32]),). "
      "Argument mapping: (UnspecifiedValue,).\n");
  EXPECT_EQ(all<JaxCacheMiss>(sink), (Strings{"L1 other apply_layers @ z.py:53"}));
  ASSERT_EQ(sink.all<StepMarker>().size(), 1u);  // the progress line inside is still read
  EXPECT_EQ(sink.all<StepMarker>()[0].step, 2);
  EXPECT_EQ(sink.note_counts(), (Notes{{"skipped:blank", 1}, {"skipped:other_output", 1}}));
  // Three lines of other output in a row end it.
  CollectingSink ended =
      run("TRACING CACHE MISS at z.py:63:15 (step_fn):\nx\ny\nz\n  for f defined at z.py:1\n");
  EXPECT_EQ(all<JaxCacheMiss>(ended), (Strings{"L1 other  @ z.py:63"}));
}

TEST(JaxLogImporter, TruncatedAndBadExplanations) {
  // Cut right after the header (end of a pasted snippet): kept, cause unknown, warned.
  CollectingSink cut = run("TRACING CACHE MISS at a.py:1:0 (f) because:\n");
  EXPECT_EQ(all<JaxCacheMiss>(cut), (Strings{"L1 other  @ a.py:1"}));
  EXPECT_EQ(cut.note_counts(), (Notes{{"warning:truncated_block", 1}}));

  CollectingSink types_cut =
      run("TRACING CACHE MISS at a.py:1:0 (f) because:\n  for f defined at a.py:1\n"
          "  different input types:\n");
  EXPECT_EQ(all<JaxCacheMiss>(types_cut), (Strings{"L1 other f @ a.py:1"}));
  EXPECT_EQ(types_cut.note_counts(), (Notes{{"warning:truncated_block", 1}}));
  EXPECT_EQ(types_cut.notes[0].line, 3);

  CollectingSink bad = run("TRACING CACHE MISS at \n  never seen\n");
  EXPECT_TRUE(bad.events.empty());
  EXPECT_EQ(bad.note_counts(),
            (Notes{{"rejected:bad_cache_miss_header", 1}, {"skipped:other_output", 1}}));
}

// A header a terminal cut (the rest of it on a line of its own) is still a miss, and its fields
// are still read.
TEST(JaxLogImporter, CutHeadersAreStillMisses) {
  const std::string fields =
      "  never seen function:\n    true_fn id=1786 defined at m.py:15\n"
      "  but seen another function defined on the same line; maybe the function is\n"
      "  being re-defined repeatedly, preventing caching?\n";
  for (std::string cut :
       {"TRACING CACHE MISS at .../nnx/transforms/tr\nansforms.py:623:19 (cond):\n",
        "TRACING CACHE MISS at t.py:623:19 (co\nnd):\n",
        "TRACING CACHE MISS at t.py:623:19 (cond)\n"}) {
    CollectingSink sink = run(cut + fields);
    EXPECT_EQ(all<JaxCacheMiss>(sink), (Strings{"L1 never_seen true_fn @ m.py:15"})) << cut;
    EXPECT_EQ(sink.note_counts().count("warning:cut_cache_miss_header"), 1u) << cut;
  }
}

// ---------------------------------------------------------------------------------------------
// Persistent cache wordings (docs/jax_log.md).

TEST(JaxLogImporter, PersistentCacheWordings) {
  const std::string key = "jit_f-" + kHex;
  CollectingSink sink = run(
      // Before PR #22556: no key.
      "DEBUG:jax._src.compiler:Persistent compilation cache hit for 'jit_f'\n"
      "WARNING:jax._src.compiler:Persistent compilation cache hit for 'jit_f' with key '" +
      key +
      "'\n"
      "Writing jit_f to persistent compilation cache with key " +
      key +
      ".\n"
      "Not writing persistent cache entry for 'jit_f' because it took < 1.00 seconds to "
      "compile (0.23s)\n"
      "Not writing persistent cache entry since process_id != 0\n"
      "Not writing persistent cache entry with key 'jit_g-" +
      kHex +
      "' since its size (10 bytes) is less than threshold (100 bytes)\n"
      "Not writing persistent cache entry with key 'jit_h-" +
      kHex +
      "' since cache is disabled/not initialized\n"
      "DEBUG:jax._src.lru_cache:Cache miss for key: '" +
      key +
      "'\n"
      "DEBUG:jax._src.lru_cache:Cache hit for key: '" +
      key +
      "'\n"
      "PERSISTENT COMPILATION CACHE MISS for 'jit__psum' with key 'jit__psum-" +
      kHex + "'\n" + "Persistent compilation cache hit for\n");
  EXPECT_EQ(all<JaxPersistentCache>(sink),
            (Strings{"L1 hit f - key=", "L2 hit f - key=" + key, "L3 write f - key=" + key,
                     "L4 skip f 0.23 key=", "L5 skip  - key=", "L6 skip g - key=jit_g-" + kHex,
                     "L7 skip h - key=jit_h-" + kHex, "L10 miss _psum - key=jit__psum-" + kHex}));
  EXPECT_EQ(sink.note_counts(),
            (Notes{{"skipped:lru_cache_detail", 2}, {"rejected:bad_persistent_cache_line", 1}}));
}

// ---------------------------------------------------------------------------------------------
// Sniffing and robustness.

TEST(JaxLogImporter, Sniff) {
  EXPECT_EQ(sniff("Finished tracing + transforming f for pjit in 0.1 sec\n"), 85);
  EXPECT_EQ(sniff("x\nCompiling f with global shapes and types []. Argument mapping: [].\n"), 85);
  EXPECT_EQ(sniff("TRACING CACHE MISS at a.py:1:0 (f):\n"), 85);
  EXPECT_EQ(sniff("Finished XLA compilation of jit(f) in 0.1 sec\n"), 85);
  EXPECT_EQ(sniff("Persistent compilation cache hit for 'jit_f'\n"), 85);
  EXPECT_EQ(sniff("DEBUG:jax._src.compiler:anything\n"), 85);
  EXPECT_EQ(sniff("Compiling the model\nwith global shapes\n"), 0);
  EXPECT_EQ(sniff("step,wall_ms\n1,2\n"), 0);
  EXPECT_EQ(sniff(""), 0);
  EXPECT_EQ(sniff(rcf::testing::read_fixture("xla/pt_xla_debug_pr5947.txt")), 0);
}

TEST(JaxLogImporter, EveryLineGetsOneFateOnJunk) {
  std::string text;
  text += std::string(100000, 'x') + "\n";
  text += std::string("\0\xff\xfe", 3) + "TRACING CACHE MISS at :\n";
  text += "   \n";
  text += "TRACING CACHE MISS at \n";
  text += "Compiling  with global shapes and types \n";
  text += "Finished tracing  for pjit in  sec\n";
  text += "Not writing persistent cache entry for '\n";
  text += "Writing  to persistent compilation cache\n";
  text += "::\n";
  text += "PASSED\n";
  text += "DEBUG:2025-01-08 11:37:25,064:jax:: \n";
  text += "TRACING CACHE MISS at x:1:2 (f):\n  * at x, now\n  * at , seen , but now given \n";
  CollectingSink sink = run(text);
  int64_t lines = line_count(text);
  Lines parsed = parsed_lines(sink, lines);
  // Parsed lines: the two headers that opened explanations and their bullets.
  for (int64_t line : parsed) EXPECT_TRUE(line == 2 || line >= 12) << line;
}

}  // namespace jax_log_importer_test
}  // namespace rcf::ingest
