// The content hashes of a file's first bytes at given lengths, read now, for `rcf merge`: two
// versions of a grown log in two stores are compared with the file itself where it is still on
// this machine (docs/merge.md). Decompressed bytes, in LineReader::content_hash's form.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace rcf::ingest {

// The hash of the first `lengths[i]` bytes of `path`, for each i; nullopt when the file cannot
// be read to the largest length (gone, unreadable, shorter now).
std::optional<std::vector<std::string>> file_prefix_hashes(const std::string& path,
                                                           const std::vector<int64_t>& lengths);

}  // namespace rcf::ingest
