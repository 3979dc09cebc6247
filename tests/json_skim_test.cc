// The validating JSON skimmer used by the TORCH_TRACE importer for large records.
#include "ingest/json_skim.h"

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

namespace rcf::ingest::json_skim {
namespace {

TEST(JsonSkim, ValidatesLikeAStrictParser) {
  for (const char* ok :
       {"{}", "[]", "0", "-1.5e+3", "\"a\\u00e9\\n\"", " {\"a\": [1, true, null, {\"b\": \"c\"}]} ",
        "\"long string with no escapes at all, more than sixteen bytes\""})
    EXPECT_TRUE(is_valid(ok)) << ok;
  for (const char* bad : {"", "{", "{\"a\": 1,}", "[1 2]", "{\"a\" 1}", "01", "1.", "-", "tru",
                          "\"unterminated", "\"bad \\x escape\"", "\"raw\ttab\"", "{} {}",
                          "{\"args\": {\"compile_id\": \"None\"\n\"ph\": \"E\"}"})
    EXPECT_FALSE(is_valid(bad)) << bad;
  EXPECT_FALSE(is_valid(std::string(1000, '[') + std::string(1000, ']')));  // too deep
  EXPECT_TRUE(is_valid(std::string(100, '[') + std::string(100, ']')));
}

TEST(JsonSkim, MembersInOrderWithRawValues) {
  std::vector<std::pair<std::string, std::string>> members;
  EXPECT_TRUE(for_each_member(
      R"( {"b": {"x": [1, 2]}, "a": "s\"q", "n": null} )",
      [&](std::string_view key, std::string_view value) { members.emplace_back(key, value); }));
  ASSERT_EQ(members.size(), 3u);
  EXPECT_EQ(members[0], (std::pair<std::string, std::string>{"b", R"({"x": [1, 2]})"}));
  EXPECT_EQ(members[1], (std::pair<std::string, std::string>{"a", R"("s\"q")"}));
  EXPECT_TRUE(is_null(members[2].second));
  EXPECT_FALSE(for_each_member("[1]", [](std::string_view, std::string_view) {}));
  std::vector<std::string> elements;
  EXPECT_TRUE(
      for_each_element(R"(["x", 2])", [&](std::string_view v) { elements.emplace_back(v); }));
  EXPECT_EQ(elements, (std::vector<std::string>{"\"x\"", "2"}));
}

TEST(JsonSkim, Conversions) {
  EXPECT_EQ(to_string(R"("a\nb\t\"\\\/\u00e9\ud83d\ude00")"),
            "a\nb\t\"\\/\xc3\xa9\xf0\x9f\x98\x80");
  EXPECT_FALSE(to_string("12").has_value());
  EXPECT_EQ(to_int("1752877801875862"), 1752877801875862);
  EXPECT_EQ(to_int("1752877801875006.0"), 1752877801875006);
  EXPECT_FALSE(to_int("\"3\"").has_value());
  EXPECT_DOUBLE_EQ(*to_double("0.012439489364624023"), 0.012439489364624023);
  EXPECT_EQ(to_bool("true"), true);
  EXPECT_FALSE(to_bool("null").has_value());
}

}  // namespace
}  // namespace rcf::ingest::json_skim
