// Tests for ingest::file_prefix_hashes: the hashes of a file's first bytes, read now, plain or
// gzipped, as source.content_hash holds them; none for a file that is gone or now shorter.
#include "ingest/reading/file_prefix_hashes.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "ingest/reading/content_hash.h"
#include "tests/support/temp_files.h"

namespace rcf::ingest {
namespace file_prefix_hashes_test {

std::string hash_of(const std::string& bytes) {
  ContentHash hash;
  hash.update(bytes.data(), bytes.size());
  return fmt::format("{:016x}-{}", hash.digest(), bytes.size());
}

TEST(FilePrefixHashes, EachLengthsHashOfThePlainOrInflatedBytes) {
  std::string text;
  for (int i = 0; text.size() < 3'000'000; ++i) text += fmt::format("line {} of the log\n", i);
  testing::TempDir dir;
  testing::write_file(dir.file("log.txt"), text);
  testing::write_file(dir.file("log.txt.gz"), testing::gzip_compress(text));
  const std::vector<int64_t> lengths = {2'500'000, 0, 4096, 2'500'000, 3'000'000};
  std::vector<std::string> expected;
  for (int64_t n : lengths) expected.push_back(hash_of(text.substr(0, static_cast<size_t>(n))));
  for (const char* name : {"log.txt", "log.txt.gz"}) {
    auto got = file_prefix_hashes(dir.file(name), lengths);
    ASSERT_TRUE(got.has_value()) << name;
    EXPECT_EQ(*got, expected) << name;
  }
  // The whole file is the longest length it can be asked; one byte more is no answer.
  EXPECT_FALSE(
      file_prefix_hashes(dir.file("log.txt"), {static_cast<int64_t>(text.size()) + 1}).has_value());
  EXPECT_FALSE(file_prefix_hashes(dir.file("gone.txt"), {10}).has_value());
  EXPECT_FALSE(file_prefix_hashes(dir.file("log.txt"), {-1}).has_value());
  EXPECT_FALSE(file_prefix_hashes("-", {10}).has_value());
}

}  // namespace file_prefix_hashes_test
}  // namespace rcf::ingest
