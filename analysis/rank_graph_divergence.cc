// The rank_divergence checks over compiled graphs: collective schedules, the collective calls of
// the generated code, Inductor tensor metadata and the order graphs ran in
// (docs/rank_divergence.md).
#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <set>

#include "analysis/rank_groups.h"

namespace rcf::analysis {
namespace {

using Items = std::vector<std::string>;

std::set<GraphKey> graph_keys(const std::vector<RankFacts>& ranks, GraphItems RankFacts::*facts) {
  std::set<GraphKey> keys;
  for (const RankFacts& r : ranks)
    for (const auto& [key, items] : r.*facts) keys.insert(key);
  return keys;
}

const Items* items_at(const RankFacts& rank, GraphItems RankFacts::*facts, const GraphKey& key) {
  auto it = (rank.*facts).find(key);
  return it == (rank.*facts).end() ? nullptr : &it->second;
}

// What the compiles of `key` on each group say: one cause when they agree.
std::string compile_causes(const std::vector<RankFacts>& ranks, const RankGroupList& groups,
                           const GraphKey& key, bool* same) {
  std::vector<std::string> causes, kinds;
  for (const auto& group : groups) {
    const RankCompile* c = ranks[group.front()].compile(key);
    causes.push_back(c ? cause_text(*c) : "no compile logged");
    kinds.push_back(!c ? "-" : c->failed ? "failed" : c->cause);
  }
  // One cause on every rank (the detail may name objects whose ids differ per process).
  *same = std::all_of(kinds.begin(), kinds.end(), [&](auto& k) { return k == kinds[0]; });
  if (*same) return causes[0];
  std::string text;
  for (size_t g = 0; g < groups.size(); ++g)
    text += fmt::format("{}{}: {}", g ? "; " : "", ranks_text(ranks, groups[g]), causes[g]);
  return text;
}

struct ItemsCheck {
  const char* kind;          // row kind
  const char* noun;          // "collective", "op"
  const char* absent;        // what a rank without the fact did not log
  const char* same_compile;  // why one compile can give different items
  bool short_ops;            // name collectives without their namespace
};

std::string item_text(const ItemsCheck& check, const Items* items, size_t at) {
  if (!items || at >= items->size()) return "nothing";
  return std::string(check.short_ops ? short_op((*items)[at]) : (*items)[at]);
}

void graph_items_row(const std::vector<RankFacts>& ranks, GraphItems RankFacts::*facts,
                     const ItemsCheck& check, const GraphKey& key, const RankGroupList& groups,
                     std::vector<RankDivergence>& out) {
  std::vector<const Items*> per_group;
  std::vector<const Items*> logged;
  for (const auto& group : groups) {
    per_group.push_back(items_at(ranks[group.front()], facts, key));
    if (per_group.back()) logged.push_back(per_group.back());
  }
  const size_t at = logged.size() > 1 ? first_difference(logged) : 0;
  std::string detail = "graph " + graph_key_text(key) + ":";
  for (size_t g = 0; g < groups.size(); ++g) {
    const Items* items = per_group[g];
    detail += fmt::format("{} {} ", g ? ";" : "", ranks_text(ranks, groups[g]));
    detail += items
                  ? fmt::format("{} {}{}", items->size(), check.noun, items->size() == 1 ? "" : "s")
                  : std::string(check.absent);
  }
  if (logged.size() > 1) {
    detail += fmt::format(". First difference at {} {}:", check.noun, at);
    for (size_t g = 0; g < groups.size(); ++g)
      if (per_group[g])
        detail += fmt::format("{} {} {}", g ? ";" : "", ranks_text(ranks, groups[g]),
                              item_text(check, per_group[g], at));
  }
  bool same = false;
  const std::string causes = compile_causes(ranks, groups, key, &same);
  detail += same ? fmt::format(". Same cause of the compile on every rank ({}): {}", causes,
                               check.same_compile)
                 : ". The compiles differ: " + causes;
  out.push_back({check.kind, groups_text(ranks, groups), int64_t(at), std::move(detail)});
}

// One row per graph whose items differ between the ranks that compiled it.
void graph_items_divergence(const std::vector<RankFacts>& ranks, GraphItems RankFacts::*facts,
                            const ItemsCheck& check, std::vector<RankDivergence>& out) {
  for (const GraphKey& key : graph_keys(ranks, facts)) {
    std::vector<size_t> members;
    for (size_t i = 0; i < ranks.size(); ++i)
      if (ranks[i].compile(key) || items_at(ranks[i], facts, key)) members.push_back(i);
    const RankGroupList groups = group_ranks(members, [&](size_t i) {
      const Items* items = items_at(ranks[i], facts, key);
      return items ? "+" + joined(*items) : std::string("-");
    });
    if (groups.size() > 1) graph_items_row(ranks, facts, check, key, groups, out);
  }
}

// How the collective calls of a graph's generated code miss its schedule; "" when they match.
struct Parity {
  std::string problem;
  size_t first_unmatched = 0;
  bool missing = false, extra = false;
};

// Scheduled collectives are matched to the code's calls in order; a call between two matched
// ones that the schedule does not have is an extra call.
Parity parity_of(const Items& schedule, const Items& calls) {
  Parity p;
  std::map<std::string_view, int> missing, extra;
  size_t j = 0, matched = 0;
  bool mismatched = false;
  auto note = [&](size_t i) {
    if (!mismatched) p.first_unmatched = i, mismatched = true;
  };
  for (size_t i = 0; i < schedule.size(); ++i) {
    size_t k = j;
    while (k < calls.size() && calls[k] != schedule[i]) ++k;
    if (k == calls.size()) {
      note(i);
      ++missing[short_op(schedule[i])];
      continue;
    }
    if (k > j) note(i);
    for (; j < k; ++j) ++extra[short_op(calls[j])];
    j = k + 1;
    ++matched;
  }
  if (j < calls.size()) note(schedule.size());
  for (; j < calls.size(); ++j) ++extra[short_op(calls[j])];
  if (!mismatched) return p;
  auto counts = [](const std::map<std::string_view, int>& ops) {
    std::string text;
    for (const auto& [op, count] : ops)
      text += fmt::format("{}{} {}", text.empty() ? "" : ", ", count, op);
    return text;
  };
  p.problem = fmt::format("the generated code makes {} of the {} scheduled collective calls",
                          matched, schedule.size());
  p.missing = !missing.empty();
  p.extra = !extra.empty();
  if (!missing.empty()) p.problem += " (missing: " + counts(missing) + ")";
  if (!extra.empty())
    p.problem += " and calls what the schedule does not have (" + counts(extra) + ")";
  return p;
}

}  // namespace

void collective_divergence(const std::vector<RankFacts>& ranks, std::vector<RankDivergence>& out) {
  static constexpr ItemsCheck kCheck{
      "collectives", "collective", "logged no collective schedule",
      "the graph or Inductor's scheduling of it differed on these ranks, so they issue different "
      "collectives from it and wait on each other (a hang, or mismatched data)",
      true};
  graph_items_divergence(ranks, &RankFacts::schedule, kCheck, out);
}

void tensor_meta_divergence(const std::vector<RankFacts>& ranks, std::vector<RankDivergence>& out) {
  static constexpr ItemsCheck kCheck{
      "tensor_meta", "op", "logged no tensor metadata",
      "its inputs or Inductor's choices (shapes, dtypes, layouts) differed on these ranks, so "
      "they run different kernels on different tensors",
      false};
  graph_items_divergence(ranks, &RankFacts::tensor_meta, kCheck, out);
}

// A graph whose generated code does not make the collective calls its schedule lists.
void collective_parity(const std::vector<RankFacts>& ranks, std::vector<RankDivergence>& out) {
  for (const GraphKey& key : graph_keys(ranks, &RankFacts::schedule)) {
    std::vector<size_t> members;
    std::map<size_t, Parity> parity;
    for (size_t i = 0; i < ranks.size(); ++i) {
      const Items* schedule = items_at(ranks[i], &RankFacts::schedule, key);
      const Items* calls = items_at(ranks[i], &RankFacts::code_calls, key);
      if (!schedule || !calls) continue;
      members.push_back(i);
      parity[i] = parity_of(*schedule, *calls);
    }
    bool any = false;
    for (const auto& [i, p] : parity) any = any || !p.problem.empty();
    if (!any) continue;
    const RankGroupList groups = group_ranks(members, [&](size_t i) { return parity[i].problem; });
    std::string detail = "graph " + graph_key_text(key) + ":";
    size_t first = SIZE_MAX;
    bool missing = false, extra = false;
    for (size_t g = 0; g < groups.size(); ++g) {
      const Parity& p = parity[groups[g].front()];
      detail += fmt::format("{} {}: {}", g ? ";" : "", ranks_text(ranks, groups[g]),
                            p.problem.empty() ? "the code makes the scheduled calls" : p.problem);
      if (!p.problem.empty()) first = std::min(first, p.first_unmatched);
      missing = missing || p.missing;
      extra = extra || p.extra;
    }
    if (missing)
      detail +=
          ". A scheduled collective the code never calls leaves the other ranks waiting for it (a "
          "hang), and a wait_tensor never made lets a buffer be read before its collective "
          "finished";
    if (extra)
      detail +=
          ". The code calls collectives its logged schedule does not list: the schedule is not "
          "what the rank runs, so comparing ranks by their schedules misses this";
    out.push_back({"collectives", groups_text(ranks, groups), int64_t(first), std::move(detail)});
  }
}

namespace {

const RankCompile* compile_named(const RankFacts& rank, std::string_view id) {
  for (const RankCompile& c : rank.compiles)
    if (c.id == id) return &c;
  return nullptr;
}

const Items* schedule_named(const RankFacts& rank, std::string_view id) {
  for (const auto& [key, items] : rank.schedule)
    if (graph_key_text(key) == id) return &items;
  return nullptr;
}

// Why the graphs run at one position differ: their collective schedules and cache outcomes.
std::string order_cause(const std::vector<RankFacts>& ranks, const RankGroupList& groups,
                        const std::vector<std::string>& ran) {
  std::string schedules, caches;
  std::set<std::string> distinct_schedules, distinct_caches;
  for (size_t g = 0; g < groups.size(); ++g) {
    const RankFacts& rank = ranks[groups[g].front()];
    const Items* schedule = schedule_named(rank, ran[g]);
    const RankCompile* compile = compile_named(rank, ran[g]);
    distinct_schedules.insert(schedule ? joined(*schedule) : "-");
    distinct_caches.insert(compile ? compile->cache : "");
    schedules += fmt::format("{}{} {}: {}", g ? "; " : "", ranks_text(ranks, groups[g]), ran[g],
                             schedule ? fmt::format("{} collectives", schedule->size())
                                      : std::string("no schedule logged"));
    caches += fmt::format("{}{} {}: {}", g ? "; " : "", ranks_text(ranks, groups[g]), ran[g],
                          compile && !compile->cache.empty() ? compile->cache : "unknown");
  }
  std::string cause =
      distinct_schedules.size() > 1
          ? ". Their collective schedules differ (" + schedules +
                "): the ranks issue different collectives at the same point (a hang, or "
                "mismatched data)"
          : ". The graphs run there have the same collective schedule";
  if (distinct_caches.size() > 1) cause += "; their cache outcomes differ (" + caches + ")";
  return cause;
}

}  // namespace

void execution_order_divergence(const std::vector<RankFacts>& ranks,
                                std::vector<RankDivergence>& out) {
  std::vector<size_t> members;
  for (size_t i = 0; i < ranks.size(); ++i)
    if (ranks[i].execution_order) members.push_back(i);
  if (members.size() < 2) return;
  const RankGroupList groups =
      group_ranks(members, [&](size_t i) { return joined(*ranks[i].execution_order); });
  if (groups.size() < 2) return;
  std::vector<const Items*> orders;
  for (const auto& group : groups) orders.push_back(&*ranks[group.front()].execution_order);
  const size_t at = first_difference(orders);
  std::vector<std::string> ran;
  std::string detail = fmt::format("graph run {}:", at);
  for (size_t g = 0; g < groups.size(); ++g) {
    ran.push_back(at < orders[g]->size() ? (*orders[g])[at] : "nothing");
    detail += fmt::format("{} {} ran {}", g ? ";" : "", ranks_text(ranks, groups[g]), ran[g]);
  }
  detail += order_cause(ranks, groups, ran);
  out.push_back({"execution_order", groups_text(ranks, groups), int64_t(at), std::move(detail)});
}

}  // namespace rcf::analysis
