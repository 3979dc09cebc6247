// TORCH_TRACE payload checksums checked on a thread of their own (ingest/payload_checksums.h):
// the same verdicts as hashing each payload inline, whatever the chunking, with the mismatches in
// record order.
#include "ingest/payload_checksums.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace rcf::ingest {
namespace {

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

std::vector<int64_t> mismatched_lines(const std::vector<Payload>& payloads) {
  PayloadChecksums checks;
  for (const Payload& p : payloads) {
    checks.begin_record();
    for (size_t i = 0; i < p.lines.size(); ++i) {
      if (i) checks.append("\n");
      checks.append(p.lines[i]);
    }
    Md5Digest expected = Md5::digest(p.corrupt ? joined(p) + "x" : joined(p));
    checks.end_record(p.line, "envelope " + std::to_string(p.line),
                      p.unparsable ? nullptr : &expected);
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
}

TEST(PayloadChecksums, AnAbandonedRecordsBytesAreNotHashedIntoTheNext) {
  PayloadChecksums checks;
  checks.begin_record();
  checks.append("half of a payload whose record line threw");
  checks.begin_record();  // the next record starts without an end_record for that one
  checks.append("ok");
  Md5Digest ok = Md5::digest("ok");
  checks.end_record(10, "r", &ok);
  EXPECT_TRUE(checks.finish().empty());
}

TEST(PayloadChecksums, NothingToCheckStartsNoWorkAndFinishesEmpty) {
  PayloadChecksums checks;
  EXPECT_TRUE(checks.finish().empty());
}

}  // namespace
}  // namespace rcf::ingest
