#include "store/watch_queries.h"

#include <algorithm>
#include <atomic>

namespace rcf::store {
namespace {

uint64_t next_row_version() {
  static std::atomic<uint64_t> last{0};
  return ++last;
}

constexpr const char* kCompileColumns =
    "SELECT c.ordinal, c.step, site.text, c.program_key, c.kind, coalesce(a.cause, ''), "
    "coalesce(a.detail, ''), c.compile_ms, s.path, c.line, c.rank, c.epoch, c.ca_id, "
    "c.frame_id, c.frame_compile_id "
    "FROM compile_event c JOIN strings site ON site.string_id = c.site_sid "
    "JOIN source s ON s.source_id = c.source_id "
    "LEFT JOIN attribution a ON a.compile_row = c.compile_row ";

WatchCompileRow compile_row_of(Statement& st) {
  WatchCompileRow r;
  r.ordinal = st.int64(0);
  r.step = st.opt_int64(1);
  r.site = st.str(2);
  r.program_key = st.str(3);
  r.kind = st.str(4);
  r.cause = st.str(5);
  r.detail = st.str(6);
  r.compile_ms = st.opt_real(7);
  r.source = st.str(8);
  r.line = st.int64(9);
  r.rank = st.int64(10);
  r.epoch = st.int64(11);
  r.ca_id = st.int64(12);
  r.frame_id = st.int64(13);
  r.frame_compile_id = st.int64(14);
  r.version = next_row_version();
  return r;
}

void read_compiles(Database& db, int64_t run_id, std::vector<WatchCompileRow>& out) {
  auto st = db.prepare(std::string(kCompileColumns) + "WHERE c.run_id = ? ORDER BY c.ordinal");
  st.bind(1, run_id);
  while (st.step()) out.push_back(compile_row_of(st));
}

// Reads the compiles at `ordinals` (ascending) into `rows` (by ordinal - 1), one lookup each
// through the (run_id, ordinal) index.
void read_compiles_at(Database& db, int64_t run_id, const std::vector<int64_t>& ordinals,
                      std::vector<WatchCompileRow>& rows) {
  auto st = db.prepare(std::string(kCompileColumns) + "WHERE c.run_id = ? AND c.ordinal = ?");
  for (int64_t ordinal : ordinals) {
    st.bind(1, run_id).bind(2, ordinal);
    if (st.step() && ordinal >= 1 && static_cast<size_t>(ordinal) <= rows.size())
      rows[static_cast<size_t>(ordinal - 1)] = compile_row_of(st);
    st.reset();
  }
}

void read_limit_hits(Database& db, int64_t run_id, std::vector<WatchLimitRow>& out) {
  auto st = db.prepare(
      "SELECT source, line, limit_type, limit_value, coalesce(function, ''), coalesce(file, ''), "
      "firstlineno, coalesce(last_reason, ''), hard_failure FROM recompile_limit_hits "
      "WHERE run_id = ? ORDER BY source, line");
  st.bind(1, run_id);
  while (st.step()) {
    WatchLimitRow r;
    r.source = st.str(0);
    r.line = st.int64(1);
    r.limit_type = st.str(2);
    r.limit_value = st.opt_int64(3);
    r.function = st.str(4);
    r.file = st.str(5);
    r.firstlineno = st.opt_int64(6);
    r.last_reason = st.str(7);
    r.hard_failure = st.int64(8) != 0;
    out.push_back(std::move(r));
  }
}

void read_breaks(Database& db, int64_t run_id, std::vector<WatchBreakRow>& out) {
  auto st = db.prepare(
      "SELECT source, line, coalesce(gb_type, ''), coalesce(reason, ''), coalesce(user_file, ''), "
      "coalesce(user_function, ''), user_line FROM graph_breaks WHERE run_id = ? "
      "ORDER BY source, line");
  st.bind(1, run_id);
  while (st.step()) {
    WatchBreakRow r;
    r.source = st.str(0);
    r.line = st.int64(1);
    r.gb_type = st.str(2);
    r.reason = st.str(3);
    r.user_file = st.str(4);
    r.user_function = st.str(5);
    r.user_line = st.opt_int64(6);
    out.push_back(std::move(r));
  }
}

// Wall time per step from the step timings (the longest rank's) and each such step's compile time
// from the curve (its points are the steps that compiled), only where the run's steps are training
// steps: a sync counter and a step counter do not line up. Only the steps with a wall time are
// read: the compile-share storm weighs nothing else, and a run without step timings has a curve
// point per step that compiled (50 000 rows read at every batch of a watched training console).
void read_steps(Database& db, int64_t run_id, WatchRunRows& out) {
  auto summary =
      db.prepare("SELECT state, settle_step, step_axis FROM convergence_summary WHERE run_id = ?");
  summary.bind(1, run_id);
  if (!summary.step()) return;
  out.convergence_state = summary.str(0);
  out.settle_step = summary.opt_int64(1);
  if (summary.text(2) != "step") return;
  auto st = db.prepare(
      "SELECT t.step, p.compile_ms, t.wall_ms FROM (SELECT step, max(wall_ms) AS wall_ms "
      "FROM step_timing WHERE run_id = ?1 GROUP BY step) t LEFT JOIN convergence_point p "
      "ON p.run_id = ?1 AND p.step = t.step ORDER BY t.step");
  st.bind(1, run_id);
  while (st.step()) {
    WatchStepRow r;
    r.step = st.int64(0);
    r.compile_ms = st.opt_real(1);
    r.wall_ms = st.opt_real(2);
    out.steps.push_back(r);
  }
}

// The run's rows but its compiles.
WatchRunRows read_all_but_compiles(Database& db, int64_t run_id) {
  WatchRunRows rows;
  read_limit_hits(db, run_id, rows.limit_hits);
  read_breaks(db, run_id, rows.breaks);
  read_steps(db, run_id, rows);
  return rows;
}

}  // namespace

WatchRunRows read_watch_rows(Database& db, int64_t run_id) {
  WatchRunRows rows = read_all_but_compiles(db, run_id);
  read_compiles(db, run_id, rows.compiles);
  return rows;
}

void update_watch_rows(Database& db, int64_t run_id, const CompileRowMemo& memo,
                       WatchRunRows& rows) {
  // Past about one compile in eight, one scan costs less than a lookup each.
  const size_t count = memo.rows.size();
  if (memo.whole || memo.written.size() > count / 8) {
    rows = WatchRunRows();  // the old rows go before the new are read, not after
    rows = read_watch_rows(db, run_id);
    return;
  }
  size_t unchanged = std::min(rows.unchanged_before, std::min(count, rows.compiles.size()));
  for (int64_t ordinal : memo.written)
    if (ordinal >= 1) unchanged = std::min(unchanged, static_cast<size_t>(ordinal - 1));
  // An eighth more when it grows, not the double a resize gives (a watch adds a few rows a batch).
  if (count > rows.compiles.capacity()) rows.compiles.reserve(count + count / 8);
  rows.compiles.resize(count);
  read_compiles_at(db, run_id, memo.written, rows.compiles);
  WatchRunRows rest = read_all_but_compiles(db, run_id);
  rest.compiles = std::move(rows.compiles);
  rest.unchanged_before = unchanged;
  rows = std::move(rest);
}

KeptWatchRows keep_watch_rows(const WatchRunRows& rows, const CompileRowMemo& memo) {
  KeptWatchRows kept;
  kept.compiles = rows.compiles.size();
  for (int64_t ordinal : memo.written)
    if (ordinal >= 1 && static_cast<size_t>(ordinal) <= kept.compiles)
      kept.written.emplace_back(ordinal - 1, rows.compiles[static_cast<size_t>(ordinal - 1)]);
  kept.rest.limit_hits = rows.limit_hits;
  kept.rest.breaks = rows.breaks;
  kept.rest.steps = rows.steps;
  kept.rest.convergence_state = rows.convergence_state;
  kept.rest.settle_step = rows.settle_step;
  return kept;
}

void put_back_watch_rows(KeptWatchRows kept, WatchRunRows& rows) {
  std::vector<WatchCompileRow> compiles = std::move(rows.compiles);
  size_t unchanged = std::min({rows.unchanged_before, kept.compiles, compiles.size()});
  rows = std::move(kept.rest);
  compiles.resize(kept.compiles);
  for (auto& [index, row] : kept.written) {
    compiles[index] = std::move(row);
    unchanged = std::min(unchanged, index);
  }
  rows.compiles = std::move(compiles);
  rows.unchanged_before = unchanged;
}

}  // namespace rcf::store
