#include "store/schema_check.h"

#include <fmt/format.h>

#include <map>
#include <vector>

#include "store/schema.h"
#include "store/store.h"
#include "util/error.h"
#include "util/safe_text.h"

namespace rcf::store {
namespace {

// Indexes an older rcf created and create_indexes() (store/store.cc) now drops: a store that
// still has them is a store of an older rcf, not a foreign one.
constexpr const char* kRetiredIndexSql = R"sql(
CREATE INDEX dynamo_compile_raw_ref ON dynamo_compile_raw(run_id, rank, epoch, frame_id, frame_compile_id);
CREATE INDEX guard_failure_ref ON guard_failure(run_id, rank, epoch, frame_id, frame_compile_id);
CREATE INDEX graph_break_ref ON graph_break(run_id, rank, epoch, frame_id, frame_compile_id);
CREATE INDEX recompile_limit_hit_ref ON recompile_limit_hit(run_id, rank, epoch, frame_id);
CREATE INDEX guard_ref ON guard(run_id, rank, epoch, frame_id, frame_compile_id);
CREATE INDEX phase_timing_ref ON phase_timing(run_id, rank, epoch, frame_id, frame_compile_id);
CREATE INDEX cache_outcome_ref ON cache_outcome(run_id, rank, epoch, frame_id, frame_compile_id);
CREATE INDEX input_tensor_ref ON input_tensor(run_id, rank, epoch, frame_id, frame_compile_id);
CREATE INDEX metric_timer ON metric_sample(run_id, name_sid) WHERE field IN ('TotalSamples', 'Accumulator');
)sql";

struct Entry {
  std::string type;
  std::string sql;  // normalized
};
using Schema = std::map<std::string, Entry>;  // by name

// Every schema object but SQLite's own (sqlite_sequence, sqlite_stat1, automatic indexes).
Schema read_schema(Database& db) {
  Schema schema;
  auto st = db.prepare(
      "SELECT type, name, sql FROM sqlite_master WHERE name NOT LIKE 'sqlite\\_%' ESCAPE '\\'");
  while (st.step()) schema[st.str(1)] = Entry{st.str(0), normalized_sql(st.text(2))};
  return schema;
}

// The schema this rcf creates, and the retired indexes, from an in-memory database (built once).
const Schema& expected_schema() {
  static const Schema schema = [] {
    Database mem(":memory:", Database::Mode::kReadWrite);
    mem.exec(kSchemaSql);
    create_indexes(mem);
    mem.exec(kRetiredIndexSql);
    return read_schema(mem);
  }();
  return schema;
}

// What differs, one phrase each: extra or changed objects of any kind, missing ones but indexes.
std::vector<std::string> differences(const Schema& found, const Schema& expected) {
  std::vector<std::string> out;
  for (const auto& [name, entry] : found) {
    auto it = expected.find(name);
    if (it == expected.end())
      out.push_back(fmt::format("{} {} is not rcf's", entry.type, util::field_text(name)));
    else if (it->second.type != entry.type)
      out.push_back(fmt::format("{} is a {}, rcf's is a {}", util::field_text(name), entry.type,
                                it->second.type));
    else if (it->second.sql != entry.sql)
      out.push_back(
          fmt::format("{} {} has other SQL than rcf's", entry.type, util::field_text(name)));
  }
  for (const auto& [name, entry] : expected)
    if (entry.type != "index" && !found.contains(name))
      out.push_back(fmt::format("{} {} is missing", entry.type, name));
  return out;
}

bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

// The end of the quoted text that starts at `i` ('...', "...", `...` or [...]).
size_t quoted_end(std::string_view sql, size_t i) {
  const char close = sql[i] == '[' ? ']' : sql[i];
  size_t end = sql.find(close, i + 1);
  return end == std::string_view::npos ? sql.size() : end + 1;
}

}  // namespace

std::string normalized_sql(std::string_view sql) {
  std::string out;
  bool space = false;
  for (size_t i = 0; i < sql.size();) {
    const char c = sql[i];
    if (c == '-' && sql.substr(i, 2) == "--") {
      i = std::min(sql.size(), sql.find('\n', i));
      space = true;
    } else if (c == '/' && sql.substr(i, 2) == "/*") {
      size_t end = sql.find("*/", i + 2);
      i = end == std::string_view::npos ? sql.size() : end + 2;
      space = true;
    } else if (is_space(c)) {
      ++i;
      space = true;
    } else {
      if (space && !out.empty()) out += ' ';
      space = false;
      const size_t end =
          (c == '\'' || c == '"' || c == '`' || c == '[') ? quoted_end(sql, i) : i + 1;
      out.append(sql.substr(i, end - i));
      i = end;
    }
  }
  return out;
}

void check_schema_matches(Database& db, const std::string& path) {
  const std::vector<std::string> diff = differences(read_schema(db), expected_schema());
  if (diff.empty()) return;
  constexpr size_t kShown = 4;
  std::string listed;
  for (size_t i = 0; i < diff.size() && i < kShown; ++i) listed += (i ? "; " : "") + diff[i];
  if (diff.size() > kShown) listed += fmt::format("; and {} more", diff.size() - kShown);
  throw Error(fmt::format(
      "database {} was not written by this rcf: its schema differs from the one rcf creates ({}); "
      "nothing in it was read",
      util::field_text(path), listed));
}

}  // namespace rcf::store
