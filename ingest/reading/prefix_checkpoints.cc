#include "ingest/reading/prefix_checkpoints.h"

#include <fmt/format.h>

#include <algorithm>

namespace rcf::ingest {
namespace {

constexpr int64_t kFine = 4096;      // the step up to kCoarse
constexpr int64_t kCoarse = 65536;   // the step after it
constexpr size_t kFineCount = 16;    // kCoarse / kFine
constexpr size_t kDigestChars = 16;  // one checkpoint's text

bool is_hex_text(std::string_view text) {
  return text.size() % kDigestChars == 0 && std::all_of(text.begin(), text.end(), [](char c) {
           return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
         });
}

// How many checkpoints a stream of `bytes` bytes has: computed, not counted, since a store's byte
// count may be anything (a rigged one's 2^62 would be 2^46 steps).
size_t checkpoints_within(int64_t bytes) {
  if (bytes < kFine) return 0;
  if (bytes < kCoarse) return static_cast<size_t>(bytes / kFine);
  return kFineCount + static_cast<size_t>(bytes / kCoarse - 1);
}

}  // namespace

int64_t checkpoint_offset(size_t index) {
  if (index < kFineCount) return kFine * static_cast<int64_t>(index + 1);
  return kCoarse * static_cast<int64_t>(index - kFineCount + 2);
}

void PrefixCheckpoints::add(uint64_t digest) {
  fmt::format_to(std::back_inserter(text_), "{:016x}", digest);
  ++count_;
}

VersionComparison compare_versions(int64_t shorter_bytes, std::string_view shorter,
                                   std::string_view longer) {
  VersionComparison result;
  if (!is_hex_text(shorter) || !is_hex_text(longer)) return result;
  const size_t reached = checkpoints_within(shorter_bytes);
  // A store's texts are its own: one that does not hold them all is damaged, not evidence.
  if (reached == 0 || shorter.size() != reached * kDigestChars ||
      longer.size() < reached * kDigestChars)
    return result;
  result.compared_bytes = checkpoint_offset(reached - 1);
  result.kind = longer.substr(0, shorter.size()) == shorter ? VersionComparison::kEarlierVersion
                                                            : VersionComparison::kDifferent;
  if (result.kind == VersionComparison::kDifferent) result.compared_bytes = 0;
  return result;
}

}  // namespace rcf::ingest
