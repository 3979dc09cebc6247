#include "analysis/run_rollup.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

namespace rcf::analysis {
namespace run_rollup_test {

AttributedCompile compile(int64_t ordinal, std::string site, std::string cause,
                          std::optional<int64_t> step, std::optional<double> ms = std::nullopt,
                          std::string detail = "", std::string subject = "") {
  AttributedCompile c;
  c.ordinal = ordinal;
  c.site = std::move(site);
  c.cause = std::move(cause);
  c.step = step;
  c.compile_ms = ms;
  c.program_key = "p" + std::to_string(ordinal);
  c.detail = std::move(detail);
  c.subject = std::move(subject);
  return c;
}

TEST(RunRollup, RanksByCompileTimeLostThenCount) {
  std::vector<AttributedCompile> cs = {
      compile(1, "a.py:1", "first_compile", 1, 1000),
      compile(2, "a.py:1", "constant", 2, 900, "constant.1 s64[]: 1 -> 2", "constant.1"),
      compile(3, "a.py:1", "constant", 3, 900, "constant.1 s64[]: 2 -> 3", "constant.1"),
      compile(4, "b.py:9", "shape", 2, 5000, "param 0 dim 1: 8 -> 16", "param 0 dim 1"),
      compile(5, "c.py:3", "sync_fragment", 2, std::nullopt),
      compile(6, "c.py:3", "sync_fragment", 3, std::nullopt),
  };
  auto r = roll_up_run(cs, {}, std::nullopt);
  EXPECT_EQ(r.compiles, 6);
  EXPECT_EQ(r.recompiles, 5);
  EXPECT_EQ(r.programs, 6);
  ASSERT_EQ(r.groups.size(), 3u);
  EXPECT_EQ(r.groups[0].site, "b.py:9");
  EXPECT_EQ(r.groups[1].cause, "constant");
  EXPECT_DOUBLE_EQ(*r.groups[1].compile_ms_lost, 1800);
  EXPECT_EQ(r.groups[1].compile_ms_basis, "measured");
  EXPECT_EQ(r.groups[1].detail, "constant.1 s64[]: 2 -> 3");  // the latest one
  EXPECT_EQ(r.groups[1].subject, "constant.1");
  EXPECT_EQ(*r.groups[1].first_step, 2);
  EXPECT_EQ(*r.groups[1].last_step, 3);
  EXPECT_EQ(r.groups[2].cause, "sync_fragment");  // time unknown: last
  EXPECT_FALSE(r.groups[2].compile_ms_lost);
  EXPECT_EQ(r.groups[2].compile_ms_basis, "unknown");
  EXPECT_EQ(r.convergence.state, SettleState::kNoData);
}

// Groups that tie on time lost and count are ranked by their sites' texts, whatever order the
// sites came in, also when the builder goes on from a checkpoint and more sites come after it
// (the sites sorted at the checkpoint, then the new ones merged in).
TEST(RunRollup, TiesRankBySiteTextAcrossACheckpoint) {
  const std::vector<std::string> sites = {"m.py:5", "b.py:2", "z.py:1", "a.py:9", "k.py:3",
                                          "c.py:7", "y.py:4", "d.py:8", "a.py:10"};
  std::vector<AttributedCompile> cs;
  for (size_t i = 0; i < sites.size(); ++i)
    cs.push_back(compile(static_cast<int64_t>(i + 1), sites[i], "shape", std::nullopt));
  RollupBuilder builder({}, std::nullopt);
  for (size_t i = 0; i < 4; ++i) builder.add(cs[i]);
  RollupBuilder resumed = builder.checkpoint();
  resumed.resume_on({}, std::nullopt);
  for (size_t i = 4; i < cs.size(); ++i) resumed.add(cs[i]);
  RunRollup r = std::move(resumed).finish();
  std::vector<std::string> ranked;
  for (const auto& g : r.groups) ranked.push_back(g.site);
  std::vector<std::string> by_text = sites;
  std::sort(by_text.begin(), by_text.end());
  EXPECT_EQ(ranked, by_text);
  std::vector<std::string> whole;
  for (const auto& g : roll_up_run(cs, {}, std::nullopt).groups) whole.push_back(g.site);
  EXPECT_EQ(whole, by_text);
}

// A builder that goes on from a checkpoint hands only the groups a compile added since changed
// and those hand_again() named (what the analysis that took the checkpoint changed after it),
// and says which groups compiles after its own checkpoint changed; without a resume, every group.
TEST(RunRollup, AResumedBuilderHandsOnlyWhatMayHaveChanged) {
  auto shape = [](int64_t ordinal, const std::string& site) {
    return compile(ordinal, site, "shape", std::nullopt, std::nullopt,
                   "d" + std::to_string(ordinal));
  };
  auto sites_handed = [](RollupBuilder&& b, bool changed_only, std::vector<uint32_t>* after) {
    std::vector<std::string> sites;
    RunRollup r = std::move(b).finish(
        [&sites](CauseGroup&& g) {
          sites.push_back(g.site + (g.after_checkpoint ? "*" : "") + "=" + g.detail);
        },
        changed_only);
    std::sort(sites.begin(), sites.end());
    if (after) *after = r.changed_after_checkpoint;
    return sites;
  };
  // The analysis before: a, b, c; then its checkpoint; then b again and a new d.
  RollupBuilder before({}, std::nullopt);
  for (int64_t i = 1; i <= 3; ++i) before.add(shape(i, std::string(1, char('a' + i - 1))));
  RollupBuilder kept = before.checkpoint();
  before.add(shape(4, "b"));
  before.add(shape(5, "d"));
  std::vector<uint32_t> changed_after;
  EXPECT_EQ(sites_handed(before.fork(), true, nullptr),
            (std::vector<std::string>{"a=d1", "b*=d4", "c=d3", "d*=d5"}));  // not resumed: all
  EXPECT_EQ(sites_handed(std::move(before), false, &changed_after),
            (std::vector<std::string>{"a=d1", "b*=d4", "c=d3", "d*=d5"}));
  EXPECT_EQ(changed_after, (std::vector<uint32_t>{1, 3}));
  kept.hand_again(changed_after);  // d is not among the checkpoint's groups: dropped

  // The next analysis goes on from the checkpoint: c changes; b is handed again as the
  // checkpoint has it (its later recompile may not come again), d not (the writer deletes it).
  RollupBuilder next = kept.fork();
  next.resume_on({}, std::nullopt);
  EXPECT_TRUE(next.resumed());
  next.add(shape(6, "c"));
  RollupBuilder whole = next.fork();
  EXPECT_EQ(sites_handed(std::move(next), true, nullptr),
            (std::vector<std::string>{"b=d2", "c=d6"}));
  EXPECT_EQ(sites_handed(std::move(whole), false, nullptr),
            (std::vector<std::string>{"a=d1", "b=d2", "c=d6"}));

  // A checkpoint of the resumed builder: what changes after it is flagged, what changed before
  // it is handed unflagged.
  RollupBuilder again = kept.fork();
  again.resume_on({}, std::nullopt);
  again.add(shape(7, "a"));
  RollupBuilder unused = again.checkpoint();
  again.add(shape(8, "e"));
  EXPECT_EQ(sites_handed(std::move(again), true, &changed_after),
            (std::vector<std::string>{"a=d7", "b=d2", "e*=d8"}));
  EXPECT_EQ(changed_after, (std::vector<uint32_t>{3}));
}

// A checkpoint shares its groups' details with the builder it was taken from: the builder that
// goes on (new recompiles of old groups, new groups, across more than one chunk of details) and
// finishes changes none of the checkpoint's, whose own finish says the details as they were.
TEST(RunRollup, ACheckpointKeepsItsDetailsWhileTheBuilderGoesOn) {
  RollupBuilder builder({}, std::nullopt);
  const int64_t sites = 150;  // more groups than one chunk of shared details holds
  for (int64_t i = 1; i <= sites; ++i)
    builder.add(compile(i, "s.py:" + std::to_string(i), "shape", std::nullopt, 10.0 * i,
                        "first detail " + std::to_string(i)));
  RollupBuilder kept = builder.checkpoint();
  for (int64_t i = 1; i <= sites; i += 7)
    builder.add(compile(sites + i, "s.py:" + std::to_string(i), "shape", std::nullopt, 1.0,
                        "later detail " + std::to_string(i)));
  builder.add(compile(2 * sites + 1, "new.py:1", "dtype", std::nullopt, 1.0, "new group"));
  RunRollup went_on = std::move(builder).finish();
  RunRollup at_checkpoint = std::move(kept).finish();
  ASSERT_EQ(at_checkpoint.groups.size(), static_cast<size_t>(sites));
  for (const auto& g : at_checkpoint.groups)
    EXPECT_EQ(g.detail, "first detail " + g.site.substr(5)) << g.site;
  ASSERT_EQ(went_on.groups.size(), static_cast<size_t>(sites) + 1);
  for (const auto& g : went_on.groups) {
    if (g.site == "new.py:1") {
      EXPECT_EQ(g.detail, "new group");
      continue;
    }
    const int64_t i = std::stoll(g.site.substr(5));
    EXPECT_EQ(g.detail, ((i - 1) % 7 == 0 ? "later detail " : "first detail ") + g.site.substr(5))
        << g.site;
  }
}

// A site numbered by its producer (the Dynamo side) and the same site unnumbered (another
// runtime's compile at the same text) are one site: groups go by the text, not the number.
TEST(RunRollup, NumberedAndUnnumberedSitesGroupByText) {
  std::vector<AttributedCompile> cs = {
      compile(1, "a.py:1 (f)", "first_compile", 1, 10), compile(2, "b.py:2 (g)", "shape", 2, 10),
      compile(3, "a.py:1 (f)", "shape", 2, 10),         compile(4, "a.py:1 (f)", "shape", 3, 10),
      compile(5, "b.py:2 (g)", "shape", 3, 10),
  };
  cs[0].site_number = cs[2].site_number = 1;  // a.py numbered 1, except compile 4
  cs[1].site_number = 2;                      // b.py numbered 2, except compile 5
  auto r = roll_up_run(cs, {}, std::nullopt);
  ASSERT_EQ(r.groups.size(), 2u);
  EXPECT_EQ(r.groups[0].site, "a.py:1 (f)");
  EXPECT_EQ(r.groups[0].recompiles, 2);
  EXPECT_EQ(r.groups[1].site, "b.py:2 (g)");
  EXPECT_EQ(r.groups[1].recompiles, 2);
}

// The writer tells the builder each site's string id: the site's groups carry it (0 when never
// told), and so does a group whose first compiles came without it.
TEST(RunRollup, GroupsCarryTheSiteIdTheyWereTold) {
  RollupBuilder b({}, std::nullopt);
  b.add(compile(1, "a.py:1 (f)", "first_compile", 1, 10), 7);
  b.add(compile(2, "a.py:1 (f)", "shape", 2, 10));
  b.add(compile(3, "a.py:1 (f)", "constant", 2, 5), 7);
  b.add(compile(4, "b.py:2 (g)", "shape", 3, 1));
  RunRollup r = std::move(b).finish();
  ASSERT_EQ(r.groups.size(), 3u);
  EXPECT_EQ(r.groups[0].site, "a.py:1 (f)");
  EXPECT_EQ(r.groups[0].cause, "shape");
  EXPECT_EQ(r.groups[0].site_sid, 7);
  EXPECT_EQ(r.groups[1].cause, "constant");
  EXPECT_EQ(r.groups[1].site_sid, 7);
  EXPECT_EQ(r.groups[2].site, "b.py:2 (g)");
  EXPECT_EQ(r.groups[2].site_sid, 0);
}

// Site ids told by site number after the compiles (the writer interns the sites on its own
// thread): every group of a numbered site carries its id; unknown numbers change nothing.
TEST(RunRollup, SiteIdsToldByNumberAfterTheCompiles) {
  RollupBuilder b({}, std::nullopt);
  AttributedCompile c1 = compile(1, "a.py:1 (f)", "shape", 1, 10);
  AttributedCompile c2 = compile(2, "b.py:2 (g)", "shape", 2, 10);
  AttributedCompile c3 = compile(3, "a.py:1 (f)", "constant", 2, 5);
  AttributedCompile c4 = compile(4, "c.py:3 (h)", "shape", 3, 1);  // not numbered
  c1.site_number = c3.site_number = 1;
  c2.site_number = 2;
  for (const AttributedCompile* c : {&c1, &c2, &c3, &c4}) b.add(*c);
  b.set_site_sid(1, 11);
  b.set_site_sid(2, 0);   // 0 tells nothing
  b.set_site_sid(3, 33);  // no compile had number 3
  b.set_site_sid(0, 44);  // nor 0
  RunRollup r = std::move(b).finish();
  ASSERT_EQ(r.groups.size(), 4u);
  for (const CauseGroup& g : r.groups) {
    if (g.site == "a.py:1 (f)")
      EXPECT_EQ(g.site_sid, 11) << g.cause;
    else
      EXPECT_EQ(g.site_sid, 0) << g.site;
  }
}

// The most frequent subject of a group; on a tie, the smallest text.
TEST(RunRollup, GroupSubjectIsTheMostFrequentThenTheSmallest) {
  std::vector<AttributedCompile> cs = {
      compile(1, "a.py:1", "shape", 1, 1, "", "y"), compile(2, "a.py:1", "shape", 1, 1, "", "x"),
      compile(3, "a.py:1", "shape", 1, 1, "", "z"), compile(4, "a.py:1", "shape", 1, 1, "", "z"),
      compile(5, "b.py:1", "shape", 1, 1, "", "y"), compile(6, "b.py:1", "shape", 1, 1, "", "x"),
      compile(7, "c.py:1", "shape", 1, 1, "", ""),
  };
  auto r = roll_up_run(cs, {}, std::nullopt);
  ASSERT_EQ(r.groups.size(), 3u);
  EXPECT_EQ(r.groups[0].site, "a.py:1");
  EXPECT_EQ(r.groups[0].subject, "z");  // twice
  EXPECT_EQ(r.groups[1].site, "b.py:1");
  EXPECT_EQ(r.groups[1].subject, "x");  // once each: the smallest
  EXPECT_EQ(r.groups[2].subject, "");
}

// A group whose example is a graph break that is not a host sync, or a structure change that is
// not an alternation, gets the remedy of that case (cause_remedy.variant), not the cause's
// standard one: there is no .item() to remove, no accumulation chain to wrap.
TEST(RunRollup, GroupsGetTheRemedyVariantOfTheirExample) {
  const std::string not_sync =
      "resume function torch_dynamo_resume_in_fn_at_9551 exists because of a graph break in fn at "
      "line 9551: skip function graph_break in file torch/_dynamo/decorators.py; " +
      std::string(kBreakNotAHostSync);
  std::vector<AttributedCompile> cs = {
      compile(1, "t.py:9551", "sync_fragment", 1, 40, not_sync),
      compile(2, "m.py:318", "sync_fragment", 1, 30,
              "resume function torch_dynamo_resume_in_forward_at_318 exists because of a graph "
              "break in forward at line 318: Graph break from `Tensor.item()` (m.py:318)"),
      compile(3, "x.py:4", "graph_structure", 1, 20, "same inputs, different ops: +1 add", "ops"),
      compile(4, "y.py:7", "graph_structure", 1, 10, "alternation: ...",
              std::string(kSubjectAlternatingPrograms)),
      compile(5, "z.py:1", "constant", 1, 5, std::string(kBreakNotAHostSync)),
  };
  auto r = roll_up_run(cs, {}, std::nullopt);
  ASSERT_EQ(r.groups.size(), 5u);
  std::vector<std::string> variants;
  for (const CauseGroup& g : r.groups) variants.push_back(g.site + " " + g.remedy_variant);
  EXPECT_EQ(variants, (std::vector<std::string>{"t.py:9551 graph_break", "m.py:318 ",
                                                "x.py:4 ops_changed", "y.py:7 ", "z.py:1 "}));
}

TEST(RunRollup, StepShareWhenOnlyStepCompileTimeIsKnown) {
  std::vector<AttributedCompile> cs = {
      compile(1, "a.py:1", "first_compile", 1),
      compile(2, "a.py:1", "key_subset", 2),
      compile(3, "x.py:5", "first_compile", 2),
  };
  std::vector<ConvergencePoint> curve = {
      {1, 1, 1, 1000.0, 1500.0}, {2, 3, 2, 3000.0, 3500.0}, {3, 3, 0, 0.0, 100.0}};
  auto r = roll_up_run(cs, curve, 42.0);
  ASSERT_EQ(r.groups.size(), 1u);
  EXPECT_DOUBLE_EQ(*r.groups[0].compile_ms_lost, 1500);  // half of step 2's 3000 ms
  EXPECT_EQ(r.groups[0].compile_ms_basis, "step_share");
  EXPECT_DOUBLE_EQ(*r.compile_ms, 4000);
  EXPECT_DOUBLE_EQ(*r.wall_ms, 5100);
  EXPECT_NEAR(*r.compile_share, 4000.0 / 5100.0, 1e-12);
  EXPECT_DOUBLE_EQ(*r.execute_ms, 42.0);
  EXPECT_EQ(r.convergence.state, SettleState::kSettled);
  EXPECT_EQ(r.convergence.settle_step, 2);
}

}  // namespace run_rollup_test
}  // namespace rcf::analysis
