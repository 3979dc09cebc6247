#include "store/convergence_queries.h"

namespace rcf::store {

std::optional<ConvergenceSummaryRow> convergence_summary_of_run(Database& db, int64_t run_id) {
  auto st = db.prepare(
      "SELECT state, first_step, last_step, settle_step, programs_at_settle, final_programs, "
      "new_after_growth_step, growth_step, compile_ms, wall_ms, compile_share, compiles, "
      "execute_ms, counted_compiles, counted_by, step_axis, step_basis, step_detail, programs "
      "FROM convergence_summary WHERE run_id = ?");
  st.bind(1, run_id);
  if (!st.step()) return std::nullopt;
  ConvergenceSummaryRow c;
  c.state = st.str(0);
  c.first_step = st.opt_int64(1);
  c.last_step = st.opt_int64(2);
  c.settle_step = st.opt_int64(3);
  c.programs_at_settle = st.opt_int64(4);
  c.final_programs = st.opt_int64(5);
  c.new_after_growth_step = st.opt_int64(6);
  c.growth_step = st.int64(7);
  c.compile_ms = st.opt_real(8);
  c.wall_ms = st.opt_real(9);
  c.compile_share = st.opt_real(10);
  c.compiles = st.int64(11);
  c.execute_ms = st.opt_real(12);
  c.counted_compiles = st.opt_int64(13);
  c.counted_by = st.str(14);
  c.step_axis = st.str(15);
  c.step_basis = st.str(16);
  c.step_detail = st.str(17);
  c.programs = st.int64(18);
  return c;
}

void for_each_convergence_point(Database& db, int64_t run_id,
                                const std::function<void(const ConvergencePointRow&)>& visit) {
  auto st = db.prepare(
      "SELECT step, programs_cached, compiles_in_step, compile_ms FROM convergence "
      "WHERE run_id = ? ORDER BY step");
  st.bind(1, run_id);
  while (st.step()) visit({st.int64(0), st.int64(1), st.int64(2), st.opt_real(3)});
}

}  // namespace rcf::store
