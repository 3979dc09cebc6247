#include "store/database.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <mutex>

#include "util/error.h"

namespace rcf::store {
namespace {

// SQLITE_BUSY once the busy timeout has run out: another process (an ingest) held the lock all
// that time. Said in words, since "database is locked" alone reads like a permission problem.
std::string busy_note(sqlite3* db) {
  if ((sqlite3_errcode(db) & 0xff) != SQLITE_BUSY) return "";
  return " (another process held the database lock for the whole busy timeout; retry when it has "
         "finished)";
}

// `path` for a file: URI: the characters URIs reserve are percent-encoded.
std::string uri_path(const std::string& path) {
  std::string out;
  for (unsigned char c : path) {
    if (c == '%' || c == '?' || c == '#' || c < 0x20 || c >= 0x7f) {
      out += fmt::format("%{:02X}", c);
    } else {
      out += static_cast<char>(c);
    }
  }
  return out;
}

// VM instructions between two looks at the clock: about a millisecond of work.
constexpr int kProgressOps = 100000;

// Nonzero interrupts the statement (SQLITE_INTERRUPT).
int past_deadline(void* budget) {
  return std::chrono::steady_clock::now() > static_cast<QueryBudget*>(budget)->deadline;
}

// What ran out, in words, for the errors SQLite reports as "interrupted" or "out of memory".
std::string budget_note(sqlite3* db, const QueryBudget* budget) {
  const int code = sqlite3_errcode(db) & 0xff;
  if (code == SQLITE_INTERRUPT && budget)
    return fmt::format(
        " (a query on {} ran past its time budget of {} s: a damaged store, or one rcf did not "
        "write)",
        budget->path, budget->limit.count() / 1000.0);
  if (code == SQLITE_NOMEM)
    return fmt::format(
        " (SQLite's memory budget of {} MiB is spent: a damaged store, or one rcf "
        "did not write)",
        sqlite3_hard_heap_limit64(-1) >> 20);
  return "";
}

void set_default_heap_limit() {
  static std::once_flag once;
  std::call_once(once, [] { sqlite3_hard_heap_limit64(Database::kHeapLimitBytes); });
}

}  // namespace

Statement::Statement(sqlite3* db, std::string_view sql, QueryBudget* budget)
    : db_(db), budget_(budget) {
  int rc = sqlite3_prepare_v3(db, sql.data(), static_cast<int>(sql.size()),
                              SQLITE_PREPARE_PERSISTENT, &stmt_, nullptr);
  if (rc != SQLITE_OK) {
    throw Error(fmt::format("SQLite cannot prepare statement: {} [{}]", sqlite3_errmsg(db),
                            sql.substr(0, 200)));
  }
}

Statement::Statement(std::shared_ptr<StatementCache> cache, sqlite3* db, std::string_view sql,
                     QueryBudget* budget)
    : db_(db), budget_(budget) {
  int rc = SQLITE_OK;
  stmt_ = cache->take(sql, rc);
  if (!stmt_) {  // an error, or a text with no SQL in it (a comment): nothing to run
    throw Error(fmt::format("SQLite cannot prepare statement: {} [{}]",
                            rc != SQLITE_OK ? sqlite3_errmsg(db) : "the text holds no statement",
                            sql.substr(0, 200)));
  }
  // A text with more after its first statement is run once, as asked, and not kept.
  const char* prepared = sqlite3_sql(stmt_);
  if (prepared && std::string_view(prepared) == sql) cache_ = std::move(cache);
}

Statement::~Statement() {
  release();
}

void Statement::release() {
  if (cache_) {
    cache_->give_back(stmt_);
    cache_.reset();
  } else {
    sqlite3_finalize(stmt_);
  }
  stmt_ = nullptr;
}

Statement::Statement(Statement&& other) noexcept
    : db_(other.db_),
      stmt_(other.stmt_),
      cache_(std::move(other.cache_)),
      budget_(other.budget_),
      started_(other.started_) {
  other.stmt_ = nullptr;
}

Statement& Statement::operator=(Statement&& other) noexcept {
  if (this != &other) {
    release();
    db_ = other.db_;
    stmt_ = other.stmt_;
    cache_ = std::move(other.cache_);
    budget_ = other.budget_;
    started_ = other.started_;
    other.stmt_ = nullptr;
  }
  return *this;
}

void Statement::check(int rc, const char* what) {
  if (rc != SQLITE_OK) {
    throw Error(fmt::format("SQLite {} failed: {} [{}]", what, sqlite3_errmsg(db_),
                            std::string_view(sqlite3_sql(stmt_)).substr(0, 200)));
  }
}

Statement& Statement::bind(int index, int64_t value) {
  check(sqlite3_bind_int64(stmt_, index, value), "bind");
  return *this;
}
Statement& Statement::bind(int index, double value) {
  check(sqlite3_bind_double(stmt_, index, value), "bind");
  return *this;
}
Statement& Statement::bind(int index, std::string_view value) {
  check(sqlite3_bind_text(stmt_, index, value.data(), static_cast<int>(value.size()),
                          SQLITE_TRANSIENT),
        "bind");
  return *this;
}
Statement& Statement::bind_unowned(int index, std::string_view text) {
  check(sqlite3_bind_text(stmt_, index, text.data(), static_cast<int>(text.size()), SQLITE_STATIC),
        "bind");
  return *this;
}
Statement& Statement::bind_null(int index) {
  check(sqlite3_bind_null(stmt_, index), "bind");
  return *this;
}

bool Statement::step() {
  if (budget_) {
    // The budget counts from this execution's first step, over every row it yields.
    if (!sqlite3_stmt_busy(stmt_)) started_ = std::chrono::steady_clock::now();
    budget_->deadline = started_ + budget_->limit;
  }
  int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  std::string message =
      fmt::format("SQLite step failed: {}{}{} [{}]", sqlite3_errmsg(db_), busy_note(db_),
                  budget_note(db_, budget_), std::string_view(sqlite3_sql(stmt_)).substr(0, 200));
  sqlite3_reset(stmt_);
  throw Error(message);
}

void Statement::run() {
  while (step()) {
  }
  reset();
}

void Statement::run_keeping_bindings() {
  while (step()) {
  }
  sqlite3_reset(stmt_);
}

void Statement::reset() {
  sqlite3_reset(stmt_);
  sqlite3_clear_bindings(stmt_);
}

bool Statement::is_null(int col) const {
  return sqlite3_column_type(stmt_, col) == SQLITE_NULL;
}
int64_t Statement::int64(int col) const {
  return sqlite3_column_int64(stmt_, col);
}
double Statement::real(int col) const {
  return sqlite3_column_double(stmt_, col);
}
std::string_view Statement::text(int col) const {
  const unsigned char* p = sqlite3_column_text(stmt_, col);
  if (!p) return {};
  return std::string_view(reinterpret_cast<const char*>(p),
                          static_cast<size_t>(sqlite3_column_bytes(stmt_, col)));
}
std::optional<int64_t> Statement::opt_int64(int col) const {
  if (is_null(col)) return std::nullopt;
  return int64(col);
}
std::optional<double> Statement::opt_real(int col) const {
  if (is_null(col)) return std::nullopt;
  return real(col);
}
std::optional<std::string> Statement::opt_str(int col) const {
  if (is_null(col)) return std::nullopt;
  return str(col);
}
int Statement::value_type(int col) const {
  return sqlite3_column_type(stmt_, col);
}

int Statement::column_count() const {
  return sqlite3_column_count(stmt_);
}
std::string Statement::column_name(int col) const {
  return sqlite3_column_name(stmt_, col);
}

Database::Database(const std::string& path, Mode mode)
    : path_(path), budget_{kQueryTimeLimit, {}, path} {
  set_default_heap_limit();
  int flags = mode == Mode::kReadWrite ? (SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE)
                                       : SQLITE_OPEN_READONLY;
  std::string name = path;
  if (mode == Mode::kImmutable) {
    flags |= SQLITE_OPEN_URI;
    name = "file:" + uri_path(path) + "?immutable=1";
  }
  int rc = sqlite3_open_v2(name.c_str(), &db_, flags | SQLITE_OPEN_NOMUTEX, nullptr);
  if (rc != SQLITE_OK) {
    std::string message = fmt::format("cannot open database {}: {}", path,
                                      db_ ? sqlite3_errmsg(db_) : "out of memory");
    sqlite3_close(db_);
    db_ = nullptr;
    throw Error(message);
  }
  configure();
}

Database::Database(const std::string& path) : path_(path), budget_{kQueryTimeLimit, {}, path} {
  set_default_heap_limit();
  int rc = sqlite3_open_v2(
      ":memory:", &db_, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nullptr);
  if (rc != SQLITE_OK) {
    sqlite3_close(db_);
    db_ = nullptr;
    throw Error(
        fmt::format("cannot open an in-memory database for {}: {}", path, sqlite3_errstr(rc)));
  }
  configure();
}

void Database::configure() {
  statements_ = std::make_shared<StatementCache>(db_);
  set_busy_timeout(kDefaultBusyTimeoutMs);
  sqlite3_extended_result_codes(db_, 1);
  sqlite3_progress_handler(db_, kProgressOps, past_deadline, &budget_);
}

std::unique_ptr<Database> Database::in_memory(const std::string& path, size_t file_size,
                                              const std::function<void(char* file)>& fill) {
  std::unique_ptr<Database> db(new Database(path));
  // From SQLite's allocator, which frees it with the connection (FREEONCLOSE) and grows it by
  // doubling as pages are added (RESIZEABLE).
  auto* memory = static_cast<char*>(sqlite3_malloc64(std::max<size_t>(file_size, 1)));
  if (!memory)
    throw Error(fmt::format("cannot open an in-memory database for {}: out of memory", path));
  std::memset(memory, 0, file_size);
  fill(memory);
  const auto size = static_cast<sqlite3_int64>(file_size);
  int rc =
      sqlite3_deserialize(db->db_, "main", reinterpret_cast<unsigned char*>(memory), size, size,
                          SQLITE_DESERIALIZE_FREEONCLOSE | SQLITE_DESERIALIZE_RESIZEABLE);
  if (rc != SQLITE_OK)  // sqlite3_deserialize has freed `memory`
    throw Error(
        fmt::format("cannot open an in-memory database for {}: {}", path, sqlite3_errstr(rc)));
  return db;
}

std::string_view Database::file_image() {
  sqlite3_int64 size = 0;
  unsigned char* bytes = sqlite3_serialize(db_, "main", &size, SQLITE_SERIALIZE_NOCOPY);
  if (!bytes) throw Error(fmt::format("database {} is not held in memory", path_));
  return {reinterpret_cast<const char*>(bytes), static_cast<size_t>(size)};
}

int64_t Database::set_heap_limit(int64_t bytes) {
  set_default_heap_limit();
  return sqlite3_hard_heap_limit64(bytes);
}

void Database::set_busy_timeout(int ms) {
  busy_timeout_ms_ = ms;
  sqlite3_busy_timeout(db_, ms);
}

Database::~Database() {
  if (statements_) statements_->close();
  sqlite3_close(db_);
}

void Database::close() {
  if (statements_) statements_->close();
  int rc = sqlite3_close(db_);
  if (rc != SQLITE_OK)
    throw Error(fmt::format("cannot close database {}: {}", path_, sqlite3_errstr(rc)));
  db_ = nullptr;
}

void Database::exec(std::string_view sql) {
  std::string owned(sql);
  char* err = nullptr;
  budget_.deadline = std::chrono::steady_clock::now() + budget_.limit;
  int rc = sqlite3_exec(db_, owned.c_str(), nullptr, nullptr, &err);
  if (rc != SQLITE_OK) {
    std::string_view head = sql.substr(0, std::min<size_t>(sql.find('\n'), 60));
    std::string message =
        (rc & 0xff) == SQLITE_BUSY
            ? fmt::format(
                  "database {} is locked by another process: waited {} s for it to "
                  "finish (while running `{}`); retry when it has finished",
                  path_, busy_timeout_ms_ / 1000.0, head)
            : fmt::format("SQLite error on {}: {}{} (while running `{}`)", path_,
                          err ? err : sqlite3_errstr(rc), budget_note(db_, &budget_), head);
    sqlite3_free(err);
    throw Error(message);
  }
}

}  // namespace rcf::store
