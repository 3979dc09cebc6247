// MD5 (ingest/reading/md5.h) against the RFC 1321 appendix A.5 test suite, plus streaming
// invariants.
#include "ingest/reading/md5.h"

#include <gtest/gtest.h>

#include <cctype>
#include <string>

namespace rcf::ingest {
namespace md5_test {

std::string md5_hex(std::string_view text) {
  return Md5::to_hex(Md5::digest(text));
}

TEST(Md5, Rfc1321TestSuite) {
  EXPECT_EQ(md5_hex(""), "d41d8cd98f00b204e9800998ecf8427e");
  EXPECT_EQ(md5_hex("a"), "0cc175b9c0f1b6a831c399e269772661");
  EXPECT_EQ(md5_hex("abc"), "900150983cd24fb0d6963f7d28e17f72");
  EXPECT_EQ(md5_hex("message digest"), "f96b697d7cb7938d525a2f31aaf161d0");
  EXPECT_EQ(md5_hex("abcdefghijklmnopqrstuvwxyz"), "c3fcd3d76192e4007dfb496cca67e13b");
  EXPECT_EQ(md5_hex("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"),
            "d174ab98d277d9f5a5611c2c9f419d9f");
  EXPECT_EQ(md5_hex("1234567890123456789012345678901234567890"
                    "1234567890123456789012345678901234567890"),
            "57edf4a22be3c955ac49da2e2107b67a");
}

TEST(Md5, MillionAs) {
  EXPECT_EQ(md5_hex(std::string(1000000, 'a')), "7707d6ae4e027c70eea2a935c2296f21");
}

TEST(Md5, PaddingBoundaries) {
  // Lengths around the 56-byte padding limit and the 64-byte block size (values from Python's
  // hashlib.md5(b"x" * n)).
  EXPECT_EQ(md5_hex(std::string(55, 'x')), "04364420e25c512fd958a70738aa8f72");
  EXPECT_EQ(md5_hex(std::string(56, 'x')), "668a72d5ba17f08e62dabcafad6db14b");
  EXPECT_EQ(md5_hex(std::string(63, 'x')), "7dc2ca208106a2f703567bdff99d8981");
  EXPECT_EQ(md5_hex(std::string(64, 'x')), "c1bb4f81d892b2d57947682aeb252456");
  EXPECT_EQ(md5_hex(std::string(65, 'x')), "1bc932052302d074bdec39795fe00cf6");
  EXPECT_EQ(md5_hex(std::string(119, 'x')), "ab347a5f68c8a443cfcddc633f12c24f");
  EXPECT_EQ(md5_hex(std::string(120, 'x')), "fb98667f98096de92620b64f46e1c5b5");
  EXPECT_EQ(md5_hex(std::string(128, 'x')), "d69cb61a6ee87200676eb0d4b90edbcb");
}

TEST(Md5, StreamingEqualsOneShot) {
  std::string text;
  for (int i = 0; i < 5000; ++i) text += char('a' + (i * 7) % 26);
  const Md5Digest whole = Md5::digest(text);
  for (size_t piece : {1u, 3u, 55u, 63u, 64u, 65u, 127u, 1000u}) {
    Md5 md5;
    for (size_t pos = 0; pos < text.size(); pos += piece)
      md5.update(std::string_view(text).substr(pos, piece));
    EXPECT_EQ(md5.finish(), whole) << "piece " << piece;
  }
  // finish() resets: the object can hash the next message.
  Md5 md5;
  md5.update("junk");
  md5.finish();
  md5.update("abc");
  EXPECT_EQ(Md5::to_hex(md5.finish()), "900150983cd24fb0d6963f7d28e17f72");
}

TEST(Md5, ParseHex) {
  Md5Digest digest;
  ASSERT_TRUE(Md5::parse_hex("900150983CD24FB0D6963F7D28E17F72", &digest));
  EXPECT_EQ(Md5::to_hex(digest), "900150983cd24fb0d6963f7d28e17f72");
  EXPECT_FALSE(Md5::parse_hex("900150983cd24fb0d6963f7d28e17f7", &digest));   // 31 digits
  EXPECT_FALSE(Md5::parse_hex("900150983cd24fb0d6963f7d28e17f7g", &digest));  // not hex
  EXPECT_FALSE(Md5::parse_hex("", &digest));
}

// Every byte at every position of the 32 digits: accepted exactly when it is a hex digit of
// either case, and then read as its value.
TEST(Md5, ParseHexEveryByteAtEveryPosition) {
  const std::string hex_digits = "0123456789abcdef";
  for (size_t pos = 0; pos < 32; ++pos) {
    for (int c = 0; c < 256; ++c) {
      std::string text(32, '0');
      text[pos] = char(c);
      const size_t value = hex_digits.find(char(std::tolower(c)));
      const bool is_hex = c != 0 && value != std::string::npos;
      Md5Digest digest;
      ASSERT_EQ(Md5::parse_hex(text, &digest), is_hex) << pos << " " << c;
      if (!is_hex) continue;
      std::string expected(32, '0');
      expected[pos] = hex_digits[value];
      EXPECT_EQ(Md5::to_hex(digest), expected) << pos << " " << c;
    }
  }
}

}  // namespace md5_test
}  // namespace rcf::ingest
