// TORCH_TRACE payload checksums checked on a thread of their own
// (ingest/torch_trace/payload_checksums.h): the same verdicts as hashing each payload inline,
// whatever the chunking, with the mismatches in record order.
#include "ingest/torch_trace/payload_checksums.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace rcf::ingest {
namespace payload_checksums_test {

struct Payload {
  int64_t line;
  std::vector<std::string> lines;  // joined with '\n' as TORCH_TRACE payload lines are
  bool corrupt = false;            // the envelope's checksum is for other bytes
  bool unparsable = false;         // the envelope's checksum is not 32 hex digits
};

std::string joined(const Payload& p) {
  std::string out;
  for (size_t i = 0; i < p.lines.size(); ++i) out += (i ? "\n" : "") + p.lines[i];
  return out;
}

// How a test holds records (PayloadChecksums::hold_record): never, every other one, or every
// other one released half-way through its lines (as the importer does with a large payload).
enum class Holding { kNone, kEveryOther, kReleasedHalfWay };

std::vector<int64_t> mismatched_lines(const std::vector<Payload>& payloads,
                                      Holding holding = Holding::kNone) {
  PayloadChecksums checks;
  for (size_t n = 0; n < payloads.size(); ++n) {
    const Payload& p = payloads[n];
    checks.begin_record();
    bool held = holding != Holding::kNone && n % 2 == 1;
    checks.hold_record(held);
    for (size_t i = 0; i < p.lines.size(); ++i) {
      if (held && holding == Holding::kReleasedHalfWay && i == p.lines.size() / 2) {
        checks.hold_record(false);
        held = false;
      }
      checks.append_line(p.lines[i], i == 0);
    }
    // A held record's bytes are viewed where they stand, before its end and after it.
    EXPECT_EQ(checks.open_record(), held ? joined(p) : "") << p.line;
    Md5Digest expected = Md5::digest(p.corrupt ? joined(p) + "x" : joined(p));
    checks.end_record(p.line, "envelope " + std::to_string(p.line),
                      p.unparsable ? nullptr : &expected);
    EXPECT_EQ(checks.open_record(), held ? joined(p) : "") << p.line;
    if (n % 3 == 0) checks.hold_record(false);  // else the next begin_record() ends the hold
  }
  std::vector<int64_t> lines;
  for (const auto& m : checks.finish()) {
    EXPECT_EQ(m.excerpt, "envelope " + std::to_string(m.line));
    lines.push_back(m.line);
  }
  return lines;
}

TEST(PayloadChecksums, MismatchesComeBackInRecordOrder) {
  std::vector<Payload> payloads;
  for (int i = 0; i < 10000; ++i) {  // more records than one chunk holds
    Payload p{i * 3 + 1, {"def forward(self, x):", "    return x + " + std::to_string(i)}};
    p.corrupt = i % 997 == 5;
    p.unparsable = i == 4242;
    payloads.push_back(p);
  }
  std::vector<int64_t> expected;
  for (const Payload& p : payloads)
    if (p.corrupt || p.unparsable) expected.push_back(p.line);
  EXPECT_EQ(mismatched_lines(payloads), expected);
}

TEST(PayloadChecksums, PayloadsLargerThanAChunkAndEmptyOnes) {
  std::string big_line(700 * 1024, 'g');  // a generated-code payload: spans chunk boundaries
  std::vector<Payload> payloads = {
      {1, {big_line, big_line, big_line}},
      {5, {}},  // has_payload with no TAB line: the MD5 of nothing
      {6, {big_line, "tail"}, true},
      {9, {"", ""}},  // blank payload lines still count their '\n'
  };
  EXPECT_EQ(mismatched_lines(payloads), std::vector<int64_t>{6});
  EXPECT_EQ(mismatched_lines(payloads, Holding::kEveryOther), std::vector<int64_t>{6});
  EXPECT_EQ(mismatched_lines(payloads, Holding::kReleasedHalfWay), std::vector<int64_t>{6});
}

// Whole records of a chunk are hashed several at once and the ones that span chunks one by one:
// payloads of every size from empty to a few chunks, so that chunk boundaries fall everywhere.
TEST(PayloadChecksums, RecordsOfEverySizeAcrossChunkBoundaries) {
  std::vector<Payload> payloads;
  std::vector<int64_t> expected;
  uint32_t seed = 12345;
  auto next = [&seed] { return seed = seed * 1103515245 + 12345, (seed >> 8) & 0xFFFFFF; };
  for (int i = 0; i < 3000; ++i) {
    size_t size = i % 500 == 7 ? 1500 * 1024 + next() % 4096 : next() % (i % 3 ? 200 : 40000);
    std::string text(size, '\0');
    for (char& c : text) c = static_cast<char>('a' + next() % 26);
    Payload p{i + 1, {text.substr(0, size / 2), text.substr(size / 2)}};
    p.corrupt = next() % 50 == 0;
    if (p.corrupt) expected.push_back(p.line);
    payloads.push_back(std::move(p));
  }
  EXPECT_EQ(mismatched_lines(payloads), expected);
  // Held records keep a chunk from being handed over until they end: the same verdicts.
  EXPECT_EQ(mismatched_lines(payloads, Holding::kEveryOther), expected);
  EXPECT_EQ(mismatched_lines(payloads, Holding::kReleasedHalfWay), expected);
}

TEST(PayloadChecksums, AnAbandonedRecordsBytesAreNotHashedIntoTheNext) {
  PayloadChecksums checks;
  checks.begin_record();
  checks.append_line("half of a payload whose record line threw", true);
  checks.begin_record();  // the next record starts without an end_record for that one
  checks.append_line("ok", true);
  Md5Digest ok = Md5::digest("ok");
  checks.end_record(10, "r", &ok);
  EXPECT_TRUE(checks.finish().empty());
}

TEST(PayloadChecksums, NothingToCheckStartsNoWorkAndFinishesEmpty) {
  PayloadChecksums checks;
  EXPECT_TRUE(checks.finish().empty());
}

}  // namespace payload_checksums_test
}  // namespace rcf::ingest
