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

void write_store_image(const StoreImage& image, const std::string& path) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, kStoreFileMode);
  if (fd < 0) throw Error(fmt::format("cannot create database {}: {}", path, strerror(errno)));
  const unsigned char* bytes = image.bytes;
  int err = 0;
  for (size_t i = 0; i < image.run_count && err == 0; ++i) {
    const StoreImageRun& run = image.runs[i];
    for (uint32_t done = 0; done < run.size;) {
      ssize_t n = ::pwrite(fd, bytes + done, run.size - done, run.offset + done);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        err = n < 0 ? errno : EIO;
        break;
      }
      done += static_cast<uint32_t>(n);
    }
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
