#include "store/new_store.h"

#include <dirent.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <signal.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <climits>
#include <cstring>

#include "store/schema.h"
#include "store/store.h"
#include "util/error.h"
#include "util/hostname.h"

namespace rcf::store {
namespace {

constexpr std::string_view kTempMark = ".rcf-new-";
constexpr const char* kSideSuffixes[] = {"-journal", "-wal", "-shm"};

std::string dir_of(const std::string& path) {
  size_t slash = path.find_last_of('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

std::string base_of(const std::string& path) {
  size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// The host part of a temporary name: letters, digits, '.' and '-' only, at most 32 of them.
std::string host_tag() {
  std::string host;
  for (char c : util::this_host())
    if ((isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '-') && host.size() < 32)
      host += c;
  return host.empty() ? "host" : host;
}

void remove_with_side_files(const std::string& path) {
  ::unlink(path.c_str());
  for (const char* suffix : kSideSuffixes) ::unlink((path + suffix).c_str());
}

// Temporary files of `path` that a process of this host left when it was killed: its pid is gone.
void remove_stale_temp_files(const std::string& path) {
  const std::string prefix = base_of(path) + std::string(kTempMark) + host_tag() + "-";
  DIR* dir = ::opendir(dir_of(path).c_str());
  if (!dir) return;
  while (const dirent* entry = ::readdir(dir)) {
    std::string_view name = entry->d_name;
    if (!name.starts_with(prefix)) continue;
    std::string_view digits = name.substr(prefix.size());
    pid_t pid = 0;
    auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), pid);
    if (ec != std::errc() || end != digits.data() + digits.size() || pid <= 0) continue;
    if (::kill(pid, 0) == 0 || errno != ESRCH) continue;
    remove_with_side_files(dir_of(path) + "/" + std::string(name));
  }
  ::closedir(dir);
}

// fsync of a file or a directory, by path.
void sync_path(const std::string& path, int flags) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | flags);
  if (fd < 0) throw Error(fmt::format("cannot open {} to sync it: {}", path, strerror(errno)));
  int rc = (flags & O_DIRECTORY) ? ::fsync(fd) : ::fdatasync(fd);
  int err = errno;
  ::close(fd);
  if (rc != 0) throw Error(fmt::format("cannot sync {}: {}", path, strerror(err)));
}

// Gives `from` the name `to` unless `to` exists. 1: renamed; 0: `to` exists; -1: this file system
// can do neither atomically (no RENAME_NOREPLACE, no hard links).
int rename_no_replace(const std::string& from, const std::string& to) {
  if (::renameat2(AT_FDCWD, from.c_str(), AT_FDCWD, to.c_str(), RENAME_NOREPLACE) == 0) return 1;
  if (errno == EEXIST) return 0;
  if (errno != EINVAL && errno != ENOSYS && errno != ENOTSUP)
    throw Error(fmt::format("cannot rename {} to {}: {}", from, to, strerror(errno)));
  if (::link(from.c_str(), to.c_str()) == 0) {
    ::unlink(from.c_str());
    return 1;
  }
  if (errno == EEXIST) return 0;
  return -1;
}

}  // namespace

NewStore::NewStore(std::string path, std::string temp_path)
    : path_(std::move(path)), temp_path_(std::move(temp_path)) {}

std::unique_ptr<NewStore> NewStore::create(const std::string& path, const StoreImage* image,
                                           bool in_memory) {
  struct stat st;
  if (::lstat(path.c_str(), &st) == 0 || errno != ENOENT) return nullptr;
  const std::string dir = dir_of(path);
  if (::access(dir.c_str(), W_OK) != 0)
    throw Error(
        fmt::format("cannot write database {}: its directory {} {}", path, dir,
                    ::access(dir.c_str(), F_OK) == 0 ? "is not writable" : "does not exist"));
  std::string temp = fmt::format("{}{}{}-{}", path, kTempMark, host_tag(), ::getpid());
  if (base_of(temp).size() > NAME_MAX) return nullptr;  // a long name: created in place
  remove_stale_temp_files(path);
  remove_with_side_files(temp);  // a pid reused since a kill on this host
  std::unique_ptr<NewStore> store(new NewStore(path, temp));
  if (image && image_fits_this_schema(*image) && in_memory && store->start_in_memory(*image))
    return store;
  if (image && image_fits_this_schema(*image) && store->start_from_image(*image)) return store;
  store->open_for_load();
  write_schema(*store->db_);
  return store;
}

void NewStore::open_for_load() {
  db_ = std::make_unique<Database>(temp_path_, Database::Mode::kReadWrite);
  begin_load();
}

void NewStore::begin_load() {
  Database& db = *db_;
  // Nobody else opens the temporary file: one lock for the whole load (no lock calls and no
  // hot-journal checks per transaction), the journal in memory (a savepoint of a duplicate
  // source still rolls back), and no syncs until publish(); a crash leaves only this file.
  db.exec("PRAGMA locking_mode=EXCLUSIVE");
  db.exec("PRAGMA journal_mode=MEMORY");
  db.exec("PRAGMA synchronous=OFF");
  db.exec("PRAGMA secure_delete=OFF");
  set_page_size_and_cache(db);  // the page size only takes on an empty file
  db.exec("BEGIN IMMEDIATE");
}

// Also the first read of the schema, which the load would make anyway.
bool NewStore::holds_this_schema() {
  auto version = db_->prepare("SELECT value FROM schema_info WHERE key='schema_version'");
  return version.step() && version.str(0) == std::to_string(kSchemaVersion);
}

bool NewStore::start_from_image(const StoreImage& image) {
  write_store_image(image, temp_path_);
  try {
    open_for_load();
    if (holds_this_schema()) return true;
  } catch (const Error&) {
    // Not a store SQLite reads: made from the schema statements instead.
  }
  db_.reset();
  remove_with_side_files(temp_path_);
  return false;
}

bool NewStore::start_in_memory(const StoreImage& image) {
  try {
    db_ = Database::in_memory(temp_path_, image.file_size,
                              [&image](char* file) { copy_store_image(image, file); });
    begin_load();
    in_memory_ = holds_this_schema();
  } catch (const Error&) {
    in_memory_ = false;  // not a store SQLite reads: made on a file instead
  }
  if (!in_memory_) db_.reset();
  return in_memory_;
}

// The file's header says WAL mode in its read and write versions (bytes 18 and 19: 2), which is
// what `PRAGMA journal_mode=WAL` writes; a database in memory cannot take that mode itself.
void NewStore::write_from_memory() {
  const std::string_view file = db_->file_image();
  constexpr size_t kHeader = 100;
  if (file.size() < kHeader)
    throw Error(fmt::format("cannot write database {}: its image is {} bytes", path_, file.size()));
  std::string header(file.substr(0, kHeader));
  header[18] = header[19] = 2;
  write_synced_store_file(temp_path_, header, file.substr(kHeader));
}

NewStore::~NewStore() {
  db_.reset();
  if (!published_) remove_with_side_files(temp_path_);
}

bool NewStore::publish() {
  if (in_memory_) {
    write_from_memory();
  } else {
    // In exclusive locking mode the WAL index lives in heap memory, and closing the connection
    // checkpoints the WAL and removes it: the file is left alone, in WAL mode for later writers
    // and readers (store.cc).
    db_->exec("PRAGMA journal_mode=WAL");
  }
  db_->close();
  db_.reset();
  if (!in_memory_) sync_path(temp_path_, 0);
  // A file system that can do neither no-replace rename nor hard links: the caller writes in
  // place, as into a store that exists (open_store creates it there).
  if (rename_no_replace(temp_path_, path_) != 1) return false;
  published_ = true;
  sync_path(dir_of(path_), O_DIRECTORY);  // the new name, as durable as the rows
  return true;
}

bool is_new_store_temp_file(const std::string& path) {
  return base_of(path).find(kTempMark) != std::string::npos;
}

}  // namespace rcf::store
