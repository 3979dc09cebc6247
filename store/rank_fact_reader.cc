#include "store/rank_fact_reader.h"

#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <set>

#include "util/base_name.h"

namespace rcf::store {
namespace {

using Participant = std::pair<int64_t, int64_t>;  // (source_id, logged rank)

GraphKey key_at(const Statement& st, int first) {
  return {st.int64(first), st.int64(first + 1), st.int64(first + 2), st.int64(first + 3),
          st.int64(first + 4)};
}

// Every (source, logged rank) of the run's TORCH_TRACE logs that logged a compile or a graph
// fact, labelled and ordered by rank.
std::map<Participant, size_t> find_ranks(Database& db, int64_t run_id,
                                         std::vector<RankFacts>& ranks) {
  auto st = db.prepare(
      "SELECT s.source_id, f.rank, s.file_rank, s.path, "
      "  (SELECT count(DISTINCT rank) FROM compile_event c WHERE c.source_id = s.source_id) "
      "FROM source s JOIN (SELECT DISTINCT source_id, rank FROM compile_event WHERE run_id = ?1 "
      "  UNION SELECT DISTINCT source_id, rank FROM graph_fact WHERE run_id = ?1) f "
      "  ON f.source_id = s.source_id "
      "WHERE s.run_id = ?1 AND s.format = 'torch_trace' ORDER BY s.source_id, f.rank");
  st.bind(1, run_id);
  struct Found {
    Participant who;
    int64_t rank;
    std::string path;
  };
  std::vector<Found> found;
  while (st.step()) {
    std::optional<int64_t> file_rank = st.opt_int64(2);
    int64_t logged = st.int64(1);
    // The launcher's file name says which rank a log is (tlparse --all-ranks-html reads it too);
    // a log holding several ranks is told apart by the rank each record logged.
    int64_t rank = file_rank && st.int64(4) <= 1 ? *file_rank : logged;
    if (rank < 0) continue;
    found.push_back({{st.int64(0), logged}, rank, st.str(3)});
  }
  std::stable_sort(found.begin(), found.end(),
                   [](const Found& a, const Found& b) { return a.rank < b.rank; });
  std::map<int64_t, int> uses;
  for (const Found& f : found) ++uses[f.rank];
  std::map<Participant, size_t> index;
  for (const Found& f : found) {
    RankFacts facts;
    facts.label = std::to_string(f.rank);
    if (uses[f.rank] > 1) facts.label += " (" + base_name(f.path) + ")";
    index[f.who] = ranks.size();
    ranks.push_back(std::move(facts));
  }
  return index;
}

void read_rank_compiles(Database& db, int64_t run_id, const std::map<Participant, size_t>& index,
                        std::vector<RankFacts>& ranks) {
  auto st = db.prepare(
      "SELECT c.source_id, c.rank, c.epoch, c.ca_id, c.frame_id, c.frame_compile_id, c.attempt, "
      "site.text, c.cache, c.kind, c.cause_reported, a.cause, a.detail, c.step "
      "FROM compile_event c JOIN strings site ON site.string_id = c.site_sid "
      "LEFT JOIN attribution a ON a.compile_row = c.compile_row "
      "WHERE c.run_id = ? AND c.frame_id >= 0 ORDER BY c.ordinal");
  st.bind(1, run_id);
  while (st.step()) {
    auto it = index.find({st.int64(0), st.int64(1)});
    if (it == index.end()) continue;
    RankCompile c;
    c.key = key_at(st, 2);
    c.id = graph_key_text(c.key);
    c.site = st.str(7);
    c.cache = st.opt_str(8).value_or("");
    c.failed = st.text(9) == "dynamo_failed";
    c.cause_reported = st.opt_str(10).value_or("");
    c.cause = st.opt_str(11).value_or("");
    c.cause_detail = st.opt_str(12).value_or("");
    c.step = st.opt_int64(13);
    ranks[it->second].compiles.push_back(std::move(c));
  }
  for (RankFacts& r : ranks) {
    std::stable_sort(r.compiles.begin(), r.compiles.end(),
                     [](const RankCompile& a, const RankCompile& b) { return a.key < b.key; });
    for (size_t i = 0; i < r.compiles.size(); ++i) r.compile_at.emplace(r.compiles[i].key, i);
  }
}

std::vector<std::string> items_of(std::string_view text) {
  std::vector<std::string> items;
  nlohmann::json parsed = nlohmann::json::parse(text.begin(), text.end(), nullptr, false);
  if (!parsed.is_array()) return items;
  for (const auto& item : parsed)
    if (item.is_string()) items.push_back(item.get<std::string>());
  return items;
}

void read_graph_facts(Database& db, int64_t run_id, const std::map<Participant, size_t>& index,
                      std::vector<RankFacts>& ranks) {
  auto st = db.prepare(
      "SELECT source_id, rank, epoch, ca_id, frame_id, frame_compile_id, attempt, kind, items "
      "FROM graph_fact WHERE run_id = ? ORDER BY source_id, line");
  st.bind(1, run_id);
  while (st.step()) {
    auto it = index.find({st.int64(0), st.int64(1)});
    if (it == index.end()) continue;
    RankFacts& r = ranks[it->second];
    const std::string_view kind = st.text(7);
    std::vector<std::string> items = items_of(st.text(8));
    if (kind == "execution_order") {
      if (!r.execution_order) r.execution_order = std::move(items);
      continue;
    }
    if (st.int64(4) < 0) continue;  // a graph fact outside any compile compares with nothing
    GraphItems* facts = kind == "collective_schedule" ? &r.schedule
                        : kind == "code_collectives"  ? &r.code_calls
                        : kind == "tensor_meta"       ? &r.tensor_meta
                                                      : nullptr;
    if (facts) facts->emplace(key_at(st, 2), std::move(items));  // the first one logged counts
  }
}

// Whether the run may hold ranks: a TORCH_TRACE log named for its rank, or several TORCH_TRACE
// logs. A run of one unnamed log (the million-compile benchmarks) is not searched for ranks.
bool may_have_ranks(Database& db, int64_t run_id) {
  auto st = db.prepare(
      "SELECT count(*), count(file_rank) FROM source WHERE run_id = ? AND format = 'torch_trace'");
  st.bind(1, run_id);
  return st.step() && (st.int64(0) > 1 || st.int64(1) > 0);
}

}  // namespace

std::string graph_key_text(const GraphKey& key) {
  const auto& [epoch, ca, frame, compile, attempt] = key;
  std::string text = ca >= 0 ? fmt::format("!{}/", ca) : std::string();
  text += fmt::format("{}/{}", frame, compile);
  if (attempt > 0) text += fmt::format("_{}", attempt);
  if (epoch > 0) text += fmt::format(" (reset {})", epoch);
  return text;
}

std::vector<RankFacts> rank_facts_of_run(Database& db, int64_t run_id) {
  std::vector<RankFacts> ranks;
  if (!may_have_ranks(db, run_id)) return ranks;
  const std::map<Participant, size_t> index = find_ranks(db, run_id, ranks);
  if (ranks.empty()) return ranks;
  if (ranks.size() > 1) read_rank_compiles(db, run_id, index, ranks);
  read_graph_facts(db, run_id, index, ranks);
  return ranks;
}

}  // namespace rcf::store
