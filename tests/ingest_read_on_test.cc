// `rcf ingest` of a log that grew since it was ingested reads it on from where that ingest's read
// stopped (pipeline/grown_log_read_on.h, docs/watch.md "A log that grew, ingested again"): the
// source keeps its id and earlier rows, the rows the earlier read's end wrote (the open record it
// held) are taken back, and the store ends, table for table, as a one-shot ingest of the whole
// grown log leaves it. Real logs of each format, and a console pasted three ways, grown from cuts
// at line boundaries (inside compile blocks and re-flowed lines, between progress lines of a
// series, in a PT_XLA_DEBUG analysis block), once and in several steps; and every case where
// reading on would be wrong reads the log again whole.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <ostream>
#include <string>
#include <vector>

#include "pipeline/ingest_pipeline.h"
#include "store/database.h"
#include "store/store.h"
#include "tests/support/db_dump.h"
#include "tests/support/fixture_text.h"
#include "tests/support/ingested_store.h"
#include "tests/support/reflows.h"
#include "tests/support/temp_files.h"
#include "tests/support/training_console.h"

namespace rcf {
namespace ingest_read_on_test {

using testing::dump_tables_by_text;
using testing::read_store;
using testing::scalar;
using testing::TempDir;
using testing::write_file;

// The sniffing window: a log shorter than it is read again whole when it grows.
constexpr size_t kSniffWindow = size_t{64} << 10;

struct GrowingLog {
  std::string name;  // the file's name (and the test's)
  std::string text;  // the whole log
  std::string step_pattern = {};
};

// gtest names a failing case by its log's name, not by the log's bytes.
void PrintTo(const GrowingLog& log, std::ostream* os) {
  *os << log.name;
}

std::string repeated(const std::string& text, int times) {
  std::string out;
  for (int i = 0; i < times; ++i) out += text;
  return out;
}

// `text` as `reflow` pastes it, or with `prefix` before every line (a launcher's tag).
std::string pasted(const std::string& text, const testing::Reflow& reflow,
                   const std::string& prefix = {}) {
  testing::LogLines lines;
  for (size_t at = 0; at < text.size();) {
    const size_t nl = std::min(text.find('\n', at), text.size());
    lines.push_back(prefix + text.substr(at, nl - at));
    at = nl + 1;
  }
  std::string out;
  for (const auto& line : reflow ? reflow(lines) : lines) out += line + "\n";
  return out;
}

std::vector<GrowingLog> growing_logs() {
  const std::string consoles = testing::real_consoles_one_after_the_other();
  return {
      {"console", consoles},
      {"trace_limit", testing::fixture_text("real_runs/recompile_limit/run1/logs/torch_trace/"
                                            "dedicated_log_torch_trace_u3ed5hot.log.gz")},
      {"trace_breaks",
       testing::fixture_text("real_runs/item_sync_list_append/run1/logs/"
                             "torch_trace/dedicated_log_torch_trace_zhmr6__p.log.gz")},
      {"pt_xla_debug", testing::fixture_text("scenarios/multi_sync/pt_xla_debug.log")},
      {"jax", repeated(testing::fixture_text("real_runs/jax_shape_change/run1/stderr.log"), 10)},
      {"training", testing::training_console(3000, 4)},
      {"training_pattern", testing::training_console(3000, 4),
       R"(epoch \d+ step (?P<step>\d+)/\d+ loss)"},
      // Pasted and launched: the re-flow's held line and the launcher's origin go on.
      {"console_hard_wrapped", pasted(consoles, testing::hard_wrap(100))},
      {"console_double_spaced", pasted(consoles, testing::double_spaced)},
      {"console_torchrun", pasted(consoles, nullptr, "[default0]:")},
  };
}

// The end of the line that holds byte `at` (the offset after its newline).
size_t line_end_after(const std::string& text, size_t at) {
  const size_t nl = text.find('\n', at);
  return nl == std::string::npos ? text.size() : nl + 1;
}

// `count` cuts at line ends, spread over the log after its sniffing window, in order.
std::vector<size_t> cuts_of(const std::string& text, int count) {
  std::vector<size_t> cuts;
  for (int k = 1; k <= count; ++k) {
    const size_t at = kSniffWindow + (text.size() - kSniffWindow) * k / (count + 1);
    const size_t cut = line_end_after(text, at);
    if (cut < text.size() && (cuts.empty() || cut > cuts.back())) cuts.push_back(cut);
  }
  return cuts;
}

pipeline::IngestSummary ingest_log(const std::string& db, const std::string& log,
                                   const std::string& step_pattern = {}) {
  pipeline::IngestRequest request;
  request.db_path = db;
  request.paths = {log};
  request.lane = "lane";
  request.run = "run";
  request.step_pattern = step_pattern;
  return pipeline::run_ingest(request);
}

// Every table of the store at `db` by text, its one source's path made `name`.log so that stores
// of logs written under other paths compare.
std::string store_dump(const std::string& db, const std::string& name) {
  store::Database raw(db, store::Database::Mode::kReadWrite);
  raw.exec("UPDATE source SET path = '" + name + ".log'");
  return dump_tables_by_text(raw);
}

// The store as a one-shot ingest of `text` leaves it, by text (ids and interning order aside).
std::string one_shot_store(const TempDir& dir, const GrowingLog& log) {
  const std::string once_log = dir.file("once/" + log.name + ".log");
  std::filesystem::create_directories(dir.file("once"));
  write_file(once_log, log.text);
  const std::string db = dir.file("once_" + log.name + ".db");
  ingest_log(db, once_log, log.step_pattern);
  return store_dump(db, log.name);
}

class ReadOn : public ::testing::TestWithParam<GrowingLog> {};

// Grown in several steps, each ingest reads on from the last: one source throughout, and the
// store of the whole log.
TEST_P(ReadOn, AGrownLogIsReadOnAndTheStoreIsTheOneShotStore) {
  const GrowingLog& log = GetParam();
  ASSERT_GT(log.text.size(), kSniffWindow + 8000) << log.name;
  TempDir dir;
  const std::string path = dir.file(log.name + ".log");
  const std::string db = dir.file("grown.db");
  std::vector<size_t> cuts = cuts_of(log.text, 3);
  cuts.push_back(log.text.size());
  ASSERT_EQ(cuts.size(), 4u);
  std::string first_source;
  for (size_t i = 0; i < cuts.size(); ++i) {
    write_file(path, log.text.substr(0, cuts[i]));
    pipeline::IngestSummary summary = ingest_log(db, path, log.step_pattern);
    ASSERT_EQ(summary.sources.size(), 1u);
    const pipeline::IngestedSource& src = summary.sources[0];
    if (i > 0) {
      EXPECT_TRUE(src.read_on) << log.name << " cut " << i;
      EXPECT_EQ(src.grew_from_bytes, static_cast<int64_t>(cuts[i - 1]));
      EXPECT_NE(pipeline::render_ingest_summary(summary).find(
                    "read on from byte " + std::to_string(cuts[i - 1]) + ", its earlier rows kept"),
                std::string::npos)
          << pipeline::render_ingest_summary(summary);
    }
    auto store = read_store(db);
    EXPECT_EQ(scalar(*store, "SELECT count(*) FROM source"), "1");
    EXPECT_EQ(scalar(*store, "SELECT bytes FROM source_resume"), std::to_string(cuts[i]));
    const std::string source = scalar(*store, "SELECT source_id FROM source");
    if (i == 0) first_source = source;
    EXPECT_EQ(source, first_source) << "the log was read again from its start at cut " << i;
  }
  EXPECT_EQ(store_dump(db, log.name), one_shot_store(dir, log)) << log.name;
}

// Every cut of a sweep, each grown to the whole log in one step: the open record the earlier
// read's end wrote, wherever the cut falls, is taken back and written whole once.
TEST_P(ReadOn, FromAnyLineEndTheStoreIsTheOneShotStore) {
  const GrowingLog& log = GetParam();
  TempDir dir;
  const std::string expected = one_shot_store(dir, log);
  const std::string path = dir.file(log.name + ".log");
  int read_on = 0;
  const std::vector<size_t> cuts = cuts_of(log.text, 12);
  for (size_t i = 0; i < cuts.size(); ++i) {
    const std::string db = dir.file("sweep" + std::to_string(i) + ".db");
    write_file(path, log.text.substr(0, cuts[i]));
    ingest_log(db, path, log.step_pattern);
    write_file(path, log.text);
    read_on += ingest_log(db, path, log.step_pattern).sources.at(0).read_on ? 1 : 0;
    EXPECT_EQ(store_dump(db, log.name), expected) << log.name << " cut at byte " << cuts[i];
  }
  EXPECT_EQ(read_on, static_cast<int>(cuts.size()));
}

INSTANTIATE_TEST_SUITE_P(Logs, ReadOn, ::testing::ValuesIn(growing_logs()),
                         [](const ::testing::TestParamInfo<GrowingLog>& param_info) {
                           return param_info.param.name;
                         });

// A directory of logs, one grown, one unchanged, one new: the grown log is read on while the
// others are parsed ahead on workers, each in its place, and the store is the one-shot store of
// the directory.
TEST(ReadOnAmongOthers, OneGrownLogOfADirectoryIsReadOnBetweenTheOthers) {
  const std::vector<GrowingLog> logs = growing_logs();
  TempDir dir;
  std::filesystem::create_directories(dir.file("logs"));
  std::filesystem::create_directories(dir.file("once"));
  const GrowingLog& grown = logs[1];  // a TORCH_TRACE log: the directory is worth parse workers
  const GrowingLog& same = logs[0];
  const GrowingLog& added = logs[3];
  const size_t cut = cuts_of(grown.text, 2).at(0);
  write_file(dir.file("logs/b_grown.log"), grown.text.substr(0, cut));
  write_file(dir.file("logs/a_same.log"), same.text);
  ingest_log(dir.file("grown.db"), dir.file("logs"));
  write_file(dir.file("logs/b_grown.log"), grown.text);
  write_file(dir.file("logs/c_added.log"), added.text);
  pipeline::IngestSummary summary = ingest_log(dir.file("grown.db"), dir.file("logs"));
  ASSERT_EQ(summary.sources.size(), 3u);
  EXPECT_EQ(summary.sources[0].duplicate_of, dir.file("logs/a_same.log"));
  EXPECT_TRUE(summary.sources[1].read_on);
  EXPECT_FALSE(summary.sources[2].read_on);
  EXPECT_EQ(summary.duplicates, 1);

  ingest_log(dir.file("once.db"), dir.file("logs"));
  auto grown_store = read_store(dir.file("grown.db"));
  auto once_store = read_store(dir.file("once.db"));
  EXPECT_EQ(dump_tables_by_text(*grown_store), dump_tables_by_text(*once_store));
}

// A store kept by hand with a read end that does not make sense is not trusted: the log is read
// again whole, and the store is still the one-shot store.
TEST(ReadOnRefused, ARiggedReadEndReadsTheLogAgainWhole) {
  const GrowingLog log = growing_logs()[0];
  const std::vector<std::string> rigs = {
      "end_rows = '{\"source\": 1}'",               // a table the ingest writes no source rows into
      "end_rows = '{\"strings\": 5}'",              // nor this one
      "end_rows = '{\"dynamo_compile_raw\": -3}'",  // a negative count
      "end_rows = '{\"step_marker\": 100000000}'",  // more rows than the source holds
      "end_rows = 'not json'",
      "end_rows = '[1, 2]'",
      "bytes = bytes - 1",  // not where the source's bytes end
      "group_base = 0",
      "series_line = 5, series_step = NULL",  // half a series
  };
  TempDir dir;
  const std::string expected = one_shot_store(dir, log);
  const std::string path = dir.file(log.name + ".log");
  const size_t cut = cuts_of(log.text, 2).at(0);
  for (size_t i = 0; i < rigs.size(); ++i) {
    const std::string db = dir.file("rigged" + std::to_string(i) + ".db");
    write_file(path, log.text.substr(0, cut));
    ingest_log(db, path);
    {
      store::Database raw(db, store::Database::Mode::kReadWrite);
      raw.exec("UPDATE source_resume SET " + rigs[i]);
    }
    write_file(path, log.text);
    pipeline::IngestSummary summary = ingest_log(db, path);
    EXPECT_FALSE(summary.sources.at(0).read_on) << rigs[i];
    EXPECT_EQ(summary.sources.at(0).grew_from_bytes, static_cast<int64_t>(cut)) << rigs[i];
    EXPECT_EQ(store_dump(db, log.name), expected) << rigs[i];
  }
}

// Reading on gives the one-shot store only when the bytes read before are still there and are
// read as they were: another --step-pattern, or a log whose earlier part changed, is read again
// whole (a changed log is another source, as before).
TEST(ReadOnRefused, AnotherStepPatternOrAChangedPrefixIsNotReadOn) {
  GrowingLog log = growing_logs()[5];  // the training console, with progress lines
  ASSERT_EQ(log.name, "training");
  TempDir dir;
  const std::string path = dir.file(log.name + ".log");
  const size_t cut = cuts_of(log.text, 2).at(0);
  const std::string pattern = R"(epoch \d+ step (?P<step>\d+)/\d+ loss)";

  write_file(path, log.text.substr(0, cut));
  ingest_log(dir.file("pattern.db"), path, pattern);
  write_file(path, log.text);
  pipeline::IngestSummary summary = ingest_log(dir.file("pattern.db"), path);
  EXPECT_FALSE(summary.sources.at(0).read_on);
  EXPECT_EQ(summary.sources.at(0).grew_from_bytes, static_cast<int64_t>(cut));
  EXPECT_EQ(store_dump(dir.file("pattern.db"), log.name), one_shot_store(dir, log));

  write_file(path, log.text.substr(0, cut));
  ingest_log(dir.file("changed.db"), path);
  std::string changed = log.text;
  changed[kSniffWindow + 10] = changed[kSniffWindow + 10] == '7' ? '8' : '7';
  write_file(path, changed);
  summary = ingest_log(dir.file("changed.db"), path);
  EXPECT_FALSE(summary.sources.at(0).read_on);
  EXPECT_EQ(summary.sources.at(0).grew_from_bytes, -1);
  auto store = read_store(dir.file("changed.db"));
  EXPECT_EQ(scalar(*store, "SELECT count(*) FROM source"), "2");
}

// A log whose earlier read ended inside a line (a writer mid-flush) keeps no read end: the line
// may go on, so the grown log is read again whole.
TEST(ReadOnRefused, AReadThatEndedInsideALineKeepsNoReadEnd) {
  const GrowingLog log = growing_logs()[0];
  TempDir dir;
  const std::string path = dir.file(log.name + ".log");
  const size_t cut = cuts_of(log.text, 2).at(0) + 5;
  write_file(path, log.text.substr(0, cut));
  ingest_log(dir.file("cut.db"), path);
  auto store = read_store(dir.file("cut.db"));
  EXPECT_EQ(scalar(*store, "SELECT count(*) FROM source_resume"), "0");
  store.reset();
  write_file(path, log.text);
  pipeline::IngestSummary summary = ingest_log(dir.file("cut.db"), path);
  EXPECT_FALSE(summary.sources.at(0).read_on);
  EXPECT_EQ(summary.sources.at(0).grew_from_bytes, static_cast<int64_t>(cut));
  EXPECT_EQ(store_dump(dir.file("cut.db"), log.name), one_shot_store(dir, log));
}

}  // namespace ingest_read_on_test
}  // namespace rcf
