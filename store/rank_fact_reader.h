// What each rank of a run did, read back for comparing ranks (docs/rank_divergence.md,
// analysis/rank_divergence.h): its compiles (compile_event + attribution, written by the analysis
// before it) and what Inductor logged about its graphs (graph_fact). It reads compile_event: the
// compiles view holds neither the parts of a compile id nor the rank that logged it.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "store/database.h"

namespace rcf::store {

// Orders compile ids: (epoch, compiled-autograd id, frame, compile, attempt).
using GraphKey = std::tuple<int64_t, int64_t, int64_t, int64_t, int64_t>;

// "F/C", "F/C_A", "!CA/F/C", with " (reset N)" after the Nth torch._dynamo.reset().
std::string graph_key_text(const GraphKey& key);

struct RankCompile {
  GraphKey key;
  std::string id;  // graph_key_text(key)
  std::string site;
  std::string cache;           // hit, miss, bypass; "" when none was logged
  bool failed = false;         // the compile raised
  std::string cause_reported;  // what the runtime said (the fail type of a failed compile)
  std::string cause;           // attribution cause (first_compile, shape, ...)
  std::string cause_detail;    // attribution detail
  std::optional<int64_t> step;
};

using GraphItems = std::map<GraphKey, std::vector<std::string>>;

struct RankFacts {
  std::string label;                  // the file name's rank, else the logged rank
  std::vector<RankCompile> compiles;  // in compile-id order
  GraphItems schedule;                // collective_schedule facts by graph
  GraphItems code_calls;              // code_collectives facts by graph
  GraphItems tensor_meta;             // tensor_meta facts by graph
  std::optional<std::vector<std::string>> execution_order;
  std::map<GraphKey, size_t> compile_at;  // index into compiles

  const RankCompile* compile(const GraphKey& key) const {
    auto it = compile_at.find(key);
    return it == compile_at.end() ? nullptr : &compiles[it->second];
  }
};

// The ranks of `run_id`'s TORCH_TRACE logs, ordered by rank; a log without a rank in its name or
// envelopes is no rank. A single rank is returned without its compiles: it compares with no other
// rank, only its generated code with its own collective schedule.
std::vector<RankFacts> rank_facts_of_run(Database& db, int64_t run_id);

}  // namespace rcf::store
