// Unit tests of the Dynamo attribution rules on small hand-made inputs (no database): the cases
// that the corpus does not cover on its own.
#include "analysis/dynamo_attribution.h"

#include <gtest/gtest.h>

#include "analysis/merged_compile.h"

namespace rcf::analysis {
namespace dynamo_attribution_test {

// Text arguments are string literals: the records only view them.
CompileRecord compile(int64_t frame, int64_t c, int64_t line, std::string_view kind = "forward",
                      std::string_view co_name = "step") {
  CompileRecord r;
  r.key.source_id = 1;
  r.key.frame_id = frame;
  r.key.frame_compile_id = c;
  if (frame < 0) r.key.line_if_no_id = line;
  r.line = line;
  r.kind = kind;
  r.co_name = co_name;
  r.co_filename = "train.py";
  r.co_firstlineno = 10;
  return r;
}

ReasonRecord reason(const CompileRecord& of, int64_t line, std::string old_id,
                    std::string_view text, std::string_view origin = "text_recompiles") {
  ReasonRecord r;
  r.key = of.key;
  r.key.line_if_no_id = 0;
  r.line = line;
  r.old_compile_id = std::move(old_id);
  r.reason = text;
  r.origin = origin;
  return r;
}

TEST(DynamoAttribution, NewCacheEntryWithoutReasonsIsObjectIdentity) {
  RunInputs in;
  in.source_names = {{1, "trace.log"}};
  in.compiles.push_back(compile(0, 0, 5));
  CompileRecord second = compile(0, 1, 50);
  second.cache_size = 0;
  second.accumulated_cache_size = 1;
  in.compiles.push_back(second);
  auto out = attribute_dynamo_run(in);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].cause, "first_compile");
  EXPECT_EQ(out[1].cause, "object_identity");
  EXPECT_EQ(out[1].confidence, "medium");
  EXPECT_EQ(out[1].site, "train.py:10 (step)");
}

TEST(DynamoAttribution, ResumeFrameIsASyncFragmentOfItsGraphBreak) {
  RunInputs in;
  in.source_names = {{1, "log.txt"}};
  in.compiles.push_back(compile(0, 0, 5));
  in.compiles.push_back(compile(1, 0, 40, "forward", "torch_dynamo_resume_in_step_at_17"));
  BreakRecord brk;
  brk.key.source_id = 1;
  brk.key.frame_id = 0;
  brk.key.frame_compile_id = 0;
  brk.line = 30;
  brk.user_file = "train.py";
  brk.user_line = 17;
  brk.user_function = "step";
  brk.gb_type = "Unsupported Tensor.item() call with capture_scalar_outputs=False";
  brk.sync_signature = true;
  in.breaks.push_back(brk);
  auto out = attribute_dynamo_run(in);
  ASSERT_EQ(out.size(), 2u);
  // The first compile of the resume frame is an extra program: a recompile by design.
  EXPECT_EQ(out[1].cause, "sync_fragment");
  EXPECT_EQ(out[1].confidence, "high");
  EXPECT_EQ(out[1].detail,
            "resume function torch_dynamo_resume_in_step_at_17 exists because of a graph break in "
            "step at line 17: Unsupported Tensor.item() call with capture_scalar_outputs=False "
            "(train.py:17)");
  EXPECT_EQ(out[1].evidence, "graph break at log.txt:30");
}

TEST(DynamoAttribution, ReasonsWithoutIdsBelongToTheBlockAboveThem) {
  // 2023-era text: blocks carry no compile id; each reason belongs to the closest block above.
  RunInputs in;
  in.source_names = {{1, "log.txt"}};
  CompileRecord a = compile(-1, -1, 10, "recompile_block");
  CompileRecord b = compile(-1, -1, 20, "recompile_block");
  in.compiles = {a, b};
  in.reasons.push_back(reason(a, 12, "", "L['end'] == 10"));
  in.reasons.push_back(
      reason(a, 22, "", "tensor 'L['x']' size mismatch at index 0. expected 4, actual 5"));
  auto out = attribute_dynamo_run(in);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].cause, "constant");
  EXPECT_EQ(out[1].cause, "shape");
  EXPECT_EQ(out[1].detail, "tensor 'x' dim 0: 4 -> 5");
  EXPECT_EQ(out[0].program_key, "step@log.txt:10");
}

TEST(DynamoAttribution, PrimaryReasonIsTheNewestRejectedEntry) {
  RunInputs in;
  in.source_names = {{1, "log.txt"}};
  CompileRecord c = compile(3, 2, 100, "recompile_block");
  in.compiles = {compile(3, 0, 1, "referenced"), compile(3, 1, 1, "referenced"), c};
  // Listed oldest first here: the newest entry (3/1) still decides.
  in.reasons.push_back(reason(c, 101, "3/0", "___check_obj_id(L['self'], 1234)"));
  in.reasons.push_back(reason(c, 102, "3/1", "L['n'] == 3"));
  in.reasons[0].entry_index = 0;
  in.reasons[1].entry_index = 1;
  auto out = attribute_dynamo_run(in);
  ASSERT_EQ(out.size(), 3u);
  EXPECT_EQ(out[2].program_key, "3/2");
  EXPECT_EQ(out[2].cause, "constant");
  EXPECT_EQ(out[2].prev_program_key, "3/1");
  EXPECT_EQ(out[2].other_reasons, 1);
  // Referenced-only compiles come first, in id order, and say the log is a fragment.
  EXPECT_EQ(out[0].program_key, "3/0");
  EXPECT_EQ(out[0].cause, "first_compile");
  EXPECT_EQ(out[1].cause, "unknown");
}

// The records of a run are released once merged (analysis/run_analysis.cc): what attribution
// reads of them must have been kept by the merge, for every field it reports.
TEST(DynamoAttribution, AttributionReadsNoRecordOnceMerged) {
  RunInputs in;
  in.source_names = {{1, "trace.log"}};
  CompileRecord first = compile(0, 0, 5);
  first.start_us = 1000;
  first.duration_ms = 12.5;
  first.display_rank = 3;
  // A recompile block and its compilation_metrics: the metrics are the best record (their line,
  // rank, times), the block's recompile reason is what the log reported.
  CompileRecord block = compile(0, 1, 40, "recompile_block");
  block.recompile_reason = "0/0: L['n'] == 3";
  CompileRecord metrics = compile(0, 1, 60);
  metrics.start_us = 2000;
  metrics.duration_ms = 7.25;
  metrics.display_rank = 3;
  metrics.cache_size = 0;
  metrics.accumulated_cache_size = 1;
  // A compile that raised (no guarded code), and one whose failure was recovered from.
  CompileRecord raised = compile(1, 0, 80);
  raised.fail_type = "torch._dynamo.exc.Unsupported";
  raised.has_guarded_code = 0;
  CompileRecord recovered = compile(2, 0, 90);
  recovered.fail_type = "RuntimeError";
  recovered.has_guarded_code = 1;
  in.compiles = {block, first, metrics, raised, recovered};
  const std::vector<AttributedCompile> kept = attribute_dynamo_run(in);

  MergedCompiles merged = merge_dynamo_compiles(in);
  util::LargeVector<CompileRecord>().swap(in.compiles);
  std::vector<AttributedCompile> released;
  attribute_dynamo_run(in, std::move(merged),
                       [&](AttributedCompile&& a) { released.push_back(std::move(a)); });

  EXPECT_EQ(released, kept);
  ASSERT_EQ(released.size(), 4u);
  EXPECT_EQ(released[1].program_key, "0/1");
  EXPECT_EQ(released[1].line, 60);
  EXPECT_EQ(released[1].start_us, 2000);
  EXPECT_EQ(released[1].compile_ms, 7.25);
  EXPECT_EQ(released[1].evidence_kind, "compilation_metrics");
  EXPECT_EQ(released[1].cause_reported, "0/0: L['n'] == 3");
  EXPECT_EQ(released[1].cause, "object_identity");
  EXPECT_EQ(released[2].kind, "dynamo_failed");
  EXPECT_EQ(released[2].cause_reported, "torch._dynamo.exc.Unsupported");
  EXPECT_EQ(released[3].kind, "dynamo");
  EXPECT_EQ(released[3].cause_reported, "");
}

// The loader merges records in row order, where the records of different compiles interleave;
// the merge was a sort of the records by key. The same records, interleaved or grouped by compile
// (each compile's in the same order), give the same compiles field for field: the best record is
// the first of the most informative kind, the reported texts the last non-empty ones, the sites
// numbered in key order.
TEST(DynamoAttribution, InterleavedRecordsMergeAsRecordsGroupedByCompile) {
  RunInputs grouped;
  grouped.source_names = {{1, "log.txt"}};
  CompileRecord referenced = compile(0, 0, 3, "referenced");
  referenced.co_name = "";
  CompileRecord first = compile(0, 0, 5);
  first.start_us = 100;
  CompileRecord block = compile(0, 1, 40, "recompile_block");
  block.recompile_reason = "0/0: L['n'] == 3";
  CompileRecord metrics = compile(0, 1, 60);
  metrics.duration_ms = 4.5;
  CompileRecord later_block = compile(0, 1, 70, "recompile_block");
  later_block.recompile_reason = "0/0: L['n'] == 4";
  CompileRecord other = compile(1, 0, 45, "forward", "helper");
  CompileRecord other_metrics = compile(1, 0, 50, "forward", "helper");
  other_metrics.duration_ms = 9.0;
  CompileRecord runtime = compile(2, 0, 55, "runtime", "skipped");
  // Grouped by compile (key order), each compile's records in input order.
  grouped.compiles = {referenced,  first, block,         metrics,
                      later_block, other, other_metrics, runtime};
  RunInputs interleaved;
  interleaved.source_names = grouped.source_names;
  interleaved.compiles = {other, referenced,    block,   runtime,
                          first, other_metrics, metrics, later_block};

  const std::vector<AttributedCompile> expected = attribute_dynamo_run(grouped);
  EXPECT_EQ(attribute_dynamo_run(interleaved), expected);
  ASSERT_EQ(expected.size(), 3u);
  EXPECT_EQ(expected[0].program_key, "0/0");
  EXPECT_EQ(expected[0].line, 5);                     // its own record, not the reference
  EXPECT_EQ(expected[0].site, "train.py:10 (step)");  // the name a later record gave
  EXPECT_EQ(expected[1].program_key, "1/0");
  EXPECT_EQ(expected[1].line, 45);  // the first of its two records of one kind
  EXPECT_FALSE(expected[1].compile_ms);
  EXPECT_EQ(expected[2].line, 60);
  EXPECT_EQ(expected[2].compile_ms, 4.5);
  EXPECT_EQ(expected[2].cause_reported, "0/0: L['n'] == 4");

  DynamoCompileMerger merger;
  for (const CompileRecord& r : interleaved.compiles) merger.add(r);
  EXPECT_TRUE(merger.contains(first.key));
  EXPECT_TRUE(merger.contains(other.key));
  EXPECT_FALSE(merger.contains(runtime.key));  // a runtime record is no compile of its own
  std::vector<AttributedCompile> merged_apart;
  attribute_dynamo_run(interleaved, merger.finish(),
                       [&](AttributedCompile&& a) { merged_apart.push_back(std::move(a)); });
  EXPECT_EQ(merged_apart, expected);
  EXPECT_FALSE(merger.contains(first.key));  // finish() leaves it empty
}

// The loader attaches each guard failure to its compile as it reads it (MergedCompiles::
// add_reason) instead of holding the run's ReasonRecords: the compiles come out field for field
// as when the reasons are handed over in RunInputs::reasons. Covered: reasons listed out of entry
// order, an old compile id in another spelling than the runtime's (kept as its text), a reason
// of an origin that explains no compile, a reason of a compile that is not there, and id-less
// reasons of 2023-era text.
TEST(DynamoAttribution, ReasonsAttachedAsReadGiveTheSameCompiles) {
  RunInputs held;
  held.source_names = {{1, "log.txt"}};
  CompileRecord c = compile(3, 2, 100, "recompile_block");
  CompileRecord d = compile(4, 1, 200, "recompile_block");
  CompileRecord old_a = compile(-1, -1, 300, "recompile_block");
  CompileRecord old_b = compile(-1, -1, 310, "recompile_block");
  held.compiles = {
      compile(3, 0, 1, "referenced"), compile(3, 1, 1, "referenced"), c, d, old_a, old_b};
  held.reasons.push_back(reason(c, 102, "3/1", "L['n'] == 3"));
  held.reasons.push_back(reason(c, 101, "3/0", "___check_obj_id(L['self'], 1234)"));
  held.reasons[0].entry_index = 1;
  held.reasons[1].entry_index = 0;
  held.reasons.push_back(
      reason(d, 201, "4/00", "tensor 'L['x']' size mismatch at index 0. expected 4, actual 5"));
  held.reasons.push_back(reason(d, 202, "4/0", "L['n'] == 3", "recompile_limit"));
  held.reasons.push_back(reason(compile(9, 1, 250), 251, "9/0", "L['n'] == 9"));
  held.reasons.push_back(reason(old_a, 305, "", "L['end'] == 10"));
  held.reasons.push_back(reason(old_b, 312, "", "L['end'] == 11"));
  const std::vector<AttributedCompile> expected = attribute_dynamo_run(held);
  ASSERT_EQ(expected.size(), 6u);
  EXPECT_EQ(expected[2].prev_program_key, "3/1");
  EXPECT_EQ(expected[2].other_reasons, 1);
  EXPECT_EQ(expected[2].cause_reported, "3/0: ___check_obj_id(L['self'], 1234)");  // entry 0
  EXPECT_EQ(expected[3].cause, "shape");
  EXPECT_EQ(expected[3].cause_reported,
            "4/00: tensor 'L['x']' size mismatch at index 0. expected 4, actual 5");
  EXPECT_EQ(expected[4].cause, "constant");
  EXPECT_EQ(expected[5].cause_reported, "L['end'] == 11");

  RunInputs streamed;
  streamed.source_names = held.source_names;
  streamed.compiles = held.compiles;
  MergedCompiles merged = merge_dynamo_compiles(streamed);
  for (const ReasonRecord& r : held.reasons) merged.add_reason(r);
  std::vector<AttributedCompile> out;
  attribute_dynamo_run(streamed, std::move(merged),
                       [&](AttributedCompile&& a) { out.push_back(std::move(a)); });
  EXPECT_EQ(out, expected);
}

TEST(DynamoAttribution, ResumeNames) {
  auto r = parse_resume_name("torch_dynamo_resume_in_forward_at_836");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->function, "forward");
  EXPECT_EQ(r->line, 836);
  auto old = parse_resume_name("<resume in forward>");
  ASSERT_TRUE(old);
  EXPECT_EQ(old->function, "forward");
  EXPECT_FALSE(parse_resume_name("forward"));
}

// A merger read on across batches (analysis/dynamo_record_cache.h): a snapshot after each batch
// of records, with the guard failures read so far, equals a merger that took every record so far
// and finished with every guard failure added, compile for compile, where the records come out of
// key order (a recompile block before the compile it names, new frames below old ones, which move
// the compiles the kept reasons index), a later batch adds records to compiles a snapshot already
// held, and a guard failure comes before its compile's record (attached once the record comes).
TEST(DynamoAttribution, SnapshotsOfAMergerReadOnEqualAWholeMerge) {
  RunInputs in;
  in.source_names = {{1, "train.log"}};
  const std::vector<std::vector<CompileRecord>> batches = {
      {compile(5, 2, 10, "recompile_block", "fwd"), compile(5, 1, 11, "referenced", ""),
       compile(3, 0, 12)},
      {compile(5, 1, 20, "recompile_block", "fwd"), compile(1, 0, 21), compile(3, 1, 22)},
      {compile(3, 1, 30), compile(0, 0, 31), compile(9, 0, 32, "forward", "other")},
      {compile(2, 0, 40), compile(2, 1, 41, "recompile_block", "fwd"), compile(6, 0, 42)}};
  const std::vector<std::vector<ReasonRecord>> reason_batches = {
      {reason(compile(5, 2, 10), 10, "5/1",
              "tensor 'x' size mismatch at index 0. expected 8, actual 9"),
       reason(compile(3, 1, 22), 13, "3/0", "L['n'] == 3")},  // before 3/1's record
      {reason(compile(5, 1, 20), 20, "5/0", "L['m'] == 7")},
      {},
      {reason(compile(2, 1, 41), 41, "2/0",
              "tensor 'y' size mismatch at index 1. expected 2, actual 3"),
       reason(compile(7, 1, 43), 43, "7/0", "L['k'] == 1")}};  // 7/1 never comes
  // 5/1 is known only from the reference until its own record comes in the second batch.
  const std::vector<bool> only_referenced = {true, false, false, false};
  DynamoCompileMerger read_on;
  std::vector<CompileRecord> so_far;
  std::vector<ReasonRecord> reasons_so_far;
  for (size_t b = 0; b < batches.size(); ++b) {
    for (const CompileRecord& r : batches[b]) {
      read_on.add(r);
      so_far.push_back(r);
    }
    for (const ReasonRecord& r : reason_batches[b]) reasons_so_far.push_back(r);
    DynamoCompileMerger whole;
    for (const CompileRecord& r : so_far) whole.add(r);
    MergedCompiles snapshot = read_on.snapshot(
        reasons_so_far.size(), [&](size_t i) -> const ReasonRecord& { return reasons_so_far[i]; });
    MergedCompiles finished = whole.finish();
    for (const ReasonRecord& r : reasons_so_far) finished.add_reason(r);
    std::vector<AttributedCompile> from_snapshot, from_whole;
    attribute_dynamo_run(in, std::move(snapshot),
                         [&](AttributedCompile&& a) { from_snapshot.push_back(std::move(a)); });
    attribute_dynamo_run(in, std::move(finished),
                         [&](AttributedCompile&& a) { from_whole.push_back(std::move(a)); });
    EXPECT_EQ(from_snapshot, from_whole) << "after " << so_far.size() << " records";
    std::vector<std::string> causes;
    for (const AttributedCompile& a : from_snapshot) causes.push_back(a.cause);
    EXPECT_NE(std::find(causes.begin(), causes.end(), "shape"), causes.end());
    if (b >= 1) {
      EXPECT_NE(std::find(causes.begin(), causes.end(), "constant"), causes.end());
    }
    EXPECT_EQ(read_on.only_referenced(compile(5, 1, 11, "referenced", "").key), only_referenced[b]);
  }
  EXPECT_FALSE(read_on.only_referenced(compile(7, 0, 0).key));  // never added
}

// A watch's preview merges records into a fork of the run's tables: the fork finds the code
// objects its parent indexed (a compile of a known function keeps its code object), indexes
// those it adds itself, and leaves the parent as it was.
TEST(DynamoAttribution, AForkOfTheCompileTablesFindsItsParentsCodeObjects) {
  // The code object `tables` gives compile `key`, first seen in record `r`.
  auto code_of = [](CompileTables& tables, const DynamoKey& key, const CompileRecord& r) {
    Merged m(key);
    tables.add_code(m, r, true);
    return m.code;
  };
  CompileTables parent;
  const CompileRecord step = compile(1, 0, 10);
  const CompileRecord other = compile(2, 0, 20, "forward", "other");
  const uint32_t step_code = code_of(parent, step.key, step);
  CompileTables forked = parent.fork();
  EXPECT_EQ(code_of(forked, compile(1, 1, 30).key, step), step_code);
  const uint32_t other_code = code_of(forked, other.key, other);
  EXPECT_NE(other_code, step_code);
  EXPECT_EQ(forked.code_at(other_code).co_name, "other");
  EXPECT_EQ(code_of(forked, compile(2, 1, 40).key, other), other_code);
  // The parent never saw the fork's: its own next code object takes the same number.
  EXPECT_EQ(code_of(parent, other.key, other), other_code);
  EXPECT_EQ(parent.code_at(step_code).co_name, "step");
  EXPECT_EQ(code_of(parent, compile(1, 2, 50).key, step), step_code);
}

}  // namespace dynamo_attribution_test
}  // namespace rcf::analysis
