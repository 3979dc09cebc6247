#include "ingest/source_stats.h"

#include <fmt/format.h>

namespace rcf::ingest {

std::string safe_excerpt(std::string_view text, size_t max) {
  std::string out;
  out.reserve(std::min(text.size(), max));
  size_t i = 0;
  while (i < text.size()) {
    unsigned char c = static_cast<unsigned char>(text[i]);
    size_t len = c < 0x80           ? 1
                 : (c >> 5) == 0x6  ? 2
                 : (c >> 4) == 0xe  ? 3
                 : (c >> 3) == 0x1e ? 4
                                    : 0;
    bool valid = len > 0 && i + len <= text.size();
    uint32_t cp = len == 1 ? c : c & (0x7f >> len);
    for (size_t k = 1; valid && k < len; ++k) {
      unsigned char next = static_cast<unsigned char>(text[i + k]);
      valid = (next & 0xc0) == 0x80;
      cp = (cp << 6) | (next & 0x3f);
    }
    // Overlong forms, UTF-16 surrogates and code points past U+10FFFF are invalid too (strict
    // JSON parsers reject them).
    if (valid && len > 1) {
      static constexpr uint32_t kMin[] = {0, 0, 0x80, 0x800, 0x10000};
      valid = cp >= kMin[len] && cp <= 0x10ffff && (cp < 0xd800 || cp > 0xdfff);
    }
    if (!valid) len = 1;
    if (out.size() + len > max) break;
    if (valid && (len > 1 || c >= 0x20 || c == '\t'))
      out.append(text.data() + i, len);
    else
      out.push_back('?');
    i += len;
  }
  return out;
}

ReasonTally& SourceStats::tally_of(LineFate fate, std::string_view reason) {
  for (size_t i = 0; i < RecentTallies::kSize; ++i)
    if (recent_.entries[i] && recent_.fates[i] == fate &&
        recent_.entries[i]->first.second == reason)
      return recent_.entries[i]->second;
  std::string_view fate_text = fate_name(fate);
  auto it = reasons.find(std::pair<std::string_view, std::string_view>(fate_text, reason));
  if (it == reasons.end())
    it = reasons.emplace(std::pair<std::string, std::string>(fate_text, reason), ReasonTally())
             .first;
  recent_.fates[recent_.next] = fate;
  recent_.entries[recent_.next] = &*it;
  recent_.next = (recent_.next + 1) % RecentTallies::kSize;
  return it->second;
}

void SourceStats::add_note(int64_t line, LineFate fate, std::string_view reason,
                           std::string_view excerpt) {
  ReasonTally& tally = tally_of(fate, reason);
  if (tally.count++ == 0) {
    tally.first_line = line;
    tally.first_excerpt = safe_excerpt(excerpt, kMaxExcerpt);
  }
  switch (fate) {
    case LineFate::kSkipped:
      ++skipped;
      break;
    case LineFate::kWarning:
      ++warnings;
      break;
    case LineFate::kFramed:
      break;
    case LineFate::kRejected:
      ++rejected;
      if (first_error.empty()) first_error = fmt::format("{}:{}: {}", path, line, reason);
      if (rejected_lines.size() < kMaxKeptRejects)
        rejected_lines.push_back({line, std::string(reason), safe_excerpt(excerpt, kMaxExcerpt)});
      break;
  }
}

}  // namespace rcf::ingest
