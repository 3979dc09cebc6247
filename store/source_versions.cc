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

namespace {

// What the file at the log's path says of the two versions: that the shorter is the start of the
// longer (kFirstGrew or kSecondGrew), that it is not (kUnrelated), or nothing (kUndecided: not
// readable so far, or no longer the longer version's bytes: rotated, rewritten).
GrowthVerdict::Kind judge_by_file(const SourceVersion& shorter, const SourceVersion& longer,
                                  bool first_longer, const std::string& path,
                                  const FilePrefixHashes& file) {
  if (!file || path.empty()) return GrowthVerdict::kUndecided;
  const auto hashes = file(path, {shorter.bytes, longer.bytes});
  if (!hashes || hashes->size() != 2 || (*hashes)[1] != longer.content_hash)
    return GrowthVerdict::kUndecided;
  if ((*hashes)[0] != shorter.content_hash) return GrowthVerdict::kUnrelated;
  return first_longer ? GrowthVerdict::kFirstGrew : GrowthVerdict::kSecondGrew;
}

}  // namespace

GrowthVerdict judge_growth(const SourceVersion& first, const SourceVersion& second,
                           const std::string& path, const FilePrefixHashes& file) {
  GrowthVerdict verdict;
  if (first.bytes == second.bytes || first.content_hash == second.content_hash) return verdict;
  const bool first_longer = first.bytes > second.bytes;
  const SourceVersion& shorter = first_longer ? second : first;
  const SourceVersion& longer = first_longer ? first : second;
  const ingest::VersionComparison compared = ingest::compare_versions(
      shorter.bytes, shorter.prefix_checkpoints, longer.prefix_checkpoints);
  if (compared.kind == ingest::VersionComparison::kDifferent) return verdict;
  // One machine's log can have the same first bytes as another's (a deterministic log such as
  // PT_XLA_DEBUG's carries no time or pid): two hosts are two files unless a shared file system
  // made them one, which neither the store nor a file here can tell.
  if (shorter.host && longer.host && *shorter.host != *longer.host) {
    verdict.kind = GrowthVerdict::kUndecided;
    verdict.why = fmt::format(
        "{}they were ingested on two hosts ({}, {}): one log on a shared file system that grew, "
        "or two machines' logs with the same start; ingest the log into one store to decide",
        compared.kind == ingest::VersionComparison::kEarlierVersion
            ? fmt::format("the first {} bytes agree, but ", compared.compared_bytes)
            : "",
        util::field_text(*shorter.host), util::field_text(*longer.host));
    return verdict;
  }
  const bool bytes_left = compared.kind == ingest::VersionComparison::kUndecided ||
                          compared.compared_bytes < shorter.bytes;
  if (bytes_left) {
    const GrowthVerdict::Kind by_file = judge_by_file(shorter, longer, first_longer, path, file);
    if (by_file != GrowthVerdict::kUndecided) {
      verdict.kind = by_file;
      verdict.by_file = by_file != GrowthVerdict::kUnrelated;
      verdict.compared_bytes = verdict.by_file ? shorter.bytes : 0;
      return verdict;
    }
  }
  if (compared.kind == ingest::VersionComparison::kUndecided) {
    verdict.kind = GrowthVerdict::kUndecided;
    verdict.why =
        shorter.bytes < ingest::checkpoint_offset(0)
            ? fmt::format(
                  "the shorter ({} bytes) ends before the first checkpoint ({} bytes), so the "
                  "stores cannot compare their bytes, and the file at that path here does not "
                  "start with the longer; ingest the log into one store, or merge where the file "
                  "is",
                  shorter.bytes, ingest::checkpoint_offset(0))
            : "a store's prefix checkpoints are damaged, and the file at that path here does not "
              "start with the longer; ingest the log into one store, or merge where the file is";
    return verdict;
  }
  verdict.kind = first_longer ? GrowthVerdict::kFirstGrew : GrowthVerdict::kSecondGrew;
  verdict.compared_bytes = compared.compared_bytes;
  return verdict;
}

}  // namespace rcf::store
