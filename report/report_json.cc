#include "report/report_json.h"

#include "report/summary_json.h"

namespace rcf::report {
namespace {

using json = nlohmann::ordered_json;

template <typename T>
json opt(const std::optional<T>& v) {
  return json_or_null<json>(v);
}

// Inductor's reasons for not using CUDA graphs, the first kMaxGraphBreakRows groups.
json cudagraph_skips_json(const RunSummary& s) {
  json skips = json::array();
  for (const auto& k : s.cudagraph_skips) {
    if (static_cast<int64_t>(skips.size()) >= kMaxGraphBreakRows) break;
    skips.push_back(cudagraph_skip_json<json>(k));
  }
  return skips;
}

json chart_json(const RunChart& c) {
  json programs = json::array(), compiles = json::array(), marks = json::array();
  for (const auto& [step, n] : c.programs) programs.push_back({step, n});
  for (const auto& b : c.compiles) compiles.push_back({b.step, b.compiles, opt(b.compile_ms)});
  for (const auto& m : c.marks) marks.push_back({m.step, m.cause, m.count, m.programs});
  return {{"has_curve", c.has_curve}, {"first_step", c.first_step}, {"last_step", c.last_step},
          {"bucket_steps", c.bucket}, {"points", c.points},         {"programs", programs},
          {"compiles", compiles},     {"recompile_marks", marks}};
}

json site_json(const SiteSummary& s, const SiteRecompiles* listed) {
  json out = site_summary_json<json>(s);
  if (listed) {
    json rows = json::array();
    for (const auto& r : listed->listed) rows.push_back(recompile_json(r));
    out["recompile_list"] = {
        {"listed", rows}, {"first_listed", listed->head}, {"not_listed", listed->not_listed}};
  }
  return out;
}

json fix_first_rows_json(const RunSummary& s) {
  json fix = json::array();
  for (const auto& f : s.fix_first) {
    if (static_cast<int64_t>(fix.size()) >= kMaxFixFirstRows) break;
    fix.push_back(fix_first_json<json>(f));
  }
  return fix;
}

// Sites with their listed recompiles; sites beyond kMaxRecompileSites with neither a listing nor
// a limit hit are counted in `not_listed`.
json sites_json(const RunReport& run, int64_t& not_listed) {
  json sites = json::array();
  for (const auto& site : run.summary.sites) {
    const SiteRecompiles* listed = nullptr;
    for (const auto& l : run.sites)
      if (l.site == site.site) listed = &l;
    if (!listed && site.limit_hits.empty() &&
        static_cast<int64_t>(sites.size()) >= kMaxRecompileSites) {
      ++not_listed;
      continue;
    }
    sites.push_back(site_json(site, listed));
  }
  return sites;
}

json graph_breaks_json(const RunSummary& s) {
  json breaks = json::array();
  for (const auto& b : s.graph_breaks) {
    if (static_cast<int64_t>(breaks.size()) >= kMaxGraphBreakRows) break;
    breaks.push_back(graph_break_json<json>(b));
  }
  return breaks;
}

json ingest_json(const RunReport& run) {
  json sources = json::array();
  for (const auto& src : run.sources)
    sources.push_back({{"path", src.path},
                       {"format", src.format},
                       {"encoding", src.encoding},
                       {"lines", src.lines},
                       {"bytes", src.bytes},
                       {"events", src.events},
                       {"skipped", src.skipped},
                       {"rejected", src.rejected},
                       {"warnings", src.warnings},
                       {"rejected_reasons", src.rejected_reasons},
                       {"first_error", src.first_error},
                       {"read_error", src.read_error}});
  return {{"sources", sources},
          {"sources_not_listed", run.sources_not_listed},
          {"rejected_lines", run.summary.rejected_lines}};
}

json convergence_json(const RunReport& run) {
  const RunSummary& s = run.summary;
  return {{"state", s.settle_state},
          {"axis", s.step_axis},
          {"step_basis", s.step_basis},
          {"step_detail", s.step_detail},
          {"first_step", run.chart.first_step},
          {"last_step", s.last_step},
          {"settle_step", s.settle_step},
          {"programs_at_settle", s.programs_at_settle},
          {"final_programs", s.final_programs},
          {"recompiles_after_settle", run.recompiles_after_settle},
          {"text", s.convergence_text},
          {"compile_ms", opt(s.compile_ms)},
          {"wall_ms", opt(s.wall_ms)},
          {"execute_ms", opt(run.execute_ms)},
          {"other_ms", opt(other_step_ms(s))},
          {"compile_share", opt(s.compile_share)}};
}

json frontier_json(const RunReport& run) {
  if (!run.first_recompile) return nullptr;
  return {{"site", run.first_recompile_site}, {"recompile", recompile_json(*run.first_recompile)}};
}

json first_failure_json(const RunReport& run) {
  if (!run.first_failure) return nullptr;
  const FailedCompile& f = *run.first_failure;
  return {{"ordinal", f.ordinal},
          {"step", opt(f.step)},
          {"program_key", f.program_key},
          {"site", f.site},
          {"reason", f.reason}};
}

json run_json(const RunReport& run) {
  const RunSummary& s = run.summary;
  json bundle = json::object();
  for (const auto& e : run.bundle) bundle[e.key] = e.value;
  const json fix = fix_first_rows_json(s);
  int64_t sites_not_listed = 0;
  json sites = sites_json(run, sites_not_listed);
  const json breaks = graph_breaks_json(s);
  const int64_t skips_not_listed =
      std::max<int64_t>(0, static_cast<int64_t>(s.cudagraph_skips.size()) - kMaxGraphBreakRows);
  return {{"lane", s.lane},
          {"run", s.run},
          {"bundle", bundle},
          {"formats", run.formats},
          {"sources", s.sources},
          {"no_evidence", s.no_evidence.empty() ? json(nullptr) : json(s.no_evidence)},
          {"compiles", s.compiles},
          {"programs", run.programs},
          {"recompiles", s.recompiles},
          {"failed", s.failed},
          {"recompile_ms", s.recompile_ms},
          {"causes", s.causes},
          {"convergence", convergence_json(run)},
          {"chart", chart_json(run.chart)},
          {"first_failing_frontier", frontier_json(run)},
          {"first_failed_compile", first_failure_json(run)},
          {"fix_first", fix},
          {"fix_first_not_listed",
           std::max<int64_t>(0, s.fix_first_total - static_cast<int64_t>(fix.size()))},
          {"sites", sites},
          {"sites_not_listed", sites_not_listed},
          {"graph_breaks", breaks},
          {"graph_breaks_not_listed", s.graph_breaks.size() - breaks.size()},
          {"cudagraph_skips", cudagraph_skips_json(s)},
          {"cudagraph_skips_not_listed", skips_not_listed},
          {"ingest", ingest_json(run)}};
}

// The proof exactly as `rcf restart --json` prints it (minus its own schema_version), so both
// outputs share one contract.
json restart_json(const RestartReport& r) {
  json proof;
  try {
    proof = json::parse(render_restart_json(r));
  } catch (const nlohmann::json::exception&) {
    // Log text that is not UTF-8 makes that renderer refuse; keep the verdict and headline.
    proof = {{"lane", r.lane},
             {"verdict", analysis::restart_verdict_name(r.proof.verdict)},
             {"headline", r.proof.headline}};
  }
  proof.erase("schema_version");
  proof["cold_run"] = r.cold_run;
  proof["warm_run"] = r.warm_run;
  return proof;
}

}  // namespace

json recompile_json(const RecompileEvidence& r) {
  json out = {{"ordinal", r.ordinal},
              {"step", opt(r.step)},
              {"program_key", r.program_key},
              {"prev_program_key", r.prev_program_key},
              {"cause", r.cause},
              {"confidence", r.confidence},
              {"detail", r.detail},
              {"evidence", r.evidence},
              {"evidence_lines", evidence_lines(r.evidence)},
              {"compile_ms", opt(r.compile_ms)},
              {"guard_text", r.guard_text},
              {"other_reasons", r.other_reasons}};
  if (r.hlo_compared) {
    json params = json::array(), constants = json::array();
    for (const auto& p : r.params)
      params.push_back({{"old_number", opt(p.old_number)},
                        {"old_shape", p.old_shape},
                        {"new_number", opt(p.new_number)},
                        {"new_shape", p.new_shape}});
    for (const auto& c : r.constants)
      constants.push_back({{"name", c.name},
                           {"shape", c.shape},
                           {"old_value", c.old_value},
                           {"new_value", c.new_value},
                           {"user_op", c.user_op},
                           {"op_name", c.op_name},
                           {"source", c.source}});
    out["hlo"] = {{"old_parameters", r.old_params},
                  {"new_parameters", r.new_params},
                  {"same_parameters_before", r.params_same_before},
                  {"same_parameters_after", r.params_same_after},
                  {"parameter_changes", params},
                  {"parameter_changes_not_listed", r.params_not_listed},
                  {"old_constants", r.old_constants},
                  {"new_constants", r.new_constants},
                  {"constant_changes", constants},
                  {"constant_changes_not_listed", r.constants_not_listed},
                  {"op_delta", r.op_delta}};
  }
  return out;
}

std::string render_report_json(const ReportModel& model) {
  json lanes = json::array();
  for (const auto& lane : model.lanes) {
    json runs = json::array(), restarts = json::array();
    for (const auto& run : lane.runs) runs.push_back(run_json(run));
    for (const auto& r : lane.restarts) restarts.push_back(restart_json(r));
    lanes.push_back({{"lane", lane.lane}, {"runs", runs}, {"restart_proofs", restarts}});
  }
  json doc = {{"schema_version", kReportJsonVersion},
              {"tool", "rcf report"},
              {"source_root", model.source_root},
              {"chart_domain",
               {{"first_step", model.chart_first_step}, {"last_step", model.chart_last_step}}},
              {"limits",
               {{"chart_columns", kMaxChartColumns},
                {"recompiles_first_per_site", kRecompileHead},
                {"recompiles_latest_per_site", kRecompileTail},
                {"sites_per_run", kMaxRecompileSites},
                {"fix_first_rows", kMaxFixFirstRows},
                {"graph_breaks_per_run", kMaxGraphBreakRows},
                {"evidence_rows", kMaxEvidenceRows},
                {"sources_per_run", kMaxSourcesListed}}},
              {"lanes", lanes}};
  return doc.dump(2, ' ', false, json::error_handler_t::replace) + "\n";
}

}  // namespace rcf::report
