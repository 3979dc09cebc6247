#include "util/output_guard.h"

#include <fmt/format.h>
#include <sys/stat.h>

#include <fstream>

#include "util/error.h"

namespace rcf::util {
namespace {

bool same_file(const struct stat& a, const std::string& path) {
  struct stat b;
  return ::stat(path.c_str(), &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

// The store (or its -wal, -shm, -journal file) that `target` is, or empty.
std::string store_named(const struct stat& target, const std::vector<std::string>& stores) {
  for (const auto& store : stores)
    for (const char* suffix : {"", "-wal", "-shm", "-journal"})
      if (!store.empty() && same_file(target, store + suffix)) return store + suffix;
  return "";
}

}  // namespace

std::string sqlite_file_kind(const std::string& path) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return "";
  std::ifstream in(path, std::ios::binary);
  char head[16] = {};
  in.read(head, sizeof head);
  std::string_view h(head, static_cast<size_t>(in.gcount()));
  if (h == std::string_view("SQLite format 3\0", 16)) return "a SQLite database";
  if (h.starts_with("\x37\x7f\x06\x82") || h.starts_with("\x37\x7f\x06\x83"))
    return "a SQLite write-ahead log";
  if (h.starts_with("\xd9\xd5\x05\xf9\x20\xa1\x63\xd7")) return "a SQLite rollback journal";
  return "";
}

void refuse_output_over_store(std::string_view option, const std::string& path,
                              const std::vector<std::string>& stores) {
  struct stat target;
  if (::stat(path.c_str(), &target) != 0) return;  // a new file
  std::string store = store_named(target, stores);
  if (!store.empty())
    throw Error(
        fmt::format("{} {}: refusing to write over the store {} (rcf never writes over "
                    "or deletes a database); choose another output file",
                    option, path, store));
  std::string kind = sqlite_file_kind(path);
  if (!kind.empty())
    throw Error(
        fmt::format("{} {}: refusing to write over {} (rcf never writes over or deletes "
                    "a database); choose another output file",
                    option, path, kind));
}

}  // namespace rcf::util
