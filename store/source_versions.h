// Whether two sources with one path in one run are two versions of one growing log, from what a
// store keeps of each (its length, content hash, prefix checkpoints and host); `rcf merge` keeps
// the longer of two such versions (docs/merge.md).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "store/database.h"

namespace rcf::store {

struct SourceVersion {
  int64_t source_id = 0;
  int64_t bytes = 0;
  std::string content_hash;
  std::string prefix_checkpoints;
  std::optional<std::string> host;
};

// The sources of run ?1 with path ?2, oldest first (through the index source_run).
inline constexpr const char* kSourcesAtPathSql =
    "SELECT source_id, bytes, content_hash, prefix_checkpoints, host FROM source "
    "WHERE run_id=? AND path=? ORDER BY source_id";

// The sources of run `run_id` with path `path`, oldest first.
std::vector<SourceVersion> sources_at_path(Database& db, int64_t run_id, const std::string& path);

struct GrowthVerdict {
  enum Kind {
    kUnrelated,   // two logs (their bytes differ where both have them), or the same content
    kFirstGrew,   // the second is an earlier version of the first
    kSecondGrew,  // the first is an earlier version of the second
    kUndecided,   // the store cannot tell: `why` says why and what would decide it
  };
  Kind kind = kUnrelated;
  int64_t compared_bytes = 0;  // of the shorter's first bytes, when one grew into the other
  bool by_file = false;        // compared with the file itself, every byte of the shorter
  std::string why;
};

// The content hashes (source.content_hash's form) of the first `lengths` bytes of the file at a
// path, read now; nullopt when it cannot be read that far (ingest/reading/file_prefix_hashes.h).
using FilePrefixHashes = std::function<std::optional<std::vector<std::string>>(
    const std::string& path, const std::vector<int64_t>& lengths)>;

// Judges two sources with one path in one run: by their prefix checkpoints, and where those
// leave the shorter one's last bytes (or all of a shorter one under 4 KiB) uncompared, by the file
// at `path` when `file` can read it and it still starts with the longer version.
GrowthVerdict judge_growth(const SourceVersion& first, const SourceVersion& second,
                           const std::string& path = "", const FilePrefixHashes& file = {});

}  // namespace rcf::store
