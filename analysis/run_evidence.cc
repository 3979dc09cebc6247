#include "analysis/run_evidence.h"

#include <fmt/format.h>

namespace rcf::analysis {

std::string no_evidence_reason(store::Database& db, int64_t run_id) {
  auto st = db.prepare(
      "SELECT format, count(*) FROM source WHERE run_id = ? GROUP BY format ORDER BY format");
  st.bind(1, run_id);
  int64_t files = 0;
  std::string formats;
  while (st.step()) {
    std::string format = st.str(0);
    if (format != "empty" && format != "unrecognized" && format != "unreadable") return "";
    files += st.int64(1);
    formats += fmt::format("{}{} {}", formats.empty() ? "" : ", ", format, st.int64(1));
  }
  if (files == 0) return "no log was ingested into it";
  return fmt::format("none of its {} file{} is a log in a known format ({})", files,
                     files == 1 ? "" : "s", formats);
}

}  // namespace rcf::analysis
