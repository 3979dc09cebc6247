#include "store/derived_results_writer.h"

#include <fmt/format.h>

#include <algorithm>
#include <string>

#include "store/compile_row_hasher.h"

namespace rcf::store {

// ---- analyze_runs' derived results: begin ----

void clear_derived_results(Database& db, int64_t run_id, bool only_run, bool keep_compiles,
                           bool keep_points) {
  // A store of one run: every derived row is the run's, and a table emptied whole loses its
  // pages at once.
  auto clear = [&db, run_id, only_run](const char* table, const char* where) {
    if (only_run) {
      db.exec(fmt::format("DELETE FROM {}", table));
      return;
    }
    auto st = db.prepare(fmt::format("DELETE FROM {} WHERE {}", table, where));
    st.bind(1, run_id);
    st.run();
  };
  if (!keep_compiles) {
    clear("attribution", "compile_row IN (SELECT compile_row FROM compile_event WHERE run_id=?)");
    clear("compile_event", "run_id=?");
  }
  if (!keep_points) clear("convergence_point", "run_id=?");
  clear("run_convergence", "run_id=?");
  if (!keep_compiles) clear("cause_group", "run_id=?");
}

void write_source_merges(Database& db, int64_t run_id, const std::vector<SourceMergeRow>& merges) {
  auto clear = db.prepare("DELETE FROM source_merge WHERE run_id=?");
  clear.bind(1, run_id);
  clear.run();
  if (merges.empty()) return;
  auto insert = db.prepare(
      "INSERT INTO source_merge(run_id, source_id, same_process_as, evidence) VALUES (?,?,?,?)");
  for (const SourceMergeRow& m : merges) {
    insert.bind(1, run_id).bind(2, m.source_id).bind(3, m.same_process_as);
    insert.bind(4, m.evidence);
    insert.run();
  }
}

namespace {

constexpr const char* kPointColumns =
    "convergence_point(run_id, step, programs_cached, compiles_in_step, compile_ms, wall_ms) "
    "VALUES (?,?,?,?,?,?)";

// Whether each point's step is above the one before (what a memo of the points can be diffed by).
bool strictly_by_step(const std::vector<ConvergencePoint>& points) {
  return std::adjacent_find(points.begin(), points.end(), [](const auto& a, const auto& b) {
           return a.step >= b.step;
         }) == points.end();
}

void write_point(Statement& write, int64_t run_id, const ConvergencePoint& p) {
  write.bind(1, run_id)
      .bind(2, p.step)
      .bind(3, p.programs_cached)
      .bind(4, p.compiles_in_step)
      .bind(5, p.compile_ms)
      .bind(6, p.wall_ms);
  write.run();
}

// The points of `now` that differ from `before` (both strictly by step) are written over, and the
// steps of `before` that `now` lacks deleted: a growing run changes its last few points.
void write_changed_points(Database& db, int64_t run_id, const std::vector<ConvergencePoint>& before,
                          const std::vector<ConvergencePoint>& now) {
  auto write = db.prepare(std::string("INSERT OR REPLACE INTO ") + kPointColumns);
  auto remove = db.prepare("DELETE FROM convergence_point WHERE run_id=? AND step=?");
  size_t i = 0, j = 0;
  while (i < before.size() || j < now.size()) {
    if (j == now.size() || (i < before.size() && before[i].step < now[j].step)) {
      remove.bind(1, run_id).bind(2, before[i++].step);
      remove.run();
      continue;
    }
    const bool same_step = i < before.size() && before[i].step == now[j].step;
    if (!same_step || !(before[i] == now[j])) write_point(write, run_id, now[j]);
    i += same_step ? 1 : 0;
    ++j;
  }
}

}  // namespace

void write_convergence_points(Database& db, int64_t run_id, std::vector<ConvergencePoint> points,
                              CompileRowMemo* memo) {
  const bool diffable = strictly_by_step(points);
  if (memo && memo->points_known && diffable) {
    write_changed_points(db, run_id, memo->points, points);
  } else {
    if (memo && memo->points_known) {  // kept by clear_derived_results, but cannot be diffed
      auto clear = db.prepare("DELETE FROM convergence_point WHERE run_id=?");
      clear.bind(1, run_id);
      clear.run();
    }
    auto write = db.prepare(std::string("INSERT INTO ") + kPointColumns);
    for (const auto& p : points) write_point(write, run_id, p);
  }
  if (!memo) return;
  memo->points_known = diffable;
  memo->points = diffable ? std::move(points) : std::vector<ConvergencePoint>();
}

CauseGroupWriter::CauseGroupWriter(Database& db, StringInterner& strings, int64_t run_id,
                                   CompileRowMemo* memo, bool changed_only)
    : db_(db),
      strings_(strings),
      run_id_(run_id),
      memo_(memo),
      changed_only_(memo && changed_only),
      groups_(db, "cause_group",
              {"run_id", "site_sid", "cause", "recompiles", "compile_ms_lost", "compile_ms_basis",
               "first_step", "last_step", "detail", "subject_sid", "remedy_variant"},
              nullptr, 32) {
  if (memo_) handed_.assign(memo_->groups.size(), false);
}

void CauseGroupWriter::write(CauseGroup&& g) {
  const int64_t site_sid = g.site_sid != 0 ? g.site_sid : strings_.id(g.site);
  if (memo_) {
    // The subject by its text: its string id is looked up only for a row written.
    CompileRowHasher row;
    row.val(g.recompiles)
        .val(g.compile_ms_lost)
        .val_unowned(g.compile_ms_basis)
        .val(g.first_step)
        .val(g.last_step)
        .val_unowned_or_null(g.detail)
        .val_unowned_or_null(g.subject)
        .val_unowned(g.remedy_variant);
    const CompileRowDigest digest = CompileRowHasher::combine(row, CompileRowHasher());
    const CauseGroupKey key{site_sid, memo_->cause_number(g.cause)};
    if (g.after_checkpoint) after_checkpoint_.push_back(key);
    const size_t at = memo_->group_place(key);
    if (at < memo_->groups.size()) {
      handed_[at] = true;
      if (memo_->groups[at].digest == digest) return;
      delete_row(key);
      memo_->groups[at].digest = digest;
    } else {
      added_.push_back({key, digest});
    }
  }
  const std::optional<int64_t> subject_sid = strings_.id_or_null(g.subject);
  groups_.val(run_id_)
      .val(site_sid)
      .val(g.cause)
      .val(g.recompiles)
      .val(g.compile_ms_lost)
      .val(g.compile_ms_basis)
      .val(g.first_step)
      .val(g.last_step);
  if (g.detail.empty())
    groups_.null();
  else
    groups_.val(std::move(g.detail));
  groups_.val(subject_sid).val(g.remedy_variant);
}

void CauseGroupWriter::finish() {
  groups_.flush();
  if (!memo_) return;
  // The groups the run no longer has: every group not handed, or, when only the changed ones
  // were, those the last analysis changed after its checkpoint that were not handed again.
  const auto& old = memo_->groups;
  std::vector<bool> gone(old.size(), false);
  if (changed_only_) {
    for (const CauseGroupKey& key : memo_->groups_after_checkpoint) {
      const size_t at = memo_->group_place(key);
      if (at < old.size() && !handed_[at]) gone[at] = true;
    }
  } else {
    for (size_t at = 0; at < old.size(); ++at) gone[at] = !handed_[at];
  }
  for (size_t at = 0; at < old.size(); ++at)
    if (gone[at]) delete_row(old[at].key);
  update_memo(gone);
}

void CauseGroupWriter::update_memo(const std::vector<bool>& gone) {
  auto& groups = memo_->groups;
  size_t kept = 0;
  for (size_t at = 0; at < groups.size(); ++at)
    if (!gone[at]) groups[kept++] = groups[at];
  groups.resize(kept);
  auto by_key = [](const auto& a, const auto& b) { return a.key < b.key; };
  std::sort(added_.begin(), added_.end(), by_key);
  groups.insert(groups.end(), added_.begin(), added_.end());
  std::inplace_merge(groups.begin(), groups.begin() + static_cast<std::ptrdiff_t>(kept),
                     groups.end(), by_key);
  memo_->groups_after_checkpoint = std::move(after_checkpoint_);
  memo_->groups_generation = memo_->generation;
}

void CauseGroupWriter::delete_row(const CauseGroupKey& key) {
  if (!delete_)
    delete_.emplace(
        db_.prepare("DELETE FROM cause_group WHERE run_id=? AND site_sid=? AND cause=?"));
  delete_->bind(1, run_id_).bind(2, key.site_sid).bind(3, memo_->group_causes[key.cause]);
  delete_->run();
}

void write_run_convergence(Database& db, int64_t run_id, const RunConvergenceRow& row) {
  auto insert_run = db.prepare(
      "INSERT INTO run_convergence(run_id, state, first_step, last_step, settle_step, "
      "programs_at_settle, final_programs, new_after_growth_step, growth_step, compiles, programs, "
      "recompiles, compile_ms, wall_ms, execute_ms, compile_share) "
      "VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)");
  insert_run.bind(1, run_id)
      .bind(2, row.state)
      .bind(3, row.first_step)
      .bind(4, row.last_step)
      .bind(5, row.settle_step)
      .bind(6, row.programs_at_settle)
      .bind(7, row.final_programs)
      .bind(8, row.new_after_growth_step)
      .bind(9, row.growth_step)
      .bind(10, row.compiles)
      .bind(11, row.programs)
      .bind(12, row.recompiles)
      .bind(13, row.compile_ms)
      .bind(14, row.wall_ms)
      .bind(15, row.execute_ms)
      .bind(16, row.compile_share);
  insert_run.run();
}

void write_counted_compiles(Database& db, int64_t run_id, const CountedCompiles& counted) {
  auto st = db.prepare(
      "UPDATE run_convergence SET counted_compiles = ?, counted_by = ? WHERE run_id = ?");
  st.bind(1, counted.count).bind(2, counted.counted_by).bind(3, run_id);
  st.run();
}

void write_step_axis(Database& db, int64_t run_id, const StepAxisRow& axis) {
  auto st = db.prepare(
      "UPDATE run_convergence SET step_axis = ?, step_basis = ?, step_detail = ? WHERE run_id = ?");
  st.bind(1, axis.axis).bind(2, axis.basis).bind(3, axis.detail).bind(4, run_id);
  st.run();
}

// ---- analyze_runs' derived results: end ----

void write_rank_divergence_rows(Database& db, int64_t run_id,
                                const std::vector<RankDivergenceRow>& rows) {
  auto clear = db.prepare("DELETE FROM rank_divergence_row WHERE run_id = ?");
  clear.bind(1, run_id);
  clear.run();
  if (rows.empty()) return;
  auto insert = db.prepare(
      "INSERT INTO rank_divergence_row(run_id, kind, rank_groups, first_index, detail) "
      "VALUES (?,?,?,?,?)");
  for (const RankDivergenceRow& d : rows) {
    insert.bind(1, run_id).bind(2, d.kind).bind(3, d.rank_groups).bind(4, d.first_index);
    insert.bind(5, d.detail);
    insert.run();
  }
}

}  // namespace rcf::store
