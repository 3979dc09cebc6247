#include "analysis/rank_divergence.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

#include "analysis/rank_groups.h"
#include "store/derived_results_writer.h"

namespace rcf::analysis {

std::string groups_text(const std::vector<RankFacts>& ranks, const RankGroupList& groups) {
  std::string text;
  for (const auto& group : groups) {
    if (!text.empty()) text += " | ";
    for (size_t k = 0; k < group.size(); ++k) text += (k ? "," : "") + ranks[group[k]].label;
  }
  return text;
}

std::string ranks_text(const std::vector<RankFacts>& ranks, const std::vector<size_t>& group) {
  std::string text = group.size() == 1 ? "rank " : "ranks ";
  for (size_t k = 0; k < group.size(); ++k) text += (k ? "," : "") + ranks[group[k]].label;
  return text;
}

std::string joined(const std::vector<std::string>& items) {
  std::string text;
  for (const std::string& item : items) (text += item) += '\x1f';
  return text;
}

size_t first_difference(const std::vector<const std::vector<std::string>*>& sequences) {
  for (size_t i = 0;; ++i) {
    for (const auto* s : sequences) {
      if (i >= s->size() || i >= sequences.front()->size() || (*s)[i] != (*sequences.front())[i])
        return i;
    }
  }
}

std::string list_text(const std::vector<std::string>& items) {
  if (items.size() <= 4) {
    std::string text;
    for (const std::string& item : items) text += (text.empty() ? "" : ", ") + item;
    return text;
  }
  return fmt::format("{}, {}, ..., {}", items[0], items[1], items.back());
}

std::string_view short_op(std::string_view op) {
  for (std::string_view prefix : {"torch.ops._c10d_functional.", "torch.ops.c10d_functional."})
    if (op.starts_with(prefix)) return op.substr(prefix.size());
  return op;
}

std::string cause_text(const RankCompile& c) {
  if (c.failed) return "the compile failed: " + (c.cause_reported.empty() ? "?" : c.cause_reported);
  if (c.cause.empty() || c.cause == "first_compile") return "first compile of " + c.site;
  return c.cause_detail.empty() ? c.cause : c.cause + ": " + c.cause_detail;
}

namespace {

std::vector<size_t> all_ranks(const std::vector<RankFacts>& ranks) {
  std::vector<size_t> all(ranks.size());
  for (size_t i = 0; i < all.size(); ++i) all[i] = i;
  return all;
}

// Every compile id of the run, in order, with the ranks that compiled it.
std::map<GraphKey, std::vector<size_t>> compilers_by_id(const std::vector<RankFacts>& ranks) {
  std::map<GraphKey, std::vector<size_t>> by_id;
  for (size_t i = 0; i < ranks.size(); ++i)
    for (const RankCompile& c : ranks[i].compiles) by_id[c.key].push_back(i);
  return by_id;
}

std::string compiles_text(const RankFacts& rank) {
  std::vector<std::string> ids;
  std::string failed;
  for (const RankCompile& c : rank.compiles) {
    ids.push_back(c.id);
    if (c.failed && failed.empty())
      failed = fmt::format(", {} failed ({})", c.id, c.cause_reported);
  }
  return fmt::format("{} compile{} ({}){}", ids.size(), ids.size() == 1 ? "" : "s", list_text(ids),
                     failed);
}

void compile_id_divergence(const std::vector<RankFacts>& ranks, std::vector<RankDivergence>& out) {
  const RankGroupList groups = group_ranks(all_ranks(ranks), [&](size_t i) {
    std::string ids;
    for (const RankCompile& c : ranks[i].compiles) (ids += c.id) += '\x1f';
    return ids;
  });
  if (groups.size() < 2) return;
  std::string detail;
  for (const auto& group : groups)
    detail += fmt::format("{}{}: {}", detail.empty() ? "" : "; ", ranks_text(ranks, group),
                          compiles_text(ranks[group.front()]));
  int64_t index = 0;
  for (const auto& [key, compilers] : compilers_by_id(ranks)) {
    if (compilers.size() < ranks.size()) {
      const RankCompile& first = *ranks[compilers.front()].compile(key);
      detail += fmt::format(". First difference: {}, compiled by {} only ({})", first.id,
                            ranks_text(ranks, compilers), cause_text(first));
      break;
    }
    ++index;
  }
  out.push_back({"compile_ids", groups_text(ranks, groups), index, std::move(detail)});
}

std::string cache_state(const RankCompile& c) {
  if (!c.cache.empty()) return c.cache;
  return c.failed ? "no cache outcome (" + cause_text(c) + ")" : "no cache outcome logged";
}

// Hit/miss on the compiles every rank made; compiles only some made are compile_ids divergence.
void cache_divergence(const std::vector<RankFacts>& ranks, std::vector<RankDivergence>& out) {
  std::vector<GraphKey> shared;
  for (const auto& [key, compilers] : compilers_by_id(ranks))
    if (compilers.size() == ranks.size()) shared.push_back(key);
  auto states_of = [&](size_t i) {
    std::vector<std::string> states;
    for (const GraphKey& key : shared) states.push_back(cache_state(*ranks[i].compile(key)));
    return states;
  };
  const RankGroupList groups =
      group_ranks(all_ranks(ranks), [&](size_t i) { return joined(states_of(i)); });
  if (groups.size() < 2) return;
  std::vector<std::vector<std::string>> states;
  for (const auto& group : groups) states.push_back(states_of(group.front()));
  std::vector<const std::vector<std::string>*> sequences;
  for (const auto& s : states) sequences.push_back(&s);
  const size_t at = first_difference(sequences);
  size_t differing = 0;
  for (size_t k = 0; k < shared.size(); ++k)
    differing += std::any_of(states.begin(), states.end(),
                             [&](const auto& s) { return s[k] != states.front()[k]; });
  std::string detail = fmt::format("at {}:", graph_key_text(shared[at]));
  for (size_t g = 0; g < groups.size(); ++g)
    detail += fmt::format("{} {} {}", g ? ";" : "", ranks_text(ranks, groups[g]), states[g][at]);
  detail += fmt::format(
      " ({} of the {} compiles all ranks made differ{}). A rank that misses where the others hit "
      "compiles longer and reaches the next collective late; a different cache key means its "
      "graph, inputs or configuration differed",
      differing, shared.size(), differing == 1 ? "s" : "");
  out.push_back({"cache", groups_text(ranks, groups), int64_t(at), std::move(detail)});
}

using SiteRecompiles = std::vector<const RankCompile*>;

// One row per site where the ranks that compiled it did not recompile alike.
void recompile_divergence(const std::vector<RankFacts>& ranks, std::vector<RankDivergence>& out) {
  std::map<std::string, std::map<size_t, SiteRecompiles>> by_site;  // site -> rank -> recompiles
  for (size_t i = 0; i < ranks.size(); ++i) {
    for (const RankCompile& c : ranks[i].compiles) {
      SiteRecompiles& list = by_site[c.site][i];
      if (!c.failed && !c.cause.empty() && c.cause != "first_compile") list.push_back(&c);
    }
  }
  for (const auto& site_entry : by_site) {
    const std::string& site = site_entry.first;
    // A named reference, not a structured binding: clang before 16 cannot capture those.
    const auto& per_rank = site_entry.second;
    std::vector<size_t> members;
    for (const auto& [i, list] : per_rank) members.push_back(i);
    auto signature = [&](size_t i) {
      std::vector<std::string> items;
      for (const RankCompile* c : per_rank.at(i)) items.push_back(c->id + " " + c->cause);
      return items;
    };
    const RankGroupList groups =
        group_ranks(members, [&](size_t i) { return joined(signature(i)); });
    if (groups.size() < 2) continue;
    std::vector<std::vector<std::string>> signatures;
    for (const auto& group : groups) signatures.push_back(signature(group.front()));
    std::vector<const std::vector<std::string>*> sequences;
    for (const auto& s : signatures) sequences.push_back(&s);
    const size_t at = first_difference(sequences);
    std::string detail = site + ":";
    for (size_t g = 0; g < groups.size(); ++g) {
      const SiteRecompiles& list = per_rank.at(groups[g].front());
      detail += fmt::format("{} {} recompiled {} time{}", g ? ";" : "",
                            ranks_text(ranks, groups[g]), list.size(), list.size() == 1 ? "" : "s");
      if (at >= list.size()) continue;
      const RankCompile& c = *list[at];
      detail +=
          fmt::format(", then {} at {}: {}", c.id,
                      c.step ? fmt::format("step {}", *c.step) : "an unknown step", cause_text(c));
    }
    out.push_back({"recompiles", groups_text(ranks, groups), int64_t(at), std::move(detail)});
  }
}

}  // namespace

std::vector<RankDivergence> find_rank_divergence(const std::vector<RankFacts>& ranks) {
  std::vector<RankDivergence> out;
  if (ranks.size() > 1) {
    compile_id_divergence(ranks, out);
    cache_divergence(ranks, out);
    collective_divergence(ranks, out);
  }
  collective_parity(ranks, out);
  if (ranks.size() > 1) {
    tensor_meta_divergence(ranks, out);
    execution_order_divergence(ranks, out);
    recompile_divergence(ranks, out);
  }
  return out;
}

void write_rank_divergence(store::Database& db, int64_t run_id) {
  store::write_rank_divergence_rows(db, run_id, find_rank_divergence(load_rank_facts(db, run_id)));
}

}  // namespace rcf::analysis
