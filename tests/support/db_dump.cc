#include "tests/support/db_dump.h"

#include <algorithm>

namespace rcf::testing {
namespace {

std::string dump_field(const store::Statement& st, int col) {
  if (st.is_null(col)) return "";
  std::string text(st.text(col));
  if (text.empty()) return "\"\"";
  if (text.find_first_of(",\"\r\n") == std::string::npos) return text;
  return "\"" + replace_all(text, "\"", "\"\"") + "\"";
}

}  // namespace

std::string replace_all(std::string text, const std::string& from, const std::string& to) {
  if (from.empty()) return text;
  size_t pos = 0;
  while ((pos = text.find(from, pos)) != std::string::npos) {
    text.replace(pos, from.size(), to);
    pos += to.size();
  }
  return text;
}

std::string query_csv(store::Database& db, const std::string& sql) {
  auto st = db.prepare(sql);
  std::string out;
  for (int c = 0; c < st.column_count(); ++c) out += (c ? "," : "") + st.column_name(c);
  out += "\n";
  while (st.step()) {
    for (int c = 0; c < st.column_count(); ++c) out += (c ? "," : "") + dump_field(st, c);
    out += "\n";
  }
  return out;
}

std::string scalar(store::Database& db, const std::string& sql) {
  auto st = db.prepare(sql);
  if (!st.step()) return "<no row>";
  if (st.is_null(0)) return "<NULL>";
  return st.str(0);
}

namespace {

std::string dump_all(store::Database& db, const std::vector<std::string>& skip_columns,
                     bool resolve_sids) {
  std::string out;
  for (const std::string& table :
       column(db, "SELECT name FROM sqlite_master WHERE type='table' ORDER BY name")) {
    // By text, the texts are where they are used: the strings table may also hold texts that
    // only a replaced version of a source used (interned texts are never taken back).
    if (resolve_sids && table == "strings") continue;
    std::vector<std::string> cols;
    // By text: a row's own id (an INTEGER PRIMARY KEY) depends on the order rows were written.
    const std::string own_id =
        resolve_sids ? scalar(db, "SELECT name FROM pragma_table_info('" + table +
                                      "') WHERE pk = 1 AND upper(type) = 'INTEGER' AND (SELECT "
                                      "count(*) FROM pragma_table_info('" +
                                      table + "') WHERE pk > 0) = 1")
                     : "";
    for (const std::string& col :
         column(db, "SELECT name FROM pragma_table_info('" + table + "') ORDER BY cid")) {
      if (std::find(skip_columns.begin(), skip_columns.end(), col) == skip_columns.end() &&
          col != own_id)
        cols.push_back(col);
    }
    std::string list, order;
    int shown = 0;
    for (size_t i = 0; i < cols.size(); ++i) {
      const bool sid = resolve_sids && (cols[i].ends_with("_sid") ||
                                        (table == "strings" && cols[i] == "string_id"));
      if (table == "strings" && sid) continue;
      const std::string quoted = "\"" + table + "\".\"" + cols[i] + "\"";
      std::string shown_as = quoted;
      if (sid)
        shown_as = "(SELECT text FROM strings WHERE string_id = " + quoted + ")";
      else if (resolve_sids && cols[i] == "source_id")  // a source by its path
        shown_as = "(SELECT path FROM source s WHERE s.source_id = " + quoted + ")";
      list += (list.empty() ? "" : ", ") + shown_as + " AS \"" + cols[i] + "\"";
      ++shown;
      order += (order.empty() ? "" : ", ") + std::to_string(shown);
    }
    out += "# table " + table + "\n";
    out += query_csv(db, "SELECT " + list + " FROM \"" + table + "\" ORDER BY " + order);
  }
  return out;
}

}  // namespace

std::string dump_tables(store::Database& db, const std::vector<std::string>& skip_columns) {
  return dump_all(db, skip_columns, false);
}

std::string dump_tables_by_text(store::Database& db, const std::vector<std::string>& skip_columns) {
  return dump_all(db, skip_columns, true);
}

std::vector<std::string> column(store::Database& db, const std::string& sql) {
  auto st = db.prepare(sql);
  std::vector<std::string> out;
  while (st.step()) out.push_back(st.is_null(0) ? "<NULL>" : st.str(0));
  return out;
}

}  // namespace rcf::testing
