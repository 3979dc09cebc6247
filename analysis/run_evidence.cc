#include "analysis/run_evidence.h"

#include <fmt/format.h>

#include "store/run_evidence_queries.h"

namespace rcf::analysis {

std::string no_evidence_reason(store::Database& db, int64_t run_id) {
  int64_t files = 0;
  std::string formats;
  for (const store::SourceFormatCount& c : store::source_counts_by_format(db, run_id)) {
    if (c.format != "empty" && c.format != "unrecognized" && c.format != "unreadable") return "";
    files += c.sources;
    formats += fmt::format("{}{} {}", formats.empty() ? "" : ", ", c.format, c.sources);
  }
  if (files == 0) return "no log was ingested into it";
  return fmt::format("none of its {} file{} is a log in a known format ({})", files,
                     files == 1 ? "" : "s", formats);
}

std::string missing_recompile_record(store::Database& db, int64_t run_id) {
  const store::DynamoRecordPresence found = store::dynamo_record_presence(db, run_id);
  if (!found.dynamo_text || found.recompile_record) return "";
  return "its Dynamo logs hold no recompile record (guard dumps, bytecode or explain() output "
         "show none): TORCH_LOGS=recompiles would show each recompile and its reason, "
         "recompiles_verbose every failing guard";
}

}  // namespace rcf::analysis
