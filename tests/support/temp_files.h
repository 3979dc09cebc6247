// Test helpers for files: unique temporary directories, whole-file read/write, gzip encoding.
#pragma once

#include <string>

namespace rcf::testing {

// Gzip file format (RFC 1952, one member) of `data`, via zlib deflate with windowBits 15+16.
// `level` 0 gives stored blocks (predictable size).
std::string gzip_compress(const std::string& data, int level = 6);

// A fresh, empty directory under $TMPDIR (or /tmp), unique per call; removed by the destructor.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }
  std::string file(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

// Writes `bytes` to `path` (binary, truncating); aborts the test binary on failure.
void write_file(const std::string& path, const std::string& bytes);
// Whole file as bytes; aborts the test binary on failure.
std::string read_file(const std::string& path);

}  // namespace rcf::testing
