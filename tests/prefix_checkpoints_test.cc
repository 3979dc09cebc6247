// Tests for the prefix checkpoints of a source (ingest/reading/prefix_checkpoints.h): the offsets,
// the digests the line reader records whatever its buffer, the chunking of reads or the thread
// that reads ahead, and what two versions' checkpoints say about them.
#include "ingest/reading/prefix_checkpoints.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <climits>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "ingest/reading/content_hash.h"
#include "ingest/reading/line_reader.h"
#include "tests/support/memory_source.h"

namespace rcf::ingest {
namespace prefix_checkpoints_test {

using rcf::testing::MemorySource;

// Lines of random printable text, deterministic.
std::string log_text(uint32_t seed, size_t bytes) {
  std::mt19937 rng(seed);
  std::string text;
  while (text.size() < bytes) {
    const size_t len = rng() % 300;
    for (size_t i = 0; i < len; ++i) text.push_back(static_cast<char>('a' + rng() % 26));
    text.push_back('\n');
  }
  text.resize(bytes);
  return text;
}

// The checkpoints of `text` computed apart from the reader: a hash fed up to each offset.
std::string expected_checkpoints(const std::string& text) {
  ContentHash hash;
  std::string out;
  int64_t done = 0;
  for (size_t i = 0; checkpoint_offset(i) <= static_cast<int64_t>(text.size()); ++i) {
    const int64_t offset = checkpoint_offset(i);
    hash.update(text.data() + done, static_cast<size_t>(offset - done));
    done = offset;
    out += fmt::format("{:016x}", hash.digest());
  }
  return out;
}

// Reads `text` whole and returns the reader's checkpoints (and its prefix hash of `prefix`).
std::string read_checkpoints(const std::string& text, size_t buffer, size_t chunk,
                             int64_t prefix = -1, std::string* prefix_hash = nullptr) {
  MemorySource source(text, chunk, 5);
  LineReader reader(source, buffer);
  if (prefix >= 0) reader.hash_prefix(prefix);
  std::string_view line;
  while (reader.next(&line)) {
  }
  EXPECT_EQ(reader.error(), "");
  if (prefix_hash) *prefix_hash = reader.prefix_hash();
  return reader.prefix_checkpoints();
}

TEST(PrefixCheckpoints, OffsetsAreEvery4KiBTo64KiBThenEvery64KiB) {
  std::vector<int64_t> first;
  for (size_t i = 0; i < 19; ++i) first.push_back(checkpoint_offset(i));
  EXPECT_EQ(first, (std::vector<int64_t>{4096, 8192, 12288, 16384, 20480, 24576, 28672, 32768,
                                         36864, 40960, 45056, 49152, 53248, 57344, 61440, 65536,
                                         131072, 196608, 262144}));
}

TEST(PrefixCheckpoints, TheReaderRecordsEachPrefixsHashWhateverItsReads) {
  for (size_t bytes : {size_t{0}, size_t{4095}, size_t{4096}, size_t{70000}, size_t{400000}}) {
    const std::string text = log_text(3, bytes);
    const std::string expected = expected_checkpoints(text);
    for (size_t buffer : {size_t{16}, size_t{4096}, size_t{1} << 20}) {
      for (size_t chunk : {size_t{0}, size_t{1}, size_t{777}, size_t{65536}}) {
        if (chunk == 1 && bytes > 70000) continue;  // a byte a read: slow, and 70000 shows it
        SCOPED_TRACE(fmt::format("bytes {} buffer {} chunk {}", bytes, buffer, chunk));
        EXPECT_EQ(read_checkpoints(text, buffer, chunk), expected);
      }
    }
  }
  // Not an agreement of two empty texts: a 400000-byte log has 16 + 5 checkpoints, and the
  // first is the hash of its first 4 KiB alone.
  const std::string text = log_text(3, 400000);
  const std::string got = read_checkpoints(text, 4096, 0);
  EXPECT_EQ(got.size(), 21u * 16);
  ContentHash first;
  first.update(text.data(), 4096);
  EXPECT_EQ(got.substr(0, 16), fmt::format("{:016x}", first.digest()));
}

// A source of 16 MiB or more is hashed on the thread that reads ahead.
TEST(PrefixCheckpoints, ReadingAheadRecordsTheSameCheckpoints) {
  const std::string text = log_text(4, (size_t{17} << 20) + 12345);
  const std::string expected = expected_checkpoints(text);
  EXPECT_EQ(expected.size(), (16u + 272u - 1u) * 16);
  for (size_t chunk : {size_t{0}, size_t{100000}})
    EXPECT_EQ(read_checkpoints(text, size_t{4} << 20, chunk), expected) << chunk;
}

// The prefix hash of a log that grew ends at its own offset, between or on checkpoints.
TEST(PrefixCheckpoints, APrefixHashAndTheCheckpointsTakeTheirOwnDigests) {
  const std::string text = log_text(5, 300000);
  for (int64_t prefix : {int64_t{0}, int64_t{4096}, int64_t{65536}, int64_t{70001}}) {
    std::string prefix_hash;
    EXPECT_EQ(read_checkpoints(text, 4096, 333, prefix, &prefix_hash), expected_checkpoints(text));
    ContentHash whole;
    whole.update(text.data(), static_cast<size_t>(prefix));
    EXPECT_EQ(prefix_hash, fmt::format("{:016x}-{}", whole.digest(), prefix)) << prefix;
  }
}

TEST(PrefixCheckpoints, AnEarlierVersionAgreesOnEveryCheckpointItReached) {
  const std::string log = log_text(6, 500000);
  const std::string longer = expected_checkpoints(log);
  // Cut inside a line, between checkpoints: 16 fine ones and the one at 131072 compared.
  const std::string at_150000 = expected_checkpoints(log.substr(0, 150000));
  VersionComparison c = compare_versions(150000, at_150000, longer);
  EXPECT_EQ(c.kind, VersionComparison::kEarlierVersion);
  EXPECT_EQ(c.compared_bytes, 131072);
  // Cut on a checkpoint: every byte of the shorter compared.
  c = compare_versions(65536, expected_checkpoints(log.substr(0, 65536)), longer);
  EXPECT_EQ(c.kind, VersionComparison::kEarlierVersion);
  EXPECT_EQ(c.compared_bytes, 65536);
  // A small log cut early: its 4 KiB checkpoints.
  c = compare_versions(9000, expected_checkpoints(log.substr(0, 9000)), longer);
  EXPECT_EQ(c.kind, VersionComparison::kEarlierVersion);
  EXPECT_EQ(c.compared_bytes, 8192);
}

TEST(PrefixCheckpoints, AnotherLogOrTooLittleEvidenceIsNotAnEarlierVersion) {
  const std::string log = log_text(7, 300000);
  const std::string longer = expected_checkpoints(log);
  // One byte changed in the first 4 KiB, or after the first 64 KiB.
  for (size_t at : {size_t{100}, size_t{70000}}) {
    std::string other = log.substr(0, 150000);
    other[at] = other[at] == 'x' ? 'y' : 'x';
    EXPECT_EQ(compare_versions(150000, expected_checkpoints(other), longer).kind,
              VersionComparison::kDifferent)
        << at;
  }
  // Under the first checkpoint nothing is compared.
  EXPECT_EQ(compare_versions(4095, "", longer).kind, VersionComparison::kUndecided);
  // A damaged text (not hex, cut, or a longer version with fewer checkpoints) is no evidence.
  const std::string shorter = expected_checkpoints(log.substr(0, 150000));
  std::string bad = shorter;
  bad[3] = 'g';
  EXPECT_EQ(compare_versions(150000, bad, longer).kind, VersionComparison::kUndecided);
  EXPECT_EQ(compare_versions(150000, shorter.substr(0, 32), longer).kind,
            VersionComparison::kUndecided);
  EXPECT_EQ(compare_versions(150000, shorter, longer.substr(0, 16)).kind,
            VersionComparison::kUndecided);
  // A rigged store's byte count: answered at once, not by stepping through its checkpoints.
  for (int64_t bytes : {int64_t{-1}, INT64_MIN, int64_t{1} << 62, INT64_MAX})
    EXPECT_EQ(compare_versions(bytes, shorter, longer).kind, VersionComparison::kUndecided)
        << bytes;
}

// The count of checkpoints of a length agrees with the offsets on both sides of each step.
TEST(PrefixCheckpoints, TheCheckpointsOfALengthAreThoseAtOrBeforeIt) {
  const std::string log = log_text(8, 300000);
  for (int64_t bytes : {int64_t{4095}, int64_t{4096}, int64_t{65535}, int64_t{65536},
                        int64_t{131071}, int64_t{131072}, int64_t{300000}}) {
    const std::string text = expected_checkpoints(log.substr(0, static_cast<size_t>(bytes)));
    const VersionComparison c = compare_versions(bytes, text, expected_checkpoints(log));
    EXPECT_EQ(c.kind,
              bytes < 4096 ? VersionComparison::kUndecided : VersionComparison::kEarlierVersion)
        << bytes;
  }
}

}  // namespace prefix_checkpoints_test
}  // namespace rcf::ingest
