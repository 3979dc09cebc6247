#include "analysis/same_process_sources.h"

#include <fmt/format.h>

#include <map>
#include <set>
#include <tuple>

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
  auto st = db.prepare(
      "SELECT c.source_id, s.format, c.pid, c.epoch, c.ca_id, c.frame_id, c.frame_compile_id, "
      "c.rank, n.text FROM dynamo_compile_raw c JOIN source s ON s.source_id = c.source_id "
      "LEFT JOIN strings n ON n.string_id = c.co_name_sid "
      "WHERE c.run_id = ? AND c.pid IS NOT NULL AND c.frame_id >= 0 "
      "AND c.kind IN ('forward', 'recompile_block') "
      // A text log of a run without recompiles may show only graph breaks: each names the
      // compile it was traced in (no function: the break's frame may be an inlined one).
      "UNION ALL SELECT b.source_id, s.format, b.pid, b.epoch, b.ca_id, b.frame_id, "
      "b.frame_compile_id, b.rank, '' FROM graph_break b JOIN source s ON s.source_id = "
      "b.source_id WHERE b.run_id = ? AND b.pid IS NOT NULL AND b.frame_id >= 0 AND s.format = "
      "'dynamo_text'");
  st.bind(1, run_id).bind(2, run_id);
  std::map<int32_t, SourceCompiles> out;
  while (st.step()) {
    SourceCompiles& source = out[static_cast<int32_t>(st.int64(0))];
    source.format = st.str(1);
    NamedCompile id{st.int64(2), static_cast<int32_t>(st.int64(3)),
                    static_cast<int32_t>(st.int64(4)), static_cast<int32_t>(st.int64(5)),
                    static_cast<int32_t>(st.int64(6))};
    source.compiles.emplace(id, TraceCompile{static_cast<int32_t>(st.int64(7)), st.str(8)});
  }
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

// Whether the run has a text log and a TORCH_TRACE log at all: only then is there anything to
// compare (a million-compile trace alone is not scanned).
bool has_both_formats(store::Database& db, int64_t run_id) {
  auto st = db.prepare(
      "SELECT count(DISTINCT format) FROM source WHERE run_id = ? AND format IN ('dynamo_text', "
      "'torch_trace')");
  st.bind(1, run_id);
  return st.step() && st.int64(0) == 2;
}

}  // namespace

SameProcessSources SameProcessSources::find(store::Database& db, int64_t run_id) {
  SameProcessSources out;
  if (!has_both_formats(db, run_id)) return out;
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
