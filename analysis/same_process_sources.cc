#include "analysis/same_process_sources.h"

#include <fmt/format.h>

#include <map>
#include <set>
#include <tuple>

#include "store/source_pair_reader.h"

namespace rcf::analysis {
namespace {

// A compile as both logs name it.
struct NamedCompile {
  int64_t pid;
  int32_t epoch, ca_id, frame_id, frame_compile_id;
  auto operator<=>(const NamedCompile&) const = default;
};

struct TraceCompile {
  int32_t rank;
  std::string co_name;
};

struct SourceCompiles {
  std::string format;
  std::map<NamedCompile, TraceCompile> compiles;  // by id; co_name may be empty
};

// The named compiles of every source of the run that logged pids. A compile is named by its id
// without the attempt: TORCH_TRACE records a compile under the attempt that finished it (a graph
// break restarts the analysis: `0/0_1`), while the text log names it at its start (`[0/1]`).
std::map<int32_t, SourceCompiles> named_compiles(store::Database& db, int64_t run_id) {
  std::map<int32_t, SourceCompiles> out;
  store::for_each_named_compile(db, run_id, [&](const store::NamedCompileRow& c) {
    SourceCompiles& source = out[static_cast<int32_t>(c.source_id)];
    source.format = c.format;
    NamedCompile id{c.pid, static_cast<int32_t>(c.epoch), static_cast<int32_t>(c.ca_id),
                    static_cast<int32_t>(c.frame_id), static_cast<int32_t>(c.frame_compile_id)};
    source.compiles.emplace(id, TraceCompile{static_cast<int32_t>(c.rank), std::string(c.co_name)});
  });
  return out;
}

// Whether every compile of `text` is in `trace` with the same function, all of one rank there;
// sets that rank and the number matched.
bool same_process(const SourceCompiles& text, const SourceCompiles& trace, int32_t* rank,
                  size_t* matched) {
  std::set<int32_t> ranks;
  for (const auto& [id, named] : text.compiles) {
    auto it = trace.compiles.find(id);
    if (it == trace.compiles.end()) return false;
    if (!named.co_name.empty() && !it->second.co_name.empty() &&
        named.co_name != it->second.co_name)
      return false;
    ranks.insert(it->second.rank);
  }
  if (ranks.size() != 1) return false;
  *rank = *ranks.begin();
  *matched = text.compiles.size();
  return true;
}

}  // namespace

SameProcessSources SameProcessSources::find(store::Database& db, int64_t run_id) {
  SameProcessSources out;
  if (!store::has_dynamo_text_and_trace_sources(db, run_id)) return out;
  std::map<int32_t, SourceCompiles> sources = named_compiles(db, run_id);
  for (const auto& [text_id, text] : sources) {
    if (text.format != "dynamo_text" || text.compiles.empty()) continue;
    for (const auto& [trace_id, trace] : sources) {
      int32_t rank = -1;
      size_t matched = 0;
      if (trace.format != "torch_trace" || !same_process(text, trace, &rank, &matched)) continue;
      out.aliases_.push_back({text_id, trace_id, rank,
                              fmt::format("pid {}, {} compile(s) with the same id and function",
                                          text.compiles.begin()->first.pid, matched)});
      break;
    }
  }
  return out;
}

}  // namespace rcf::analysis
