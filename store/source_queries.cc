#include "store/source_queries.h"

#include <fmt/format.h>

namespace rcf::store {

int64_t rejected_lines_of_run(Database& db, int64_t run_id) {
  auto st = db.prepare("SELECT coalesce(sum(rejected), 0) FROM source WHERE run_id = ?");
  st.bind(1, run_id);
  return st.step() ? st.int64(0) : 0;
}

std::vector<std::string> formats_of_run(Database& db, int64_t run_id) {
  auto st = db.prepare("SELECT DISTINCT format FROM source WHERE run_id = ? ORDER BY format");
  st.bind(1, run_id);
  std::vector<std::string> out;
  while (st.step()) out.push_back(st.str(0));
  return out;
}

RunSources sources_of_run(Database& db, int64_t run_id, int64_t limit) {
  RunSources out;
  auto count = db.prepare("SELECT count(*) FROM source WHERE run_id = ?");
  count.bind(1, run_id);
  out.total = count.step() ? count.int64(0) : 0;
  auto st = db.prepare(
      "SELECT source_id, path, format, encoding, lines, bytes, events, skipped, rejected, "
      "warnings, first_error, read_error FROM source WHERE run_id = ? ORDER BY path, source_id "
      "LIMIT ?");
  st.bind(1, run_id).bind(2, limit);
  auto notes = db.prepare(
      "SELECT reason, count FROM line_note WHERE source_id = ? AND fate = 'rejected' "
      "ORDER BY count DESC, reason");
  while (st.step()) {
    SourceRow s;
    s.path = st.str(1);
    s.format = st.str(2);
    s.encoding = st.str(3);
    s.lines = st.int64(4);
    s.bytes = st.int64(5);
    s.events = st.int64(6);
    s.skipped = st.int64(7);
    s.rejected = st.int64(8);
    s.warnings = st.int64(9);
    s.first_error = st.str(10);
    s.read_error = st.str(11);
    if (s.rejected > 0) {
      notes.reset();
      notes.bind(1, st.int64(0));
      while (notes.step())
        s.rejected_reasons += fmt::format("{}{} {}", s.rejected_reasons.empty() ? "" : ", ",
                                          notes.str(0), notes.int64(1));
    }
    out.listed.push_back(std::move(s));
  }
  return out;
}

std::vector<MergedSourceRow> merged_sources_of_run(Database& db, int64_t run_id) {
  auto st = db.prepare(
      "SELECT source, same_process_as, evidence FROM merged_sources WHERE run_id = ? "
      "ORDER BY source");
  st.bind(1, run_id);
  std::vector<MergedSourceRow> out;
  while (st.step()) out.push_back({st.str(0), st.str(1), st.str(2)});
  return out;
}

std::vector<SourceHostRow> hosts_of_run(Database& db, int64_t run_id) {
  auto st = db.prepare(
      "SELECT coalesce(host, ''), count(*) FROM source WHERE run_id = ? GROUP BY 1 ORDER BY 1");
  st.bind(1, run_id);
  std::vector<SourceHostRow> out;
  while (st.step()) out.push_back({st.str(0), st.int64(1)});
  return out;
}

}  // namespace rcf::store
