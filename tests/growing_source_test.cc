// A source read in pieces while it grows (ingest::GrowingSource, docs/watch.md "How a batch is
// read") gives what one read of the whole file gives: the same events in the same order, the same
// notes and counts, whatever the read buffer and wherever the pieces end. Real logs of several
// formats, each longer than the sniffing window; pieces end at line ends, as `rcf watch` reads.
// And ending it on copies (GrowingSource::preview_end) after any piece gives what one read of that
// much gives, and changes nothing of what it reads next.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "ingest/ingest_driver.h"
#include "ingest/reading/byte_source.h"
#include "tests/support/collecting_sink.h"
#include "tests/support/fixture_text.h"
#include "tests/support/temp_files.h"
#include "tests/support/test_paths.h"

namespace growing_source_test {

using rcf::ingest::DriverOptions;
using rcf::ingest::GrowingSource;
using rcf::ingest::SourceStats;
using rcf::testing::CollectingSink;

// Each event as its kind and line: enough to tell a lost, repeated or reordered record.
std::vector<std::string> event_lines(const CollectingSink& sink) {
  std::vector<std::string> out;
  for (const auto& event : sink.events)
    std::visit(
        [&](const auto& e) {
          if constexpr (requires { e.line; })
            out.push_back(std::to_string(event.index()) + "@" + std::to_string(e.line));
          else
            out.push_back(std::to_string(event.index()));
        },
        event);
  return out;
}

std::vector<std::string> notes(const CollectingSink& sink) {
  std::vector<std::string> out;
  for (const auto& n : sink.notes)
    out.push_back(std::to_string(n.line) + " " + n.reason + " " + n.excerpt);
  return out;
}

void expect_same_stats(const SourceStats& pieces, const SourceStats& whole) {
  EXPECT_EQ(pieces.format, whole.format);
  EXPECT_EQ(pieces.lines, whole.lines);
  EXPECT_EQ(pieces.bytes, whole.bytes);
  EXPECT_EQ(pieces.events, whole.events);
  EXPECT_EQ(pieces.skipped, whole.skipped);
  EXPECT_EQ(pieces.rejected, whole.rejected);
  EXPECT_EQ(pieces.warnings, whole.warnings);
  EXPECT_EQ(pieces.content_hash, whole.content_hash);
  EXPECT_EQ(pieces.reasons.size(), whole.reasons.size());
}

// The line ends at or after `fractions` of `text` (the first after the sniffing window).
std::vector<int64_t> piece_ends(const std::string& text, const std::vector<double>& fractions) {
  std::vector<int64_t> ends;
  for (double f : fractions) {
    size_t at = std::max(static_cast<size_t>(text.size() * f), size_t{66} << 10);
    size_t nl = text.find('\n', at);
    if (nl == std::string::npos) break;
    if (ends.empty() || static_cast<int64_t>(nl + 1) > ends.back())
      ends.push_back(static_cast<int64_t>(nl + 1));
  }
  return ends;
}

// GrowingSource::preview_end after the pieces up to `later[i]`: what it writes, after what the
// pieces wrote, is what one read of the first `end` bytes gives (when the importer can be copied;
// else it writes nothing).
void expect_preview_is_a_read_of(GrowingSource& growing, const std::string& path,
                                 const DriverOptions& options, int64_t end,
                                 const CollectingSink& first, std::vector<CollectingSink>& later,
                                 size_t i) {
  CollectingSink ended;
  bool asked = false;
  std::optional<SourceStats> stats = growing.preview_end([&]() -> rcf::ingest::EventSink& {
    asked = true;
    return ended;
  });
  EXPECT_EQ(asked, stats.has_value());
  if (!stats) return;
  CollectingSink all;
  all.events = first.events;
  all.notes = first.notes;
  for (size_t k = 1; k <= i; ++k) {
    all.events.insert(all.events.end(), later[k].events.begin(), later[k].events.end());
    all.notes.insert(all.notes.end(), later[k].notes.begin(), later[k].notes.end());
  }
  all.events.insert(all.events.end(), ended.events.begin(), ended.events.end());
  all.notes.insert(all.notes.end(), ended.notes.begin(), ended.notes.end());
  DriverOptions prefix = options;
  prefix.open.max_raw_bytes = end;
  CollectingSink once_sink;
  SourceStats once;
  rcf::ingest::ingest_source(path, once_sink, prefix, &once);
  expect_same_stats(*stats, once);
  EXPECT_EQ(event_lines(all), event_lines(once_sink));
  EXPECT_EQ(notes(all), notes(once_sink));
}

class GrowingSourceTest : public ::testing::TestWithParam<const char*> {};

TEST_P(GrowingSourceTest, PiecesGiveWhatOneReadGives) {
  rcf::testing::TempDir dir;
  const std::string text = rcf::testing::fixture_text(GetParam());
  ASSERT_GT(text.size(), size_t{70} << 10);
  const std::string path = dir.file("log");
  std::ofstream(path, std::ios::binary)
      .write(text.data(), static_cast<std::streamsize>(text.size()));

  for (size_t buffer : {size_t{16}, size_t{4096}, size_t{4} << 20}) {
    for (const auto& fractions : std::vector<std::vector<double>>{
             {0.0, 0.5}, {0.0, 0.2, 0.4, 0.6, 0.8}, {0.3, 0.31, 0.32, 0.9}}) {
      SCOPED_TRACE("buffer " + std::to_string(buffer) + ", " + std::to_string(fractions.size()) +
                   " pieces");
      DriverOptions options;
      options.buffer_size = buffer;
      CollectingSink whole_sink;
      SourceStats whole;
      rcf::ingest::ingest_source(path, whole_sink, options, &whole);

      const std::vector<int64_t> ends = piece_ends(text, fractions);
      ASSERT_FALSE(ends.empty());
      CollectingSink pieces_sink;
      DriverOptions first = options;
      first.open.max_raw_bytes = ends.front();
      auto growing = GrowingSource::open(path, pieces_sink, first);
      ASSERT_TRUE(growing->can_read_on()) << "a whole sniffing window of plain text";
      // Each piece may go to another sink: the store's transaction of that piece.
      std::vector<CollectingSink> later(ends.size());
      for (size_t i = 1; i < ends.size(); ++i) {
        growing->read_to(ends[i], later[i]);
        EXPECT_EQ(growing->stats().bytes, ends[i]);
        expect_preview_is_a_read_of(*growing, path, options, ends[i], pieces_sink, later, i);
      }
      CollectingSink last;
      growing->read_to(-1, last);
      growing->finish(last);
      EXPECT_FALSE(growing->can_read_on());
      later.push_back(std::move(last));
      for (auto& sink : later) {
        for (auto& e : sink.events) pieces_sink.events.push_back(std::move(e));
        for (auto& n : sink.notes) pieces_sink.notes.push_back(std::move(n));
      }

      expect_same_stats(growing->stats(), whole);
      EXPECT_EQ(event_lines(pieces_sink), event_lines(whole_sink));
      EXPECT_EQ(notes(pieces_sink), notes(whole_sink));
    }
  }
}

INSTANTIATE_TEST_SUITE_P(RealLogs, GrowingSourceTest,
                         ::testing::Values("real_runs/recompile_limit/run1/logs/torch_trace/"
                                           "dedicated_log_torch_trace_u3ed5hot.log.gz",
                                           "torch_trace/simple.log",
                                           "scenarios/multi_sync/pt_xla_debug.log",
                                           "scenarios/mixed_causes/save_tensors.hlo.0"));

// A sink that fails at its first event, as the store does when it is locked or full.
class FailingSink : public rcf::ingest::EventSink {
 public:
  void emit(rcf::ingest::Event&&) override { throw std::runtime_error("disk full"); }
  void note(int64_t, rcf::ingest::LineFate, std::string_view, std::string_view) override {
    throw std::runtime_error("disk full");
  }
  using EventSink::note;
};

// A preview whose sink fails (the store could not be written) leaves the source as it was: read on
// and ended, it gives what one read gives.
TEST(GrowingSource, APreviewWhoseSinkFailsLeavesTheSourceReadingOn) {
  rcf::testing::TempDir dir;
  const std::string text = rcf::testing::fixture_text("scenarios/multi_sync/pt_xla_debug.log");
  const std::string path = dir.file("log");
  std::ofstream(path, std::ios::binary)
      .write(text.data(), static_cast<std::streamsize>(text.size()));
  DriverOptions options;
  CollectingSink whole_sink;
  SourceStats whole;
  rcf::ingest::ingest_source(path, whole_sink, options, &whole);

  // The first piece ends inside a record: after the first line of an execution block.
  const size_t block = text.find("Execution Analysis: Execution Cause", size_t{66} << 10);
  ASSERT_NE(block, std::string::npos);
  const std::vector<int64_t> ends = {static_cast<int64_t>(text.find('\n', block) + 1),
                                     static_cast<int64_t>(text.find('\n', text.size() / 2) + 1)};
  CollectingSink pieces;
  DriverOptions first = options;
  first.open.max_raw_bytes = ends[0];
  auto growing = GrowingSource::open(path, pieces, first);
  ASSERT_TRUE(growing->can_read_on());
  FailingSink failing;
  EXPECT_THROW(growing->preview_end([&]() -> rcf::ingest::EventSink& { return failing; }),
               std::runtime_error);
  EXPECT_TRUE(growing->can_read_on());
  growing->read_to(ends[1], pieces);
  growing->read_to(-1, pieces);
  growing->finish(pieces);
  expect_same_stats(growing->stats(), whole);
  EXPECT_EQ(event_lines(pieces), event_lines(whole_sink));
  EXPECT_EQ(notes(pieces), notes(whole_sink));
}

// What cannot be read on is ended at open, as one read of what is there: a gzip file, and a file
// whose first read held less than the sniffing window (the format, wrapper and re-flow could
// still change with more of it).
TEST(GrowingSource, ShortFirstReadsAndGzipFilesAreEndedAtOpen) {
  rcf::testing::TempDir dir;
  CollectingSink sink;
  DriverOptions options;
  auto gz = GrowingSource::open(std::string(RCF_FIXTURES_DIR) +
                                    "/real_runs/recompile_limit/run1/logs/torch_trace/"
                                    "dedicated_log_torch_trace_u3ed5hot.log.gz",
                                sink, options);
  EXPECT_FALSE(gz->can_read_on());
  EXPECT_EQ(gz->stats().encoding, "gzip");

  const std::string text = rcf::testing::fixture_text("torch_trace/simple.log");
  const std::string path = dir.file("log");
  std::ofstream(path, std::ios::binary)
      .write(text.data(), static_cast<std::streamsize>(text.size()));
  DriverOptions shorter;
  shorter.open.max_raw_bytes = static_cast<int64_t>(text.find('\n', 1000) + 1);
  auto early = GrowingSource::open(path, sink, shorter);
  EXPECT_FALSE(early->can_read_on());
  EXPECT_EQ(early->stats().bytes, shorter.open.max_raw_bytes);
}

}  // namespace growing_source_test
