#include "analysis/run_analysis.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

#include "analysis/dynamo_attribution.h"
#include "analysis/run_rollup.h"
#include "analysis/xla_compiles.h"
#include "analysis/xla_run_loader.h"
#include "store/string_interner.h"
#include "util/base_name.h"

namespace rcf::analysis {
namespace {

// Columns shared by every raw table: rank, epoch, frame_id, frame_compile_id, ca_id, source_id.
constexpr const char* kKeyColumns = "source_id, rank, epoch, ca_id, frame_id, frame_compile_id";

DynamoKey read_key(const store::Statement& st, int first, int64_t line) {
  DynamoKey k;
  k.source_id = st.int64(first);
  k.rank = st.int64(first + 1);
  k.epoch = st.int64(first + 2);
  k.ca_id = st.int64(first + 3);
  k.frame_id = st.int64(first + 4);
  k.frame_compile_id = st.int64(first + 5);
  if (k.frame_id < 0 && k.ca_id < 0) k.line_if_no_id = line;
  return k;
}

RunInputs load_run(store::Database& db, int64_t run_id) {
  RunInputs in;
  std::map<int64_t, std::optional<int64_t>> file_rank;
  auto sources = db.prepare("SELECT source_id, path, file_rank FROM source WHERE run_id=?");
  sources.bind(1, run_id);
  while (sources.step()) {
    in.source_names.emplace_back(sources.int64(0), base_name(sources.str(1)));
    file_rank[sources.int64(0)] = sources.opt_int64(2);
  }

  // Texts by string id, each read once: function names, files and reasons repeat over a run.
  auto text_query = db.prepare("SELECT text FROM strings WHERE string_id=?");
  auto text_of = [&](std::optional<int64_t> sid) -> std::string_view {
    if (!sid) return {};
    auto it = in.texts.find(*sid);
    if (it == in.texts.end()) {
      text_query.bind(1, *sid);
      it = in.texts.emplace(*sid, text_query.step() ? text_query.str(0) : std::string()).first;
      text_query.reset();
    }
    return it->second;
  };

  // Scans in row order (no sort, no joins): first the compiles' own records, then the compiles
  // known only by reference. Those are listed once per block that names them, and most name a
  // compile whose own record is in the log: only the first record of a compile without one is
  // kept, so that memory follows the number of compiles, not of log lines.
  constexpr const char* kCompileColumns =
      ", line, attempt, kind, co_name_sid, co_filename_sid, co_firstlineno, start_us, "
      "duration_ms, cache_size, accumulated_cache_size, has_guarded_code, fail_type_sid, "
      "fail_reason_sid, recompile_reason_sid FROM dynamo_compile_raw WHERE run_id=? AND ";
  auto own = db.prepare(std::string("SELECT ") + kKeyColumns + kCompileColumns +
                        "kind NOT IN ('runtime', 'backward', 'referenced') ORDER BY raw_id");
  auto by_reference = db.prepare(std::string("SELECT ") + kKeyColumns + kCompileColumns +
                                 "kind = 'referenced' ORDER BY raw_id");
  // Sized up front: growing vectors of a million records copies them and faults pages in twice.
  auto count_rows = [&](const char* sql) {
    auto st = db.prepare(sql);
    st.bind(1, run_id);
    return st.step() ? static_cast<size_t>(st.int64(0)) : size_t{0};
  };
  in.compiles.reserve(
      count_rows("SELECT count(*) FROM dynamo_compile_raw WHERE run_id=? AND kind NOT IN "
                 "('runtime', 'backward', 'referenced')"));
  in.reasons.reserve(count_rows("SELECT count(*) FROM guard_failure WHERE run_id=?"));
  in.breaks.reserve(count_rows("SELECT count(*) FROM graph_break WHERE run_id=?"));
  auto read_compile = [&](store::Statement& st) {
    CompileRecord r;
    r.line = st.int64(6);
    r.key = read_key(st, 0, r.line);
    r.kind = in.label(st.text(8));
    r.attempt = st.int64(7);
    r.co_name = text_of(st.opt_int64(9));
    r.co_filename = text_of(st.opt_int64(10));
    r.co_firstlineno = st.opt_int64(11);
    r.start_us = st.opt_int64(12);
    r.duration_ms = st.opt_real(13);
    r.cache_size = st.opt_int64(14);
    r.accumulated_cache_size = st.opt_int64(15);
    r.has_guarded_code = st.opt_int64(16);
    r.fail_type = text_of(st.opt_int64(17));
    r.fail_reason = text_of(st.opt_int64(18));
    r.recompile_reason = text_of(st.opt_int64(19));
    r.display_rank = r.key.rank >= 0 ? r.key.rank : file_rank[r.key.source_id].value_or(-1);
    return r;
  };
  own.bind(1, run_id);
  while (own.step()) in.compiles.push_back(read_compile(own));
  std::vector<DynamoKey> with_record;  // sorted keys of the compiles read so far
  with_record.reserve(in.compiles.size());
  for (const auto& r : in.compiles) with_record.push_back(r.key);
  std::sort(with_record.begin(), with_record.end());
  std::set<DynamoKey> only_referenced;
  by_reference.bind(1, run_id);
  while (by_reference.step()) {
    DynamoKey key = read_key(by_reference, 0, by_reference.int64(6));
    if (std::binary_search(with_record.begin(), with_record.end(), key) ||
        !only_referenced.insert(key).second)
      continue;
    in.compiles.push_back(read_compile(by_reference));
  }

  auto reasons =
      db.prepare(std::string("SELECT ") + kKeyColumns +
                 ", line, entry_index, old_compile_id, reason_sid, origin "
                 "FROM guard_failure g WHERE run_id=? ORDER BY source_id, line, entry_index");
  reasons.bind(1, run_id);
  while (reasons.step()) {
    ReasonRecord r;
    r.line = reasons.int64(6);
    r.key = read_key(reasons, 0, r.line);
    r.key.line_if_no_id = 0;  // resolved by attribute_dynamo_run
    r.entry_index = reasons.int64(7);
    r.old_compile_id = reasons.str(8);
    r.reason = text_of(reasons.int64(9));
    r.origin = in.label(reasons.text(10));
    in.reasons.push_back(std::move(r));
  }

  auto breaks = db.prepare(std::string("SELECT ") + kKeyColumns +
                           ", line, f.text, fn.text, gt.text, rs.text, user_line, sync_signature, "
                           "origin FROM graph_break g "
                           "LEFT JOIN strings f ON f.string_id = g.user_file_sid "
                           "LEFT JOIN strings fn ON fn.string_id = g.user_function_sid "
                           "LEFT JOIN strings gt ON gt.string_id = g.gb_type_sid "
                           "LEFT JOIN strings rs ON rs.string_id = g.reason_sid "
                           "WHERE run_id=? ORDER BY source_id, line");
  breaks.bind(1, run_id);
  while (breaks.step()) {
    BreakRecord b;
    b.line = breaks.int64(6);
    b.key = read_key(breaks, 0, 0);
    b.user_file = breaks.str(7);
    b.user_function = breaks.str(8);
    b.gb_type = breaks.str(9);
    b.reason = breaks.str(10);
    b.user_line = breaks.opt_int64(11).value_or(-1);
    b.sync_signature = breaks.int64(12) != 0;
    b.origin = breaks.str(13);
    in.breaks.push_back(std::move(b));
  }

  auto caches = db.prepare(std::string("SELECT ") + kKeyColumns +
                           ", cache, state FROM cache_outcome WHERE run_id=?");
  caches.bind(1, run_id);
  while (caches.step()) {
    CacheRecord c;
    c.key = read_key(caches, 0, 0);
    c.cache = caches.str(6);
    c.state = caches.str(7);
    in.caches.push_back(std::move(c));
  }
  return in;
}

// Writes compiles and their attributions as they come (prepared once per run).
class CompileWriter {
 public:
  // `db` and `strings` must outlive the writer.
  CompileWriter(store::Database& db, store::StringInterner& strings, int64_t run_id)
      : db_(db),
        strings_(strings),
        run_id_(run_id),
        insert_compile_(db.prepare(
            "INSERT INTO compile_event(run_id, ordinal, step, site_sid, program_key_sid, kind, "
            "cause_reported_sid, compile_ms, cache, rank, epoch, frame_id, frame_compile_id, "
            "attempt, ca_id, source_id, line, evidence, hlo_module_id, saved_graph_source_id, "
            "saved_graph_line) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)")),
        insert_attr_(db.prepare(
            "INSERT INTO attribution(compile_row, cause, prev_program_key_sid, detail_sid, "
            "confidence, evidence_sid, subject_sid, reason_sid, other_reasons) "
            "VALUES (?,?,?,?,?,?,?,?,?)")) {}

  void write(const AttributedCompile& c) {
    insert_compile_.bind(1, run_id_)
        .bind(2, c.ordinal)
        .bind(3, c.step)
        .bind(4, strings_.id(c.site))
        .bind(5, strings_.id(c.program_key))
        .bind(6, c.kind)
        .bind(7, strings_.id_or_null(c.cause_reported))
        .bind(8, c.compile_ms);
    if (c.cache.empty())
      insert_compile_.bind_null(9);
    else
      insert_compile_.bind(9, c.cache);
    insert_compile_.bind(10, c.key.rank)
        .bind(11, c.key.epoch)
        .bind(12, c.key.frame_id)
        .bind(13, c.key.frame_compile_id)
        .bind(14, c.attempt)
        .bind(15, c.key.ca_id)
        .bind(16, c.key.source_id)
        .bind(17, c.line)
        .bind(18, c.evidence_kind)
        .bind(19, c.hlo_module_id)
        .bind(20, c.saved_graph_source_id)
        .bind(21, c.saved_graph_line);
    insert_compile_.run();
    int64_t row = db_.last_insert_rowid();
    insert_attr_.bind(1, row)
        .bind(2, c.cause)
        .bind(3, strings_.id_or_null(c.prev_program_key))
        .bind(4, strings_.id_or_null(c.detail))
        .bind(5, c.confidence)
        .bind(6, strings_.id_or_null(c.evidence))
        .bind(7, strings_.id_or_null(c.subject))
        .bind(8, strings_.id_or_null(c.primary_reason))
        .bind(9, c.other_reasons);
    insert_attr_.run();
  }

 private:
  store::Database& db_;
  store::StringInterner& strings_;
  int64_t run_id_;
  store::Statement insert_compile_, insert_attr_;
};

void write_convergence(store::Database& db, int64_t run_id,
                       const std::vector<ConvergencePoint>& convergence) {
  auto insert_point = db.prepare(
      "INSERT INTO convergence_point(run_id, step, programs_cached, compiles_in_step, compile_ms, "
      "wall_ms) VALUES (?,?,?,?,?,?)");
  for (const auto& p : convergence) {
    insert_point.bind(1, run_id)
        .bind(2, p.step)
        .bind(3, p.programs_cached)
        .bind(4, p.compiles_in_step)
        .bind(5, p.compile_ms)
        .bind(6, p.wall_ms);
    insert_point.run();
  }
}

void write_rollup(store::Database& db, store::StringInterner& strings, int64_t run_id,
                  const RunRollup& r) {
  const ConvergenceSummary& c = r.convergence;
  bool curve = c.state != SettleState::kNoData;
  auto opt = [curve](int64_t v) { return curve ? std::optional<int64_t>(v) : std::nullopt; };
  auto insert_run = db.prepare(
      "INSERT INTO run_convergence(run_id, state, first_step, last_step, settle_step, "
      "programs_at_settle, final_programs, new_after_growth_step, growth_step, compiles, programs, "
      "recompiles, compile_ms, wall_ms, execute_ms, compile_share) "
      "VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)");
  insert_run.bind(1, run_id)
      .bind(2, settle_state_name(c.state))
      .bind(3, opt(c.first_step))
      .bind(4, opt(c.last_step))
      .bind(5, opt(c.settle_step))
      .bind(6, opt(c.programs_at_settle))
      .bind(7, opt(c.final_programs))
      .bind(8, opt(c.new_after_growth_step))
      .bind(9, c.growth_step)
      .bind(10, r.compiles)
      .bind(11, r.programs)
      .bind(12, r.recompiles)
      .bind(13, r.compile_ms)
      .bind(14, r.wall_ms)
      .bind(15, r.execute_ms)
      .bind(16, r.compile_share);
  insert_run.run();
  auto insert_group = db.prepare(
      "INSERT INTO cause_group(run_id, site_sid, cause, recompiles, compile_ms_lost, "
      "compile_ms_basis, first_step, last_step, detail_sid, subject_sid, rank) "
      "VALUES (?,?,?,?,?,?,?,?,?,?,?)");
  for (const auto& g : r.groups) {
    insert_group.bind(1, run_id)
        .bind(2, strings.id(g.site))
        .bind(3, g.cause)
        .bind(4, g.recompiles)
        .bind(5, g.compile_ms_lost)
        .bind(6, g.compile_ms_basis)
        .bind(7, g.first_step)
        .bind(8, g.last_step)
        .bind(9, strings.id_or_null(g.detail))
        .bind(10, strings.id_or_null(g.subject))
        .bind(11, g.rank);
    insert_group.run();
  }
}

// ExecuteTime accumulator of the run's last metrics report, in milliseconds.
std::optional<double> load_execute_ms(store::Database& db, int64_t run_id) {
  auto st = db.prepare(
      "SELECT value FROM metric_sample m JOIN strings n ON n.string_id = m.name_sid WHERE "
      "run_id=? AND n.text='ExecuteTime' AND field='Accumulator' ORDER BY source_id DESC, line "
      "DESC LIMIT 1");
  st.bind(1, run_id);
  if (st.step()) return st.real(0) / 1e6;
  return std::nullopt;
}

}  // namespace

void analyze_runs(store::Database& db, const std::vector<int64_t>& run_ids) {
  store::StringInterner strings(db);
  for (int64_t run_id : run_ids) {
    for (const char* sql :
         {"DELETE FROM attribution WHERE compile_row IN (SELECT compile_row FROM compile_event "
          "WHERE run_id=?)",
          "DELETE FROM compile_event WHERE run_id=?",
          "DELETE FROM convergence_point WHERE run_id=?",
          "DELETE FROM run_convergence WHERE run_id=?", "DELETE FROM cause_group WHERE run_id=?"}) {
      auto st = db.prepare(sql);
      st.bind(1, run_id);
      st.run();
    }
    // The XLA side first: its convergence curve prices the recompiles of the rollup. Dynamo
    // compiles are then written as they are attributed (never all held), and the XLA compiles
    // follow them in ordinal order.
    RunInputs dynamo = load_run(db, run_id);
    XlaRunResult xla = analyze_xla_run(load_xla_run(db, run_id, dynamo.source_names), 1);
    RollupBuilder rollup(xla.convergence, load_execute_ms(db, run_id));
    CompileWriter writer(db, strings, run_id);
    int64_t dynamo_compiles = attribute_dynamo_run(dynamo, [&](AttributedCompile&& c) {
      writer.write(c);
      rollup.add(c);
    });
    dynamo = RunInputs{};  // release the Dynamo records before the XLA side is written
    for (auto& c : xla.compiles) {
      c.ordinal += dynamo_compiles;
      writer.write(c);
      rollup.add(c);
    }
    write_convergence(db, run_id, xla.convergence);
    write_rollup(db, strings, run_id, std::move(rollup).finish());
  }
}

}  // namespace rcf::analysis
