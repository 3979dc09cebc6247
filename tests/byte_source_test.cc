// Tests for ingest::open_byte_source: gzip is detected by content, never by name; concatenated,
// truncated, corrupt and bomb-sized gzip streams; files that cannot be opened.
#include "ingest/reading/byte_source.h"

#include <gtest/gtest.h>
#include <zlib.h>

#include <random>
#include <string>

#include "tests/support/memory_source.h"
#include "tests/support/temp_files.h"

namespace rcf::ingest {
namespace byte_source_test {

using rcf::testing::gzip_compress;
using rcf::testing::TempDir;
using rcf::testing::write_file;

struct Drained {
  std::string bytes;
  bool failed = false;
  std::string error;
  int64_t reads = 0;
};

// Reads `source` to the end (or the first error) with reads of `chunk` bytes.
Drained drain(ByteSource& source, size_t chunk = 4096) {
  Drained d;
  std::string buf(chunk, '\0');
  for (;;) {
    int64_t got = source.read(buf.data(), buf.size());
    ++d.reads;
    if (got < 0) {
      d.failed = true;
      d.error = source.error();
      // The error is sticky.
      EXPECT_EQ(source.read(buf.data(), buf.size()), -1);
      break;
    }
    if (got == 0) break;
    EXPECT_LE(static_cast<size_t>(got), buf.size());
    d.bytes.append(buf.data(), static_cast<size_t>(got));
  }
  return d;
}

std::unique_ptr<ByteSource> open_ok(const std::string& path, OpenOptions options = {}) {
  std::string error;
  auto source = open_byte_source(path, options, &error);
  EXPECT_NE(source, nullptr) << path << ": " << error;
  return source;
}

// Text that deflate cannot shrink much, so a cut in the compressed bytes lands mid-stream.
std::string noisy_text(size_t bytes, uint32_t seed = 3) {
  std::mt19937 rng(seed);
  std::string s;
  while (s.size() < bytes) {
    size_t len = rng() % 120;
    for (size_t i = 0; i < len; ++i) s.push_back(static_cast<char>(' ' + rng() % 95));
    s.push_back('\n');
  }
  return s;
}

TEST(ByteSourceTest, PlainFileIsReadVerbatim) {
  TempDir dir;
  const std::string text = noisy_text(20000);
  write_file(dir.file("a.log"), text);
  auto source = open_ok(dir.file("a.log"));
  ASSERT_NE(source, nullptr);
  EXPECT_STREQ(source->encoding(), "plain");
  EXPECT_EQ(source->raw_size(), static_cast<int64_t>(text.size()));
  for (size_t chunk : {size_t{1}, size_t{3}, size_t{4096}}) {
    auto s = open_ok(dir.file("a.log"));
    Drained d = drain(*s, chunk);
    EXPECT_FALSE(d.failed) << d.error;
    EXPECT_EQ(d.bytes, text) << chunk;
    EXPECT_EQ(s->raw_bytes_read(), static_cast<int64_t>(text.size()));
  }
}

TEST(ByteSourceTest, TinyAndEmptyFilesArePlain) {
  TempDir dir;
  for (const std::string& content :
       {std::string(), std::string("\x1f"), std::string("x"), std::string("\x1f\x8a rest", 7)}) {
    write_file(dir.file("f"), content);
    auto source = open_ok(dir.file("f"));
    ASSERT_NE(source, nullptr);
    EXPECT_STREQ(source->encoding(), "plain");
    Drained d = drain(*source);
    EXPECT_FALSE(d.failed);
    EXPECT_EQ(d.bytes, content);
  }
}

// Every gzip test runs with each engine this build has (ingest/reading/gzip_inflater.h): the stream
// a reader sees, its errors included, does not depend on which library inflates.
class GzipSourceTest : public ::testing::TestWithParam<GzipEngine> {
 protected:
  void SetUp() override {
    if (!gzip_engine_available(GetParam())) GTEST_SKIP() << "built without ISA-L";
  }
  OpenOptions options() const {
    OpenOptions o;
    o.gzip_engine = GetParam();
    return o;
  }
};

INSTANTIATE_TEST_SUITE_P(Engines, GzipSourceTest,
                         ::testing::Values(GzipEngine::kZlib, GzipEngine::kIsal),
                         [](const ::testing::TestParamInfo<GzipEngine>& param_info) {
                           return std::string(param_info.param == GzipEngine::kZlib ? "zlib"
                                                                                    : "isal");
                         });

TEST_P(GzipSourceTest, GzipDetectedByMagicBytesNotByName) {
  TempDir dir;
  const std::string text = noisy_text(200000);
  // A .log that is gzip.
  write_file(dir.file("really_gzip.log"), gzip_compress(text));
  // A .gz that is plain text.
  write_file(dir.file("really_plain.log.gz"), text);

  auto gz = open_ok(dir.file("really_gzip.log"), options());
  ASSERT_NE(gz, nullptr);
  EXPECT_STREQ(gz->encoding(), "gzip");
  Drained d = drain(*gz);
  EXPECT_FALSE(d.failed) << d.error;
  EXPECT_EQ(d.bytes, text);
  // Progress is in compressed bytes.
  EXPECT_EQ(gz->raw_size(), static_cast<int64_t>(gzip_compress(text).size()));
  EXPECT_EQ(gz->raw_bytes_read(), gz->raw_size());

  auto plain = open_ok(dir.file("really_plain.log.gz"), options());
  ASSERT_NE(plain, nullptr);
  EXPECT_STREQ(plain->encoding(), "plain");
  d = drain(*plain);
  EXPECT_FALSE(d.failed) << d.error;
  EXPECT_EQ(d.bytes, text);
}

TEST_P(GzipSourceTest, ConcatenatedGzipMembers) {
  TempDir dir;
  const std::string a = noisy_text(50000, 1), b = noisy_text(70000, 2), c = "short tail\n";
  write_file(dir.file("cat.gz"), gzip_compress(a) + gzip_compress(b, 9) + gzip_compress(c, 0));
  for (size_t chunk : {size_t{1}, size_t{100}, size_t{1} << 20}) {
    auto source = open_ok(dir.file("cat.gz"), options());
    ASSERT_NE(source, nullptr);
    Drained d = drain(*source, chunk);
    EXPECT_FALSE(d.failed) << d.error;
    EXPECT_EQ(d.bytes, a + b + c) << chunk;
  }
}

TEST_P(GzipSourceTest, ZeroPaddingAfterGzipIsIgnored) {
  TempDir dir;
  const std::string text = "padded\n";
  write_file(dir.file("pad.gz"), gzip_compress(text) + std::string(512, '\0'));
  auto source = open_ok(dir.file("pad.gz"), options());
  ASSERT_NE(source, nullptr);
  Drained d = drain(*source);
  EXPECT_FALSE(d.failed) << d.error;
  EXPECT_EQ(d.bytes, text);
}

// The gzip reader inflates from 1 MiB reads of the file (after the 2 sniffed bytes): a second
// member whose magic bytes straddle two reads must still be found.
TEST_P(GzipSourceTest, ConcatenatedMemberMagicSplitAcrossReads) {
  TempDir dir;
  const std::string second = "second member\n";
  for (int64_t target : {int64_t{1} << 20, (int64_t{1} << 20) + 1, (int64_t{1} << 20) + 2}) {
    // Stored blocks (level 0): the member grows by one byte per payload byte, so some payload
    // size makes the first member exactly `target` bytes long.
    std::string payload = noisy_text(static_cast<size_t>(target), 5);
    std::string first;
    for (size_t len = static_cast<size_t>(target) - 200; len > 0; --len) {
      first = gzip_compress(payload.substr(0, len), 0);
      if (static_cast<int64_t>(first.size()) <= target) {
        payload.resize(len);
        break;
      }
    }
    while (static_cast<int64_t>(first.size()) < target) {
      payload.push_back('z');
      first = gzip_compress(payload, 0);
    }
    ASSERT_EQ(static_cast<int64_t>(first.size()), target);
    write_file(dir.file("split.gz"), first + gzip_compress(second));
    auto source = open_ok(dir.file("split.gz"), options());
    ASSERT_NE(source, nullptr);
    Drained d = drain(*source, 1 << 16);
    EXPECT_FALSE(d.failed) << d.error;
    EXPECT_EQ(d.bytes.size(), payload.size() + second.size()) << "first member " << target;
    EXPECT_TRUE(d.bytes == payload + second) << "first member " << target;
  }
}

TEST_P(GzipSourceTest, TruncatedGzipReturnsBytesThenSaysTruncated) {
  TempDir dir;
  const std::string text = noisy_text(400000);
  const std::string gz = gzip_compress(text);
  write_file(dir.file("cut.log.gz"), gz.substr(0, gz.size() / 2));
  auto source = open_ok(dir.file("cut.log.gz"), options());
  ASSERT_NE(source, nullptr);
  Drained d = drain(*source, 4096);
  ASSERT_TRUE(d.failed);
  EXPECT_NE(d.error.find("truncated"), std::string::npos) << d.error;
  // What came out before the cut is a correct prefix of the text, and a substantial one.
  EXPECT_GT(d.bytes.size(), text.size() / 4);
  EXPECT_LT(d.bytes.size(), text.size());
  EXPECT_EQ(d.bytes, text.substr(0, d.bytes.size()));

  // Cut inside the 8-byte trailer: all text is there, the stream is still incomplete.
  write_file(dir.file("trailer.gz"), gz.substr(0, gz.size() - 3));
  source = open_ok(dir.file("trailer.gz"), options());
  ASSERT_NE(source, nullptr);
  d = drain(*source, 1 << 20);
  EXPECT_TRUE(d.failed);
  EXPECT_NE(d.error.find("truncated"), std::string::npos) << d.error;
  EXPECT_EQ(d.bytes, text.substr(0, d.bytes.size()));

  // Only the magic bytes.
  write_file(dir.file("magic.gz"), gz.substr(0, 2));
  source = open_ok(dir.file("magic.gz"), options());
  ASSERT_NE(source, nullptr);
  EXPECT_STREQ(source->encoding(), "gzip");
  d = drain(*source);
  EXPECT_TRUE(d.failed);
  EXPECT_EQ(d.bytes, "");
  EXPECT_NE(d.error.find("truncated"), std::string::npos) << d.error;
}

TEST_P(GzipSourceTest, CorruptGzipGivesClearError) {
  TempDir dir;
  const std::string text = noisy_text(300000);
  std::string gz = gzip_compress(text);

  // Garbage in the deflate data.
  std::string broken = gz;
  for (size_t i = broken.size() / 2; i < broken.size() / 2 + 64; ++i) broken[i] ^= 0x5a;
  write_file(dir.file("broken.gz"), broken);
  auto source = open_ok(dir.file("broken.gz"), options());
  ASSERT_NE(source, nullptr);
  Drained d = drain(*source);
  EXPECT_TRUE(d.failed);
  EXPECT_NE(d.error.find("corrupt gzip"), std::string::npos) << d.error;
  EXPECT_LT(d.bytes.size(), text.size());
  EXPECT_GT(d.bytes.size(), 0u);

  // A wrong CRC in the trailer: every byte inflates, the check still fails.
  std::string bad_crc = gz;
  bad_crc[bad_crc.size() - 8] ^= 0xff;
  write_file(dir.file("crc.gz"), bad_crc);
  source = open_ok(dir.file("crc.gz"), options());
  ASSERT_NE(source, nullptr);
  d = drain(*source);
  EXPECT_TRUE(d.failed);
  EXPECT_NE(d.error.find("corrupt gzip"), std::string::npos) << d.error;

  // The magic bytes followed by junk (binary that happens to start with 1f 8b).
  write_file(dir.file("junk.log"), std::string("\x1f\x8b") + "this is not a gzip header at all");
  source = open_ok(dir.file("junk.log"), options());
  ASSERT_NE(source, nullptr);
  EXPECT_STREQ(source->encoding(), "gzip");
  d = drain(*source);
  EXPECT_TRUE(d.failed);
  EXPECT_NE(d.error.find("corrupt gzip"), std::string::npos) << d.error;
  EXPECT_EQ(d.bytes, "");
}

TEST_P(GzipSourceTest, InflateLimitStopsGzipBomb) {
  TempDir dir;
  const std::string zeros(8 << 20, '\0');  // 8 MiB of zeros deflate to a few KiB
  const std::string gz = gzip_compress(zeros, 9);
  ASSERT_LT(gz.size(), 64u << 10);
  write_file(dir.file("bomb.gz"), gz);

  OpenOptions small = options();
  small.max_inflated_bytes = 1 << 20;
  auto source = open_ok(dir.file("bomb.gz"), small);
  ASSERT_NE(source, nullptr);
  Drained d = drain(*source, 64 << 10);
  ASSERT_TRUE(d.failed);
  EXPECT_NE(d.error.find("1048576"), std::string::npos) << d.error;
  EXPECT_NE(d.error.find("limit"), std::string::npos) << d.error;
  EXPECT_LE(d.bytes.size(), size_t{1} << 20);

  // The same stream under the default limit inflates completely.
  source = open_ok(dir.file("bomb.gz"), options());
  ASSERT_NE(source, nullptr);
  d = drain(*source, 1 << 20);
  EXPECT_FALSE(d.failed) << d.error;
  EXPECT_EQ(d.bytes.size(), zeros.size());

  // Exactly the limit is allowed.
  OpenOptions exact = options();
  exact.max_inflated_bytes = static_cast<int64_t>(zeros.size());
  source = open_ok(dir.file("bomb.gz"), exact);
  ASSERT_NE(source, nullptr);
  d = drain(*source, 1 << 20);
  EXPECT_FALSE(d.failed) << d.error;
}

// A gzip header may carry optional fields (FEXTRA, FNAME, FCOMMENT, and a header CRC): a member
// written with all of them, then a plain one, inflates to the same text; a wrong header CRC is
// corrupt data.
TEST_P(GzipSourceTest, OptionalHeaderFieldsAreSkipped) {
  TempDir dir;
  const std::string text = noisy_text(150000, 9), tail = "tail member\n";
  const std::string plain = gzip_compress(text);
  // 10 fixed header bytes (flags at 3, all clear from zlib), then the deflate data and trailer.
  std::string header = plain.substr(0, 10);
  header[3] = 0x04 | 0x08 | 0x10 | 0x02;                  // FEXTRA, FNAME, FCOMMENT, FHCRC
  header += std::string("\x06\x00", 2) + "ab\x02\x00zz";  // XLEN 6: one subfield "ab", 2 bytes
  header += std::string("train.log", 10);                 // zero-terminated name
  header += std::string("rank 0 of 8", 12);               // zero-terminated comment
  const uLong crc =
      crc32(0, reinterpret_cast<const Bytef*>(header.data()), static_cast<uInt>(header.size()));
  std::string with_crc = header;
  with_crc.push_back(static_cast<char>(crc & 0xff));
  with_crc.push_back(static_cast<char>((crc >> 8) & 0xff));
  write_file(dir.file("fields.gz"), with_crc + plain.substr(10) + gzip_compress(tail));
  auto source = open_ok(dir.file("fields.gz"), options());
  ASSERT_NE(source, nullptr);
  Drained d = drain(*source, 1000);
  EXPECT_FALSE(d.failed) << d.error;
  EXPECT_TRUE(d.bytes == text + tail);

  // A name longer than the reader's 1 MiB input reads: the header is read across several.
  std::string long_name = plain.substr(0, 10);
  long_name[3] = 0x08;  // FNAME
  long_name += std::string(1536 * 1024, 'n') + std::string(1, '\0');
  write_file(dir.file("long_name.gz"), long_name + plain.substr(10));
  source = open_ok(dir.file("long_name.gz"), options());
  ASSERT_NE(source, nullptr);
  d = drain(*source, 1 << 16);
  EXPECT_FALSE(d.failed) << d.error;
  EXPECT_TRUE(d.bytes == text);

  std::string bad_crc = with_crc;
  bad_crc.back() ^= 0x01;
  write_file(dir.file("hcrc.gz"), bad_crc + plain.substr(10));
  source = open_ok(dir.file("hcrc.gz"), options());
  ASSERT_NE(source, nullptr);
  d = drain(*source);
  EXPECT_TRUE(d.failed);
  EXPECT_EQ(d.bytes, "");
  EXPECT_NE(d.error.find("corrupt gzip data: "), std::string::npos) << d.error;
}

// The engines agree byte for byte on a stream of many members of every level, read in reads of
// every size, and give the same words for a wrong data CRC.
TEST(GzipEngines, AgreeOnEveryMemberAndOnTheError) {
  if (!gzip_engine_available(GzipEngine::kIsal)) GTEST_SKIP() << "built without ISA-L";
  TempDir dir;
  std::string gz, text;
  for (int m = 0; m < 12; ++m) {
    std::string part = noisy_text(20000 + 37000 * static_cast<size_t>(m), 100 + m);
    gz += gzip_compress(part, m % 10);
    text += part;
  }
  write_file(dir.file("many.gz"), gz);
  std::string bad = gz;
  bad[bad.size() - 8] ^= 0x10;  // the last member's CRC
  write_file(dir.file("bad.gz"), bad);
  std::vector<std::string> errors;
  for (GzipEngine engine : {GzipEngine::kZlib, GzipEngine::kIsal}) {
    OpenOptions o;
    o.gzip_engine = engine;
    for (size_t chunk : {size_t{1} << 10, size_t{65521}, size_t{3} << 20}) {
      auto source = open_ok(dir.file("many.gz"), o);
      ASSERT_NE(source, nullptr);
      Drained d = drain(*source, chunk);
      EXPECT_FALSE(d.failed) << d.error;
      EXPECT_TRUE(d.bytes == text) << gzip_engine_name(engine) << " " << chunk;
    }
    auto source = open_ok(dir.file("bad.gz"), o);
    ASSERT_NE(source, nullptr);
    Drained d = drain(*source, 1 << 20);
    EXPECT_TRUE(d.failed);
    errors.push_back(d.error);
  }
  EXPECT_EQ(errors[0], "corrupt gzip data: incorrect data check");
  EXPECT_EQ(errors[1], errors[0]);
}

TEST(ByteSourceTest, MissingFileAndDirectoryAreErrors) {
  TempDir dir;
  std::string error;
  auto source = open_byte_source(dir.file("does_not_exist.log"), OpenOptions{}, &error);
  EXPECT_EQ(source, nullptr);
  EXPECT_NE(error.find("No such file"), std::string::npos) << error;

  error.clear();
  source = open_byte_source(dir.path(), OpenOptions{}, &error);
  EXPECT_EQ(source, nullptr);
  EXPECT_NE(error.find("directory"), std::string::npos) << error;
}

}  // namespace byte_source_test
}  // namespace rcf::ingest
