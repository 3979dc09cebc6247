// Groups of ranks that agree, and how divergence rows name them (analysis/rank_divergence.h).
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/rank_divergence.h"
#include "analysis/rank_facts.h"

namespace rcf::analysis {

using RankGroupList = std::vector<std::vector<size_t>>;  // indices into the ranks

// `members` grouped by equal signature, groups in the order of their first member.
template <class Signature>
RankGroupList group_ranks(const std::vector<size_t>& members, Signature signature_of) {
  RankGroupList groups;
  std::map<std::string, size_t> group_of;
  for (size_t i : members) {
    auto [it, added] = group_of.emplace(signature_of(i), groups.size());
    if (added) groups.emplace_back();
    groups[it->second].push_back(i);
  }
  return groups;
}

// "0,2 | 1"
std::string groups_text(const std::vector<RankFacts>& ranks, const RankGroupList& groups);
// "rank 1", "ranks 0,2"
std::string ranks_text(const std::vector<RankFacts>& ranks, const std::vector<size_t>& group);
// Items joined by '\x1f', for signatures.
std::string joined(const std::vector<std::string>& items);
// The first position where the sequences are not all equal (a shorter one ends there).
size_t first_difference(const std::vector<const std::vector<std::string>*>& sequences);
// "a, b, c" or "a, b, ..., z (N)" for long lists.
std::string list_text(const std::vector<std::string>& items);
// A collective op without its namespace: "all_reduce_.default".
std::string_view short_op(std::string_view op);
// "first compile", or "<cause>: <detail>".
std::string cause_text(const RankCompile& compile);

// The checks over compiled graphs (rank_graph_divergence.cc).
void collective_divergence(const std::vector<RankFacts>& ranks, std::vector<RankDivergence>& out);
void collective_parity(const std::vector<RankFacts>& ranks, std::vector<RankDivergence>& out);
void tensor_meta_divergence(const std::vector<RankFacts>& ranks, std::vector<RankDivergence>& out);
void execution_order_divergence(const std::vector<RankFacts>& ranks,
                                std::vector<RankDivergence>& out);

}  // namespace rcf::analysis
