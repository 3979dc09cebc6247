#include "store/gate_fact_reader.h"

#include <fmt/format.h>

#include "store/fix_first_queries.h"

namespace rcf::store {

std::vector<RunRef> runs_in_ingest_order(Database& db, const std::string& lane,
                                         const std::string& run) {
  auto st = db.prepare(
      "SELECT run_id, run FROM runs WHERE lane = ?1 AND (?2 = '' OR run = ?2) ORDER BY run_id");
  st.bind(1, lane).bind(2, run);
  std::vector<RunRef> runs;
  while (st.step()) runs.push_back({st.int64(0), lane, st.str(1)});
  return runs;
}

std::vector<std::string> run_labels_in_ingest_order(Database& db, const std::string& lane) {
  auto st = db.prepare("SELECT run FROM runs WHERE lane = ? ORDER BY run_id");
  st.bind(1, lane);
  std::vector<std::string> labels;
  while (st.step()) labels.push_back(st.str(0));
  return labels;
}

std::optional<int64_t> first_run_labelled(Database& db, const std::string& lane,
                                          const std::string& label) {
  auto st = db.prepare("SELECT run_id FROM runs WHERE lane = ? AND run = ? ORDER BY run_id");
  st.bind(1, lane).bind(2, label);
  if (st.step()) return st.int64(0);
  return std::nullopt;
}

CompileCounts compile_counts_of_run(Database& db, int64_t run_id) {
  auto st = db.prepare(
      "SELECT count(*), count(DISTINCT CASE WHEN kind <> 'dynamo_failed' THEN program_key END) "
      "FROM compiles WHERE run_id = ?");
  st.bind(1, run_id);
  if (!st.step()) return {};
  return {st.int64(0), st.int64(1)};
}

std::vector<CurveCounts> curve_counts_of_run(Database& db, int64_t run_id) {
  auto st = db.prepare(
      "SELECT step, programs_cached, compiles_in_step FROM convergence WHERE run_id = ? "
      "ORDER BY step");
  st.bind(1, run_id);
  std::vector<CurveCounts> curve;
  while (st.step()) curve.push_back({st.int64(0), st.int64(1), st.int64(2)});
  return curve;
}

std::optional<StepAxisText> step_axis_of_run(Database& db, int64_t run_id) {
  auto st = db.prepare("SELECT step_axis, step_detail FROM convergence_summary WHERE run_id = ?");
  st.bind(1, run_id);
  if (!st.step()) return std::nullopt;
  return StepAxisText{st.str(0), st.str(1)};
}

CompileTimeRow summary_compile_time(Database& db, int64_t run_id) {
  auto st = db.prepare(
      "SELECT compile_share, compile_ms, wall_ms FROM convergence_summary WHERE run_id = ?");
  st.bind(1, run_id);
  if (!st.step()) return {};
  return {st.opt_real(0), st.opt_real(1), st.opt_real(2)};
}

CompileTimeRow curve_compile_time(Database& db, int64_t run_id) {
  auto st = db.prepare(
      "SELECT sum(compile_ms), sum(wall_ms) FROM convergence WHERE run_id = ? AND wall_ms IS NOT "
      "NULL");
  st.bind(1, run_id);
  if (!st.step()) return {};
  return {std::nullopt, st.opt_real(0), st.opt_real(1)};
}

CompileTimeRow step_timing_compile_time(Database& db, int64_t run_id) {
  auto st = db.prepare(
      "SELECT sum(c), sum(w) FROM (SELECT max(compile_ms) AS c, max(wall_ms) AS w "
      "FROM step_timing WHERE run_id = ? GROUP BY step) WHERE w IS NOT NULL");
  st.bind(1, run_id);
  if (!st.step()) return {};
  return {std::nullopt, st.opt_real(0), st.opt_real(1)};
}

std::optional<double> timed_compile_ms(Database& db, int64_t run_id) {
  auto st = db.prepare("SELECT sum(compile_ms) FROM compiles WHERE run_id = ?");
  st.bind(1, run_id);
  if (!st.step()) return std::nullopt;
  return st.opt_real(0);
}

int64_t implausible_rows_of_run(Database& db, int64_t run_id) {
  auto st = db.prepare(
      "SELECT coalesce(sum(n.count), 0) FROM line_note n JOIN source s USING (source_id) "
      "WHERE s.run_id = ? AND n.reason LIKE 'implausible\\_%' ESCAPE '\\'");
  st.bind(1, run_id);
  return st.step() ? st.int64(0) : 0;
}

namespace {

// The rows of a statement that selects site, cause, recompiles, detail, first and last step.
std::vector<CauseGroupRow> cause_group_rows(Statement& st) {
  std::vector<CauseGroupRow> groups;
  while (st.step())
    groups.push_back(
        {st.str(0), st.str(1), st.int64(2), st.str(3), st.opt_int64(4), st.opt_int64(5)});
  return groups;
}

}  // namespace

std::vector<CauseGroupRow> fix_first_groups(Database& db, int64_t run_id) {
  auto st = db.prepare(
      fmt::format("SELECT site.text, g.cause, g.recompiles, coalesce(g.detail, ''), g.first_step, "
                  "g.last_step FROM cause_group g JOIN strings site ON site.string_id = g.site_sid "
                  "WHERE g.run_id = ? ORDER BY {}",
                  kFixFirstOrder));
  st.bind(1, run_id);
  return cause_group_rows(st);
}

std::vector<CauseGroupRow> recompile_groups(Database& db, int64_t run_id) {
  // From the tables, not the views: a view joined by ordinal is materialised and scanned once per
  // row (a run of a million compiles took minutes).
  auto st = db.prepare(
      "WITH g AS (SELECT c.site_sid, a.cause, count(*) AS n, min(c.step) AS first_step, "
      "max(c.step) AS last_step, max(c.ordinal) AS latest FROM compile_event c "
      "JOIN attribution a ON a.compile_row = c.compile_row "
      "WHERE c.run_id = ?1 AND a.cause <> 'first_compile' GROUP BY c.site_sid, a.cause) "
      "SELECT site.text, g.cause, g.n, coalesce(a.detail, ''), g.first_step, g.last_step FROM g "
      "JOIN strings site ON site.string_id = g.site_sid "
      "LEFT JOIN compile_event c ON c.run_id = ?1 AND c.ordinal = g.latest "
      "LEFT JOIN attribution a ON a.compile_row = c.compile_row "
      "ORDER BY g.n DESC, site.text, g.cause");
  st.bind(1, run_id);
  return cause_group_rows(st);
}

std::vector<ArrivalRow> program_arrivals(Database& db, int64_t run_id) {
  // From the tables, not the views (recompile_groups says why), each program's first compile
  // looked up by its ordinal (CROSS JOIN keeps that order: the other way round scans the firsts
  // once per compile). A compile attributed first_compile is no recompile.
  auto st = db.prepare(
      "WITH firsts AS (SELECT min(ordinal) AS ordinal FROM compile_event WHERE run_id = ?1 "
      "AND kind <> 'dynamo_failed' GROUP BY program_key) "
      "SELECT c.step, site.text, coalesce(r.cause, 'first_compile'), coalesce(r.detail, '') "
      "FROM firsts f CROSS JOIN compile_event c ON c.run_id = ?1 AND c.ordinal = f.ordinal "
      "JOIN strings site ON site.string_id = c.site_sid "
      "LEFT JOIN attribution r ON r.compile_row = c.compile_row AND r.cause <> 'first_compile' "
      "WHERE c.step IS NOT NULL ORDER BY c.step, c.ordinal");
  st.bind(1, run_id);
  std::vector<ArrivalRow> arrivals;
  while (st.step()) arrivals.push_back({st.int64(0), st.str(1), st.str(2), st.str(3)});
  return arrivals;
}

}  // namespace rcf::store
