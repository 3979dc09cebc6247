// Store floor benchmark: the least time the rows an ingest stores can take on this machine.
// Ingests FILE with `rcf ingest` in a child process (printed as ingest_cli_bench prints it), then
// copies each table of that store holding at least --min-rows rows into a fresh store (the same
// schema, indexes and writer pragmas: store::open_store) with SQLite's own INSERT ... SELECT, in
// one transaction per table. That copy parses nothing, binds nothing and analyses nothing: it is
// SQLite decoding each row and writing it again, with its table's B-tree and indexes. No ingest
// that stores those rows can take less, so the input's MB over the copy's time is a ceiling on
// this machine (docs/performance.md quotes it for the dense Dynamo log).
//
//   store_floor_bench FILE [--dir DIR] [--min-rows N] [--keep]
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "bench/ingest_run.h"
#include "store/store.h"
#include "util/error.h"

namespace {

namespace fs = std::filesystem;

struct TableRows {
  std::string name;
  int64_t rows = 0;
};

// The store's tables with at least `min_rows` rows, largest first.
std::vector<TableRows> large_tables(rcf::store::Database& db, int64_t min_rows) {
  std::vector<TableRows> tables;
  auto names = db.prepare(
      "SELECT name FROM sqlite_master WHERE type='table' AND name NOT LIKE 'sqlite_%' "
      "ORDER BY name");
  while (names.step()) {
    std::string name(names.text(0));
    auto count = db.prepare(fmt::format("SELECT count(*) FROM \"{}\"", name));
    if (count.step() && count.int64(0) >= min_rows) tables.push_back({name, count.int64(0)});
  }
  std::stable_sort(tables.begin(), tables.end(),
                   [](const TableRows& a, const TableRows& b) { return a.rows > b.rows; });
  return tables;
}

// Seconds SQLite takes to copy `table` of the attached store `src` into the empty same-named
// table of `to`. The WHERE clause keeps SQLite from copying the records whole (its transfer
// optimisation, which applies only to an unfiltered SELECT *): each row is decoded and encoded
// again, as an INSERT of bound values is.
double copy_seconds(rcf::store::Database& to, const std::string& table) {
  to.exec(fmt::format("DELETE FROM main.\"{}\"", table));  // a new store's fixed rows, if any
  auto start = std::chrono::steady_clock::now();
  to.exec("BEGIN");
  to.exec(
      fmt::format("INSERT INTO main.\"{0}\" SELECT * FROM src.\"{0}\" WHERE rowid >= 0 "
                  "ORDER BY rowid",
                  table));
  to.exec("COMMIT");
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// The tables the analysis writes one row per compile into, which the public views read: even a
// store that kept the raw records some other way would write these.
bool is_analysis_table(const std::string& name) {
  return name == "compile_event" || name == "attribution";
}

int run(const std::string& input, const std::string& dir, int64_t min_rows, bool keep) {
  fs::create_directories(dir);
  std::error_code ec;
  const int64_t bytes = static_cast<int64_t>(fs::file_size(input, ec));
  if (ec) {
    fmt::print(stderr, "cannot read {}: {}\n", input, ec.message());
    return 2;
  }
  rcf::bench::ingest_and_report("rcf ingest", dir, input, bytes);
  const std::string source = rcf::bench::bench_store(dir), copy = dir + "/floor.db";
  rcf::bench::remove_store(copy);
  auto to = rcf::store::open_store(copy, rcf::store::OpenMode::kIngest);
  auto attach = to->prepare("ATTACH ? AS src");  // bound: the path may hold any character
  attach.bind(1, source);
  attach.step();
  double total = 0, analysed = 0;
  int64_t total_rows = 0;
  fmt::print("{:<28} {:>10} {:>9} {:>9}\n", "table copied by SQLite", "rows", "seconds", "us/row");
  // The tables are chosen in the ingested store (the fresh one is empty).
  rcf::store::Database ingested(source, rcf::store::Database::Mode::kReadOnly);
  for (const TableRows& t : large_tables(ingested, min_rows)) {
    double s = copy_seconds(*to, t.name);
    total += s;
    total_rows += t.rows;
    if (is_analysis_table(t.name)) analysed += s;
    fmt::print("{:<28} {:>10} {:>9.3f} {:>9.2f}\n", t.name, t.rows, s, s * 1e6 / t.rows);
  }
  fmt::print("{:<28} {:>10} {:>9.3f} {:>9.2f}\n", "all of them", total_rows, total,
             total_rows ? total * 1e6 / total_rows : 0.0);
  if (total > 0)
    fmt::print("ceiling for this input: {:.1f} MB in {:.3f} s = {:.1f} MB/s\n", bytes / 1e6, total,
               bytes / 1e6 / total);
  if (analysed > 0)
    fmt::print(
        "ceiling from the analysis's compile rows alone (compile_event, attribution): {:.3f} s = "
        "{:.1f} MB/s\n",
        analysed, bytes / 1e6 / analysed);
  to.reset();
  if (!keep) {
    rcf::bench::remove_store(copy);
    rcf::bench::remove_store(source);
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::string input, dir = "/tmp/rcf-bench";
  int64_t min_rows = 1000;
  bool keep = false;
  for (int i = 1; i < argc; ++i) {
    if (!strcmp(argv[i], "--dir") && i + 1 < argc)
      dir = argv[++i];
    else if (!strcmp(argv[i], "--min-rows") && i + 1 < argc)
      min_rows = std::atoll(argv[++i]);
    else if (!strcmp(argv[i], "--keep"))
      keep = true;
    else
      input = argv[i];
  }
  if (input.empty()) {
    fmt::print(stderr, "usage: store_floor_bench FILE [--dir DIR] [--min-rows N] [--keep]\n");
    return 2;
  }
  try {
    return run(input, dir, min_rows, keep);
  } catch (const rcf::Error& e) {
    fmt::print(stderr, "store_floor_bench: {}\n", e.what());
    return 1;
  }
}
