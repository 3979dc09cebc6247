#include "store/source_versions.h"

#include <fmt/format.h>

#include "ingest/reading/prefix_checkpoints.h"
#include "util/safe_text.h"

namespace rcf::store {

std::vector<SourceVersion> sources_at_path(Database& db, int64_t run_id, const std::string& path) {
  auto list = db.prepare(kSourcesAtPathSql);
  list.bind(1, run_id).bind(2, path);
  std::vector<SourceVersion> found;
  while (list.step())
    found.push_back({list.int64(0), list.int64(1), list.str(2), list.str(3), list.opt_str(4)});
  return found;
}

GrowthVerdict judge_growth(const SourceVersion& first, const SourceVersion& second) {
  GrowthVerdict verdict;
  if (first.bytes == second.bytes || first.content_hash == second.content_hash) return verdict;
  const bool first_longer = first.bytes > second.bytes;
  const SourceVersion& shorter = first_longer ? second : first;
  const SourceVersion& longer = first_longer ? first : second;
  const ingest::VersionComparison compared = ingest::compare_versions(
      shorter.bytes, shorter.prefix_checkpoints, longer.prefix_checkpoints);
  if (compared.kind == ingest::VersionComparison::kDifferent) return verdict;
  if (compared.kind == ingest::VersionComparison::kUndecided) {
    verdict.kind = GrowthVerdict::kUndecided;
    verdict.why =
        shorter.bytes < ingest::checkpoint_offset(0)
            ? fmt::format(
                  "the shorter ({} bytes) ends before the first checkpoint ({} bytes), so the "
                  "stores cannot compare their bytes; ingest the log into one store, where the "
                  "file itself is compared",
                  shorter.bytes, ingest::checkpoint_offset(0))
            : "a store's prefix checkpoints are damaged; ingest the log into one store, where "
              "the file itself is compared";
    return verdict;
  }
  // One machine's log can have the same first bytes as another's (a deterministic log such as
  // PT_XLA_DEBUG's carries no time or pid): two hosts are two files unless a shared file system
  // made them one, which the store does not know.
  if (shorter.host && longer.host && *shorter.host != *longer.host) {
    verdict.kind = GrowthVerdict::kUndecided;
    verdict.why = fmt::format(
        "the first {} bytes agree, but they were ingested on two hosts ({}, {}): one log on a "
        "shared file system that grew, or two machines' logs with the same start; ingest the log "
        "into one store to decide",
        compared.compared_bytes, util::field_text(*shorter.host), util::field_text(*longer.host));
    return verdict;
  }
  verdict.kind = first_longer ? GrowthVerdict::kFirstGrew : GrowthVerdict::kSecondGrew;
  verdict.compared_bytes = compared.compared_bytes;
  return verdict;
}

}  // namespace rcf::store
