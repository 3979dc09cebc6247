// md5_many gives, on every instruction set this CPU has, the digests Md5::digest gives one message
// at a time: RFC 1321's test suite, every length around the padding's block boundaries, batches
// smaller and larger than the lanes, one long message among short ones (it finishes alone).
#include "ingest/reading/md5_lanes.h"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

namespace rcf::ingest {
namespace md5_lanes_test {

const Md5Lanes kEveryLanes[] = {Md5Lanes::kBest, Md5Lanes::kScalar, Md5Lanes::kSse2,
                                Md5Lanes::kAvx2, Md5Lanes::kAvx512};

std::string lanes_name(Md5Lanes lanes) {
  switch (lanes) {
    case Md5Lanes::kBest:
      return "best";
    case Md5Lanes::kScalar:
      return "scalar";
    case Md5Lanes::kSse2:
      return "sse2";
    case Md5Lanes::kAvx2:
      return "avx2";
    case Md5Lanes::kAvx512:
      return "avx512";
  }
  return "?";
}

std::vector<std::string> hex_digests(const std::vector<std::string_view>& messages,
                                     Md5Lanes lanes) {
  std::vector<Md5Digest> digests;
  md5_many(messages, &digests, lanes);
  std::vector<std::string> hex;
  for (const Md5Digest& d : digests) hex.push_back(Md5::to_hex(d));
  return hex;
}

std::vector<std::string> one_at_a_time(const std::vector<std::string_view>& messages) {
  std::vector<std::string> hex;
  for (std::string_view m : messages) hex.push_back(Md5::to_hex(Md5::digest(m)));
  return hex;
}

TEST(Md5Lanes, Rfc1321TestSuite) {
  const std::vector<std::string_view> messages = {
      "",
      "a",
      "abc",
      "message digest",
      "abcdefghijklmnopqrstuvwxyz",
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789",
      "12345678901234567890123456789012345678901234567890123456789012345678901234567890"};
  const std::vector<std::string> expected = {
      "d41d8cd98f00b204e9800998ecf8427e", "0cc175b9c0f1b6a831c399e269772661",
      "900150983cd24fb0d6963f7d28e17f72", "f96b697d7cb7938d525a2f31aaf161d0",
      "c3fcd3d76192e4007dfb496cca67e13b", "d174ab98d277d9f5a5611c2c9f419d9f",
      "57edf4a22be3c955ac49da2e2107b67a"};
  for (Md5Lanes lanes : kEveryLanes) {
    if (!md5_lanes_available(lanes)) continue;
    EXPECT_EQ(hex_digests(messages, lanes), expected) << lanes_name(lanes);
  }
}

TEST(Md5Lanes, EveryLengthAroundThePaddingBoundaries) {
  std::mt19937 random(7);
  std::string bytes(300, '\0');
  for (char& c : bytes) c = static_cast<char>(random());
  std::vector<std::string_view> messages;
  for (size_t length = 0; length <= bytes.size(); ++length)
    messages.push_back(std::string_view(bytes)
                           .substr(length % 5, bytes.size() - length % 5)
                           .substr(0, std::min(length, bytes.size() - length % 5)));
  const std::vector<std::string> expected = one_at_a_time(messages);
  for (Md5Lanes lanes : kEveryLanes) {
    if (!md5_lanes_available(lanes)) continue;
    EXPECT_EQ(hex_digests(messages, lanes), expected) << lanes_name(lanes);
  }
}

TEST(Md5Lanes, BatchesOfEverySizeAndALongMessageAmongShortOnes) {
  std::mt19937 random(11);
  std::vector<std::string> texts;
  for (int i = 0; i < 40; ++i) {
    std::string text(random() % 2000, '\0');
    for (char& c : text) c = static_cast<char>('a' + random() % 26);
    texts.push_back(std::move(text));
  }
  texts[3].assign(100000, 'x');  // outlasts every other lane
  for (size_t batch = 0; batch <= texts.size(); ++batch) {
    std::vector<std::string_view> messages(texts.begin(), texts.begin() + batch);
    const std::vector<std::string> expected = one_at_a_time(messages);
    for (Md5Lanes lanes : kEveryLanes) {
      if (!md5_lanes_available(lanes)) continue;
      EXPECT_EQ(hex_digests(messages, lanes), expected) << lanes_name(lanes) << " batch " << batch;
    }
  }
}

TEST(Md5Lanes, ScalarAndBestAreAlwaysAvailable) {
  EXPECT_TRUE(md5_lanes_available(Md5Lanes::kScalar));
  EXPECT_TRUE(md5_lanes_available(Md5Lanes::kBest));
}

}  // namespace md5_lanes_test
}  // namespace rcf::ingest
