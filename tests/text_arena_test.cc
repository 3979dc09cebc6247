// TextArena: copies that never move, empty and huge texts included.
#include "util/text_arena.h"

#include <gtest/gtest.h>

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

}  // namespace text_arena_test
}  // namespace rcf::util
