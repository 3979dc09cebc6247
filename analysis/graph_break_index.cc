#include "analysis/graph_break_index.h"

#include <fmt/format.h>

namespace rcf::analysis {

constexpr int kLine = 8, kFunction = 4, kFile = 2, kProcess = 1;

std::string GraphBreakIndex::key(int mask, int64_t line, std::string_view function,
                                 std::string_view file, int64_t source_id) {
  // '\x1f' (unit separator) cannot occur in a file or function name printed by a log line.
  return fmt::format("{}\x1f{}\x1f{}\x1f{}\x1f{}", mask, mask & kLine ? line : 0,
                     mask & kFunction ? function : std::string_view(),
                     mask & kFile ? file : std::string_view(), mask & kProcess ? source_id : 0);
}

GraphBreakIndex::GraphBreakIndex(const std::vector<BreakRecord>& breaks) : breaks_(breaks) {
  for (size_t i = 0; i < breaks.size(); ++i) {
    const BreakRecord& b = breaks[i];
    // A break counts for a mask only if it has every attribute the mask compares: an unknown
    // line or function, or an empty file, never matches.
    for (int mask = kFunction; mask <= (kLine | kFunction | kFile | kProcess); ++mask) {
      if ((mask & kLine) && b.user_line < 0) continue;
      if ((mask & kFunction) && b.user_function.empty()) continue;
      if ((mask & kFile) && b.user_file.empty()) continue;
      auto [it, inserted] = by_key_.try_emplace(
          key(mask, b.user_line, b.user_function, b.user_file, b.key.source_id), Firsts{i});
      if (b.sync_signature && it->second.first_sync == static_cast<size_t>(-1))
        it->second.first_sync = i;
    }
  }
}

const BreakRecord* GraphBreakIndex::find(int64_t line, std::string_view function,
                                         std::string_view file, int64_t source_id) const {
  // Masks in descending score; the first mask with breaks holds exactly the best-scoring ones
  // (a break scoring higher would have been found under a higher mask).
  for (int mask = kLine | kFunction | kFile | kProcess; mask >= kFunction; --mask) {
    if ((mask & kLine) && line < 0) continue;
    if ((mask & kFunction) && function.empty()) continue;
    if ((mask & kFile) && file.empty()) continue;
    auto it = by_key_.find(key(mask, line, function, file, source_id));
    if (it == by_key_.end()) continue;
    const Firsts& f = it->second;
    return &breaks_[f.first_sync != static_cast<size_t>(-1) ? f.first_sync : f.first];
  }
  return nullptr;
}

}  // namespace rcf::analysis
