// The store is not a log: `rcf ingest --db logs/rcf.db logs/` would read the database, its -wal
// and -shm files as inputs (and sniff them as junk). These files, and any other SQLite database
// or side file found among the inputs, are left out with one warning (docs/bad_input.md).
#pragma once

#include <string>
#include <vector>

#include "ingest/input_walker.h"

namespace rcf::pipeline {

// True when `path` is the store at `db_path` or one of its side files (-wal, -shm, -journal),
// an SQLite database (its header), an SQLite WAL file (its magic number), or the -shm or
// -journal file of an SQLite database beside it.
bool is_sqlite_file(const std::string& path, const std::string& db_path);

// Removes those files from `inputs`; returns the removed paths, in input order.
std::vector<std::string> drop_sqlite_files(std::vector<ingest::InputFile>& inputs,
                                           const std::string& db_path);

}  // namespace rcf::pipeline
