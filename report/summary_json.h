// One JSON serialiser per struct of explain's model (report/explain.h), shared by
// `rcf explain --json` (nlohmann::json: keys come out sorted) and the report JSON
// (nlohmann::ordered_json: keys come out in the order written here).
#pragma once

#include <optional>

#include "report/explain.h"
#include "report/report_text.h"

namespace rcf::report {

template <typename Json, typename T>
Json json_or_null(const std::optional<T>& v) {
  return v ? Json(*v) : Json(nullptr);
}

template <typename Json>
Json reason_group_json(const ReasonGroup& g) {
  return Json{{"cause", g.cause},
              {"subject", g.subject},
              {"count", g.count},
              {"confidence", g.confidence},
              {"detail", g.detail},
              {"program_key", g.program_key},
              {"prev_program_key", g.prev_program_key},
              {"evidence", g.evidence},
              {"evidence_lines", evidence_lines(g.evidence)}};
}

template <typename Json>
Json limit_hit_json(const LimitHitInfo& h) {
  return Json{{"limit_type", h.limit_type},
              {"limit_value", json_or_null<Json>(h.limit_value)},
              {"program_key", h.program_key},
              {"last_reason", h.last_reason},
              {"last_reason_cause", h.last_reason_cause},
              {"hard_failure", h.hard_failure},
              {"falls_back_to_eager", !h.hard_failure},
              {"where", h.where}};
}

// A site's counts, causes, reason groups and limit hits.
template <typename Json>
Json site_summary_json(const SiteSummary& s) {
  Json reasons = Json::array(), hits = Json::array();
  for (const auto& g : s.reasons) reasons.push_back(reason_group_json<Json>(g));
  for (const auto& h : s.limit_hits) hits.push_back(limit_hit_json<Json>(h));
  return Json{{"site", s.site},     {"compiles", s.compiles},     {"recompiles", s.recompiles},
              {"failed", s.failed}, {"compile_ms", s.compile_ms}, {"recompile_ms", s.recompile_ms},
              {"causes", s.causes}, {"reasons", reasons},         {"recompile_limit_hits", hits}};
}

template <typename Json>
Json graph_break_json(const BreakInfo& b) {
  return Json{{"location", b.location},
              {"gb_type", b.gb_type},
              {"count", b.count},
              {"sync_signature", b.sync_signature}};
}

template <typename Json>
Json fix_first_json(const FixFirstItem& f) {
  return Json{{"rank", f.rank},
              {"site", f.site},
              {"cause", f.cause},
              {"recompiles", f.recompiles},
              {"compile_ms_lost", json_or_null<Json>(f.compile_ms_lost)},
              {"compile_ms_basis", f.compile_ms_basis},
              {"first_step", json_or_null<Json>(f.first_step)},
              {"last_step", json_or_null<Json>(f.last_step)},
              {"detail", f.detail},
              {"subject", f.subject},
              {"remedy", f.remedy}};
}

template <typename Json>
Json cudagraph_skip_json(const CudagraphSkipInfo& k) {
  return Json{{"kind", k.kind},
              {"reason", k.reason},
              {"program_key", k.program_key},
              {"site", k.site},
              {"user_location", k.user_location},
              {"count", k.count},
              {"where", k.where}};
}

template <typename Json>
Json merged_source_json(const MergedSourceInfo& m) {
  return Json{
      {"source", m.source}, {"same_process_as", m.same_process_as}, {"evidence", m.evidence}};
}

template <typename Json>
Json rank_divergence_row_json(const store::RankDivergenceRow& d) {
  return Json{{"kind", d.kind},
              {"rank_groups", d.rank_groups},
              {"first_index", json_or_null<Json>(d.first_index)},
              {"detail", d.detail}};
}

}  // namespace rcf::report
