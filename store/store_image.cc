#include "store/store_image.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string_view>

#include "store/schema.h"
#include "store/store.h"
#include "util/error.h"

namespace rcf::store {
namespace {

// What SQLite creates a database with (SQLITE_DEFAULT_FILE_PERMISSIONS), less the umask.
constexpr mode_t kStoreFileMode = 0644;

// FNV-1a over 8-byte words (and the last bytes one by one): the schema is 50 KB, hashed at every
// new store.
void add_to_hash(uint64_t& hash, std::string_view text) {
  size_t at = 0;
  for (; at + 8 <= text.size(); at += 8) {
    uint64_t word;
    std::memcpy(&word, text.data() + at, 8);
    hash ^= word;
    hash *= 0x100000001b3ULL;
  }
  for (; at < text.size(); ++at) {
    hash ^= static_cast<unsigned char>(text[at]);
    hash *= 0x100000001b3ULL;
  }
}

}  // namespace

uint64_t schema_text_hash() {
  uint64_t hash = 0xcbf29ce484222325ULL;
  add_to_hash(hash, kSchemaSql);
  add_to_hash(hash, index_statements());
  return hash;
}

bool image_fits_this_schema(const StoreImage& image) {
  return image.run_count > 0 && image.file_size > 0 && image.schema_version == kSchemaVersion &&
         image.schema_text_hash == schema_text_hash();
}

void copy_store_image(const StoreImage& image, char* file) {
  const unsigned char* bytes = image.bytes;
  for (size_t i = 0; i < image.run_count; ++i) {
    const StoreImageRun& run = image.runs[i];
    if (run.offset + uint64_t{run.size} <= image.file_size)
      std::memcpy(file + run.offset, bytes, run.size);
    bytes += run.size;
  }
}

namespace {

// pwrite of all of `bytes` at `offset`; 0 or an errno.
int write_at(int fd, std::string_view bytes, uint64_t offset) {
  while (!bytes.empty()) {
    ssize_t n = ::pwrite(fd, bytes.data(), bytes.size(), static_cast<off_t>(offset));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return n < 0 ? errno : EIO;
    bytes.remove_prefix(static_cast<size_t>(n));
    offset += static_cast<uint64_t>(n);
  }
  return 0;
}

bool all_zero(std::string_view block) {
  return block.empty() ||
         (block.front() == 0 && std::memcmp(block.data(), block.data() + 1, block.size() - 1) == 0);
}

// `rest` (from `offset` on) without its 256 KiB blocks of zeros, each run of other blocks in one
// pwrite. Not smaller blocks: a store's pages each start with a header, and a hole of less than
// a page saves less than the pwrite it costs (the 30 KB log's store, about 90 pages).
int write_without_zero_blocks(int fd, std::string_view rest, uint64_t offset) {
  constexpr size_t kBlock = size_t{256} << 10;
  size_t run_begin = 0;  // the first block of the run of non-zero blocks being gathered
  bool in_run = false;
  for (size_t at = 0; at < rest.size(); at += kBlock) {
    const bool zero = all_zero(rest.substr(at, kBlock));
    if (zero && in_run)
      if (int err = write_at(fd, rest.substr(run_begin, at - run_begin), offset + run_begin))
        return err;
    if (!zero && !in_run) run_begin = at;
    in_run = !zero;
  }
  return in_run ? write_at(fd, rest.substr(run_begin), offset + run_begin) : 0;
}

}  // namespace

void write_synced_store_file(const std::string& path, std::string_view header,
                             std::string_view rest) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, kStoreFileMode);
  if (fd < 0) throw Error(fmt::format("cannot create database {}: {}", path, strerror(errno)));
  const uint64_t size = header.size() + rest.size();
  int err = write_at(fd, header, 0);
  if (err == 0) err = write_without_zero_blocks(fd, rest, header.size());
  if (err == 0 && ::ftruncate(fd, static_cast<off_t>(size)) != 0) err = errno;
  if (err == 0 && ::fdatasync(fd) != 0) err = errno;
  if (::close(fd) != 0 && err == 0) err = errno;
  if (err != 0) {
    ::unlink(path.c_str());
    throw Error(fmt::format("cannot write database {}: {}", path, strerror(err)));
  }
}

void write_store_image(const StoreImage& image, const std::string& path) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, kStoreFileMode);
  if (fd < 0) throw Error(fmt::format("cannot create database {}: {}", path, strerror(errno)));
  const char* bytes = reinterpret_cast<const char*>(image.bytes);
  int err = 0;
  for (size_t i = 0; i < image.run_count && err == 0; ++i) {
    const StoreImageRun& run = image.runs[i];
    err = write_at(fd, std::string_view(bytes, run.size), run.offset);
    bytes += run.size;
  }
  // The zeros after the last run (the end of the last page).
  if (err == 0 && ::ftruncate(fd, static_cast<off_t>(image.file_size)) != 0) err = errno;
  if (::close(fd) != 0 && err == 0) err = errno;
  if (err != 0) {
    ::unlink(path.c_str());
    throw Error(fmt::format("cannot write database {}: {}", path, strerror(err)));
  }
}

}  // namespace rcf::store
