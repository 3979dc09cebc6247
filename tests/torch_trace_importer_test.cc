// TORCH_TRACE importer: golden numbers on real tlparse fixtures (fixtures/torch_trace/README.md)
// and synthetic edge cases. Expected counts were derived independently of this code (Python
// json/hashlib over the same files).
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "ingest/dynamo/sync_signature.h"
#include "ingest/importer.h"
#include "ingest/reading/md5.h"
#include "tests/support/collecting_sink.h"

namespace rcf::ingest {
namespace torch_trace_importer_test {

using testing::CollectingSink;
using testing::read_fixture;
using testing::run_importer;

constexpr std::string_view kRank1 =
    "torch_trace/multi_rank_logs/dedicated_log_torch_trace_rank_1.log";
constexpr std::string_view kRank3 =
    "torch_trace/multi_rank_logs/dedicated_log_torch_trace_rank_3.log";
constexpr std::string_view kRank0Failure =
    "torch_trace/multi_rank_logs/dedicated_log_torch_trace_rank_0.log";
constexpr std::string_view kRuntimeRank0 =
    "torch_trace/multi_rank_runtime/dedicated_log_torch_trace_rank_0.log";
constexpr std::string_view kRuntimeRank5 =
    "torch_trace/multi_rank_runtime/dedicated_log_torch_trace_rank_5.log";

CollectingSink import_fixture(std::string_view path) {
  return run_importer("torch_trace", read_fixture(std::string(path)));
}

// Number of lines run_importer() feeds for `text`.
int64_t count_lines(std::string_view text) {
  int64_t lines = 0;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t nl = text.find('\n', pos);
    ++lines;
    if (nl == std::string_view::npos) break;
    pos = nl + 1;
  }
  return lines;
}

// Lines that got a line fate (kSkipped / kRejected) note, checking that none got two.
std::set<int64_t> lines_with_fate(const CollectingSink& sink) {
  std::set<int64_t> lines;
  for (const auto& note : sink.notes) {
    if (note.fate == LineFate::kWarning) continue;
    EXPECT_TRUE(lines.insert(note.line).second) << "line " << note.line << " noted twice";
  }
  return lines;
}

int count_fate_notes(const CollectingSink& sink) {
  return int(std::count_if(sink.notes.begin(), sink.notes.end(),
                           [](const auto& n) { return n.fate != LineFate::kWarning; }));
}

template <typename T>
std::vector<T> with_origin(const std::vector<T>& events, std::string_view origin) {
  std::vector<T> out;
  for (const T& e : events)
    if (e.origin == origin) out.push_back(e);
  return out;
}

std::vector<DynamoCompile> compiles_of_kind(const CollectingSink& sink, std::string_view kind) {
  std::vector<DynamoCompile> out;
  for (const DynamoCompile& c : sink.all<DynamoCompile>())
    if (c.kind == kind) out.push_back(c);
  return out;
}

// A TORCH_TRACE record: prefix + envelope (with `has_payload` when `payload` is given) + payload
// lines. `envelope_body` is the envelope without its closing brace.
std::string record(std::string_view envelope_body, const std::string* payload = nullptr) {
  std::string out = "V0721 16:11:45.673000 98102 torch/_dynamo/convert_frame.py:1123] ";
  out += envelope_body;
  if (payload) {
    out += ", \"has_payload\": \"" + Md5::to_hex(Md5::digest(*payload)) + "\"";
  }
  out += "}\n";
  if (payload) {
    size_t pos = 0;
    while (true) {
      size_t nl = payload->find('\n', pos);
      out += '\t';
      out += payload->substr(pos, nl == std::string::npos ? std::string::npos : nl - pos);
      out += '\n';
      if (nl == std::string::npos) break;
      pos = nl + 1;
    }
  }
  return out;
}

std::string record(std::string_view envelope_body, const std::string& payload) {
  return record(envelope_body, &payload);
}

constexpr std::string_view kIds00 = R"("frame_id": 0, "frame_compile_id": 0, "attempt": 0)";
constexpr std::string_view kIds01 = R"("frame_id": 0, "frame_compile_id": 1, "attempt": 0)";

std::string start_record(std::string_view ids) {
  return record(
      std::string(R"({"dynamo_start": {"stack": [{"line": 3, "name": "f", "filename": 0}]}, )") +
      std::string(ids));
}

std::string metrics_record(std::string_view ids, std::string_view fields) {
  return record(std::string(R"({"compilation_metrics": {)") + std::string(fields) + "}, " +
                std::string(ids));
}

// ---------------------------------------------------------------------------------------------
// Real fixtures

TEST(TorchTraceImporter, Rank1FifteenCompilesOfKernel) {
  CollectingSink sink = import_fixture(kRank1);
  std::vector<DynamoCompile> forward = compiles_of_kind(sink, "forward");
  ASSERT_EQ(forward.size(), 15u);
  EXPECT_EQ(sink.all<DynamoCompile>().size(), 15u);
  for (int i = 0; i < 15; ++i) {
    const DynamoCompile& c = forward[i];
    EXPECT_EQ(c.ref.id.text(), "0/" + std::to_string(i));
    EXPECT_EQ(c.ref.rank, -1);
    EXPECT_EQ(c.ref.epoch, 0);
    EXPECT_EQ(c.co_name, "kernel");
    EXPECT_EQ(c.co_filename, "/Users/skarjala/Desktop/tlparse/tests/gen_many_frames.py");
    EXPECT_EQ(c.co_firstlineno, 6);
    EXPECT_EQ(c.cache_size, i);
    EXPECT_EQ(c.recompile_limit, 1000000);
    EXPECT_EQ(c.accumulated_recompile_limit, 256);
    EXPECT_EQ(c.has_guarded_code, true);
    EXPECT_TRUE(c.fail_type.empty());
    ASSERT_EQ(c.user_stack.size(), 3u);  // <module> -> run_many_iters -> kernel
    EXPECT_EQ(c.user_stack[1].function, "run_many_iters");
    EXPECT_EQ(c.user_stack[1].code, "kernel(x)");
    EXPECT_EQ(c.user_stack[1].file, "/Users/skarjala/Desktop/tlparse/tests/gen_many_frames.py");
  }
  // 0/0: start_time_us 1752877801875862, duration_us 1334062, guard_count 8.
  EXPECT_EQ(forward[0].start_time_us, 1752877801875862);
  ASSERT_TRUE(forward[0].duration_ms.has_value());
  EXPECT_DOUBLE_EQ(*forward[0].duration_ms, 1334.062);
  EXPECT_EQ(forward[0].guard_count, 8);
  EXPECT_EQ(forward[0].graph_node_count, 3);
  EXPECT_TRUE(forward[0].recompile_reason.empty());
  EXPECT_EQ(forward[1].recompile_reason,
            "0/0: tensor 'x' size mismatch at index 0. expected 2, actual 3");
}

TEST(TorchTraceImporter, Rank1RecompileReasons) {
  CollectingSink sink = import_fixture(kRank1);
  std::vector<GuardFailure> failures = sink.all<GuardFailure>();
  ASSERT_EQ(failures.size(), 105u);  // 1 + 2 + ... + 14
  // Every compile has the artifact, so the metrics' recompile_reason is never used.
  EXPECT_EQ(with_origin(failures, "trace_recompile_reasons").size(), 105u);
  std::map<std::string, int> per_compile;
  for (const GuardFailure& f : failures) ++per_compile[f.ref.id.text()];
  ASSERT_EQ(per_compile.size(), 14u);
  for (int c = 1; c <= 14; ++c) EXPECT_EQ(per_compile["0/" + std::to_string(c)], c) << c;

  std::vector<GuardFailure> of_14;
  for (const GuardFailure& f : failures)
    if (f.ref.id.text() == "0/14") of_14.push_back(f);
  ASSERT_EQ(of_14.size(), 14u);
  EXPECT_EQ(of_14[0].entry_index, 0);
  EXPECT_EQ(of_14[0].old_compile_id, "0/13");
  EXPECT_EQ(of_14[0].reason, "tensor 'x' size mismatch at index 0. expected 15, actual 16");
  EXPECT_EQ(of_14[13].entry_index, 13);
  EXPECT_EQ(of_14[13].old_compile_id, "0/0");
  EXPECT_EQ(of_14[13].reason, "tensor 'x' size mismatch at index 0. expected 2, actual 16");
  EXPECT_EQ(of_14[0].line, 23246);  // the artifact's envelope line
}

TEST(TorchTraceImporter, Rank1OtherEventsAndLineAccounting) {
  std::string text = read_fixture(std::string(kRank1));
  CollectingSink sink = run_importer("torch_trace", text);
  EXPECT_EQ(count_lines(text), 25720);
  EXPECT_TRUE(sink.notes.empty());  // every line parsed: no skip, reject or warning

  // Cache outcomes: 30 artifacts (10 fx hits + 5 misses, 10 aot hits + 5 misses); the chromium
  // cache instants all duplicate an artifact and are dropped.
  std::vector<CacheOutcome> cache = sink.all<CacheOutcome>();
  ASSERT_EQ(cache.size(), 30u);
  std::map<std::string, int> by_state;
  for (const CacheOutcome& c : cache) ++by_state[c.cache + ":" + c.state];
  EXPECT_EQ(by_state["fx_graph:hit"], 10);
  EXPECT_EQ(by_state["fx_graph:miss"], 5);
  EXPECT_EQ(by_state["aotautograd:hit"], 10);
  EXPECT_EQ(by_state["aotautograd:miss"], 5);
  EXPECT_EQ(cache[0].key, "fn5qczewolplihpfyws5wg2x7633kzvd2zjrdi4mxmhqfvsgtccd");

  // 544 chromium events: 262 matched B/E pairs.
  std::vector<PhaseTiming> phases = sink.all<PhaseTiming>();
  ASSERT_EQ(phases.size(), 262u);
  auto dynamo_phase = std::find_if(phases.begin(), phases.end(), [](const PhaseTiming& p) {
    return p.name == "dynamo" && p.ref.id.text() == "0/0";
  });
  ASSERT_NE(dynamo_phase, phases.end());
  EXPECT_EQ(dynamo_phase->line, 1);
  EXPECT_EQ(dynamo_phase->start_us, 1752877801875006);

  std::vector<GuardSet> guard_sets = sink.all<GuardSet>();
  ASSERT_EQ(guard_sets.size(), 15u);
  EXPECT_EQ(guard_sets[0].format, "dynamo_cpp_guards_str");
  ASSERT_EQ(guard_sets[0].guards.size(), 6u);
  EXPECT_EQ(
      guard_sets[0].guards[0],
      "LAMBDA_GUARD: torch._functorch.aot_autograd.utils.top_saved_tensors_hooks ids == None");
  EXPECT_EQ(guard_sets[0].guards[1], "DEFAULT_DEVICE: utils_device.CURRENT_DEVICE == None");
  EXPECT_EQ(guard_sets[0].guards[5],
            "NO_HASATTR: hasattr(L['x'], '_dynamo_dynamic_indices') == False");

  std::vector<InputTensor> inputs = sink.all<InputTensor>();
  ASSERT_EQ(inputs.size(), 15u);
  EXPECT_EQ(inputs[0].line, 54);
  EXPECT_EQ(inputs[0].ref.id.text(), "0/0");
  EXPECT_EQ(inputs[0].source, "L['x']");
  EXPECT_EQ(inputs[0].dtype, "torch.float32");
  EXPECT_EQ(inputs[0].device, "device(type='cpu')");
  EXPECT_EQ(inputs[0].sizes, (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(inputs[0].strides, (std::vector<int64_t>{2, 1}));
  EXPECT_EQ(inputs[14].sizes, (std::vector<int64_t>{16, 16}));
  EXPECT_TRUE(sink.all<GraphBreak>().empty());
}

TEST(TorchTraceImporter, Rank3SevenCompiles) {
  CollectingSink sink = import_fixture(kRank3);
  std::vector<DynamoCompile> forward = compiles_of_kind(sink, "forward");
  ASSERT_EQ(forward.size(), 7u);
  for (int i = 0; i < 7; ++i) EXPECT_EQ(forward[i].ref.id.text(), "0/" + std::to_string(i));
  EXPECT_EQ(sink.all<GuardFailure>().size(), 21u);  // 1 + ... + 6
  EXPECT_EQ(sink.all<CacheOutcome>().size(), 14u);
  EXPECT_EQ(sink.all<PhaseTiming>().size(), 86u);
  EXPECT_TRUE(sink.notes.empty());
}

TEST(TorchTraceImporter, RuntimeRank0ObjectIdRecompiles) {
  CollectingSink sink = import_fixture(kRuntimeRank0);
  for (const Event& e : sink.events)
    std::visit(
        [](const auto& v) {
          if constexpr (requires { v.ref; }) {
            EXPECT_EQ(v.ref.rank, 0);
          }
        },
        e);
  std::vector<GuardFailure> failures = sink.all<GuardFailure>();
  ASSERT_EQ(failures.size(), 3u);
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(failures[i].ref.id.text(), "0/" + std::to_string(i + 1));
    EXPECT_EQ(failures[i].old_compile_id, "0/0");
    EXPECT_EQ(failures[i].reason, "___check_obj_id(fn, 140439264606080)");  // padding trimmed
    EXPECT_EQ(failures[i].origin, "trace_recompile_reasons");
  }
  // The envelope id wins over the hand-edited compile_id field ("0/1" inside [0/2] and [0/3]).
  std::vector<DynamoCompile> forward = compiles_of_kind(sink, "forward");
  ASSERT_EQ(forward.size(), 4u);
  for (int i = 0; i < 4; ++i) EXPECT_EQ(forward[i].ref.id.text(), "0/" + std::to_string(i));
  std::vector<DynamoCompile> runtime = compiles_of_kind(sink, "runtime");
  ASSERT_EQ(runtime.size(), 4u);
  EXPECT_EQ(runtime[0].ref.id.text(), "0/0");
  ASSERT_TRUE(runtime[0].duration_ms.has_value());
  EXPECT_DOUBLE_EQ(*runtime[0].duration_ms, 77.034);
  EXPECT_TRUE(runtime[0].co_name.empty());

  std::map<std::string, int> notes = sink.note_counts();
  EXPECT_EQ(notes["warning:payload_md5_mismatch"], 4);  // the corpus table: 4 records
  EXPECT_EQ(notes["warning:compile_id_mismatch"], 4);
  EXPECT_EQ(notes.size(), 2u);
  EXPECT_EQ(count_fate_notes(sink), 0);
}

TEST(TorchTraceImporter, RuntimeRank5UsesEnvelopeRank) {
  CollectingSink sink = import_fixture(kRuntimeRank5);
  std::vector<DynamoCompile> forward = compiles_of_kind(sink, "forward");
  ASSERT_EQ(forward.size(), 2u);
  EXPECT_EQ(forward[0].ref.rank, 1);  // file name says rank 5
  ASSERT_EQ(sink.all<GuardFailure>().size(), 1u);
  EXPECT_EQ(sink.all<GuardFailure>()[0].ref.id.text(), "0/1");
}

TEST(TorchTraceImporter, CompMetricsRestartsAndResumeFrames) {
  CollectingSink sink = import_fixture("torch_trace/comp_metrics.log");
  std::vector<DynamoCompile> forward = compiles_of_kind(sink, "forward");
  ASSERT_EQ(forward.size(), 3u);
  EXPECT_EQ(forward[0].ref.id.text(), "0/0_1");
  EXPECT_EQ(forward[0].ref.id.attempt, 1);
  EXPECT_EQ(forward[0].co_name, "fn");
  EXPECT_EQ(forward[1].ref.id.text(), "1/0_1");
  EXPECT_EQ(forward[1].co_name, "torch_dynamo_resume_in_fn_at_9551");
  EXPECT_EQ(forward[2].ref.id.text(), "2/0");
  EXPECT_EQ(forward[2].co_name, "torch_dynamo_resume_in_fn_at_9553");
  EXPECT_EQ(forward[0].restart_reasons.size(), 1u);
  ASSERT_TRUE(forward[0].start_time_us.has_value());  // start_time 1712154528.0523684 s
  EXPECT_NEAR(double(*forward[0].start_time_us), 1712154528052368.4, 1.0);
  ASSERT_TRUE(forward[0].duration_ms.has_value());  // entire_frame_compile_time_s
  EXPECT_NEAR(*forward[0].duration_ms, 12.4395, 1e-3);
  EXPECT_FALSE(forward[0].recompile_limit.has_value());  // this log has no dynamo_config
  // dynamo_start stacks are matched across the restart; the trailing eval_frame.py frame is
  // dropped (18 logged frames -> 17).
  ASSERT_EQ(forward[0].user_stack.size(), 17u);
  EXPECT_EQ(forward[0].user_stack.back().function, "test_graph_break_compilation_metrics");
  EXPECT_EQ(forward[0].user_stack.back().file,
            "/data/users/jjwu/a/pytorch/test/dynamo/test_misc.py");
  EXPECT_EQ(forward[0].user_stack.front().line, 10079);
  EXPECT_EQ(forward[2].user_stack.size(), 20u);

  std::vector<GraphBreak> breaks = sink.all<GraphBreak>();
  ASSERT_EQ(breaks.size(), 2u);
  for (const GraphBreak& b : breaks) {
    EXPECT_EQ(b.origin, "trace_restart");
    EXPECT_EQ(b.reason,
              "skip function graph_break in file "
              "/data/users/jjwu/a/pytorch/torch/_dynamo/decorators.py");
    EXPECT_FALSE(b.sync_signature);
  }
  EXPECT_EQ(breaks[0].ref.id.text(), "0/0_1");
  EXPECT_EQ(breaks[1].ref.id.text(), "1/0_1");

  std::vector<GuardSet> guard_sets = sink.all<GuardSet>();
  ASSERT_EQ(guard_sets.size(), 3u);
  EXPECT_EQ(guard_sets[0].format, "dynamo_guards");
  ASSERT_EQ(guard_sets[0].guards.size(), 3u);
  EXPECT_EQ(guard_sets[0].guards[0], "hasattr(L['x'], '_dynamo_dynamic_indices') == False");
  EXPECT_EQ(guard_sets[0].guards[1], "utils_device.CURRENT_DEVICE == None");
  EXPECT_TRUE(sink.notes.empty());
}

TEST(TorchTraceImporter, CompFailureBackendCompilerFailed) {
  CollectingSink sink = import_fixture("torch_trace/comp_failure.log");
  std::vector<DynamoCompile> compiles = sink.all<DynamoCompile>();
  ASSERT_EQ(compiles.size(), 1u);
  const DynamoCompile& c = compiles[0];
  EXPECT_EQ(c.ref.id.text(), "0/0");
  EXPECT_EQ(c.fail_type, "BackendCompilerFailed");
  EXPECT_EQ(c.fail_reason, "backend='broken_backend' raised:\nRuntimeError: broken backend");
  EXPECT_EQ(c.has_guarded_code, false);
  ASSERT_TRUE(c.duration_ms.has_value());  // only dynamo_cumulative_compile_time_us: 157247
  EXPECT_DOUBLE_EQ(*c.duration_ms, 157.247);
  EXPECT_EQ(c.recompile_limit, 8);  // cache_size_limit, the old name
  EXPECT_EQ(c.accumulated_recompile_limit, 256);
  EXPECT_EQ(c.user_stack.size(), 18u);
  EXPECT_EQ(sink.all<PhaseTiming>().size(), 3u);
  EXPECT_TRUE(sink.notes.empty());
  // The multi_rank_logs rank 0 copy (plus a final newline) gives the same compile.
  CollectingSink copy = import_fixture(kRank0Failure);
  ASSERT_EQ(copy.all<DynamoCompile>().size(), 1u);
  EXPECT_EQ(copy.all<DynamoCompile>()[0].fail_type, "BackendCompilerFailed");
}

TEST(TorchTraceImporter, SimpleLog) {
  CollectingSink sink = import_fixture("torch_trace/simple.log");
  ASSERT_EQ(sink.all<DynamoCompile>().size(), 1u);
  EXPECT_EQ(sink.all<DynamoCompile>()[0].co_name, "forward");
  EXPECT_EQ(sink.all<PhaseTiming>().size(), 24u);
  // fx_graph_cache_miss artifact, plus an autograd_cache_miss chromium instant with no artifact.
  std::vector<CacheOutcome> cache = sink.all<CacheOutcome>();
  ASSERT_EQ(cache.size(), 2u);
  EXPECT_EQ(cache[0].cache, "fx_graph");
  EXPECT_EQ(cache[0].state, "miss");
  EXPECT_EQ(cache[1].cache, "aotautograd");
  EXPECT_EQ(cache[1].state, "miss");
  EXPECT_EQ(cache[1].line, 1526);
  ASSERT_EQ(sink.all<GuardSet>().size(), 1u);
  EXPECT_EQ(sink.all<GuardSet>()[0].guards.size(), 35u);
  EXPECT_TRUE(sink.notes.empty());
}

// A checksum is read where it stands in the envelope unless its JSON string has escapes; either
// spelling checks the payload, and a mismatch is noted with the start of its envelope line.
TEST(TorchTraceImporter, PayloadChecksumsInEitherSpellingAndTheMismatchExcerpt) {
  std::string text = read_fixture("torch_trace/simple.log");
  const std::string md5 = "\"has_payload\": \"490a3a38ce10390374e403dd6e063c7f\"";
  ASSERT_NE(text.find(md5), std::string::npos);
  std::string escaped = text;
  escaped.replace(escaped.find(md5), md5.size(),
                  "\"has_payload\": \"\\u0034\\u00390a3a38ce10390374e403dd6e063c7f\"");
  EXPECT_TRUE(run_importer("torch_trace", escaped).notes.empty());

  std::string wrong = text;
  wrong.replace(wrong.find(md5), md5.size(),
                "\"has_payload\": \"\\u0035\\u00390a3a38ce10390374e403dd6e063c7f\"");
  CollectingSink sink = run_importer("torch_trace", wrong);
  ASSERT_EQ(sink.notes.size(), 1u);
  EXPECT_EQ(sink.notes[0].reason, "payload_md5_mismatch");
  EXPECT_EQ(sink.notes[0].line, 1);
  EXPECT_TRUE(sink.notes[0].excerpt.starts_with(
      "V1206 15:18:15.925000 1500233 torch/_dynamo/utils.py:1288] {\"chromium_event\": {}"))
      << sink.notes[0].excerpt;
}

TEST(TorchTraceImporter, SimpleCorruptedJsonRejectsOneChromiumPayload) {
  std::string text = read_fixture("torch_trace/simple_corrupted_json.log");
  CollectingSink sink = run_importer("torch_trace", text);
  std::map<std::string, int> notes = sink.note_counts();
  EXPECT_EQ(notes.size(), 2u);
  EXPECT_EQ(notes["rejected:bad_payload_json"], 1);
  EXPECT_EQ(notes["warning:payload_md5_mismatch"], 1);
  for (const auto& note : sink.notes) EXPECT_EQ(note.line, 13);  // both on the envelope line
  EXPECT_EQ(lines_with_fate(sink), (std::set<int64_t>{13}));
  EXPECT_EQ(count_lines(text), 2223);  // 2222 parsed + 1 rejected
  // The compile is still there; the corrupted compile_file E event leaves its B unmatched.
  ASSERT_EQ(sink.all<DynamoCompile>().size(), 1u);
  EXPECT_EQ(sink.all<DynamoCompile>()[0].ref.id.text(), "0/0");
  EXPECT_EQ(sink.all<PhaseTiming>().size(), 23u);
}

TEST(TorchTraceImporter, CacheHitMissHasThreeResetEpochs) {
  CollectingSink sink = import_fixture("torch_trace/cache_hit_miss.log");
  std::vector<DynamoCompile> compiles = sink.all<DynamoCompile>();
  ASSERT_EQ(compiles.size(), 6u);
  const char* ids[] = {"0/0", "1/0", "0/0", "1/0", "0/0", "1/0"};
  const int epochs[] = {0, 0, 1, 1, 2, 2};
  for (int i = 0; i < 6; ++i) {
    EXPECT_EQ(compiles[i].ref.id.text(), ids[i]);
    EXPECT_EQ(compiles[i].ref.epoch, epochs[i]);
  }
  EXPECT_EQ(compiles[5].co_name, "fn2");
  std::vector<CacheOutcome> cache = sink.all<CacheOutcome>();
  ASSERT_EQ(cache.size(), 6u);
  EXPECT_EQ(cache[0].state, "miss");
  EXPECT_EQ(cache[2].state, "hit");
  EXPECT_EQ(cache[2].ref.epoch, 1);
  EXPECT_EQ(cache[1].cache, "aotautograd");
  EXPECT_EQ(cache[1].state, "bypass");
  EXPECT_TRUE(cache[1].key.empty());  // "key": null
  EXPECT_EQ(cache[1].detail.rfind("Unsupported call_function target flex_attention.", 0), 0u);
  EXPECT_EQ(sink.all<InputTensor>().size(), 66u);
  EXPECT_EQ(sink.all<PhaseTiming>().size(), 61u);
  EXPECT_TRUE(sink.notes.empty());
}

TEST(TorchTraceImporter, AutotuneRuntimeMetricsWithoutAttempt) {
  CollectingSink sink = import_fixture("torch_trace/autotune_with_compile_id.log");
  std::vector<DynamoCompile> runtime = compiles_of_kind(sink, "runtime");
  ASSERT_EQ(runtime.size(), 1u);
  EXPECT_EQ(runtime[0].ref.id.text(), "0/0");
  EXPECT_EQ(runtime[0].start_time_us, 1743091662163278);
  ASSERT_EQ(compiles_of_kind(sink, "forward").size(), 1u);
  EXPECT_EQ(sink.all<PhaseTiming>().size(), 29u);
  EXPECT_TRUE(sink.notes.empty());
}

TEST(TorchTraceImporter, ExportLogBlankPayloadLineAndMd5Mismatch) {
  std::string text = read_fixture("torch_trace/export_guard_added.log");
  CollectingSink sink = run_importer("torch_trace", text);
  EXPECT_TRUE(sink.events.empty());  // export events are consumed silently
  std::map<std::string, int> notes = sink.note_counts();
  EXPECT_EQ(notes.size(), 2u);
  EXPECT_EQ(notes["skipped:blank"], 1);
  EXPECT_EQ(notes["warning:payload_md5_mismatch"], 1);
  EXPECT_EQ(lines_with_fate(sink), (std::set<int64_t>{46}));
  EXPECT_EQ(count_lines(text), 48);
}

TEST(TorchTraceImporter, TruncatedInsidePayloadKeepsEarlierCompiles) {
  std::string text = read_fixture(std::string(kRank1));
  // Cut in the middle of the dynamo_cpp_guards_str payload of 0/5 (its compile never finishes);
  // the first mention of "0/4: " is the recompile_reasons artifact of 0/5.
  size_t guards_of_0_5 = text.find("{\"dynamo_cpp_guards_str\"", text.find("\"0/4: tensor"));
  ASSERT_NE(guards_of_0_5, std::string::npos);
  std::string cut = text.substr(0, text.find("TENSOR_MATCH", guards_of_0_5) + 20);
  CollectingSink sink = run_importer("torch_trace", cut);
  std::vector<DynamoCompile> compiles = sink.all<DynamoCompile>();
  ASSERT_EQ(compiles.size(), 6u);
  for (int i = 0; i < 5; ++i) {
    EXPECT_EQ(compiles[i].ref.id.text(), "0/" + std::to_string(i));
    EXPECT_TRUE(compiles[i].fail_type.empty());
  }
  EXPECT_EQ(compiles[5].ref.id.text(), "0/5");
  EXPECT_EQ(compiles[5].fail_type, "incomplete");
  EXPECT_EQ(compiles[5].co_name, "kernel");  // from the last dynamo_start frame
  EXPECT_EQ(compiles[5].user_stack.size(), 3u);
  std::map<std::string, int> notes = sink.note_counts();
  EXPECT_EQ(notes["warning:truncated_compile"], 1);
  EXPECT_EQ(notes["warning:payload_md5_mismatch"], 1);  // the cut payload
  EXPECT_EQ(count_fate_notes(sink), 0);
  // The cut guard set is still used as far as it goes.
  std::vector<GuardSet> guard_sets = sink.all<GuardSet>();
  ASSERT_EQ(guard_sets.size(), 6u);
  EXPECT_EQ(guard_sets[5].guards.back(), "TENSOR_MATCH: check_");
}

TEST(TorchTraceImporter, EveryPrefixOfAFileIsSafe) {
  std::string text = read_fixture("torch_trace/comp_metrics.log");
  for (size_t cut = 0; cut <= text.size(); cut += 97) {
    CollectingSink sink = run_importer("torch_trace", std::string_view(text).substr(0, cut));
    lines_with_fate(sink);  // at most one fate per line
    EXPECT_LE(sink.all<DynamoCompile>().size(), 3u);
  }
}

// ---------------------------------------------------------------------------------------------
// Synthetic inputs

TEST(TorchTraceImporter, BinaryJunkAndMalformedLinesAreCounted) {
  std::string junk = "\x01\x02\xff\xfe binary \x00 junk";
  junk.push_back('\0');
  std::string text = std::string(
                         "V0721 16:11:45.673000 98102 torch/_logging/structured.py:28] "
                         "{\"str\": [\"/tmp/a.py\", 0]}\n") +
                     junk + "\n" +               // 2: no prefix
                     "\tpayload after junk\n" +  // 3: orphan
                     "\n" +                      // 4: blank
                     "V0721 16:11:45.673000 98102 x.py:1] {\"dynamo_start\": {\"stack\": [}\n" +
                     "V0721 16:11:45.673000 98102 x.py:1] not json at all\n" +            // 6
                     "V0721 16:11:45.673000 98102 x.py:1] {\"brand_new_event\": {}}\n" +  // 7
                     "V0721 16:11:45.673000 98102 x.py:1] {\"chromium_event\": {}, "
                     "\"has_payload\": \"00\"\n" +       // 8: truncated envelope (no closing brace)
                     "\t{\n" +                           // 9: payload of the rejected envelope
                     "V0721 16:11 truncated prefix\n" +  // 10
                     "I0721 16:11:45.673000 98102 x.py:1] {\"dynamo_output_graph\": {}}\n" +  // 11
                     std::string(100000, '{') +
                     "\n";  // 12: huge line
  CollectingSink sink = run_importer("torch_trace", text);
  std::map<int64_t, std::string> fate;
  for (const auto& n : sink.notes)
    if (n.fate != LineFate::kWarning)
      fate[n.line] = (n.fate == LineFate::kSkipped ? "skipped:" : "rejected:") + n.reason;
  std::map<int64_t, std::string> expected = {
      {2, "rejected:no_glog_prefix"},
      {3, "rejected:orphan_payload"},
      {4, "skipped:blank"},
      {5, "rejected:bad_json"},
      {6, "rejected:bad_json"},
      {7, "skipped:unknown_event"},
      {8, "rejected:bad_json"},
      {9, "skipped:payload_of_rejected_record"},
      {10, "rejected:no_glog_prefix"},
      {12, "rejected:no_glog_prefix"},
  };
  EXPECT_EQ(fate, expected);
  EXPECT_EQ(count_fate_notes(sink), 10);  // lines 1 and 11 parsed
  EXPECT_TRUE(sink.events.empty());
}

TEST(TorchTraceImporter, DeeplyNestedJsonIsRejectedNotFatal) {
  std::string payload = std::string(5000, '[') + std::string(5000, ']');
  std::string text = record(std::string(R"({"chromium_event": )") + std::string(4000, '[') +
                            std::string(4000, ']')) +
                     record(R"({"chromium_event": {})", payload);
  CollectingSink sink = run_importer("torch_trace", text);
  std::map<std::string, int> notes = sink.note_counts();
  EXPECT_EQ(notes["rejected:json_too_deep"], 1);  // the envelope: its own reason
  EXPECT_EQ(notes["rejected:bad_json"], 0);
  EXPECT_EQ(notes["rejected:bad_payload_json"], 1);
}

TEST(TorchTraceImporter, PayloadMd5MismatchIsAWarningAndPayloadIsUsed) {
  std::string payload = "[\n\"0/0: tensor 'x' size mismatch at index 0. expected 2, actual 3\"\n]";
  std::string good =
      record(std::string(R"({"artifact": {"name": "recompile_reasons", "encoding": "json"}, )") +
                 std::string(kIds01),
             payload);
  std::string bad = good;
  bad.replace(bad.find("\"has_payload\": \"") + 16, 4, "ffff");
  CollectingSink sink = run_importer("torch_trace", bad);
  std::map<std::string, int> notes = sink.note_counts();
  EXPECT_EQ(notes.size(), 1u);
  EXPECT_EQ(notes["warning:payload_md5_mismatch"], 1);
  EXPECT_EQ(sink.notes[0].line, 1);
  ASSERT_EQ(sink.all<GuardFailure>().size(), 1u);
  EXPECT_EQ(sink.all<GuardFailure>()[0].reason,
            "tensor 'x' size mismatch at index 0. expected 2, actual 3");

  // Blank lines inside a payload are dropped (noted) and the MD5 still matches.
  std::string with_blank = good;
  with_blank.insert(with_blank.find("\t\"0/0"), "\n");
  sink = run_importer("torch_trace", with_blank);
  EXPECT_EQ(sink.note_counts(), (std::map<std::string, int>{{"skipped:blank", 1}}));
  EXPECT_EQ(sink.all<GuardFailure>().size(), 1u);
}

// A kept payload is read from the checksums' chunk up to 1 MiB and copied out beyond: guard
// trees of sizes on both sides of that, each followed by a small record, give every guard and
// no note, as does a record whose payload checksum is wrong (noted, payload still used).
TEST(TorchTraceImporter, KeptPayloadsOfEverySizeAroundTheChunkHold) {
  for (size_t guards : {size_t{1}, size_t{11000}, size_t{12500}, size_t{40000}}) {
    std::string tree = "TREE_GUARD_MANAGER:\n+- RootGuardManager";
    for (size_t i = 0; i < guards; ++i)
      tree += "\n| +- TENSOR_MATCH: check_tensor(L['x" + std::to_string(i) +
              "'], Tensor, DispatchKeySet(CPU), torch.float32)";
    const std::string body = std::string(R"({"dynamo_cpp_guards_str": {}, )") + std::string(kIds00);
    std::string text = record(body, tree) + record(body, std::string("+- GLOBAL_STATE: ok"));
    CollectingSink sink = run_importer("torch_trace", text);
    EXPECT_TRUE(sink.notes.empty()) << guards;
    std::vector<GuardSet> sets = sink.all<GuardSet>();
    ASSERT_EQ(sets.size(), 2u) << guards;
    ASSERT_EQ(sets[0].guards.size(), guards) << guards;
    EXPECT_EQ(sets[0].guards.back(), "TENSOR_MATCH: check_tensor(L['x" +
                                         std::to_string(guards - 1) +
                                         "'], Tensor, DispatchKeySet(CPU), torch.float32)");
    EXPECT_EQ(sets[1].guards, std::vector<std::string>{"GLOBAL_STATE: ok"});

    std::string wrong = text;
    wrong.replace(wrong.find("\"has_payload\": \"") + 16, 4, "ffff");
    sink = run_importer("torch_trace", wrong);
    EXPECT_EQ(sink.note_counts(),
              (std::map<std::string, int>{{"warning:payload_md5_mismatch", 1}}));
    ASSERT_EQ(sink.all<GuardSet>().size(), 2u);
    EXPECT_EQ(sink.all<GuardSet>()[0].guards.size(), guards);
  }
}

TEST(TorchTraceImporter, RecompileReasonsBareStringAndFallbacks) {
  // A bare JSON string is a one-element list.
  std::string bare = "\"0/0_1: ___check_obj_id(self, 42)  \"";
  CollectingSink sink = run_importer(
      "torch_trace",
      record(std::string(R"({"artifact": {"name": "recompile_reasons", "encoding": "json"}, )") +
                 std::string(kIds01),
             bare));
  ASSERT_EQ(sink.all<GuardFailure>().size(), 1u);
  EXPECT_EQ(sink.all<GuardFailure>()[0].old_compile_id, "0/0_1");
  EXPECT_EQ(sink.all<GuardFailure>()[0].reason, "___check_obj_id(self, 42)");

  // No artifact: the metrics' recompile_reason is used, even "Unable to find ...".
  std::string text =
      start_record(kIds00) + metrics_record(kIds00, R"("co_name": "f", "cache_size": 0)") +
      start_record(kIds01) +
      metrics_record(kIds01, R"("co_name": "f", "recompile_reason": "0/0: L['n'] == 3  ")") +
      start_record(R"("frame_id": 0, "frame_compile_id": 2, "attempt": 0)") +
      metrics_record(R"("frame_id": 0, "frame_compile_id": 2, "attempt": 0)",
                     R"("recompile_reason": "Unable to find recompilation reasons")");
  sink = run_importer("torch_trace", text);
  std::vector<GuardFailure> failures = sink.all<GuardFailure>();
  ASSERT_EQ(failures.size(), 2u);
  EXPECT_EQ(failures[0].origin, "trace_recompile_reason");
  EXPECT_EQ(failures[0].ref.id.text(), "0/1");
  EXPECT_EQ(failures[0].old_compile_id, "0/0");
  EXPECT_EQ(failures[0].reason, "L['n'] == 3");
  EXPECT_EQ(failures[1].old_compile_id, "");
  EXPECT_EQ(failures[1].reason, "Unable to find recompilation reasons");
  EXPECT_TRUE(sink.notes.empty());
}

TEST(TorchTraceImporter, GraphBreakArtifact) {
  std::string report =
      "Graph break in user code at /home/u/model.py:42\n"
      "Graph Break Reason: Unsupported Tensor.item() call with capture_scalar_outputs=False\n"
      "  Explanation: Dynamo does not support tracing `Tensor.item()` with "
      "config.capture_scalar_outputs=False.\n"
      "  Hint: Set `torch._dynamo.config.capture_scalar_outputs = True`\n"
      "\n"
      "  Developer debug context: call_method TensorVariable() item () {}\n"
      "User code traceback:\n"
      "  File \"/home/u/train.py\", line 10, in main\n"
      "    loss = model(x)\n"
      "  File \"/home/u/model.py\", line 42, in forward\n"
      "    n = x.sum().item()\n";
  CollectingSink sink = run_importer(
      "torch_trace",
      record(std::string(
                 R"({"artifact": {"name": "dynamo_graph_break_reason", "encoding": "string"}, )") +
                 std::string(kIds00),
             report));
  std::vector<GraphBreak> breaks = sink.all<GraphBreak>();
  ASSERT_EQ(breaks.size(), 1u);
  const GraphBreak& b = breaks[0];
  EXPECT_EQ(b.origin, "trace_artifact");
  EXPECT_EQ(b.ref.id.text(), "0/0");
  EXPECT_EQ(b.user_file, "/home/u/model.py");
  EXPECT_EQ(b.user_line, 42);
  EXPECT_EQ(b.user_function, "forward");
  EXPECT_EQ(b.gb_type, "Unsupported Tensor.item() call with capture_scalar_outputs=False");
  EXPECT_EQ(b.reason.rfind("Unsupported Tensor.item() call", 0), 0u);
  EXPECT_NE(b.reason.find("Developer debug context: call_method TensorVariable() item () {}"),
            std::string::npos);
  EXPECT_EQ(b.reason.find("User code traceback"), std::string::npos);
  EXPECT_TRUE(b.sync_signature);
  EXPECT_FALSE(b.suppressed);
  ASSERT_EQ(b.user_stack.size(), 2u);
  EXPECT_EQ(b.user_stack[0].file, "/home/u/train.py");
  EXPECT_EQ(b.user_stack[0].line, 10);
  EXPECT_EQ(b.user_stack[0].function, "main");
  EXPECT_EQ(b.user_stack[0].code, "loss = model(x)");
  EXPECT_EQ(b.user_stack[1].code, "n = x.sum().item()");
}

TEST(TorchTraceImporter, RestartReasonWithSyncSignature) {
  CollectingSink sink = run_importer(
      "torch_trace",
      start_record(kIds00) +
          metrics_record(
              R"("frame_id": 0, "frame_compile_id": 0, "attempt": 1)",
              R"("restart_reasons": ["'Data-dependent branching'", "plain"],)"
              R"( "dynamo_config": "{\"recompile_limit\": 4, \"accumulated_cache_size_limit\": 64}")"));
  std::vector<GraphBreak> breaks = sink.all<GraphBreak>();
  ASSERT_EQ(breaks.size(), 2u);
  EXPECT_EQ(breaks[0].reason, "Data-dependent branching");
  EXPECT_TRUE(breaks[0].sync_signature);
  EXPECT_EQ(breaks[1].reason, "plain");
  EXPECT_FALSE(breaks[1].sync_signature);
  EXPECT_EQ(breaks[0].ref.id.text(), "0/0_1");
  ASSERT_EQ(sink.all<DynamoCompile>().size(), 1u);
  EXPECT_EQ(sink.all<DynamoCompile>()[0].recompile_limit, 4);
  EXPECT_EQ(sink.all<DynamoCompile>()[0].accumulated_recompile_limit, 64);
  EXPECT_EQ(sink.all<DynamoCompile>()[0].user_stack.size(), 1u);  // matched across the attempt
}

TEST(TorchTraceImporter, DynamoGuardsBadJsonFallsBackToLines) {
  std::string payload =
      "[\n{\"code\": \"L['x'] == 1\", \"stack\": null},\n{\"code\": \"broken\", \n]";
  CollectingSink sink =
      run_importer("torch_trace",
                   record(std::string(R"({"dynamo_guards": {}, )") + std::string(kIds00), payload));
  EXPECT_EQ(sink.note_counts(), (std::map<std::string, int>{{"warning:bad_guards_json", 1}}));
  std::vector<GuardSet> sets = sink.all<GuardSet>();
  ASSERT_EQ(sets.size(), 1u);
  EXPECT_EQ(sets[0].guards, (std::vector<std::string>{"L['x'] == 1", "{\"code\": \"broken\""}));
}

TEST(TorchTraceImporter, ChromiumCacheInstantsAreDeduplicatedAgainstArtifacts) {
  auto instant = [](const char* name, const char* id) {
    return record(R"({"chromium_event": {})",
                  std::string(R"({"name": ")") + name +
                      R"(", "ts": 1.0, "ph": "i", "args": {"compile_id": ")" + id +
                      R"(", "key": "k1", "cache_state": "miss"}})");
  };
  std::string text =
      instant("fx_graph_cache_miss", "0/0") +  // duplicate of the artifact below
      record(std::string(R"({"artifact": {"name": "fx_graph_cache_miss", "encoding": "json"}, )") +
                 std::string(kIds00),
             std::string(R"({"key": "k1", "components": []})")) +
      instant("autograd_cache_bypass", "0/0") +  // no aotautograd artifact: kept
      instant("fx_graph_cache_hit", "0/1");      // no artifact for 0/1: kept
  CollectingSink sink = run_importer("torch_trace", text);
  std::vector<CacheOutcome> cache = sink.all<CacheOutcome>();
  ASSERT_EQ(cache.size(), 3u);
  EXPECT_EQ(cache[0].cache, "fx_graph");
  EXPECT_EQ(cache[0].ref.id.text(), "0/0");
  EXPECT_EQ(cache[0].key, "k1");
  EXPECT_EQ(cache[1].cache, "aotautograd");
  EXPECT_EQ(cache[1].state, "bypass");
  EXPECT_EQ(cache[2].ref.id.text(), "0/1");  // from args.compile_id (no envelope id)
  EXPECT_EQ(cache[2].state, "hit");
  EXPECT_TRUE(sink.notes.empty());
}

TEST(TorchTraceImporter, PhaseTimingPairsNestedEventsInStackOrder) {
  auto event = [](const char* name, const char* phase, double ts) {
    return record(std::string(R"({"chromium_event": {}, )") + std::string(kIds00),
                  std::string(R"({"name": ")") + name + R"(", "ts": )" + std::to_string(ts) +
                      R"(, "ph": ")" + phase + R"(", "args": {"compile_id": "0/0"}})");
  };
  std::string text = event("gc", "B", 100) + event("gc", "B", 110) + event("gc", "E", 130) +
                     event("gc", "E", 200) + event("other", "E", 300);
  CollectingSink sink = run_importer("torch_trace", text);
  std::vector<PhaseTiming> phases = sink.all<PhaseTiming>();
  ASSERT_EQ(phases.size(), 2u);
  EXPECT_EQ(phases[0].start_us, 110);
  EXPECT_EQ(phases[0].duration_us, 20);
  EXPECT_EQ(phases[0].line, 3);  // the inner B's line
  EXPECT_EQ(phases[1].start_us, 100);
  EXPECT_EQ(phases[1].duration_us, 100);
}

TEST(TorchTraceImporter, StringTableAndUnknownIds) {
  std::string text =
      record(R"({"str": ["/home/u/train.py", 1])") +
      record(std::string(R"j({"dynamo_start": {"stack": [)j"
                         R"j({"line": 5, "name": "main", "filename": 1, "loc": "step()"}, )j"
                         R"j({"line": 9, "name": "step", "filename": 7}, )j"
                         R"j({"line": 1, "name": "_fn", "filename": 2}]}, )j") +
             std::string(kIds00)) +
      record(R"({"str": ["/site-packages/torch/_dynamo/eval_frame.py", 2])");
  CollectingSink sink = run_importer("torch_trace", text);
  std::vector<DynamoCompile> compiles = sink.all<DynamoCompile>();
  ASSERT_EQ(compiles.size(), 1u);  // incomplete: no compilation_metrics
  EXPECT_EQ(compiles[0].fail_type, "incomplete");
  // Id 2 is defined only after the dynamo_start, so its frame is not known to be torch's.
  ASSERT_EQ(compiles[0].user_stack.size(), 3u);
  EXPECT_EQ(compiles[0].user_stack[0].file, "/home/u/train.py");
  EXPECT_EQ(compiles[0].user_stack[0].code, "step()");
  EXPECT_EQ(compiles[0].user_stack[1].file, "7");  // unknown id stays a number
  EXPECT_EQ(sink.note_counts(), (std::map<std::string, int>{{"warning:truncated_compile", 1}}));
}

TEST(TorchTraceImporter, MetricsWithoutDynamoStartAndWithoutIds) {
  // AOTInductor logs: compilation_metrics with no compile id at all.
  CollectingSink sink = run_importer(
      "torch_trace",
      record(R"({"compilation_metrics": {"compile_id": null, "start_time": 1747851702.373735})"));
  ASSERT_EQ(sink.all<DynamoCompile>().size(), 1u);
  EXPECT_FALSE(sink.all<DynamoCompile>()[0].ref.id.known());
  EXPECT_EQ(sink.all<DynamoCompile>()[0].start_time_us, 1747851702373735);
  EXPECT_TRUE(sink.notes.empty());
}

TEST(TorchTraceImporter, InputTensorJoin) {
  std::string text =
      record(std::string(R"j({"describe_tensor": {"id": 3, "ndim": 2, "dtype": "torch.float16", )j"
                         R"j("device": "device(type='cuda', index=0)", "size": [8, 4], )j"
                         R"j("stride": [4, 1], "requires_grad": true, "describer_id": 7}, )j") +
             std::string(kIds01)) +
      record(std::string(
                 R"({"describe_source": {"describer_id": 7, "id": 3, "source": "L['self'].w"}, )") +
             std::string(kIds01)) +
      record(
          std::string(R"({"describe_source": {"describer_id": 8, "id": 3, "source": "L['y']"}, )") +
          std::string(kIds01));
  CollectingSink sink = run_importer("torch_trace", text);
  std::vector<InputTensor> inputs = sink.all<InputTensor>();
  ASSERT_EQ(inputs.size(), 1u);
  EXPECT_EQ(inputs[0].line, 1);
  EXPECT_EQ(inputs[0].ref.id.text(), "0/1");
  EXPECT_EQ(inputs[0].source, "L['self'].w");
  EXPECT_EQ(inputs[0].dtype, "torch.float16");
  EXPECT_EQ(inputs[0].device, "device(type='cuda', index=0)");
  EXPECT_EQ(inputs[0].sizes, (std::vector<int64_t>{8, 4}));
  EXPECT_EQ(inputs[0].strides, (std::vector<int64_t>{4, 1}));
  EXPECT_EQ(inputs[0].requires_grad, true);
}

TEST(TorchTraceImporter, SniffAcceptsTraceAndRejectsTextLogs) {
  const ImporterInfo* info = find_importer("torch_trace");
  ASSERT_NE(info, nullptr);
  EXPECT_EQ(info->sniff(read_fixture("torch_trace/comp_metrics.log").substr(0, 65536)), 90);
  EXPECT_EQ(info->sniff("\n\n" + record(R"({"str": ["/a.py", 0])")), 90);
  EXPECT_EQ(info->sniff("V0721 16:11:45.673000 98102 torch/_dynamo/guards.py:2791] [0/1] "
                        "[__recompiles] Recompiling function f\n"),
            0);
  EXPECT_EQ(info->sniff("hello world\n"), 0);
  EXPECT_EQ(info->sniff(""), 0);
}

TEST(TorchTraceImporter, SyncSignatures) {
  EXPECT_TRUE(has_sync_signature("Unsupported Tensor.item() call"));
  EXPECT_TRUE(has_sync_signature("data dependent operator: aten._local_scalar_dense.default"));
  EXPECT_TRUE(has_sync_signature("generic_jump TensorVariable()"));
  EXPECT_TRUE(has_sync_signature("Operator `aten.nonzero.default`'s output shape"));
  EXPECT_FALSE(has_sync_signature("skip function graph_break in file decorators.py"));
  EXPECT_FALSE(has_sync_signature(""));
}

}  // namespace torch_trace_importer_test
}  // namespace rcf::ingest
