// The files `rcf watch` follows (docs/watch.md): the files named and those under the directories
// named, including files that appear later, and how much of each is ready to be read. A plain
// file is read up to its last complete line (a partial last line waits for its newline); a gzip
// file when its size has stopped changing; a file that shrank or was replaced (another inode) is
// read anew. Not thread-safe; one per watch.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace rcf::pipeline {

// A file with more to read: `bytes` is how much of it to read (-1: all, a gzip file or the final
// read), `anew` says it shrank or was replaced since it was last read.
struct FileToRead {
  std::string path;
  int64_t bytes = -1;
  bool anew = false;
};

class WatchedFiles {
 public:
  // `paths` as given to `rcf watch`; `db_path`: the store, never read as a log.
  WatchedFiles(std::vector<std::string> paths, std::string db_path);

  // The files with something new to read now. `final`: the watch is ending, so every file is
  // read whole (a partial last line included, a gzip file still growing included). Walks the
  // directories only when `walk` (a change was signalled, or the periodic walk is due).
  std::vector<FileToRead> changed(bool final, bool walk);
  // Records that `file` was read up to what changed() said.
  void mark_read(const FileToRead& file);
  // Every path followed so far, sorted.
  std::vector<std::string> paths() const;
  // Warnings from the walks (an unreadable entry), each said once; cleared by the call.
  std::vector<std::string> take_warnings();

 private:
  struct Followed {
    dev_t dev = 0;
    ino_t ino = 0;
    int64_t size = 0;         // at the last look
    int64_t read_bytes = -1;  // read up to here; -1: never read
    bool read_whole = false;  // the last read took the whole file
    bool gzip = false;
    // Bytes up to here were scanned for newlines, and the last complete line found ends at
    // complete_to: a line still being written is scanned once, not again at every look.
    int64_t scanned_to = 0;
    int64_t complete_to = 0;
    std::chrono::steady_clock::time_point size_since;  // when `size` was first seen
  };
  void walk();
  bool look(const std::string& path, Followed& f, bool final, FileToRead* out);

  std::vector<std::string> roots_;
  std::string db_path_;
  std::map<std::string, Followed> files_;
  std::vector<std::string> warnings_;
  std::map<std::string, bool> warned_;
};

// The end of the last complete line of `path` within bytes [from, size): the offset after its
// last newline there, or `from` when there is none (only the new bytes are scanned).
int64_t complete_line_end(const std::string& path, int64_t from, int64_t size);

}  // namespace rcf::pipeline
