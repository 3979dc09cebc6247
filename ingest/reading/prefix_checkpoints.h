// Hashes of a log's first bytes at fixed offsets, kept with its source (source.prefix_checkpoints)
// so that `rcf merge` can tell an earlier, shorter version of a growing log from another log
// without either file (docs/merge.md). The offsets are every 4 KiB up to 64 KiB, then every
// 64 KiB: two versions of one log agree on every offset the shorter one reached, and only the
// shorter one's last bytes after its last offset (under 4 KiB in a log under 64 KiB, under
// 64 KiB in a longer one) are not compared. A checkpoint is the XXH64 of the first `offset`
// decompressed bytes (ingest/reading/content_hash.h) as 16 hex digits; a source's checkpoints
// are their concatenation in offset order (16 bytes of text per 64 KiB of log).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace rcf::ingest {

// The offset of checkpoint `index` (0-based): 4096, 8192, ..., 65536, 131072, 196608, ...
int64_t checkpoint_offset(size_t index);

// The checkpoints of a byte stream, added in order as it is hashed (LineReader::hash_input).
class PrefixCheckpoints {
 public:
  int64_t next_offset() const { return checkpoint_offset(count_); }
  // The digest of the first next_offset() bytes.
  void add(uint64_t digest);
  const std::string& text() const { return text_; }

 private:
  size_t count_ = 0;
  std::string text_;
};

// What the checkpoints of two versions of a log at one path say about them.
struct VersionComparison {
  enum Kind {
    kEarlierVersion,  // every checkpoint the shorter reached agrees: it is the longer's start
    kDifferent,       // a checkpoint differs: two logs
    kUndecided,       // the shorter reached no checkpoint (under 4 KiB), or a text is damaged
  };
  Kind kind = kUndecided;
  int64_t compared_bytes = 0;  // the shorter's first bytes the checkpoints cover
};

// `shorter_bytes` and the two checkpoint texts (source.bytes, source.prefix_checkpoints).
VersionComparison compare_versions(int64_t shorter_bytes, std::string_view shorter,
                                   std::string_view longer);

}  // namespace rcf::ingest
