#include "util/gzip_file.h"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "util/error.h"

namespace rcf::util {

GzipFile::GzipFile(const std::string& path) : path_(path) {
  file_ = gzopen(path.c_str(), "wb6");
  if (file_ == nullptr)
    throw Error(fmt::format("cannot create {}: {}", path, std::strerror(errno)));
}

GzipFile::~GzipFile() {
  if (file_ != nullptr) gzclose(file_);
}

void GzipFile::write(std::string_view bytes) {
  while (!bytes.empty()) {
    // gzwrite takes an unsigned count: write in chunks that fit.
    unsigned chunk = static_cast<unsigned>(std::min<size_t>(bytes.size(), 1u << 30));
    if (gzwrite(file_, bytes.data(), chunk) != static_cast<int>(chunk)) {
      int code = 0;
      throw Error(fmt::format("cannot write {}: {}", path_, gzerror(file_, &code)));
    }
    bytes.remove_prefix(chunk);
  }
}

void GzipFile::close() {
  gzFile file = file_;
  file_ = nullptr;
  if (file != nullptr && gzclose(file) != Z_OK)
    throw Error(fmt::format("cannot write {}: closing the gzip stream failed", path_));
}

}  // namespace rcf::util
