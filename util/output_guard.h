// No command writes over a store. Every output file an option names (report -o, gate --junit,
// GITHUB_STEP_SUMMARY, demo's reports) is checked here before anything is written: `rcf report
// --db x.db -o x.db` used to replace the database with HTML.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace rcf::util {

// Throws rcf::Error, naming `option` (e.g. "-o") and `path`, when writing `path` would destroy a
// SQLite store: it is one of `stores` or the -wal, -shm or -journal file of one (the same file by
// device and inode, so another spelling or a link of it is caught), or an existing regular file
// that starts like a SQLite database ("SQLite format 3\0"), write-ahead log or rollback journal.
// A path that does not exist yet passes.
void refuse_output_over_store(std::string_view option, const std::string& path,
                              const std::vector<std::string>& stores);

// The SQLite file kind `path` starts like ("a SQLite database", "a SQLite write-ahead log", "a
// SQLite rollback journal"), or empty when it is none, not a regular file, or unreadable.
std::string sqlite_file_kind(const std::string& path);

}  // namespace rcf::util
