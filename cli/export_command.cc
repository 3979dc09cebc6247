// `rcf export`: the store's public views as a partitioned, gzip-compressed dataset for warehouse
// engines (store/export_views.h, docs/export.md). Exit 0 when written, 2 for usage and input
// errors (an --out that exists and is not empty included).
#include <fmt/format.h>

#include <memory>

#include "cli/commands.h"
#include "cli/print_text.h"
#include "store/export_views.h"
#include "store/store.h"
#include "util/safe_text.h"

namespace rcf::cli {

Command add_export_command(CLI::App& app) {
  struct Options {
    std::string db = "rcf.db";
    std::string out;
    std::string format = "ndjson";
  };
  auto opt = std::make_shared<Options>();
  auto* cmd = app.add_subcommand(
      "export", "Write the public views as a Hive-partitioned gzip dataset (docs/export.md)");
  cmd->add_option("--db", opt->db, "SQLite database")->capture_default_str();
  cmd->add_option("--out", opt->out, "New (or empty) directory to write the dataset to")
      ->required();
  cmd->add_option("--format", opt->format, "ndjson or csv")
      ->check(CLI::IsMember({"ndjson", "csv"}))
      ->capture_default_str();
  return {cmd, [opt]() {
            auto db = store::open_store(opt->db, store::OpenMode::kRead);
            auto format =
                opt->format == "csv" ? store::ExportFormat::kCsv : store::ExportFormat::kNdjson;
            auto result = store::export_views(*db, opt->out, format);
            int64_t rows = 0;
            for (const auto& view : result.views) rows += view.rows;
            print_text(fmt::format("exported {} views ({} rows) to {}\n", result.views.size(), rows,
                                   util::field_text(result.out_dir)));
            return kExitOk;
          }};
}

}  // namespace rcf::cli
