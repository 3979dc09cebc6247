// `rcf query`: the rows of a public view, or of one read-only SQL statement, as JSON (an array of
// objects, one per row, keys in column order) or NDJSON (one object a line). The Python package
// reads it (rcf.query, docs/python.md). Exit 0 with the rows, 2 for usage and input errors (a
// statement that does not prepare, would write, or names nothing).
#include <fmt/format.h>

#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "cli/print_text.h"
#include "store/export_format.h"
#include "store/read_query.h"
#include "store/store.h"

namespace rcf::cli {

Command add_query_command(CLI::App& app) {
  struct Options {
    std::string db = "rcf.db";
    std::string format = "json";
    std::string sql;
  };
  auto opt = std::make_shared<Options>();
  auto* cmd = app.add_subcommand(
      "query",
      "Print the rows of a public view or of one read-only SQL statement as JSON "
      "(docs/schema.md)");
  cmd->add_option("--db", opt->db, "SQLite database")->capture_default_str();
  cmd->add_option("--format", opt->format, "json (one array) or ndjson (one object a line)")
      ->check(CLI::IsMember({"json", "ndjson"}))
      ->capture_default_str();
  cmd->add_option("SQL_OR_VIEW", opt->sql,
                  "A view or table name (e.g. recompiles), or one SELECT statement")
      ->required();
  return {
      cmd, [opt]() {
        auto db = store::open_store(opt->db, store::OpenMode::kRead);
        const bool ndjson = opt->format == "ndjson";
        std::vector<std::string> columns;
        std::string out;
        int64_t rows = 0;
        // Rows go out in pieces, so a large result is never held whole.
        const auto flush = [&out]() {
          print_text(out);
          out.clear();
        };
        store::run_read_query(
            *db, opt->sql, [&columns](const std::vector<std::string>& names) { columns = names; },
            [&](const store::Statement& row) {
              nlohmann::ordered_json object = nlohmann::ordered_json::object();
              for (size_t i = 0; i < columns.size(); ++i)
                object[columns[i]] = store::json_value(row, static_cast<int>(i));
              // ASCII only: a control character or DEL from a log is a JSON escape, never a
              // byte a terminal acts on.
              const std::string text = object.dump(
                  -1, ' ', /*ensure_ascii=*/true, nlohmann::ordered_json::error_handler_t::replace);
              if (ndjson)
                out += text + "\n";
              else
                out += (rows == 0 ? "[\n" : ",\n") + text;
              ++rows;
              if (out.size() > (1 << 20)) flush();
            });
        if (!ndjson) out += rows == 0 ? "[]\n" : "\n]\n";
        flush();
        return kExitOk;
      }};
}

}  // namespace rcf::cli
