#include "store/store.h"

#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <charconv>
#include <chrono>
#include <string>
#include <thread>

#include "store/schema.h"
#include "store/schema_check.h"
#include "util/error.h"
#include "util/safe_text.h"

namespace rcf::store {
namespace {

// Created with the schema, so that the first load maintains them as it appends: a table's rows
// come in run_id order, so each index entry lands at the end of its index, which costs less than
// sorting every entry after the load (docs/performance.md). create_indexes() also runs after each
// ingest, to give a store of an older rcf what it lacks, and drops the indexes it replaced.
// Every table the analysis reads per run is found by run_id, else analysing one run would scan
// every run of the store. The Dynamo tables' indexes are on run_id alone: the analysis reads a
// run's rows whole and never looks one up by compile, and a wider key takes about three times as
// long to build. metric_fields is partial: it holds only the three fields the analysis reads (the
// CompileTime and ExecuteTime timers, and counter values such as aten::_local_scalar_dense), a
// fifth of a metrics report, so queries that use it repeat its WHERE term (kMetricFieldsTerm in
// store/store.h). source_content serves the duplicate-source lookup (store/duplicate_source.h),
// run once per file by ingest and merge; without it that lookup scans every source. source_run
// holds the path too: rcf merge looks up each shard source's path in its run (a run can hold
// 100,000 files of a dump directory).
constexpr const char* kIndexSql = R"sql(
CREATE INDEX IF NOT EXISTS source_run ON source(run_id, path);
CREATE INDEX IF NOT EXISTS source_content ON source(content_hash);
DROP INDEX IF EXISTS dynamo_compile_raw_ref;
DROP INDEX IF EXISTS guard_failure_ref;
DROP INDEX IF EXISTS graph_break_ref;
DROP INDEX IF EXISTS recompile_limit_hit_ref;
DROP INDEX IF EXISTS guard_ref;
DROP INDEX IF EXISTS phase_timing_ref;
DROP INDEX IF EXISTS cache_outcome_ref;
DROP INDEX IF EXISTS input_tensor_ref;
CREATE INDEX IF NOT EXISTS dynamo_compile_raw_run ON dynamo_compile_raw(run_id);
CREATE INDEX IF NOT EXISTS guard_failure_run ON guard_failure(run_id);
CREATE INDEX IF NOT EXISTS graph_break_run ON graph_break(run_id);
CREATE INDEX IF NOT EXISTS recompile_limit_hit_run ON recompile_limit_hit(run_id);
CREATE INDEX IF NOT EXISTS cudagraph_skip_run ON cudagraph_skip(run_id);
CREATE INDEX IF NOT EXISTS guard_run ON guard(run_id);
CREATE INDEX IF NOT EXISTS xla_vlog_run ON xla_vlog(run_id, kind);
CREATE INDEX IF NOT EXISTS phase_timing_run ON phase_timing(run_id);
CREATE INDEX IF NOT EXISTS cache_outcome_run ON cache_outcome(run_id);
CREATE INDEX IF NOT EXISTS input_tensor_run ON input_tensor(run_id);
CREATE INDEX IF NOT EXISTS graph_fact_run ON graph_fact(run_id);
CREATE INDEX IF NOT EXISTS rank_divergence_row_run ON rank_divergence_row(run_id);
CREATE INDEX IF NOT EXISTS compile_event_run ON compile_event(run_id, ordinal);
CREATE INDEX IF NOT EXISTS xla_block_run ON xla_block(run_id);
CREATE INDEX IF NOT EXISTS xla_execution_group_run ON xla_execution_group(run_id);
CREATE INDEX IF NOT EXISTS xla_execution_run ON xla_execution(run_id);
CREATE INDEX IF NOT EXISTS hlo_module_run ON hlo_module(run_id);
CREATE INDEX IF NOT EXISTS hlo_parameter_module ON hlo_parameter(hlo_module_id);
CREATE INDEX IF NOT EXISTS hlo_constant_module ON hlo_constant(hlo_module_id);
CREATE INDEX IF NOT EXISTS step_timing_run ON step_timing(run_id);
CREATE INDEX IF NOT EXISTS xla_profiler_note_run ON xla_profiler_note(run_id);
-- By origin and time too: a run's syncs, metrics-file markers, compile lines and progress lines
-- without a time (which a watch reads at every analysis, keeping those with a time:
-- analysis/kept_step_lines.h) are looked up among its progress lines with a time, which a
-- console whose every line opens with a time has by the million.
DROP INDEX IF EXISTS step_marker_run;
CREATE INDEX IF NOT EXISTS step_marker_run_origin ON step_marker(run_id, origin, time_s);
CREATE INDEX IF NOT EXISTS saved_graph_run ON saved_graph(run_id);
CREATE INDEX IF NOT EXISTS grab_graphs_frame_run ON grab_graphs_frame(run_id);
CREATE INDEX IF NOT EXISTS jax_compile_run ON jax_compile(run_id);
CREATE INDEX IF NOT EXISTS jax_cache_miss_run ON jax_cache_miss(run_id);
DROP INDEX IF EXISTS metric_timer;
)sql";
// Appended to kIndexSql with its WHERE term.
constexpr const char* kMetricFieldsIndex =
    "CREATE INDEX IF NOT EXISTS metric_fields ON metric_sample(run_id, name_sid) WHERE ";

bool has_table(Database& db, const char* name) {
  auto st = db.prepare("SELECT 1 FROM sqlite_master WHERE type='table' AND name=?");
  st.bind(1, name);
  return st.step();
}

int table_count(Database& db) {
  auto st = db.prepare("SELECT count(*) FROM sqlite_master");
  st.step();
  return static_cast<int>(st.int64(0));
}

// WAL mode lets readers (rcf report during an ingest) work while a writer writes. The switch
// reads the file, then upgrades to a write, and an upgrade never calls the busy handler: while
// another connection holds the write lock it fails at once with SQLITE_BUSY. So it is retried
// for as long as the busy timeout. A no-op once the file is in WAL mode (stored in the file).
void enable_wal(Database& db, int wait_ms) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(wait_ms);
  for (;;) {
    try {
      db.exec("PRAGMA journal_mode=WAL");
      return;
    } catch (const Error&) {
      if ((sqlite3_errcode(db.handle()) & 0xff) != SQLITE_BUSY ||
          std::chrono::steady_clock::now() > deadline)
        throw;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

std::string parent_dir(const std::string& path) {
  size_t slash = path.find_last_of('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

// Phase 1 of open_store: the path can be opened in `mode`. Returns whether its directory is
// writable (SQLite writes its -wal and -shm files next to the database).
bool check_path(const std::string& path, OpenMode mode) {
  struct stat st;
  bool exists = ::stat(path.c_str(), &st) == 0;
  if (exists && S_ISDIR(st.st_mode))
    throw Error(fmt::format("database path {} is a directory", path));
  if (mode == OpenMode::kRead && !exists)
    throw Error(
        fmt::format("no database at {} (run `rcf ingest --db {} LOGS...` first)", path, path));
  if (mode != OpenMode::kRead && exists && ::access(path.c_str(), W_OK) != 0)
    throw Error(fmt::format("database {} is not writable", path));
  const std::string dir = parent_dir(path);
  const bool dir_writable = ::access(dir.c_str(), W_OK) == 0;
  if (mode != OpenMode::kRead && !dir_writable) {
    throw Error(fmt::format("cannot write database {}: its directory {} {}", path, dir,
                            ::access(dir.c_str(), F_OK) == 0
                                ? "is not writable (SQLite keeps its -wal file there)"
                                : "does not exist"));
  }
  return dir_writable;
}

// A reader meets a hot journal when a writer in rollback-journal mode (a store's first ingest,
// store.cc) was killed: a read-only connection cannot roll it back and fails with "attempt to
// write a readonly database". A read-write connection that reads the file rolls it back (the
// ingest never happened), unless a live writer holds the lock, when it is no hot journal at all.
void recover_hot_journal(const std::string& path, bool dir_writable) {
  struct stat st;
  const std::string journal = path + "-journal";
  if (::stat(journal.c_str(), &st) != 0 || st.st_size == 0) return;
  if (!dir_writable || ::access(path.c_str(), W_OK) != 0)
    throw Error(fmt::format(
        "database {} has a hot journal {} (a write to it was stopped before it finished) and "
        "cannot be recovered here, read-only: make {} and its directory writable and run the "
        "command again (rcf rolls the journal back: the unfinished write never happened)",
        path, journal, path));
  Database writer(path, Database::Mode::kReadWrite);
  table_count(writer);
}

// Phase 2 of open_store: the connection, and the number of tables the file holds.
std::unique_ptr<Database> open_connection(const std::string& path, OpenMode mode, bool dir_writable,
                                          int* tables) {
  if (mode == OpenMode::kRead) recover_hot_journal(path, dir_writable);
  auto db = std::make_unique<Database>(
      path, mode == OpenMode::kRead ? Database::Mode::kReadOnly : Database::Mode::kReadWrite);
  // Reading the header also tells whether this is an SQLite file at all.
  try {
    *tables = table_count(*db);
  } catch (const Error& e) {
    if (mode != OpenMode::kRead || dir_writable) {
      throw Error(fmt::format("{} is not an rcf database: {}", path, e.what()));
    }
    // A database in WAL mode in a read-only directory (an archived artifact) cannot get the
    // -shm file a reader needs; nothing can write it there either, so read it as immutable.
    db = std::make_unique<Database>(path, Database::Mode::kImmutable);
    try {
      *tables = table_count(*db);
    } catch (const Error& e2) {
      throw Error(fmt::format("{} is not an rcf database: {}", path, e2.what()));
    }
  }
  return db;
}

// Phase 3 of open_store, for an empty file: writes the schema. Returns whether this call wrote
// it (another process may have created it while this one waited for the lock).
bool create_schema(Database& db) {
  set_page_size_and_cache(db);
  // The write lock first (it waits for a concurrent creator); WAL mode after the commit.
  db.exec("BEGIN IMMEDIATE");
  bool created = false;
  if (table_count(db) == 0) {
    created = true;
    write_schema(db);
  }
  db.exec("COMMIT");
  return created;
}

// Phase 4 of open_store: the file is an rcf store of this rcf's schema version.
void check_schema_version(Database& db, const std::string& path) {
  if (!has_table(db, "schema_info"))
    throw Error(
        fmt::format("{} is an SQLite database but not an rcf database (no schema_info)", path));
  auto version = db.prepare("SELECT value FROM schema_info WHERE key='schema_version'");
  std::string version_text = version.step() ? version.str(0) : "";
  version.reset();  // ends its read transaction: the journal mode cannot change inside one
  int found = -1;
  const char* text_end = version_text.data() + version_text.size();
  auto [end, ec] = std::from_chars(version_text.data(), text_end, found);
  bool numeric = ec == std::errc() && end == text_end;
  if (numeric && found == kSchemaVersion) return;
  // A store from elsewhere may hold anything there: bad input, never an internal error.
  std::string shown =
      numeric ? std::to_string(found) : fmt::format("'{}'", util::field_text(version_text));
  const char* why = !numeric                 ? "not written by rcf"
                    : found > kSchemaVersion ? "written by a newer rcf: upgrade rcf"
                                             : "written by an older rcf: re-ingest the logs "
                                               "into a new database";
  throw Error(fmt::format("database {} has schema version {}, this rcf reads version {} ({})", path,
                          shown, kSchemaVersion, why));
}

// Phase 5 of open_store, for a writer: journal mode and the pragmas of a bulk writer.
void set_writer_pragmas(Database& db, OpenMode mode, bool created) {
  // A store an ingest has just created takes its first load in rollback-journal mode: the new
  // pages then go straight into the database file, where in WAL mode each is written to the
  // WAL and copied again at the checkpoint after the commit (a 1 GB log of 1 M Dynamo
  // compiles into a new store: 17.6-18.1 s against 20.5-21.3 s in WAL mode).
  // Nobody can have been reading a store that did not exist; a reader that comes meanwhile
  // sees it empty, or, once the load has begun writing pages, waits for the commit (busy
  // timeout). switch_to_wal() follows the commit.
  if (!(created && mode == OpenMode::kIngest)) enable_wal(db, db.busy_timeout_ms());
  db.exec("PRAGMA synchronous=NORMAL");
  // Debian builds SQLite with SECURE_DELETE, which overwrites every freed page with zeros:
  // deleting the previous analysis of a run (a million compile rows) would take 2 s instead of
  // 0.3 s and write hundreds of MB to the WAL. rcf's deleted rows are derived data, nothing to
  // erase.
  db.exec("PRAGMA secure_delete=OFF");
}

}  // namespace

std::unique_ptr<Database> open_store(const std::string& path, OpenMode mode) {
  const bool dir_writable = check_path(path, mode);
  int tables = 0;
  std::unique_ptr<Database> db = open_connection(path, mode, dir_writable, &tables);
  bool created = false;  // the schema was written by this call
  if (tables == 0) {
    if (mode == OpenMode::kRead) throw Error(fmt::format("database {} is empty", path));
    created = create_schema(*db);
  }
  check_schema_version(*db, path);
  // A store this call did not create may come from anywhere (docs/bad_input.md).
  if (!created) check_schema_matches(*db, path);
  if (mode != OpenMode::kRead) set_writer_pragmas(*db, mode, created);
  return db;
}

int64_t data_version(Database& db) {
  auto st = db.prepare("PRAGMA data_version");
  return st.step() ? st.int64(0) : -1;
}

bool switch_to_wal(Database& db, int wait_ms) {
  try {
    enable_wal(db, wait_ms);
    return true;
  } catch (const Error&) {
    // Readers held it all along (or the switch failed otherwise): the store stays in
    // rollback-journal mode, complete and consistent, and the next open for writing switches it.
    return false;
  }
}

void set_page_size_and_cache(Database& db) {
  // 16 KiB pages (SQLite's default is 4 KiB): a store is written in bulk, a page at a time to
  // the WAL and again at the checkpoint, and each page is a system call, which in a VM costs
  // more than the bytes (re-analysing 1 M Dynamo compiles: 11.4-11.5 s against 13.1 s with
  // 4 KiB pages; 64 KiB is no better). Only an empty file takes it; a store created by another
  // rcf keeps its own.
  db.exec(fmt::format("PRAGMA page_size={}", kPageSize));
  // The page cache again, in KiB: SQLite keeps its default as a count of pages of the size the
  // connection opened with, which at 16 KiB pages would cache 8 MB, a fifth of the TORCH_TRACE
  // ingest's peak memory (docs/performance.md).
  db.exec(fmt::format("PRAGMA cache_size=-{}", kCacheKiB));
}

void write_schema(Database& db) {
  db.exec(kSchemaSql);
  create_indexes(db);
  db.exec(fmt::format(
      "INSERT INTO schema_info(key, value) VALUES ('schema_version', '{}'), ('created_by', "
      "'rcf')",
      kSchemaVersion));
}

std::string index_statements() {
  return std::string(kIndexSql) + kMetricFieldsIndex + kMetricFieldsTerm + ";";
}

void create_indexes(Database& db) {
  db.exec(index_statements());
}

}  // namespace rcf::store
