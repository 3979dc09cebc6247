// store/compile_row_hasher.h: a compile's rows get the digest of their values, type and order
// included, so that the memo of a watched run (store/compile_row_memo.h) rewrites every compile
// whose rows changed in any way.
#include "store/compile_row_hasher.h"

#include <gtest/gtest.h>

#include <functional>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace {

using rcf::store::CompileRowDigest;
using rcf::store::CompileRowHasher;
using Fill = std::function<void(CompileRowHasher&)>;

CompileRowDigest digest_of(
    const Fill& event, const Fill& attribution = [](CompileRowHasher&) {}) {
  CompileRowHasher e, a;
  event(e);
  attribution(a);
  return CompileRowHasher::combine(e, a);
}

TEST(CompileRowHasher, EqualValuesGiveEqualDigests) {
  auto fill = [](CompileRowHasher& h) {
    h.val(int64_t{7}).val_unowned("a program key longer than thirty-two bytes").null().val(2.5);
  };
  EXPECT_EQ(digest_of(fill), digest_of(fill));
}

// Every pair of these rows differs in one way a changed compile can: a value, its type (NULL, 0,
// "" and 0.0), its place, where one text ends and the next begins, a byte deep in a long text,
// or which of the two rows holds it.
TEST(CompileRowHasher, EveryChangeOfValueTypeOrPlaceChangesTheDigest) {
  const std::string long_text(200, 'x');
  std::string long_changed = long_text;
  long_changed[137] = 'y';
  const std::vector<std::pair<const char*, Fill>> rows = {
      {"null", [](CompileRowHasher& h) { h.null(); }},
      {"zero", [](CompileRowHasher& h) { h.val(int64_t{0}); }},
      {"empty text", [](CompileRowHasher& h) { h.val_unowned(""); }},
      {"zero real", [](CompileRowHasher& h) { h.val(0.0); }},
      {"1 2 3 4 5",
       [](CompileRowHasher& h) {
         for (int64_t v : {1, 2, 3, 4, 5}) h.val(v);
       }},
      {"5 2 3 4 1",
       [](CompileRowHasher& h) {
         for (int64_t v : {5, 2, 3, 4, 1}) h.val(v);
       }},
      {"1 2 3 4 5 0",
       [](CompileRowHasher& h) {
         for (int64_t v : {1, 2, 3, 4, 5, 0}) h.val(v);
       }},
      {"abc + ''", [](CompileRowHasher& h) { h.val_unowned("abc").val_unowned(""); }},
      {"ab + c", [](CompileRowHasher& h) { h.val_unowned("ab").val_unowned("c"); }},
      {"long", [&](CompileRowHasher& h) { h.val_unowned(long_text); }},
      {"long changed", [&](CompileRowHasher& h) { h.val_unowned(long_changed); }},
      {"eight bytes", [](CompileRowHasher& h) { h.val_unowned("abcdefgh"); }},
      {"the same as an int", [](CompileRowHasher& h) { h.val(int64_t{0x6867666564636261}); }},
  };
  std::set<std::pair<uint64_t, uint64_t>> seen;
  for (const auto& [name, fill] : rows) {
    const CompileRowDigest d = digest_of(fill);
    EXPECT_TRUE(seen.insert({d.a, d.b}).second) << name << " repeats an earlier row's digest";
  }
  auto one = [](CompileRowHasher& h) { h.val(int64_t{1}); };
  auto none = [](CompileRowHasher&) {};
  const CompileRowDigest in_event = digest_of(one, none), in_attribution = digest_of(none, one);
  EXPECT_FALSE(in_event == in_attribution) << "the value moved to the other row";
}

}  // namespace
