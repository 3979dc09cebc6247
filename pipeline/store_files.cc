#include "pipeline/store_files.h"

#include <sys/stat.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <fstream>

#include "store/new_store.h"

namespace rcf::pipeline {
namespace {

// The first `n` bytes of a regular file ("" when it is not one or cannot be read): a FIFO or a
// device named as input is never opened here.
std::string head_bytes(const std::string& path, size_t n) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return "";
  std::ifstream in(path, std::ios::binary);
  std::string bytes(n, '\0');
  in.read(bytes.data(), static_cast<std::streamsize>(n));
  bytes.resize(static_cast<size_t>(std::max<std::streamsize>(in.gcount(), 0)));
  return bytes;
}

// https://www.sqlite.org/fileformat.html: a database starts with this 16-byte string, a WAL file
// with the big-endian magic 0x377f0682 or 0x377f0683.
bool is_sqlite_database(const std::string& path) {
  return head_bytes(path, 16) == std::string("SQLite format 3\0", 16);
}

bool is_sqlite_wal(const std::string& path) {
  const std::string head = head_bytes(path, 4);
  return head.size() == 4 && std::memcmp(head.data(), "\x37\x7f\x06", 3) == 0 &&
         (head[3] == '\x82' || head[3] == '\x83');
}

bool is_same_file(const std::string& a, const std::string& b) {
  struct stat sa, sb;
  return ::stat(a.c_str(), &sa) == 0 && ::stat(b.c_str(), &sb) == 0 && sa.st_dev == sb.st_dev &&
         sa.st_ino == sb.st_ino;
}

// The -shm or -journal file of a database next to it.
bool is_side_file_of_database(const std::string& path) {
  for (std::string_view suffix : {"-shm", "-journal", "-wal"})
    if (path.size() > suffix.size() && path.ends_with(suffix) &&
        is_sqlite_database(path.substr(0, path.size() - suffix.size())))
      return true;
  return false;
}

}  // namespace

bool is_sqlite_file(const std::string& path, const std::string& db_path) {
  if (path == "-") return false;
  if (store::is_new_store_temp_file(path)) return true;
  for (const char* suffix : {"", "-wal", "-shm", "-journal"})
    if (is_same_file(path, db_path + suffix)) return true;
  return is_sqlite_database(path) || is_sqlite_wal(path) || is_side_file_of_database(path);
}

std::vector<std::string> drop_sqlite_files(std::vector<ingest::InputFile>& inputs,
                                           const std::string& db_path) {
  std::vector<std::string> dropped;
  std::erase_if(inputs, [&](const ingest::InputFile& input) {
    if (!is_sqlite_file(input.path, db_path)) return false;
    dropped.push_back(input.path);
    return true;
  });
  return dropped;
}

}  // namespace rcf::pipeline
