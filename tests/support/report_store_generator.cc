#include "tests/support/report_store_generator.h"

#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <iterator>
#include <map>
#include <vector>

namespace rcf::testing {
namespace {

// Causes of the generated recompiles, in rotation, with a detail sentence like analysis writes.
struct CauseModel {
  const char* cause;
  const char* confidence;
};
constexpr CauseModel kCauses[] = {{"shape", "high"},           {"constant", "high"},
                                  {"key_subset", "high"},      {"sync_fragment", "high"},
                                  {"graph_structure", "high"}, {"unknown", "low"}};

std::string detail_of(const char* cause, int64_t i) {
  std::string c = cause;
  if (c == "shape")
    return fmt::format("param 0 dim 1: {} -> {}", 2048 + i % 64 * 8, 2056 + i % 64 * 8);
  if (c == "constant")
    return fmt::format("constant.12 s64[]: {} -> {} (used by multiply; moe.py:212; aten::mul)", i,
                       i + 1);
  if (c == "key_subset") return fmt::format("+param {} s32[8,2048]", 3 + i % 5);
  if (c == "sync_fragment")
    return "user code trying to access tensor value at /work/model/mamba2.py:141 (_has_boundaries)";
  if (c == "graph_structure") return "same inputs, different ops: +1 add, -1 multiply";
  return "not enough evidence: enable XLA_SAVE_TENSORS_FMT=hlo or --xla_dump_to";
}

}  // namespace

void generate_report_store(store::Database& db, const ReportStoreSpec& spec) {
  db.exec("BEGIN");
  auto run = db.prepare(
      "INSERT INTO run_table(lane, run, bundle, created_at) VALUES (?, ?, NULL, "
      "'2026-01-01T00:00:00Z')");
  run.bind(1, spec.lane).bind(2, spec.run).run();
  const int64_t run_id = db.last_insert_rowid();
  auto source = db.prepare(
      "INSERT INTO source(run_id, path, format, encoding, content_hash, bytes, lines, events, "
      "skipped, rejected, warnings, first_error, read_error, file_rank, ingested_at) VALUES "
      "(?, ?, 'pt_xla_debug', 'plain', ?, ?, ?, ?, 0, 0, 0, NULL, NULL, NULL, "
      "'2026-01-01T00:00:00Z')");
  source.bind(1, run_id)
      .bind(2, "/data/" + spec.lane + "/pt_xla_debug.log")
      .bind(3, fmt::format("generated-{}-{}", spec.lane, spec.run))
      .bind(4, spec.compiles * 4000)
      .bind(5, spec.compiles * 60)
      .bind(6, spec.compiles)
      .run();
  const int64_t source_id = db.last_insert_rowid();

  auto intern_stmt = db.prepare("INSERT OR IGNORE INTO strings(text) VALUES (?)");
  auto find_stmt = db.prepare("SELECT string_id FROM strings WHERE text = ?");
  auto intern = [&](const std::string& text) {
    intern_stmt.reset();
    intern_stmt.bind(1, text).run();
    find_stmt.reset();
    find_stmt.bind(1, text);
    find_stmt.step();
    int64_t id = find_stmt.int64(0);
    find_stmt.reset();
    return id;
  };
  std::vector<int64_t> site_sids;
  for (int64_t s = 0; s < spec.sites; ++s)
    site_sids.push_back(
        intern(fmt::format("/work/model/layer_{}.py:{} (forward_{})", s % 50, 100 + s, s)));
  const std::string evidence = "HLO parameters of save_tensors.hlo.0";

  auto compile = db.prepare(
      "INSERT INTO compile_event(run_id, ordinal, step, site_sid, program_key, kind, "
      "compile_ms, rank, epoch, frame_id, frame_compile_id, attempt, ca_id, source_id, line, "
      "evidence) VALUES (?, ?, ?, ?, ?, 'xla', ?, -1, 0, -1, -1, 0, -1, ?, ?, "
      "'pt_xla_debug_compilation_analysis')");
  auto attribution = db.prepare(
      "INSERT INTO attribution(compile_row, cause, prev_program_key, detail, confidence, "
      "evidence, subject_sid, reason_sid, other_reasons) VALUES (?, ?, ?, ?, ?, ?, NULL, "
      "NULL, 0)");
  const uint64_t salt = std::hash<std::string>{}(spec.lane + "\n" + spec.run);
  std::vector<std::string> last_key(spec.sites);
  std::map<int64_t, std::pair<int64_t, double>> per_step;  // compiles, compile ms
  struct Group {
    int64_t recompiles = 0;
    double ms = 0;
    int64_t first_step = 0, last_step = 0;
    std::string detail;
  };
  std::map<std::pair<int64_t, std::string>, Group> groups;
  for (int64_t i = 0; i < spec.compiles; ++i) {
    const int64_t step = 1 + i * spec.steps / spec.compiles;
    const int64_t site = i % spec.sites;
    const double ms = 800 + static_cast<double>(i % 97) * 20;
    // Program keys are distinct by construction.
    const std::string key = fmt::format("{:016x}", ((i + 1) * 0x9E3779B97F4A7C15ULL) ^ salt);
    compile.reset();
    compile.bind(1, run_id)
        .bind(2, i + 1)
        .bind(3, step)
        .bind(4, site_sids[site])
        .bind(5, key)
        .bind(6, ms)
        .bind(7, source_id)
        .bind(8, 3 + i * 40)
        .run();
    const int64_t row = db.last_insert_rowid();
    const bool first = last_key[site].empty();
    const CauseModel& c = kCauses[i / spec.sites % std::size(kCauses)];
    const std::string cause = first ? "first_compile" : c.cause;
    attribution.reset();
    attribution.bind(1, row).bind(2, cause);
    if (first) {
      attribution.bind_null(3).bind_null(4).bind(5, "high").bind_null(6);
    } else {
      const std::string detail = detail_of(c.cause, i);
      attribution.bind(3, last_key[site]).bind(4, detail).bind(5, c.confidence).bind(6, evidence);
      Group& g = groups[{site_sids[site], cause}];
      if (g.recompiles++ == 0) g.first_step = step;
      g.last_step = step;
      g.ms += ms;
      g.detail = detail;
    }
    attribution.run();
    last_key[site] = key;
    auto& s = per_step[step];
    ++s.first;
    s.second += ms;
  }

  auto point = db.prepare(
      "INSERT INTO convergence_point(run_id, step, programs_cached, compiles_in_step, compile_ms, "
      "wall_ms) VALUES (?, ?, ?, ?, ?, ?)");
  int64_t cached = 0;
  double compile_ms = 0, wall_ms = 0;
  for (int64_t step = 1; step <= spec.steps; ++step) {
    auto it = per_step.find(step);
    int64_t n = it == per_step.end() ? 0 : it->second.first;
    double ms = it == per_step.end() ? 0 : it->second.second;
    cached += n;
    compile_ms += ms;
    wall_ms += ms + 1200;
    point.reset();
    point.bind(1, run_id).bind(2, step).bind(3, cached).bind(4, n).bind(5, ms).bind(6, ms + 1200);
    point.run();
  }
  int64_t settle = per_step.empty() ? 0 : per_step.rbegin()->first;
  auto conv = db.prepare(
      "INSERT INTO run_convergence(run_id, state, first_step, last_step, settle_step, "
      "programs_at_settle, final_programs, new_after_growth_step, growth_step, compiles, programs, "
      "recompiles, compile_ms, wall_ms, execute_ms, compile_share) VALUES (?, ?, 1, ?, ?, ?, ?, "
      "?, 20, ?, ?, ?, ?, ?, NULL, ?)");
  int64_t after_growth = 0;
  for (const auto& [step, s] : per_step)
    if (step > 20) after_growth += s.first;
  conv.bind(1, run_id)
      .bind(2, after_growth > 0       ? "still_growing"
               : settle == spec.steps ? "not_settled"
                                      : "settled")
      .bind(3, spec.steps)
      .bind(4, settle)
      .bind(5, cached)
      .bind(6, cached)
      .bind(7, after_growth)
      .bind(8, spec.compiles)
      .bind(9, spec.compiles)
      .bind(10, spec.compiles - std::min(spec.compiles, spec.sites))
      .bind(11, compile_ms)
      .bind(12, wall_ms)
      .bind(13, wall_ms > 0 ? compile_ms / wall_ms : 0.0)
      .run();

  // The fix-first groups (the fix_first view ranks them).
  auto group = db.prepare(
      "INSERT INTO cause_group(run_id, site_sid, cause, recompiles, compile_ms_lost, "
      "compile_ms_basis, first_step, last_step, detail, subject_sid) VALUES (?, ?, ?, "
      "?, ?, 'measured', ?, ?, ?, NULL)");
  for (const auto& [key, g] : groups) {
    group.reset();
    group.bind(1, run_id)
        .bind(2, key.first)
        .bind(3, key.second)
        .bind(4, g.recompiles)
        .bind(5, g.ms)
        .bind(6, g.first_step)
        .bind(7, g.last_step)
        .bind(8, g.detail)
        .run();
  }
  db.exec("COMMIT");
}

}  // namespace rcf::testing
