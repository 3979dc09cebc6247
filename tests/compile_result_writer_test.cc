// CompileResultWriter: a run's attributed compiles written on a writer thread, in order, with
// errors handed back to the caller.
#include "store/compile_result_writer.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "store/derived_results_writer.h"
#include "store/fix_first_queries.h"
#include "store/store.h"
#include "tests/support/temp_files.h"
#include "util/error.h"

namespace rcf::store {
namespace compile_result_writer_test {

AttributedCompile compile(int64_t ordinal) {
  AttributedCompile c;
  c.ordinal = ordinal;
  c.site = "train.py:10 (step)";
  c.program_key = "0/" + std::to_string(ordinal - 1);
  c.kind = "dynamo";
  c.evidence_kind = "compilation_metrics";
  c.cause = ordinal == 1 ? "first_compile" : "shape";
  c.confidence = "high";
  if (ordinal > 1) {
    c.prev_program_key = "0/" + std::to_string(ordinal - 2);
    c.detail =
        "tensor 'x' dim 0: " + std::to_string(ordinal) + " -> " + std::to_string(ordinal + 1);
    c.subject = "x";
    c.primary_reason = "tensor 'L['x']' size mismatch at index 0";
  }
  return c;
}

class CompileResultWriterTest : public ::testing::Test {
 protected:
  void SetUp() override {
    db_ = store::open_store(tmp_.file("rcf.db"), store::OpenMode::kCreateOrWrite);
    db_->exec("INSERT INTO run_table(run_id, lane, run, created_at) VALUES (1, 'l', 'r', 'now')");
  }
  std::string scalar(const std::string& sql) {
    auto st = db_->prepare(sql);
    return st.step() ? std::string(st.text(0)) : "<none>";
  }
  testing::TempDir tmp_;
  std::unique_ptr<store::Database> db_;
};

TEST_F(CompileResultWriterTest, WritesEveryCompileInOrderAcrossBatches) {
  store::StringInterner strings(*db_);
  CompileResultWriter writer(*db_, strings, 1);
  const int n = 5000;  // several batches, so the writer thread lags the caller
  for (int i = 1; i <= n; ++i) writer.write(compile(i));
  writer.finish();
  EXPECT_EQ(scalar("SELECT count(*) FROM compiles"), std::to_string(n));
  EXPECT_EQ(scalar("SELECT count(*) FROM recompiles"), std::to_string(n - 1));
  // Rows were inserted in ordinal order, and the texts unique to a compile are in its rows.
  EXPECT_EQ(scalar("SELECT count(*) FROM compile_event WHERE compile_row <> ordinal"), "0");
  EXPECT_EQ(scalar("SELECT program_key || ' ' || prev_program_key || ' ' || detail FROM "
                   "recompiles WHERE ordinal = 4321"),
            "0/4320 0/4319 tensor 'x' dim 0: 4321 -> 4322");
  EXPECT_EQ(scalar("SELECT count(DISTINCT reason_sid) FROM attribution"), "1");
}

// After finish(), the writer tells the string id it gave each numbered site, as its rows carry.
TEST_F(CompileResultWriterTest, SiteIdsByNumberAreThoseOfTheRows) {
  store::StringInterner strings(*db_);
  CompileResultWriter writer(*db_, strings, 1);
  const int n = 1500;  // three batches
  for (int i = 1; i <= n; ++i) {
    AttributedCompile c = compile(i);
    c.site = "site " + std::to_string(i % 7);
    c.site_number = static_cast<uint32_t>(i % 7 + 1);
    writer.write(std::move(c));
  }
  writer.finish();
  EXPECT_EQ(writer.site_numbers(), 7u);
  for (uint32_t number = 1; number <= 7; ++number) {
    auto st = db_->prepare(
        "SELECT DISTINCT e.site_sid FROM compile_event e JOIN strings s ON s.string_id = "
        "e.site_sid WHERE s.text = ?");
    st.bind(1, "site " + std::to_string(number - 1));
    ASSERT_TRUE(st.step());
    EXPECT_EQ(writer.site_sid_of(number), st.int64(0)) << number;
    EXPECT_FALSE(st.step());  // one id per site
  }
  EXPECT_EQ(writer.site_sid_of(0), 0);
  EXPECT_EQ(writer.site_sid_of(8), 0);
}

TEST_F(CompileResultWriterTest, AWriteErrorIsRethrownByFinish) {
  // A constraint the second write of one ordinal breaks, on the writer thread.
  db_->exec("CREATE UNIQUE INDEX one_per_ordinal ON compile_event(run_id, ordinal)");
  store::StringInterner strings(*db_);
  CompileResultWriter writer(*db_, strings, 1);
  for (int i = 1; i <= 40; ++i) writer.write(compile(i));
  for (int i = 0; i < 2000; ++i) writer.write(compile(2));  // the caller is never blocked
  EXPECT_THROW(writer.finish(), Error);
  // Rows go 32 to a statement (INSERT OR FAIL: the rows before a bad one stay, the caller rolls
  // back): 1..32 are written, the statement with 33..40 and the first repeat of 2 fails at the
  // repeat, leaving 33..40, and nothing after it is written (not even the attributions of 33..40,
  // whose statement would have followed).
  EXPECT_EQ(scalar("SELECT count(*) FROM compile_event"), "40");
  EXPECT_EQ(scalar("SELECT max(ordinal) FROM compile_event"), "40");
  EXPECT_EQ(scalar("SELECT count(*) FROM attribution"), "32");
}

// compile_row is assigned by the writer: a second run's rows follow the first run's, and each
// attribution row belongs to its own compile (the partial last statement included).
TEST_F(CompileResultWriterTest, ASecondRunsRowsFollowTheFirstsWithTheirAttributions) {
  store::StringInterner strings(*db_);
  for (auto [run, count] : {std::pair<int64_t, int>{1, 1000}, {2, 45}}) {
    CompileResultWriter writer(*db_, strings, run);
    for (int i = 1; i <= count; ++i) writer.write(compile(i));
    writer.finish();
  }
  EXPECT_EQ(scalar("SELECT min(compile_row) || '..' || max(compile_row) FROM compile_event "
                   "WHERE run_id = 2"),
            "1001..1045");
  EXPECT_EQ(scalar("SELECT count(*) FROM compile_event e JOIN attribution a USING (compile_row) "
                   "WHERE a.cause = 'shape' AND a.detail = 'tensor ''x'' dim 0: ' || e.ordinal || "
                   "' -> ' || (e.ordinal + 1)"),
            std::to_string(999 + 44));
  EXPECT_EQ(scalar("SELECT count(*) FROM attribution"), "1045");
}

// before_first_write runs once, before the first row is numbered (here it empties the table, so
// numbering starts again at 1), and also when nothing is written.
TEST_F(CompileResultWriterTest, BeforeFirstWriteRunsOnceBeforeTheRowsAreNumbered) {
  store::StringInterner strings(*db_);
  {
    CompileResultWriter writer(*db_, strings, 1);
    for (int i = 1; i <= 100; ++i) writer.write(compile(i));
    writer.finish();
  }
  int calls = 0;
  CompileResultWriter writer(*db_, strings, 1, [&] {
    ++calls;
    db_->exec("DELETE FROM attribution");
    db_->exec("DELETE FROM compile_event");
  });
  for (int i = 1; i <= 1500; ++i) writer.write(compile(i));
  writer.finish();
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(scalar("SELECT count(*) || ' ' || min(compile_row) || ' ' || max(compile_row) FROM "
                   "compile_event"),
            "1500 1 1500");

  int empty_calls = 0;
  CompileResultWriter nothing(*db_, strings, 2, [&] { ++empty_calls; });
  nothing.finish();
  EXPECT_EQ(empty_calls, 1);
}

// Destroyed without finish(): returns (does not wait for a batch that never comes) and writes
// what was handed over: the full batches of 512, in order; the last partial batch is dropped.
TEST_F(CompileResultWriterTest, DestroyedWithoutFinishWritesTheHandedOverBatches) {
  store::StringInterner strings(*db_);
  {
    CompileResultWriter writer(*db_, strings, 1);
    for (int i = 1; i <= 3000; ++i) writer.write(compile(i));
  }
  EXPECT_EQ(scalar("SELECT count(*) || ' ' || min(ordinal) || ' ' || max(ordinal) FROM "
                   "compile_event"),
            "2560 1 2560");  // 5 batches of 512; 440 compiles never handed over
  EXPECT_EQ(scalar("SELECT count(*) FROM compile_event WHERE compile_row <> ordinal"), "0");
  EXPECT_EQ(scalar("SELECT count(*) FROM compiles"), "2560");
}

// Every column of the run's compiles but compile_row, in ordinal order: what a rewrite through a
// memo must leave equal to a fresh write.
std::vector<std::string> run_rows(Database& db, int64_t run_id) {
  auto st = db.prepare(
      "SELECT e.ordinal, e.step, e.site_sid, e.program_key, e.kind, e.cause_reported, "
      "e.compile_ms, e.cache, e.rank, e.epoch, e.frame_id, e.frame_compile_id, e.attempt, e.ca_id, "
      "e.source_id, e.line, e.evidence, e.hlo_module_id, e.saved_graph_source_id, "
      "e.saved_graph_line, a.cause, a.prev_program_key, a.detail, a.confidence, a.evidence, "
      "a.subject_sid, a.reason_sid, a.other_reasons FROM compile_event e "
      "JOIN attribution a USING (compile_row) WHERE e.run_id = ? ORDER BY e.ordinal");
  st.bind(1, run_id);
  std::vector<std::string> out;
  while (st.step()) {
    std::string row;
    for (int i = 0; i < 28; ++i) row += (st.is_null(i) ? "NULL" : std::string(st.text(i))) + "|";
    out.push_back(row);
  }
  return out;
}

// The compiles of one analysis: `n` compiles, the ones in `changed` with another detail.
std::vector<AttributedCompile> analysis_of(int n, const std::set<int>& changed = {}) {
  std::vector<AttributedCompile> out;
  for (int i = 1; i <= n; ++i) {
    AttributedCompile c = compile(i);
    if (changed.count(i)) c.detail += " (seen again)";
    out.push_back(std::move(c));
  }
  return out;
}

void write_all(Database& db, StringInterner& strings, int64_t run_id,
               const std::vector<AttributedCompile>& compiles, CompileRowMemo* memo) {
  CompileResultWriter writer(db, strings, run_id, nullptr, memo);
  for (AttributedCompile c : compiles) writer.write(std::move(c));
  writer.finish();
}

std::vector<int64_t> compile_rows(Database& db) {
  std::vector<int64_t> out;
  auto st = db.prepare("SELECT compile_row FROM compile_event ORDER BY ordinal");
  while (st.step()) out.push_back(st.int64(0));
  return out;
}

// Through a memo, an analysis writes only the compiles whose values changed (under their
// compile_row) and the new ones, deletes those past the new count, and leaves the rows a fresh
// write of the same compiles leaves.
// A generation names one analysis while the memos live: after a clear (another writer moved the
// store), a run's new memo goes on from the generations before, so that rows a reader kept at
// generation 2 are never taken for those of the new memo's second analysis.
TEST_F(CompileResultWriterTest, GenerationsGoOnAfterTheMemosAreCleared) {
  StringInterner strings(*db_);
  rcf::store::AnalysisMemos memos;
  write_all(*db_, strings, 1, analysis_of(10), &memos.of(1));
  write_all(*db_, strings, 1, analysis_of(11), &memos.of(1));
  EXPECT_EQ(memos.of(1).generation, 2);
  memos.clear();
  EXPECT_EQ(memos.find(1), nullptr);
  write_all(*db_, strings, 1, analysis_of(12), &memos.of(1));
  EXPECT_TRUE(memos.of(1).whole);
  EXPECT_EQ(memos.of(1).generation, 3);
  EXPECT_EQ(memos.of(2).generation, 2) << "a run first analysed after the clear";
}

TEST_F(CompileResultWriterTest, AMemoRewritesOnlyWhatChanged) {
  StringInterner strings(*db_);
  CompileRowMemo memo;
  write_all(*db_, strings, 1, analysis_of(1200), &memo);
  EXPECT_TRUE(memo.known);
  EXPECT_TRUE(memo.whole);
  EXPECT_EQ(memo.generation, 1);
  const std::vector<int64_t> first_rows = compile_rows(*db_);

  // Two compiles changed (one in each of two writer batches), three new.
  const std::vector<AttributedCompile> second = analysis_of(1203, {7, 900});
  write_all(*db_, strings, 1, second, &memo);
  EXPECT_FALSE(memo.whole);
  EXPECT_EQ(memo.generation, 2);
  EXPECT_EQ(memo.written, (std::vector<int64_t>{7, 900, 1201, 1202, 1203}));
  std::vector<int64_t> rows = compile_rows(*db_);
  ASSERT_EQ(rows.size(), 1203u);
  EXPECT_TRUE(std::equal(first_rows.begin(), first_rows.end(), rows.begin()));

  // The same rows as a fresh write of the same compiles into another store.
  testing::TempDir other_dir;
  auto fresh = store::open_store(other_dir.file("fresh.db"), store::OpenMode::kCreateOrWrite);
  fresh->exec("INSERT INTO run_table(run_id, lane, run, created_at) VALUES (1, 'l', 'r', 'now')");
  StringInterner fresh_strings(*fresh);
  write_all(*fresh, fresh_strings, 1, second, nullptr);
  EXPECT_EQ(run_rows(*db_, 1), run_rows(*fresh, 1));

  // Fewer compiles: the rows past the new count go, the rest stay.
  write_all(*db_, strings, 1, analysis_of(1000, {7, 900}), &memo);
  EXPECT_TRUE(memo.written.empty());
  EXPECT_EQ(scalar("SELECT count(*) || ' ' || max(ordinal) FROM compile_event"), "1000 1000");
  EXPECT_EQ(scalar("SELECT count(*) FROM attribution"), "1000");

  // Another value type in a column (NULL against empty text against 0) is a change.
  std::vector<AttributedCompile> third = analysis_of(1000, {7, 900});
  third[41].compile_ms = 0.0;
  third[42].cache = "miss";
  write_all(*db_, strings, 1, third, &memo);
  EXPECT_EQ(memo.written, (std::vector<int64_t>{42, 43}));
  EXPECT_EQ(scalar("SELECT compile_ms || ' ' || (SELECT cache FROM compile_event WHERE ordinal = "
                   "43) FROM compile_event WHERE ordinal = 42"),
            "0.0 miss");
}

// A memo not known to describe the store (a new watch over a store analysed before) is no
// reason to skip a row: every compile is written, and the memo is known from then on.
TEST_F(CompileResultWriterTest, AnUnknownMemoWritesEveryRow) {
  StringInterner strings(*db_);
  CompileRowMemo memo;
  memo.rows.resize(10);  // what a memo holds says nothing until it is known
  write_all(*db_, strings, 1, analysis_of(10), &memo);
  EXPECT_EQ(scalar("SELECT count(*) FROM compile_event"), "10");
  EXPECT_TRUE(memo.whole);
  EXPECT_EQ(memo.rows.size(), 10u);
}

CauseGroup group(std::string site, std::string cause, int64_t recompiles,
                 std::optional<double> ms_lost = std::nullopt) {
  CauseGroup g;
  g.site = std::move(site);
  g.cause = std::move(cause);
  g.recompiles = recompiles;
  g.compile_ms_lost = ms_lost;
  g.compile_ms_basis = ms_lost ? "measured" : "unknown";
  g.detail = "latest of " + std::to_string(recompiles);
  return g;
}

void write_groups(Database& db, StringInterner& strings, std::vector<CauseGroup> groups,
                  CompileRowMemo* memo, bool changed_only = false) {
  CauseGroupWriter writer(db, strings, 1, memo, changed_only);
  for (CauseGroup& g : groups) writer.write(std::move(g));
  writer.finish();
}

// The run's cause groups through a memo (a watched run's, written after every batch): a group
// whose row holds the same values keeps its row, a changed one replaces it, a group the run no
// longer has is deleted, and the rows equal a write of the same groups into an empty store.
TEST_F(CompileResultWriterTest, CauseGroupsThroughAMemoRewriteOnlyWhatChanged) {
  StringInterner strings(*db_);
  CompileRowMemo memo;
  write_groups(*db_, strings,
               {group("a.py:1 (f)", "shape", 3), group("b.py:2 (g)", "dtype", 2),
                group("c.py:3 (h)", "shape", 1)},
               &memo);
  EXPECT_EQ(memo.groups.size(), 3u);
  auto rowid_of = [this](const std::string& cause, const std::string& site) {
    return scalar(
        "SELECT g.rowid FROM cause_group g JOIN strings s ON s.string_id = g.site_sid "
        "WHERE g.cause = '" +
        cause + "' AND s.text = '" + site + "'");
  };
  const std::string unchanged = rowid_of("shape", "c.py:3 (h)");
  const std::string changed = rowid_of("shape", "a.py:1 (f)");

  const std::vector<CauseGroup> second = {group("a.py:1 (f)", "shape", 4),
                                          group("d.py:4 (k)", "constant", 1),
                                          group("c.py:3 (h)", "shape", 1)};
  write_groups(*db_, strings, second, &memo);
  EXPECT_EQ(memo.groups.size(), 3u);
  EXPECT_EQ(rowid_of("shape", "c.py:3 (h)"), unchanged);
  EXPECT_NE(rowid_of("shape", "a.py:1 (f)"), changed);
  EXPECT_EQ(rowid_of("dtype", "b.py:2 (g)"), "<none>");

  testing::TempDir other_dir;
  auto fresh = store::open_store(other_dir.file("fresh.db"), store::OpenMode::kCreateOrWrite);
  fresh->exec("INSERT INTO run_table(run_id, lane, run, created_at) VALUES (1, 'l', 'r', 'now')");
  StringInterner fresh_strings(*fresh);
  write_groups(*fresh, fresh_strings, second, nullptr);
  const std::string rows =
      "SELECT group_concat(site || '|' || cause || '|' || recompiles || '|' || detail || '|' || "
      "rank, ';') FROM (SELECT * FROM fix_first WHERE run_id = 1 ORDER BY rank)";
  auto st = db_->prepare(rows);
  auto fresh_st = fresh->prepare(rows);
  ASSERT_TRUE(st.step() && fresh_st.step());
  EXPECT_EQ(st.text(0), fresh_st.text(0));
  // Ranked by recompiles, then by site on the tie.
  EXPECT_EQ(st.text(0),
            "a.py:1 (f)|shape|4|latest of 4|1;c.py:3 (h)|shape|1|latest of 1|2;"
            "d.py:4 (k)|constant|1|latest of 1|3");
}

// The fix-first order (the view numbers the rows; rcf explain reads the first rows from the
// tables in the same order, and the rollup ranks its groups so): compile time lost first,
// unknown last, then recompiles, then the site's text, then the cause.
TEST_F(CompileResultWriterTest, TheFixFirstRanksAreTheViewsOrder) {
  StringInterner strings(*db_);
  write_groups(*db_, strings,
               {group("z.py:1 (f)", "shape", 1), group("b.py:2 (g)", "dtype", 2, 5.0),
                group("a.py:3 (h)", "shape", 1, 5.0), group("a.py:3 (h)", "dtype", 1, 5.0),
                group("c.py:4 (k)", "constant", 9), group("m.py:5 (p)", "shape", 1, 0.0),
                group("y.py:6 (q)", "shape", 1, 7.5), group("b.py:7 (r)", "shape", 1)},
               nullptr);
  const std::string expected =
      "1 y.py:6 (q) shape;2 b.py:2 (g) dtype;3 a.py:3 (h) dtype;4 a.py:3 (h) shape;"
      "5 m.py:5 (p) shape;6 c.py:4 (k) constant;7 b.py:7 (r) shape;8 z.py:1 (f) shape";
  EXPECT_EQ(scalar("SELECT group_concat(rank || ' ' || site || ' ' || cause, ';') FROM "
                   "(SELECT * FROM fix_first WHERE run_id = 1 ORDER BY rank)"),
            expected);
  std::string read;
  for (const store::FixFirstRow& f : store::fix_first_of_run(*db_, 1, 0))
    read += (read.empty() ? "" : ";") + std::to_string(f.rank) + " " + f.site + " " + f.cause;
  EXPECT_EQ(read, expected);
  std::vector<store::FixFirstRow> first = store::fix_first_of_run(*db_, 1, 3);
  ASSERT_EQ(first.size(), 3u);
  EXPECT_EQ(first[2].site + " " + first[2].cause, "a.py:3 (h) dtype");
}

// Only the groups that may have changed are handed (a watched run's analysis that goes on from
// the last one's checkpoint): the others keep their rows; of those the last analysis changed
// after its checkpoint, one not handed again is gone.
TEST_F(CompileResultWriterTest, CauseGroupsHandedOnlyWhenChangedKeepTheOthers) {
  StringInterner strings(*db_);
  CompileRowMemo memo;
  std::vector<CauseGroup> first = {group("a.py:1 (f)", "shape", 1), group("b.py:2 (g)", "shape", 1),
                                   group("c.py:3 (h)", "shape", 1),
                                   group("d.py:4 (k)", "shape", 1)};
  first[2].after_checkpoint = first[3].after_checkpoint = true;
  ++memo.generation;
  write_groups(*db_, strings, first, &memo);
  ASSERT_EQ(memo.groups_after_checkpoint.size(), 2u);
  ++memo.generation;  // the next analysis' compile rows
  ASSERT_TRUE(memo.groups_of_last_analysis());
  const std::string untouched = scalar(
      "SELECT g.rowid FROM cause_group g JOIN strings s ON s.string_id = g.site_sid "
      "WHERE s.text = 'a.py:1 (f)'");
  // b gained a recompile, c is handed again unchanged, d is not handed (gone), e is new.
  write_groups(*db_, strings,
               {group("b.py:2 (g)", "shape", 2), group("c.py:3 (h)", "shape", 1),
                group("e.py:5 (m)", "shape", 1)},
               &memo, /*changed_only=*/true);
  EXPECT_EQ(scalar("SELECT group_concat(site || ':' || recompiles, ' ') FROM "
                   "(SELECT * FROM fix_first ORDER BY rank)"),
            "b.py:2 (g):2 a.py:1 (f):1 c.py:3 (h):1 e.py:5 (m):1");
  EXPECT_EQ(scalar("SELECT g.rowid FROM cause_group g JOIN strings s ON s.string_id = "
                   "g.site_sid WHERE s.text = 'a.py:1 (f)'"),
            untouched);
  EXPECT_EQ(memo.groups.size(), 4u);
  EXPECT_TRUE(memo.groups_after_checkpoint.empty());
  EXPECT_EQ(memo.groups_generation, memo.generation);
}

// The groups through a memo while they come, go, move far up or down and change, batch after
// batch, handed in any order: the rows always equal a write of the same groups into an empty
// store, and a batch that only adds a group writes no other row again.
TEST_F(CompileResultWriterTest, CauseGroupsThroughAMemoFollowMovesAndGaps) {
  StringInterner strings(*db_);
  CompileRowMemo memo;
  struct Entry {
    int site;
    const char* cause;
    int64_t recompiles;
  };
  std::vector<Entry> list;
  for (int i = 0; i < 40; ++i) list.push_back({i, i % 3 == 0 ? "dtype" : "shape", 1});
  auto groups_of = [](const std::vector<Entry>& entries) {
    std::vector<CauseGroup> out;
    for (size_t i = 0; i < entries.size(); ++i)
      out.push_back(group("m.py:" + std::to_string(entries[i].site), entries[i].cause,
                          entries[i].recompiles));
    return out;
  };
  const std::string rows =
      "SELECT group_concat(x, ';') FROM (SELECT s.text || '|' || g.cause || '|' || g.recompiles "
      "|| '|' || g.detail AS x FROM cause_group g JOIN strings s ON "
      "s.string_id = g.site_sid ORDER BY s.text, g.cause)";
  testing::TempDir other_dir;
  auto fresh = store::open_store(other_dir.file("fresh.db"), store::OpenMode::kCreateOrWrite);
  fresh->exec("INSERT INTO run_table(run_id, lane, run, created_at) VALUES (1, 'l', 'r', 'now')");
  StringInterner fresh_strings(*fresh);
  uint64_t seed = 12345;
  auto next = [&seed](size_t n) {
    seed = seed * 6364136223846793005ull + 1442695040888963407ull;
    return static_cast<size_t>((seed >> 33) % n);
  };
  int new_site = 100;
  for (int batch = 0; batch < 60; ++batch) {
    switch (batch % 5) {
      case 0: {  // one moves far
        const size_t from = next(list.size()), to = next(list.size());
        Entry e = list[from];
        list.erase(list.begin() + static_cast<ptrdiff_t>(from));
        list.insert(list.begin() + static_cast<ptrdiff_t>(to), e);
        break;
      }
      case 1:  // one is gone
        list.erase(list.begin() + static_cast<ptrdiff_t>(next(list.size())));
        break;
      case 2:  // a new one anywhere
        list.insert(list.begin() + static_cast<ptrdiff_t>(next(list.size() + 1)),
                    {new_site++, "constant", 1});
        break;
      case 3:  // one gains a recompile in place
        ++list[next(list.size())].recompiles;
        break;
      default:  // two swap
        std::swap(list[next(list.size())], list[next(list.size())]);
    }
    write_groups(*db_, strings, groups_of(list), &memo);
    fresh->exec("DELETE FROM cause_group");
    write_groups(*fresh, fresh_strings, groups_of(list), nullptr);
    auto st = fresh->prepare(rows);
    ASSERT_TRUE(st.step());
    ASSERT_EQ(scalar(rows), st.text(0)) << "batch " << batch;
    ASSERT_EQ(memo.groups.size(), list.size());
  }
  const std::string rowids =
      "SELECT group_concat(rowid) FROM (SELECT rowid FROM cause_group "
      "ORDER BY rowid)";
  const std::string before = scalar(rowids);
  list.push_back({new_site, "shape", 1});
  write_groups(*db_, strings, groups_of(list), &memo);
  const std::string after = scalar(rowids);
  EXPECT_EQ(after.substr(0, before.size() + 1), before + ",");
  EXPECT_EQ(std::count(after.begin(), after.end(), ','), static_cast<ptrdiff_t>(list.size()) - 1);
}

// A watched run's curve through the memo: only the points that changed are written (a point per
// step, 100 000 of them, were deleted and written again at every batch), the steps gone are
// deleted, and the rows equal those a write of the whole curve leaves.
TEST_F(CompileResultWriterTest, ConvergencePointsThroughAMemoRewriteOnlyWhatChanged) {
  auto point = [](int64_t step, int64_t programs, std::optional<double> ms = std::nullopt) {
    return ConvergencePoint{step, programs, 1, ms, std::nullopt};
  };
  CompileRowMemo memo;
  const std::vector<ConvergencePoint> first = {point(1, 1, 2.5), point(2, 2), point(3, 3),
                                               point(5, 4), point(9, 4)};
  write_convergence_points(*db_, 1, first, &memo);
  EXPECT_TRUE(memo.points_known);
  auto rowid_at = [this](int step) {
    return scalar("SELECT rowid FROM convergence_point WHERE run_id = 1 AND step = " +
                  std::to_string(step));
  };
  const std::string kept = rowid_at(2), changed = rowid_at(5);
  // The run grew: step 5 gained a compile, the last step moved from 9 to 12, step 1's time is
  // now unknown.
  const std::vector<ConvergencePoint> second = {point(1, 1), point(2, 2), point(3, 3),
                                                point(5, 5), point(7, 6), point(12, 6)};
  write_convergence_points(*db_, 1, second, &memo);
  EXPECT_EQ(rowid_at(2), kept);
  EXPECT_NE(rowid_at(5), changed);
  EXPECT_EQ(rowid_at(9), "<none>");
  const std::string rows =
      "SELECT group_concat(step || ':' || programs_cached || ':' || ifnull(compile_ms, '-'), ' ') "
      "FROM (SELECT * FROM convergence_point WHERE run_id = 1 ORDER BY step)";
  EXPECT_EQ(scalar(rows), "1:1:- 2:2:- 3:3:- 5:5:- 7:6:- 12:6:-");
  db_->exec("DELETE FROM convergence_point");
  write_convergence_points(*db_, 1, second);
  EXPECT_EQ(scalar(rows), "1:1:- 2:2:- 3:3:- 5:5:- 7:6:- 12:6:-");
  // Points not strictly by step cannot be diffed: written whole, and the memo forgets them.
  write_convergence_points(*db_, 1, {point(4, 1), point(2, 2)}, &memo);
  EXPECT_FALSE(memo.points_known);
  EXPECT_EQ(scalar(rows), "2:2:- 4:1:-");
}

}  // namespace compile_result_writer_test
}  // namespace rcf::store
