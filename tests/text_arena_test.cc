// TextArena: copies that never move, empty and huge texts included.
#include "util/text_arena.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

namespace rcf::util {
namespace text_arena_test {

TEST(TextArena, CopiesStayWhereTheyAre) {
  TextArena arena;
  EXPECT_NE(arena.allocate(0), nullptr);  // nothing allocated yet: still an address
  std::string_view empty = arena.copy("");
  EXPECT_NE(empty.data(), nullptr);
  EXPECT_TRUE(empty.empty());
  std::vector<std::pair<std::string_view, std::string>> kept;
  for (int i = 0; i < 3000; ++i) {
    std::string text = i % 300 == 7 ? std::string(700000, static_cast<char>('a' + i % 26))
                                    : std::to_string(i) + std::string(i % 1000, 'y');
    kept.emplace_back(arena.copy(text), text);
  }
  TextArena moved = std::move(arena);
  moved.copy("after the move");
  for (const auto& [copy, text] : kept) ASSERT_EQ(copy, text);
}

// A share holds the texts allocated before it as long as it lives, and the two allocate apart.
TEST(TextArena, AShareKeepsTheTextsBeforeItAndAllocatesApart) {
  auto arena = std::make_unique<TextArena>();
  std::vector<std::pair<std::string_view, std::string>> kept;
  for (int i = 0; i < 20000; ++i) {
    std::string text = "text " + std::to_string(i);
    kept.emplace_back(arena->copy(text), text);
  }
  TextArena share = arena->share();
  std::string_view from_original = arena->copy("after the share, in the original");
  std::string_view from_share = share.copy("after the share, in the share");
  EXPECT_EQ(from_original, "after the share, in the original");
  arena.reset();  // the share still holds the blocks of the texts before it
  for (const auto& [copy, text] : kept) ASSERT_EQ(copy, text);
  EXPECT_EQ(from_share, "after the share, in the share");
  for (int i = 0; i < 100000; ++i) share.copy(std::string(40, 'z'));  // in blocks of its own
  for (const auto& [copy, text] : kept) ASSERT_EQ(copy, text);
}

}  // namespace text_arena_test
}  // namespace rcf::util
