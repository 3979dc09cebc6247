#include "pipeline/watched_files.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <utility>

#include "ingest/input_walker.h"
#include "pipeline/store_files.h"

namespace rcf::pipeline {
namespace {

// How long a gzip file's size must stay the same before it is read: a compressor writing it
// appends in bursts, and a gzip stream cannot be read up to a point as lines can.
constexpr auto kGzipQuiet = std::chrono::milliseconds(1000);

bool starts_with_gzip_magic(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  unsigned char magic[2] = {0, 0};
  bool gzip = ::pread(fd, magic, 2, 0) == 2 && magic[0] == 0x1f && magic[1] == 0x8b;
  ::close(fd);
  return gzip;
}

}  // namespace

int64_t complete_line_end(const std::string& path, int64_t from, int64_t size) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return from;
  char buf[65536];
  int64_t end = size;
  int64_t found = from;
  while (end > from && found == from) {
    int64_t start = std::max(from, end - static_cast<int64_t>(sizeof buf));
    ssize_t got = ::pread(fd, buf, static_cast<size_t>(end - start), start);
    if (got <= 0) break;
    for (ssize_t i = got; i > 0; --i)
      if (buf[i - 1] == '\n') {
        found = start + i;
        break;
      }
    end = start;
  }
  ::close(fd);
  return found;
}

WatchedFiles::WatchedFiles(std::vector<std::string> paths, std::string db_path)
    : roots_(std::move(paths)), db_path_(std::move(db_path)) {}

void WatchedFiles::walk() {
  std::vector<ingest::WalkProblem> problems;
  std::vector<ingest::InputFile> inputs = ingest::expand_inputs(roots_, &problems);
  drop_sqlite_files(inputs, db_path_);
  for (const auto& input : inputs)
    if (input.path != "-") files_.try_emplace(input.path);
  for (const auto& p : problems) {
    if (warned_[p.path]) continue;
    warned_[p.path] = true;
    warnings_.push_back(p.path + ": " + p.message + " (looked for again until the watch ends)");
  }
}

// Whether `f` (at `path`) has something new to read; fills `out` when it has.
bool WatchedFiles::look(const std::string& path, Followed& f, bool final, FileToRead* out) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return false;
  const auto now = std::chrono::steady_clock::now();
  const int64_t size = st.st_size;
  out->path = path;
  if (f.read_bytes >= 0 && (st.st_dev != f.dev || st.st_ino != f.ino || size < f.read_bytes)) {
    out->anew = true;  // rotated, replaced or truncated: what is there now is another log
    f.read_bytes = -1;
    f.read_whole = false;
    f.scanned_to = f.complete_to = 0;
  }
  if (f.read_bytes < 0 && size >= 2) f.gzip = starts_with_gzip_magic(path);
  f.dev = st.st_dev;
  f.ino = st.st_ino;
  if (size != f.size) f.size = size, f.size_since = now;
  if (size == 0) return false;
  if (final) {
    out->bytes = -1;
    return !(f.read_whole && f.read_bytes == size);
  }
  if (f.gzip) {
    out->bytes = -1;
    return size != f.read_bytes && now - f.size_since >= kGzipQuiet;
  }
  // Only the bytes not scanned at an earlier look are scanned for the last newline.
  const int64_t read = std::max<int64_t>(f.read_bytes, 0);
  const int64_t from = std::max(f.scanned_to, read);
  const int64_t end = complete_line_end(path, from, size);
  if (end > from) f.complete_to = end;
  f.scanned_to = size;
  out->bytes = f.complete_to;
  return f.complete_to > read;
}

std::vector<FileToRead> WatchedFiles::changed(bool final, bool walk_now) {
  if (walk_now || files_.empty()) walk();
  std::vector<FileToRead> out;
  for (auto& [path, f] : files_) {
    FileToRead file;
    if (look(path, f, final, &file)) out.push_back(std::move(file));
  }
  return out;
}

void WatchedFiles::mark_read(const FileToRead& file) {
  auto it = files_.find(file.path);
  if (it == files_.end()) return;
  Followed& f = it->second;
  f.read_bytes = file.bytes >= 0 ? file.bytes : f.size;
  f.read_whole = file.bytes < 0 || file.bytes == f.size;
}

std::vector<std::string> WatchedFiles::paths() const {
  std::vector<std::string> out;
  for (const auto& [path, f] : files_) out.push_back(path);
  return out;
}

std::vector<std::string> WatchedFiles::take_warnings() {
  return std::exchange(warnings_, {});
}

}  // namespace rcf::pipeline
