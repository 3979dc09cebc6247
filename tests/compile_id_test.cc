#include "ingest/compile_id.h"

#include <gtest/gtest.h>

#include <string>

namespace rcf::ingest {
namespace {

// Every form torch/_guards.py prints parses back to itself; other spellings of the same numbers
// (leading zeros, an attempt of 0) parse, but are not the id's text, and are kept as text.
TEST(CompileId, TheRuntimesFormsAreTheirOwnText) {
  for (std::string text : {"0/1", "0/0_1", "!0/1/0", "!3", "12/345_6", "!2/7/8_1"}) {
    auto id = CompileId::parse(text);
    ASSERT_TRUE(id) << text;
    EXPECT_EQ(id->text(), text);
    EXPECT_TRUE(id->is_text(text)) << text;
  }
  EXPECT_EQ(CompileId::parse("0/0_1")->text_without_attempt(), "0/0");
  for (std::string text : {"007/1", "0/01", "0/1_0", "!03"}) {
    auto id = CompileId::parse(text);
    ASSERT_TRUE(id) << text;
    EXPECT_FALSE(id->is_text(text)) << text << " is " << id->text();
  }
  for (std::string text : {"", "0", "0/", "/1", "a/b", "0/1_", "!", "!1/2"})
    EXPECT_FALSE(CompileId::parse(text)) << text;
  EXPECT_EQ(CompileId().text(), "");
}

}  // namespace
}  // namespace rcf::ingest
