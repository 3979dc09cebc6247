#include "store/fix_first_queries.h"

#include <fmt/format.h>

#include <limits>

namespace rcf::store {

std::vector<FixFirstRow> fix_first_of_run(Database& db, int64_t run_id, int64_t rows) {
  auto st = db.prepare(fmt::format(
      "SELECT 0, site.text, g.cause, g.recompiles, g.compile_ms_lost, g.compile_ms_basis, "
      "g.first_step, g.last_step, g.detail, s.text, m.remedy FROM cause_group g "
      "JOIN strings site ON site.string_id = g.site_sid "
      "LEFT JOIN strings s ON s.string_id = g.subject_sid "
      "LEFT JOIN cause_remedy m ON m.cause = g.cause AND m.variant = g.remedy_variant "
      "WHERE g.run_id = ? ORDER BY {} LIMIT ?",
      kFixFirstOrder));
  st.bind(1, run_id).bind(2, rows > 0 ? rows : std::numeric_limits<int64_t>::max());
  std::vector<FixFirstRow> out;
  while (st.step()) {
    FixFirstRow f;
    f.rank = static_cast<int64_t>(out.size()) + 1;
    f.site = st.str(1);
    f.cause = st.str(2);
    f.recompiles = st.int64(3);
    f.compile_ms_lost = st.opt_real(4);
    f.compile_ms_basis = st.str(5);
    f.first_step = st.opt_int64(6);
    f.last_step = st.opt_int64(7);
    f.detail = st.str(8);
    f.subject = st.str(9);
    f.remedy = st.str(10);
    out.push_back(std::move(f));
  }
  return out;
}

FixFirstTotals fix_first_totals(Database& db, int64_t run_id) {
  auto st = db.prepare(
      "SELECT count(*), coalesce(sum(cause = 'unknown'), 0) FROM cause_group WHERE run_id = ?");
  st.bind(1, run_id);
  FixFirstTotals t;
  if (st.step()) {
    t.rows = st.int64(0);
    t.unknown = st.int64(1);
  }
  return t;
}

}  // namespace rcf::store
