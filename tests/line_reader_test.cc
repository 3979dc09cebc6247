// Tests for ingest::LineReader: line splitting must not depend on how the input is chunked (buffer
// size, short reads), CR/LF handling, cut long lines, head() sniffing and the content hash.
#include "ingest/reading/line_reader.h"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "ingest/reading/byte_source.h"
#include "ingest/reading/text_util.h"
#include "tests/support/memory_source.h"
#include "tests/support/temp_files.h"

namespace rcf::ingest {
namespace line_reader_test {

using rcf::testing::MemorySource;

struct Line {
  std::string text;
  bool cut = false;
  bool no_newline = false;
  int64_t number = 0;
  bool operator==(const Line&) const = default;
};

std::ostream& operator<<(std::ostream& os, const Line& l) {
  return os << "#" << l.number << " [" << l.text.size() << " bytes] \"" << l.text.substr(0, 60)
            << "\"" << (l.cut ? " cut" : "") << (l.no_newline ? " no_newline" : "");
}

struct ReadResult {
  std::vector<Line> lines;
  int64_t bytes_consumed = 0;
  std::string hash;
  std::string error;
};

ReadResult read_all(ByteSource& source, size_t buffer_size, size_t max_line = size_t{64} << 20) {
  LineReader reader(source, buffer_size, max_line);
  ReadResult r;
  std::string_view line;
  while (reader.next(&line)) {
    r.lines.push_back({std::string(line), reader.line_was_cut(), reader.last_line_had_no_newline(),
                       reader.line_number()});
  }
  r.bytes_consumed = reader.bytes_consumed();
  r.hash = reader.content_hash();
  r.error = reader.error();
  return r;
}

ReadResult read_string(const std::string& text, size_t buffer_size, size_t max_chunk = 0,
                       uint32_t seed = 1, size_t max_line = size_t{64} << 20) {
  MemorySource source(text, max_chunk, seed);
  return read_all(source, buffer_size, max_line);
}

// The documented semantics, computed the obvious way on the whole text: split on '\n'; a line
// longer than `max_line` bytes (without its '\n') is cut to `max_line` bytes; one trailing '\r'
// is removed; a non-empty tail without '\n' is a last line without newline.
std::vector<Line> reference_lines(const std::string& text, size_t max_line = size_t{64} << 20) {
  std::vector<Line> out;
  size_t pos = 0;
  int64_t number = 0;
  while (pos < text.size()) {
    size_t nl = text.find('\n', pos);
    bool no_newline = nl == std::string::npos;
    size_t end = no_newline ? text.size() : nl;
    std::string raw = text.substr(pos, end - pos);
    Line l;
    l.cut = raw.size() > max_line;
    if (l.cut) raw.resize(max_line);
    if (!raw.empty() && raw.back() == '\r') raw.pop_back();
    l.text = raw;
    l.no_newline = no_newline;
    l.number = ++number;
    out.push_back(l);
    pos = no_newline ? text.size() : nl + 1;
  }
  return out;
}

// A log-like text with line lengths around every small buffer size, empty lines, CRLF lines and
// a few long lines; deterministic.
std::string make_text(uint32_t seed, size_t approx_bytes, bool final_newline) {
  std::mt19937 rng(seed);
  std::string text;
  const std::string alphabet = "abcdefghijklmnopqrstuvwxyz0123456789 {}\":,[]/._-";
  while (text.size() < approx_bytes) {
    size_t len;
    switch (rng() % 8) {
      case 0:
        len = 0;
        break;
      case 1:
        len = 14 + rng() % 5;
        break;  // 14..18: around the 16/17 byte buffers
      case 2:
        len = 60 + rng() % 8;
        break;  // around 64
      case 3:
        len = 200 + rng() % 800;
        break;
      default:
        len = rng() % 80;
        break;
    }
    for (size_t i = 0; i < len; ++i) text.push_back(alphabet[rng() % alphabet.size()]);
    if (rng() % 5 == 0) text.push_back('\r');
    text.push_back('\n');
  }
  if (!final_newline) text += "tail without newline";
  return text;
}

const size_t kBufferSizes[] = {16, 17, 64, 4096, size_t{1} << 20};
const size_t kChunkModes[] = {0, 1, 7, 100, 5000};  // 0 = full reads

TEST(LineReaderTest, SameLinesForEveryBufferSizeAndChunking) {
  for (bool final_newline : {true, false}) {
    const std::string text = make_text(42, 60000, final_newline);
    const std::vector<Line> expected = reference_lines(text);
    ASSERT_GT(expected.size(), 500u);
    std::string first_hash;
    for (size_t buffer : kBufferSizes) {
      for (size_t chunk : kChunkModes) {
        SCOPED_TRACE(::testing::Message() << "buffer " << buffer << " chunk " << chunk
                                          << " final_newline " << final_newline);
        ReadResult r = read_string(text, buffer, chunk, static_cast<uint32_t>(buffer + chunk));
        EXPECT_EQ(r.lines, expected);
        EXPECT_EQ(r.bytes_consumed, static_cast<int64_t>(text.size()));
        EXPECT_EQ(r.error, "");
        if (first_hash.empty()) first_hash = r.hash;
        EXPECT_EQ(r.hash, first_hash);
      }
    }
  }
}

// Checks each line `reader` returns against the next line of `text` (as reference_lines splits
// it, one at a time: these inputs are tens of MB, and keeping their lines grew the test process
// that forks the CLI tests' children) until the reader ends, and that no line said to be plain
// holds a '\r' or an ESC; false at the first difference. `plain_lines`: how many were plain.
bool same_lines_as(std::string_view text, LineReader& reader, int64_t* plain_lines = nullptr) {
  size_t pos = 0;
  int64_t number = 0;
  std::string_view line;
  while (reader.next(&line)) {
    ++number;
    const size_t nl = text.find('\n', pos);
    const bool no_newline = nl == std::string_view::npos;
    const std::string_view raw = text.substr(pos, (no_newline ? text.size() : nl) - pos);
    std::string_view expected = raw;
    if (!expected.empty() && expected.back() == '\r') expected.remove_suffix(1);
    if (line != expected || reader.line_number() != number || reader.line_was_cut() ||
        reader.last_line_had_no_newline() != no_newline ||
        (reader.line_is_plain() && has_cr_or_escape(raw))) {
      ADD_FAILURE() << "line " << number << ": \"" << line.substr(0, 60) << "\"";
      return false;
    }
    if (plain_lines && reader.line_is_plain()) ++*plain_lines;
    pos = no_newline ? text.size() : nl + 1;
  }
  EXPECT_EQ(pos, text.size());
  return pos == text.size();
}

// make_text without its '\r' bytes, then one '\r' or ESC at a few places: most blocks read ahead
// hold neither, the lines around those few must not be said to be plain.
std::string plain_text_but_a_few(uint32_t seed, size_t approx_bytes) {
  std::string text = make_text(seed, approx_bytes, true);
  std::erase(text, '\r');
  for (size_t at : {size_t{3} << 20, (size_t{5} << 20) + 7, size_t{11} << 20})
    text[at] = at % 2 ? '\x1b' : '\r';
  return text;
}

// A source of 16 MiB or more is read a block ahead on a thread of its own, each block behind
// room for the line begun in the block before; a longer line (here around 256 KiB and 1 MiB)
// ends reading ahead. The lines and the content hash are those of reading on one thread (a
// buffer too small to read ahead with), whatever the buffer and the reads' sizes.
TEST(LineReaderTest, ReadingAheadGivesTheSameLinesAndHash) {
  for (int variant = 0; variant < 3; ++variant) {
    const bool final_newline = variant != 1, plain = variant == 2;
    std::string text =
        plain ? plain_text_but_a_few(7, size_t{9} << 20) : make_text(7, size_t{9} << 20, true);
    for (size_t long_line : {size_t{262143}, size_t{262144}, size_t{262145}, size_t{1} << 20})
      text += std::string(long_line, 'L') + "\n";
    text += plain ? plain_text_but_a_few(8, size_t{12} << 20)
                  : make_text(8, size_t{9} << 20, final_newline);
    MemorySource one_thread_source(text);
    LineReader one_thread(one_thread_source, 4096);
    ASSERT_TRUE(same_lines_as(text, one_thread));
    for (size_t buffer : {size_t{1} << 20, size_t{4} << 20}) {
      for (size_t chunk : {size_t{0}, size_t{100000}}) {
        SCOPED_TRACE(::testing::Message()
                     << "buffer " << buffer << " chunk " << chunk << " variant " << variant);
        MemorySource source(text, chunk);
        LineReader reader(source, buffer);
        int64_t plain_lines = 0;
        EXPECT_TRUE(same_lines_as(text, reader, &plain_lines));
        if (plain) {
          EXPECT_GT(plain_lines, 0);
        }
        EXPECT_EQ(reader.bytes_consumed(), static_cast<int64_t>(text.size()));
        EXPECT_EQ(reader.error(), "");
        EXPECT_EQ(reader.content_hash(), one_thread.content_hash());
      }
    }
  }
}

// A read error met by the thread that reads ahead ends the lines there, as on one thread.
TEST(LineReaderTest, ReadingAheadReportsAReadError) {
  const std::string text = make_text(9, size_t{20} << 20, true);
  const size_t fail_at = size_t{13} << 20;
  MemorySource source(text, 0, 1, static_cast<int64_t>(fail_at));
  LineReader reader(source, size_t{1} << 20);
  EXPECT_TRUE(same_lines_as(std::string_view(text).substr(0, fail_at), reader));
  EXPECT_EQ(reader.error(), "injected read error");
}

TEST(LineReaderTest, CrLfStripsExactlyOneCarriageReturn) {
  const std::string text = "a\r\nb\r\n\r\nx\r\r\nmid\rdle\n\rlead\nlast\r";
  const std::vector<std::string> expected = {"a", "b", "", "x\r", "mid\rdle", "\rlead", "last"};
  for (size_t buffer : kBufferSizes) {
    for (size_t chunk : kChunkModes) {
      SCOPED_TRACE(::testing::Message() << "buffer " << buffer << " chunk " << chunk);
      ReadResult r = read_string(text, buffer, chunk);
      std::vector<std::string> got;
      for (const auto& l : r.lines) got.push_back(l.text);
      EXPECT_EQ(got, expected);
      ASSERT_EQ(r.lines.size(), expected.size());
      EXPECT_TRUE(r.lines.back().no_newline);
      // The stripped '\r' bytes still count as consumed.
      EXPECT_EQ(r.bytes_consumed, static_cast<int64_t>(text.size()));
    }
  }
}

TEST(LineReaderTest, LastLineWithoutNewline) {
  for (size_t buffer : kBufferSizes) {
    SCOPED_TRACE(buffer);
    ReadResult r = read_string("first\nsecond", buffer, 3);
    ASSERT_EQ(r.lines.size(), 2u);
    EXPECT_EQ(r.lines[0], (Line{"first", false, false, 1}));
    EXPECT_EQ(r.lines[1], (Line{"second", false, true, 2}));
    EXPECT_EQ(r.bytes_consumed, 12);

    // A final newline means no unterminated last line (and no extra empty line).
    r = read_string("first\nsecond\n", buffer, 3);
    ASSERT_EQ(r.lines.size(), 2u);
    EXPECT_FALSE(r.lines[1].no_newline);

    // A single line without newline, longer than the buffer.
    const std::string one(100, 'q');
    r = read_string(one, buffer, 5);
    ASSERT_EQ(r.lines.size(), 1u);
    EXPECT_EQ(r.lines[0], (Line{one, false, true, 1}));
  }
}

// The ingest driver asks last_line_had_no_newline() after next() returned false (to note a
// missing final newline), so the flag must survive the final call.
TEST(LineReaderTest, NoNewlineFlagStillSetAfterTheEnd) {
  for (size_t buffer : kBufferSizes) {
    for (size_t max_line : {size_t{8}, size_t{64} << 20}) {
      SCOPED_TRACE(::testing::Message() << "buffer " << buffer << " max_line " << max_line);
      for (const char* text : {"a\nlast", "a\nlast line longer than eight"}) {
        MemorySource source(text, 2);
        LineReader reader(source, buffer, max_line);
        std::string_view line;
        while (reader.next(&line)) {
        }
        EXPECT_TRUE(reader.last_line_had_no_newline()) << text;
        EXPECT_FALSE(reader.next(&line));
        EXPECT_TRUE(reader.last_line_had_no_newline()) << text;
      }
      MemorySource source("a\nlast\n", 2);
      LineReader reader(source, buffer, max_line);
      std::string_view line;
      while (reader.next(&line)) {
      }
      EXPECT_FALSE(reader.last_line_had_no_newline());
    }
  }
}

TEST(LineReaderTest, FlagsAreResetForEachLine) {
  MemorySource source("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\nb\nc", 0);
  LineReader reader(source, 16, 20);
  std::string_view line;
  ASSERT_TRUE(reader.next(&line));
  EXPECT_TRUE(reader.line_was_cut());
  ASSERT_TRUE(reader.next(&line));
  EXPECT_EQ(line, "b");
  EXPECT_FALSE(reader.line_was_cut());
  EXPECT_FALSE(reader.last_line_had_no_newline());
  ASSERT_TRUE(reader.next(&line));
  EXPECT_EQ(line, "c");
  EXPECT_TRUE(reader.last_line_had_no_newline());
  EXPECT_FALSE(reader.next(&line));
  EXPECT_EQ(reader.line_number(), 3);
}

TEST(LineReaderTest, EmptyInput) {
  for (size_t buffer : kBufferSizes) {
    SCOPED_TRACE(buffer);
    MemorySource source("");
    LineReader reader(source, buffer);
    EXPECT_EQ(reader.head(100), "");
    std::string_view line;
    EXPECT_FALSE(reader.next(&line));
    EXPECT_FALSE(reader.next(&line));  // stays at the end
    EXPECT_EQ(reader.line_number(), 0);
    EXPECT_EQ(reader.bytes_consumed(), 0);
    EXPECT_FALSE(reader.last_line_had_no_newline());
    EXPECT_FALSE(reader.line_was_cut());
    EXPECT_EQ(reader.error(), "");
    EXPECT_EQ(reader.content_hash(), read_string("", 64).hash);
  }
  // One newline is one empty line.
  ReadResult r = read_string("\n", 16);
  ASSERT_EQ(r.lines.size(), 1u);
  EXPECT_EQ(r.lines[0], (Line{"", false, false, 1}));
  EXPECT_NE(r.hash, read_string("", 16).hash);
}

// Lines around and far past max_line (also past the reader's 64 KiB scratch buffer), then short
// lines that must come back intact, and a long last line without newline.
std::string long_line_text(size_t max_line) {
  std::string text;
  int i = 0;
  auto add = [&](size_t len, bool newline = true) {
    std::string s;
    for (size_t k = 0; k < len; ++k) s.push_back(static_cast<char>('a' + (i + k) % 26));
    ++i;
    text += s;
    if (newline) text += '\n';
  };
  add(3);
  add(max_line - 1);
  add(max_line);
  add(max_line + 1);
  add(5);
  add(10 * max_line);
  add(0);
  add(1000);
  add(200000);  // several scratch reads
  add(max_line);
  add(max_line);
  add(7);
  add(3 * max_line);
  add(3 * max_line);  // two long lines in a row
  add(2);
  add(5 * max_line, /*newline=*/false);
  return text;
}

TEST(LineReaderTest, LongLinesAreCutAndFollowingLinesStayIntact) {
  const size_t max_line = 40;
  const std::string text = long_line_text(max_line);
  const std::vector<Line> expected = reference_lines(text, max_line);
  // Sanity of the reference itself: lines of max_line bytes are not cut, longer ones are.
  ASSERT_EQ(expected.size(), 16u);
  EXPECT_FALSE(expected[1].cut);
  EXPECT_FALSE(expected[2].cut);
  EXPECT_TRUE(expected[3].cut);
  EXPECT_EQ(expected[3].text.size(), max_line);
  EXPECT_EQ(expected[4].text, "efghi");
  EXPECT_TRUE(expected[15].cut);
  EXPECT_TRUE(expected[15].no_newline);

  const std::string full_hash = read_string(text, 1 << 20).hash;  // no cut at max_line 64 MiB
  for (size_t buffer : {size_t{16}, size_t{17}, size_t{39}, size_t{40}, size_t{41}, size_t{64},
                        size_t{4096}, size_t{1} << 20}) {
    for (size_t chunk : kChunkModes) {
      SCOPED_TRACE(::testing::Message() << "buffer " << buffer << " chunk " << chunk);
      ReadResult r = read_string(text, buffer, chunk, 7, max_line);
      EXPECT_EQ(r.lines, expected);
      EXPECT_EQ(r.bytes_consumed, static_cast<int64_t>(text.size()));
      EXPECT_EQ(r.error, "");
      // Dropped bytes of cut lines are still hashed.
      EXPECT_EQ(r.hash, full_hash);
    }
  }
}

TEST(LineReaderTest, HeadThenNext) {
  const std::string text = make_text(7, 5000, true);
  const std::vector<Line> expected = reference_lines(text);
  for (size_t buffer : kBufferSizes) {
    for (size_t chunk : {size_t{0}, size_t{1}, size_t{7}}) {
      SCOPED_TRACE(::testing::Message() << "buffer " << buffer << " chunk " << chunk);
      MemorySource source(text, chunk, 3);
      LineReader reader(source, buffer);
      EXPECT_EQ(reader.head(0), "");
      EXPECT_EQ(reader.head(10), text.substr(0, 10));
      EXPECT_EQ(reader.head(1000), text.substr(0, 1000));  // more than the initial buffer
      EXPECT_EQ(reader.head(10), text.substr(0, 10));      // head() does not consume
      EXPECT_EQ(reader.bytes_consumed(), 0);
      EXPECT_EQ(reader.line_number(), 0);
      std::vector<Line> lines;
      std::string_view line;
      while (reader.next(&line))
        lines.push_back({std::string(line), reader.line_was_cut(),
                         reader.last_line_had_no_newline(), reader.line_number()});
      EXPECT_EQ(lines, expected);
      EXPECT_EQ(reader.content_hash(), read_string(text, 64).hash);
    }
  }
  // head() of more than the whole input returns the whole input.
  MemorySource small("ab\ncd", 1);
  LineReader reader(small, 16);
  EXPECT_EQ(reader.head(1 << 16), "ab\ncd");
  std::string_view line;
  ASSERT_TRUE(reader.next(&line));
  EXPECT_EQ(line, "ab");
  ASSERT_TRUE(reader.next(&line));
  EXPECT_EQ(line, "cd");
  EXPECT_FALSE(reader.next(&line));
}

TEST(LineReaderTest, ContentHashDependsOnBytesOnly) {
  const std::string text = make_text(11, 20000, false);
  const std::string hash = read_string(text, 4096).hash;
  for (size_t buffer : kBufferSizes)
    for (size_t chunk : kChunkModes)
      EXPECT_EQ(read_string(text, buffer, chunk, 99).hash, hash) << buffer << "/" << chunk;
  // Different bytes, even of the same length or differing only in CR/LF, hash differently.
  std::string changed = text;
  changed[changed.size() / 2] ^= 1;
  EXPECT_NE(read_string(changed, 4096).hash, hash);
  EXPECT_NE(read_string("a\r\n", 64).hash, read_string("a\n", 64).hash);
  EXPECT_NE(read_string("ab\n", 64).hash, read_string("ba\n", 64).hash);
}

TEST(LineReaderTest, ContentHashSameForGzipAndPlainFiles) {
  rcf::testing::TempDir dir;
  const std::string text = make_text(5, 300000, true);
  rcf::testing::write_file(dir.file("plain.log"), text);
  rcf::testing::write_file(dir.file("packed.log.gz"), rcf::testing::gzip_compress(text));

  std::vector<ReadResult> results;
  for (const char* name : {"plain.log", "packed.log.gz"}) {
    for (size_t buffer : {size_t{16}, size_t{4096}, size_t{1} << 20}) {
      std::string error;
      auto source = open_byte_source(dir.file(name), OpenOptions{}, &error);
      ASSERT_NE(source, nullptr) << error;
      results.push_back(read_all(*source, buffer));
      EXPECT_EQ(results.back().error, "");
    }
  }
  const ReadResult memory = read_string(text, 64);
  for (const auto& r : results) {
    EXPECT_EQ(r.hash, memory.hash);
    EXPECT_EQ(r.lines, memory.lines);
    EXPECT_EQ(r.bytes_consumed, static_cast<int64_t>(text.size()));
  }
}

TEST(LineReaderTest, ReadErrorEndsTheLinesAndIsReported) {
  const std::string text = "alpha\nbeta\ngamma\ndelta\n";
  for (size_t buffer : {size_t{16}, size_t{4096}}) {
    for (size_t chunk : {size_t{0}, size_t{1}}) {
      SCOPED_TRACE(::testing::Message() << "buffer " << buffer << " chunk " << chunk);
      MemorySource source(text, chunk, 1, /*fail_at=*/13);  // inside "gamma"
      LineReader reader(source, buffer);
      std::string_view line;
      std::vector<std::string> lines;
      while (reader.next(&line)) lines.push_back(std::string(line));
      ASSERT_GE(lines.size(), 2u);
      EXPECT_EQ(lines[0], "alpha");
      EXPECT_EQ(lines[1], "beta");
      // Nothing past the failure point is invented.
      EXPECT_LE(lines.size(), 3u);
      if (lines.size() == 3) {
        EXPECT_EQ(lines[2], "ga");
        EXPECT_TRUE(reader.last_line_had_no_newline());
      }
      EXPECT_EQ(reader.error(), "injected read error");
      EXPECT_FALSE(reader.next(&line));
    }
  }
  // A read error while dropping the tail of a cut line is reported too.
  std::string long_text = "x\n" + std::string(300000, 'y') + "\nz\n";
  MemorySource source(long_text, 0, 1, /*fail_at=*/200000);
  LineReader reader(source, 16, 64);
  std::string_view line;
  ASSERT_TRUE(reader.next(&line));
  EXPECT_EQ(line, "x");
  ASSERT_TRUE(reader.next(&line));
  EXPECT_TRUE(reader.line_was_cut());
  EXPECT_EQ(line, std::string(64, 'y'));
  EXPECT_FALSE(reader.next(&line));
  EXPECT_EQ(reader.error(), "injected read error");
}

}  // namespace line_reader_test
}  // namespace rcf::ingest
