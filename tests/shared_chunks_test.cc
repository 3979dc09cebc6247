#include "util/shared_chunks.h"

#include <gtest/gtest.h>

#include <string>

namespace rcf::util {
namespace {

std::string text_of(size_t i) {
  return "element " + std::to_string(i) + " of a longer text";
}

// A copy shares the elements until one side changes them: a change made on either side, in any
// chunk, is seen by that side only; taking an element moves it out only where no copy shares it.
TEST(SharedChunks, CopiesShareUntilOneChangesAChunk) {
  SharedChunks<std::string> a;
  const size_t n = 3 * SharedChunks<std::string>::kChunk + 5;
  for (size_t i = 0; i < n; ++i) a.push_back(text_of(i));
  SharedChunks<std::string> b = a;
  a.mutate(1) = "changed in a";
  b.mutate(n - 1) = "changed in b";
  b.push_back("added to b");
  ASSERT_EQ(a.size(), n);
  ASSERT_EQ(b.size(), n + 1);
  EXPECT_EQ(a[1], "changed in a");
  EXPECT_EQ(b[1], text_of(1));
  EXPECT_EQ(a[n - 1], text_of(n - 1));
  EXPECT_EQ(b[n - 1], "changed in b");
  for (size_t i = 2; i + 1 < n; ++i) ASSERT_EQ(a[i], b[i]) << i;

  std::string out = "x";
  a.take_into(70, out);  // its chunk is still shared with b: copied
  EXPECT_EQ(out, text_of(70));
  EXPECT_EQ(a[70], text_of(70));
  EXPECT_EQ(b[70], text_of(70));
  a.take_into(1, out);  // a's own chunk since it changed it: moved out
  EXPECT_EQ(out, "changed in a");
  EXPECT_EQ(b[1], text_of(1));
}

}  // namespace
}  // namespace rcf::util
