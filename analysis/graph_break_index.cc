#include "analysis/graph_break_index.h"

namespace rcf::analysis {

constexpr int kLine = 8, kFunction = 4, kFile = 2, kProcess = 1;

GraphBreakIndex::Key GraphBreakIndex::key(int mask, int64_t line, std::string_view function,
                                          std::string_view file, int64_t source_id) {
  return Key{mask, mask & kLine ? line : 0, mask & kFunction ? function : std::string_view(),
             mask & kFile ? file : std::string_view(), mask & kProcess ? source_id : 0};
}

size_t GraphBreakIndex::KeyHash::operator()(const Key& k) const {
  size_t h = std::hash<std::string_view>{}(k.function);
  auto mix = [&h](size_t v) { h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2); };
  mix(std::hash<std::string_view>{}(k.file));
  mix(static_cast<size_t>(k.line));
  mix(static_cast<size_t>(k.source_id));
  mix(static_cast<size_t>(k.mask));
  return h;
}

GraphBreakIndex::GraphBreakIndex(std::span<const BreakRecord> breaks) : breaks_(breaks) {
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
