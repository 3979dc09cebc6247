#include "ingest/reading/file_prefix_hashes.h"

#include <algorithm>
#include <map>
#include <memory>

#include "ingest/reading/byte_source.h"
#include "ingest/reading/content_hash.h"

namespace rcf::ingest {

std::optional<std::vector<std::string>> file_prefix_hashes(const std::string& path,
                                                           const std::vector<int64_t>& lengths) {
  if (path == "-" || lengths.empty()) return std::nullopt;
  std::string error;
  std::unique_ptr<ByteSource> source = open_byte_source(path, OpenOptions{}, &error);
  if (!source) return std::nullopt;
  std::map<int64_t, std::string> at;  // each length once, in order
  for (int64_t n : lengths) {
    if (n < 0) return std::nullopt;
    at[n];
  }
  ContentHash hash;
  int64_t done = 0;
  std::string buffer(size_t{1} << 20, '\0');
  for (auto& [length, digest] : at) {
    while (done < length) {
      const size_t want = static_cast<size_t>(
          std::min<int64_t>(length - done, static_cast<int64_t>(buffer.size())));
      const int64_t got = source->read(buffer.data(), want);
      if (got <= 0) return std::nullopt;
      hash.update(buffer.data(), static_cast<size_t>(got));
      done += got;
    }
    digest = hash.text();
  }
  std::vector<std::string> hashes;
  for (int64_t n : lengths) hashes.push_back(at[n]);
  return hashes;
}

}  // namespace rcf::ingest
