// The validating JSON skimmer used by the TORCH_TRACE importer for large records.
#include "ingest/torch_trace/json_skim.h"

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

namespace rcf::ingest::json_skim {
namespace json_skim_test {

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

// A string's plain run is stepped over 16 or 32 bytes at a time: a stop byte (the closing quote,
// an escape, a raw control character) at every offset of runs longer than two vectors, with text
// after the string that must not be read as part of it.
TEST(JsonSkim, StringsEndWhereverTheStopFallsInAVector) {
  for (size_t run = 0; run < 80; ++run) {
    const std::string plain(run, 'a');
    const std::string after = ", \"next\": 1}" + std::string(40, 'z');
    std::string closed = "\"" + plain + "\"" + after;
    EXPECT_EQ(skip_string(closed, 0), run + 2) << run;
    std::string escaped = "\"" + plain + "\\\"" + plain + "\"" + after;
    EXPECT_EQ(skip_string(escaped, 0), 2 * run + 4) << run;
    std::string control = "\"" + plain + "\n" + plain + "\"" + after;
    EXPECT_EQ(skip_string(control, 0), kInvalid) << run;
    std::string high = "\"" + plain + "\xc3\xa9\x7f" + "\"" + after;  // not stops
    EXPECT_EQ(skip_string(high, 0), run + 5) << run;
    std::string unterminated = "\"" + plain;
    EXPECT_EQ(skip_string(unterminated, 0), kInvalid) << run;
  }
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

// walk_object lets a reader descend into one member's value instead of skipping it and reading
// it again: the same members, the same end, the same verdicts as skimming.
TEST(JsonSkim, WalkingAnObjectDescendsIntoAMemberOnce) {
  const std::string text =
      R"({"name": "x", "args": {"key": "k", "components": ["a\n", 1]}, "ph": "i"})";
  std::vector<std::string> seen;
  auto walk = [&](std::string_view json) {
    seen.clear();
    return walk_object(json, 0, 0, [&](std::string_view key, size_t at) {
      seen.emplace_back(key);
      if (key != "args") return skip_value(json, at, 1);
      return walk_object(json, at, 1, [&](std::string_view arg, size_t arg_at) {
        seen.push_back("args." + std::string(arg));
        return skip_value(json, arg_at, 2);
      });
    });
  };
  EXPECT_EQ(walk(text), text.size());
  EXPECT_EQ(seen, (std::vector<std::string>{"name", "args", "args.key", "args.components", "ph"}));
  EXPECT_EQ(walk(text), skip_value(text, 0));
  // An error inside the member walked into is the object's error.
  EXPECT_EQ(walk(R"({"args": {"key": "k", "components": [1 2]}, "ph": "i"})"), kInvalid);
  EXPECT_EQ(walk(R"({"args": {"key" "k"}})"), kInvalid);
  EXPECT_EQ(walk("[1]"), kInvalid);
  // Depth: the member walked into counts as deep as skip_value counts it.
  std::string deep = "{\"args\": {\"a\": " + std::string(kMaxDepth - 2, '[') +
                     std::string(kMaxDepth - 2, ']') + "}}";
  EXPECT_EQ(walk(deep) != kInvalid, is_valid(deep));
  std::string too_deep =
      "{\"args\": {\"a\": " + std::string(kMaxDepth, '[') + std::string(kMaxDepth, ']') + "}}";
  EXPECT_EQ(walk(too_deep), kInvalid);
  EXPECT_FALSE(is_valid(too_deep));
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

}  // namespace json_skim_test
}  // namespace rcf::ingest::json_skim
