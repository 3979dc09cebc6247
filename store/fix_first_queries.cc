#include "store/fix_first_queries.h"

#include <limits>

namespace rcf::store {

std::vector<FixFirstRow> fix_first_of_run(Database& db, int64_t run_id, int64_t rows) {
  auto st = db.prepare(
      "SELECT rank, site, cause, recompiles, compile_ms_lost, compile_ms_basis, first_step, "
      "last_step, detail, subject, remedy FROM fix_first WHERE run_id = ? AND rank <= ? "
      "ORDER BY rank");
  st.bind(1, run_id).bind(2, rows > 0 ? rows : std::numeric_limits<int64_t>::max());
  std::vector<FixFirstRow> out;
  while (st.step()) {
    FixFirstRow f;
    f.rank = st.int64(0);
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
      "SELECT count(*), coalesce(sum(cause = 'unknown'), 0) FROM fix_first WHERE run_id = ?");
  st.bind(1, run_id);
  FixFirstTotals t;
  if (st.step()) {
    t.rows = st.int64(0);
    t.unknown = st.int64(1);
  }
  return t;
}

}  // namespace rcf::store
