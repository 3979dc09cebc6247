#include "ingest/dynamo/emitted_compile_refs.h"

#include <gtest/gtest.h>

namespace rcf::ingest {
namespace emitted_compile_refs_test {

CompileRef ref(int32_t frame, int32_t compile, int32_t rank = -1, int32_t epoch = 0,
               int32_t attempt = 0, int32_t ca = -1) {
  CompileRef r;
  r.rank = rank;
  r.epoch = epoch;
  r.id.frame = frame;
  r.id.compile = compile;
  r.id.attempt = attempt;
  r.id.compiled_autograd = ca;
  return r;
}

TEST(EmittedCompileRefs, RemembersEachRefOnce) {
  EmittedCompileRefs refs;
  EXPECT_TRUE(refs.insert(ref(0, 0)));
  EXPECT_TRUE(refs.insert(ref(0, 1)));
  EXPECT_FALSE(refs.insert(ref(0, 0)));
  EXPECT_FALSE(refs.insert(ref(0, 1)));
}

// Refs that differ in any one field are different compiles, including at the edges of the bits
// each field is packed into.
TEST(EmittedCompileRefs, EveryFieldTellsRefsApart) {
  EmittedCompileRefs refs;
  const CompileRef refs_to_tell_apart[] = {ref(0, 0),
                                           ref(0, 0, 0),
                                           ref(0, 0, -1, 1),
                                           ref(0, 0, -1, 0, 1),
                                           ref(0, 0, -1, 0, 0, 0),
                                           ref(1, 0),
                                           ref(0, 1),
                                           ref(1048574, 4094),
                                           ref(1048574, 4094, 1022, 63, 15, 4094),
                                           ref(-1, -1, -1, 0, 0, 7),
                                           ref(-1, -1, 3, 0, 0, 7)};
  for (const CompileRef& r : refs_to_tell_apart) EXPECT_TRUE(refs.insert(r));
  for (const CompileRef& r : refs_to_tell_apart) EXPECT_FALSE(refs.insert(r));
}

// A ref that does not fit the packing, or names no compile, is never remembered: all its
// mentions are emitted (duplicates are merged downstream; a wrong "seen" would lose a compile).
TEST(EmittedCompileRefs, RefsThatDoNotPackAreAlwaysNew) {
  EmittedCompileRefs refs;
  for (const CompileRef& r : {ref(1 << 20, 0), ref(0, 1 << 12), ref(0, 0, 1023), ref(0, 0, -1, 64),
                              ref(0, 0, -1, 0, 16), ref(0, 0, -1, 0, 0, 4095), ref(-1, -1)}) {
    EXPECT_TRUE(refs.insert(r));
    EXPECT_TRUE(refs.insert(r));
  }
}

// Memory is bounded by dropping the older generation, but a ref is remembered across at least
// 2^20 later distinct refs, and one mentioned again is carried into the newer generation.
TEST(EmittedCompileRefs, RemembersAtLeastTheLastMillionRefs) {
  EmittedCompileRefs refs;
  constexpr int kWindow = static_cast<int>(EmittedCompileRefs::kGenerationEntries);
  EXPECT_TRUE(refs.insert(ref(0, 0, 5)));  // mentioned again after each window, so kept
  for (int i = 0; i < 3 * kWindow; ++i) {
    ASSERT_TRUE(refs.insert(ref(i % 1000000, i / 1000000, i % 7))) << i;
    if (i % kWindow == kWindow - 1) {
      EXPECT_FALSE(refs.insert(ref(0, 0, 5))) << i;
    }
  }
  // The last kWindow refs are all still known.
  for (int i = 2 * kWindow; i < 3 * kWindow; ++i)
    ASSERT_FALSE(refs.insert(ref(i % 1000000, i / 1000000, i % 7))) << i;
  // Refs from two generations ago were forgotten: mentioned again, they are new.
  EXPECT_TRUE(refs.insert(ref(0, 0)));
}

}  // namespace emitted_compile_refs_test
}  // namespace rcf::ingest
