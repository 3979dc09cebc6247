// ReadAheadSource (a source read on a thread of its own, blocks ahead of its reader) must give
// exactly what its inner source gives: the same bytes for any block and read size, the same end,
// the same error after the same bytes; it must stop cleanly when abandoned mid-way. And a gzip
// log read ahead must ingest exactly as one read in turn.
#include "ingest/reading/read_ahead_source.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "ingest/ingest_driver.h"
#include "tests/support/collecting_sink.h"
#include "tests/support/memory_source.h"
#include "tests/support/temp_files.h"
#include "tests/support/test_paths.h"

namespace rcf::ingest {
namespace read_ahead_source_test {

using rcf::testing::CollectingSink;
using rcf::testing::MemorySource;

std::string random_bytes(size_t size, uint32_t seed) {
  std::mt19937 rng(seed);
  std::string s(size, '\0');
  for (char& c : s) c = static_cast<char>(rng());
  return s;
}

struct Drained {
  std::string bytes;
  int64_t result = 0;  // the last read's: 0 (end) or -1 (error)
  std::string error;
};

// Reads `source` to its end or first error with reads of `chunk` bytes, checking that the
// progress count never goes back.
Drained drain(ByteSource& source, size_t chunk) {
  Drained d;
  std::string buf(chunk, '\0');
  int64_t progress = 0;
  for (;;) {
    int64_t got = source.read(buf.data(), buf.size());
    EXPECT_GE(source.raw_bytes_read(), progress);
    progress = source.raw_bytes_read();
    if (got <= 0) {
      d.result = got;
      d.error = source.error();
      EXPECT_EQ(source.read(buf.data(), buf.size()), got) << "the end and the error are sticky";
      return d;
    }
    d.bytes.append(buf.data(), static_cast<size_t>(got));
  }
}

TEST(ReadAheadSource, SameBytesForEveryBlockAndReadSize) {
  const std::string large = random_bytes(300000, 5);
  for (size_t block : {size_t{1}, size_t{7}, size_t{4096}, size_t{1} << 20})
    for (size_t chunk : {size_t{1}, size_t{13}, size_t{65536}, size_t{1} << 21}) {
      // Tiny blocks are a hand-over between the threads per byte or so: fewer bytes for them.
      const std::string data = block < 4096 ? large.substr(0, 20000) : large;
      // The inner source returns reads of random sizes up to 5000 bytes.
      ReadAheadSource source(std::make_unique<MemorySource>(data, 5000, 9), block, 3);
      EXPECT_EQ(source.raw_size(), static_cast<int64_t>(data.size()));
      EXPECT_STREQ(source.encoding(), "plain");
      Drained d = drain(source, chunk);
      EXPECT_EQ(d.result, 0) << "block " << block << ", read " << chunk;
      EXPECT_TRUE(d.bytes == data) << "block " << block << ", read " << chunk;
      EXPECT_EQ(source.raw_bytes_read(), static_cast<int64_t>(data.size()));
    }
}

TEST(ReadAheadSource, EmptyInputEndsAtOnce) {
  ReadAheadSource source(std::make_unique<MemorySource>(""), 4096, 2);
  Drained d = drain(source, 100);
  EXPECT_EQ(d.result, 0);
  EXPECT_EQ(d.bytes, "");
}

TEST(ReadAheadSource, AnErrorComesAfterEveryByteBeforeIt) {
  const std::string data = random_bytes(100000, 6);
  for (int64_t fail_at : {int64_t{0}, int64_t{1}, int64_t{4096}, int64_t{77777}}) {
    ReadAheadSource source(std::make_unique<MemorySource>(data, 3000, 2, fail_at), 4096, 3);
    Drained d = drain(source, 1000);
    EXPECT_EQ(d.result, -1) << "fail at " << fail_at;
    EXPECT_EQ(d.error, "injected read error");
    EXPECT_TRUE(d.bytes == data.substr(0, static_cast<size_t>(fail_at))) << "fail at " << fail_at;
  }
}

TEST(ReadAheadSource, AbandonedMidWayStopsCleanly) {
  const std::string data = random_bytes(1 << 20, 7);
  for (int reads : {0, 1, 50}) {
    auto source =
        std::make_unique<ReadAheadSource>(std::make_unique<MemorySource>(data, 0, 1), 4096, 4);
    std::string got, buf(100, '\0');
    for (int i = 0; i < reads; ++i) {
      int64_t n = source->read(buf.data(), buf.size());
      ASSERT_GT(n, 0);
      got.append(buf.data(), static_cast<size_t>(n));
    }
    EXPECT_TRUE(got == data.substr(0, got.size()));
    source.reset();  // the reading thread may be waiting for a free block, or reading
  }
}

// Every Dynamo text and TORCH_TRACE fixture, gzipped (whole, and cut in half), ingests into the
// same events and stats whether it is inflated ahead on a thread or in turn.
TEST(ReadAheadSource, AGzipLogIngestsAsWhenReadInTurn) {
  rcf::testing::TempDir dir;
  int compared = 0;
  for (const char* sub : {"dynamo", "torch_trace"})
    for (const auto& entry :
         std::filesystem::directory_iterator(std::string(RCF_FIXTURES_DIR) + "/" + sub)) {
      if (!entry.is_regular_file() || entry.path().filename() == "README.md") continue;
      std::string text = rcf::testing::read_file(entry.path().string());
      if (text.starts_with("\x1f\x8b")) continue;
      std::string gz = rcf::testing::gzip_compress(text);
      for (bool cut : {false, true}) {
        std::string path = dir.file(entry.path().filename().string() + (cut ? ".cut.gz" : ".gz"));
        rcf::testing::write_file(path, cut ? gz.substr(0, gz.size() / 2) : gz);
        std::vector<std::string> results;
        for (int64_t read_ahead_min : {int64_t{-1}, int64_t{0}}) {
          DriverOptions options;
          options.buffer_size = 4096;  // many reads per block, blocks cut across lines
          options.open.read_ahead_min_bytes = read_ahead_min;
          CollectingSink sink;
          SourceStats stats;
          auto outcome = ingest_source(path, sink, options, &stats);
          std::string result = std::to_string(static_cast<int>(outcome)) + "|" +
                               rcf::testing::stats_key(stats) + "|" + stats.read_error + "|" +
                               stats.encoding;
          for (const auto& key : rcf::testing::event_keys(sink)) result += " " + key;
          results.push_back(result);
        }
        EXPECT_EQ(results[0], results[1]) << path;
        ++compared;
      }
    }
  EXPECT_GT(compared, 20);
}

}  // namespace read_ahead_source_test
}  // namespace rcf::ingest
