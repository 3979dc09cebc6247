#include "analysis/graph_break_index.h"

namespace rcf::analysis {

constexpr int kLine = 8, kFunction = 4, kFile = 2, kProcess = 1;

GraphBreakIndex::Texts::Texts(std::string_view function, std::string_view file)
    : function(function),
      file(file),
      function_hash(std::hash<std::string_view>{}(function)),
      file_hash(std::hash<std::string_view>{}(file)) {}

GraphBreakIndex::Key GraphBreakIndex::key(int mask, int64_t line, const Texts& t,
                                          int64_t source_id) {
  Key k{mask, mask & kLine ? line : 0, {}, {}, mask & kProcess ? source_id : 0};
  if (mask & kFunction) {
    k.function = t.function;
    k.function_hash = t.function_hash;
  }
  if (mask & kFile) {
    k.file = t.file;
    k.file_hash = t.file_hash;
  }
  return k;
}

size_t GraphBreakIndex::KeyHash::operator()(const Key& k) const {
  size_t h = k.function_hash;
  auto mix = [&h](size_t v) { h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2); };
  mix(k.file_hash);
  mix(static_cast<size_t>(k.line));
  mix(static_cast<size_t>(k.source_id));
  mix(static_cast<size_t>(k.mask));
  return h;
}

GraphBreakIndex::GraphBreakIndex(std::span<const BreakRecord> breaks) : breaks_(breaks) {
  for (size_t i = 0; i < breaks.size(); ++i) {
    const BreakRecord& b = breaks[i];
    const Texts texts(b.user_function, b.user_file);
    // A break counts for a mask only if it has every attribute the mask compares: an unknown
    // line or function, or an empty file, never matches.
    for (int mask = kFunction; mask <= (kLine | kFunction | kFile | kProcess); ++mask) {
      if ((mask & kLine) && b.user_line < 0) continue;
      if ((mask & kFunction) && b.user_function.empty()) continue;
      if ((mask & kFile) && b.user_file.empty()) continue;
      auto [it, inserted] =
          by_key_.try_emplace(key(mask, b.user_line, texts, b.key.source_id), Firsts{i});
      if (b.sync_signature && it->second.first_sync == static_cast<size_t>(-1))
        it->second.first_sync = i;
    }
  }
}

const BreakRecord* GraphBreakIndex::find(int64_t line, std::string_view function,
                                         std::string_view file, int64_t source_id) const {
  // Masks in descending score; the first mask with breaks holds exactly the best-scoring ones
  // (a break scoring higher would have been found under a higher mask).
  const Texts texts(function, file);
  for (int mask = kLine | kFunction | kFile | kProcess; mask >= kFunction; --mask) {
    if ((mask & kLine) && line < 0) continue;
    if ((mask & kFunction) && function.empty()) continue;
    if ((mask & kFile) && file.empty()) continue;
    auto it = by_key_.find(key(mask, line, texts, source_id));
    if (it == by_key_.end()) continue;
    const Firsts& f = it->second;
    return &breaks_[f.first_sync != static_cast<size_t>(-1) ? f.first_sync : f.first];
  }
  return nullptr;
}

}  // namespace rcf::analysis
