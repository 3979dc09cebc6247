// ingest::ContentHash is XXH64 with seed 0 (reference digests from the xxHash library), and the
// digest does not depend on how the stream is split into update() calls.
#include "ingest/reading/content_hash.h"

#include <gtest/gtest.h>

#include <random>
#include <string>

namespace rcf::ingest {
namespace content_hash_test {

uint64_t hash_of(const std::string& text) {
  ContentHash h;
  h.update(text.data(), text.size());
  return h.digest();
}

std::string bytes_0_to_255_times(int n) {
  std::string out;
  for (int k = 0; k < n; ++k)
    for (int c = 0; c < 256; ++c) out.push_back(static_cast<char>(c));
  return out;
}

TEST(ContentHash, MatchesXxh64ReferenceDigests) {
  // Lengths cover the tail paths (< 4, 4..7, 8.., whole 32-byte stripes plus a tail).
  EXPECT_EQ(hash_of(""), 0xef46db3751d8e999ull);
  EXPECT_EQ(hash_of("a"), 0xd24ec4f1a98c6e5bull);
  EXPECT_EQ(hash_of("abc"), 0x44bc2cf5ad770999ull);
  EXPECT_EQ(hash_of("0123456789abcdef0123456789abcdef!"), 0x8afff4daac4e677eull);
  EXPECT_EQ(hash_of(bytes_0_to_255_times(5)), 0xafc184ad7938a354ull);
}

TEST(ContentHash, AnySplitGivesTheSameDigest) {
  std::string text = bytes_0_to_255_times(40) + "tail";
  uint64_t whole = hash_of(text);
  std::mt19937 rng(3);
  for (int trial = 0; trial < 200; ++trial) {
    ContentHash h;
    size_t max_piece = 1 + rng() % 100;
    for (size_t at = 0; at < text.size();) {
      size_t piece = std::min<size_t>(text.size() - at, rng() % (max_piece + 1));
      h.update(text.data() + at, piece);  // empty pieces included
      at += piece;
    }
    ASSERT_EQ(h.digest(), whole) << "trial " << trial;
    EXPECT_EQ(h.size(), text.size());
  }
  // One changed byte changes the digest.
  std::string other = text;
  other[1000] ^= 1;
  EXPECT_NE(hash_of(other), whole);
}

}  // namespace content_hash_test
}  // namespace rcf::ingest
