#include "analysis/graph_break_index.h"

#include <algorithm>

namespace rcf::analysis {

namespace {

constexpr int kLine = 8, kFunction = 4, kFile = 2, kProcess = 1;
constexpr int kLocationAttributes = kLine | kFunction | kFile;

// `compared` may decide a match only if it holds the line or the function: a file alone (or a
// process) says nothing about which frame of it was split.
bool can_decide(int compared) {
  return (compared & (kLine | kFunction)) != 0;
}

}  // namespace

GraphBreakIndex::Location::Location(int64_t at_line, std::string_view in_function,
                                    std::string_view in_file)
    : line(at_line),
      function(in_function),
      file(in_file),
      function_hash(std::hash<std::string_view>{}(in_function)),
      file_hash(std::hash<std::string_view>{}(in_file)) {}

int GraphBreakIndex::Location::known() const {
  return (line >= 0 ? kLine : 0) | (function.empty() ? 0 : kFunction) | (file.empty() ? 0 : kFile);
}

GraphBreakIndex::Key GraphBreakIndex::key(int compared, int unknown_to_probe, const Location& at,
                                          int64_t source_id) {
  Key k{compared,
        unknown_to_probe,
        compared & kLine ? at.line : 0,
        {},
        {},
        compared & kProcess ? source_id : 0};
  if (compared & kFunction) {
    k.function = at.function;
    k.function_hash = at.function_hash;
  }
  if (compared & kFile) {
    k.file = at.file;
    k.file_hash = at.file_hash;
  }
  return k;
}

size_t GraphBreakIndex::KeyHash::operator()(const Key& k) const {
  size_t h = k.function_hash;
  auto mix = [&h](size_t v) { h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2); };
  mix(k.file_hash);
  mix(static_cast<size_t>(k.line));
  mix(static_cast<size_t>(k.source_id));
  mix(static_cast<size_t>(k.compared * 16 + k.unknown_to_probe));
  return h;
}

void GraphBreakIndex::add(size_t break_index, const Location& at, int64_t source_id, bool sync) {
  const int known = at.known();
  // Every subset of what the location knows may be what a probe shares with it; the rest of
  // what it knows must then be unknown to the probe.
  for (int shared = known;; shared = (shared - 1) & known) {
    if (can_decide(shared)) {
      for (int process : {0, kProcess}) {
        auto [it, inserted] = by_key_.try_emplace(
            key(shared | process, known & ~shared, at, source_id), Firsts{break_index});
        if (sync && it->second.first_sync == static_cast<size_t>(-1))
          it->second.first_sync = break_index;
      }
    }
    if (shared == 0) break;
  }
}

GraphBreakIndex::GraphBreakIndex(std::span<const BreakRecord> breaks,
                                 std::span<const BreakFrame> frames)
    : breaks_(breaks) {
  for (size_t i = 0; i < breaks.size(); ++i) {
    const BreakRecord& b = breaks[i];
    add(i, Location(b.user_line, b.user_function, b.user_file), b.key.source_id, b.sync_signature);
    // The stack's innermost frame repeats the location above (a key keeps its first break, so
    // adding it twice changes nothing).
    for (uint32_t f = b.frames_begin; f < b.frames_end && f < frames.size(); ++f)
      add(i, Location(frames[f].line, frames[f].function, frames[f].file), b.key.source_id,
          b.sync_signature);
  }
}

const BreakRecord* GraphBreakIndex::find(int64_t line, std::string_view function,
                                         std::string_view file, int64_t source_id) const {
  const Location probe(line, function, file);
  const int known = probe.known();
  const int unknown = kLocationAttributes & ~known;
  // Scores in descending order: each score is one set of compared attributes (with or without
  // the process). The first score with a match holds exactly the best matches; among them the
  // first host-sync break, else the first break.
  for (int compared = kLocationAttributes | kProcess; compared > 0; --compared) {
    const int shared = compared & kLocationAttributes;
    if ((shared & ~known) != 0 || !can_decide(shared)) continue;
    size_t best = static_cast<size_t>(-1), best_sync = static_cast<size_t>(-1);
    for (int extra = unknown;; extra = (extra - 1) & unknown) {
      auto it = by_key_.find(key(compared, extra, probe, source_id));
      if (it != by_key_.end()) {
        best = std::min(best, it->second.first);
        best_sync = std::min(best_sync, it->second.first_sync);
      }
      if (extra == 0) break;
    }
    if (best_sync != static_cast<size_t>(-1)) return &breaks_[best_sync];
    if (best != static_cast<size_t>(-1)) return &breaks_[best];
  }
  return nullptr;
}

}  // namespace rcf::analysis
