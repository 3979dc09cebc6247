// A gzip file written in one pass (zlib's gz* interface): the export's part files. The header
// carries no name and a zero time, so the same bytes give the same file.
#pragma once

#include <zlib.h>

#include <string>
#include <string_view>

namespace rcf::util {

class GzipFile {
 public:
  // Creates (truncating) `path`; throws rcf::Error naming the path when it cannot.
  explicit GzipFile(const std::string& path);
  ~GzipFile();  // closes without checking: call close() to learn whether the write succeeded
  GzipFile(const GzipFile&) = delete;
  GzipFile& operator=(const GzipFile&) = delete;

  void write(std::string_view bytes);
  // Flushes and closes; throws rcf::Error when any write failed (disk full, I/O error).
  void close();

 private:
  std::string path_;
  gzFile file_ = nullptr;
};

}  // namespace rcf::util
