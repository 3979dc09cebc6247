#include "report/html_report.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "analysis/restart_proof.h"
#include "report/rank_divergence_output.h"
#include "report/report_assets.h"
#include "report/report_json.h"
#include "report/report_text.h"
#include "util/safe_text.h"

namespace rcf::report {
namespace {

using json = nlohmann::ordered_json;

// Chart geometry (SVG user units; the SVG scales to the page width).
constexpr double kWidth = 960, kLeft = 58, kRight = 14;
constexpr double kPlotWidth = kWidth - kLeft - kRight;
constexpr double kTop = 22, kProgramsHeight = 150;
constexpr double kBarsTop = kTop + kProgramsHeight + 30, kBarsHeight = 54;
constexpr double kHeight = kBarsTop + kBarsHeight + 30;
constexpr double kStripTop = kTop + kProgramsHeight + 4, kStripHeight = 10;
constexpr size_t kMaxDotColumns = 60;  // more marked columns: a strip instead of dots
constexpr size_t kMaxGuardText = 4000;

std::string esc(std::string_view s) {
  return html_escape(s);
}

std::string num(double v) {
  std::string s = fmt::format("{:.1f}", v);
  if (s.size() > 2 && s.compare(s.size() - 2, 2, ".0") == 0) s.resize(s.size() - 2);
  return s;
}

std::string ms_text(const std::optional<double>& ms) {
  return duration_or_unknown(ms);
}

std::string cause_badge(const std::string& cause) {
  return fmt::format(R"(<span class="cause" style="--c:{}">{}</span>)", cause_colour(cause),
                     esc(cause));
}

// Round tick steps (1, 2, 5 x 10^k) so that [0, max] has at most `count` intervals.
double tick_step(double max, int count) {
  if (max <= 0) return 1;
  double raw = max / count, mag = std::pow(10, std::floor(std::log10(raw)));
  for (double m : {1.0, 2.0, 5.0, 10.0})
    if (m * mag >= raw) return m * mag;
  return 10 * mag;
}

// ---------------------------------------------------------------------------------------------
// Page furniture: the stylesheet and the chart script live in report/assets/ and are embedded at
// build time (report/report_assets.h). The script links the charts' cursors (hover one chart:
// every chart shows that step) and records in the DOM how many charts drew and any error, for
// tests and for users. Each asset starts on the line after its opening tag.

std::string style_element() {
  return std::string("<style>\n") + kReportCss + "</style>";
}

std::string script_element() {
  return std::string("<script>\n") + kReportJs + "</script>";
}

// ---------------------------------------------------------------------------------------------
// Sections.

std::string lane_anchor(size_t i) {
  return fmt::format("lane-{}", i + 1);
}

const RestartReport* restart_of_warm(const LaneReport& lane, const std::string& run) {
  for (const auto& r : lane.restarts)
    if (r.warm_run == run) return &r;
  return nullptr;
}

std::string verdict_badge(const RestartReport& r) {
  const char* name = analysis::restart_verdict_name(r.proof.verdict);
  return fmt::format(R"(<span class="verdict v-{}">{}</span>)", name, esc(name));
}

std::string summary_section(const ReportModel& model) {
  std::string out = R"(<section id="summary"><h2>Summary</h2><table><thead><tr>)"
                    R"(<th>lane</th><th>run</th><th>convergence</th><th>programs</th>)"
                    R"(<th>compiles</th><th>recompiles</th><th>causes</th>)"
                    R"(<th>compile time</th><th>restart</th></tr></thead><tbody>)";
  for (size_t i = 0; i < model.lanes.size(); ++i) {
    const auto& lane = model.lanes[i];
    for (const auto& run : lane.runs) {
      const auto& s = run.summary;
      const RestartReport* restart = restart_of_warm(lane, s.run);
      out += fmt::format(
          R"(<tr><td><a href="#{}">{}</a></td><td>{}</td><td class="state-{}">{}</td>)"
          R"(<td class="n">{}</td><td class="n">{}</td><td class="n">{}</td><td>{}</td>)"
          R"(<td class="n">{}</td><td>{}</td></tr>)",
          lane_anchor(i), esc(lane.lane), esc(s.run), esc(s.settle_state),
          esc(!s.no_evidence.empty()        ? "no evidence: " + s.no_evidence
              : !s.convergence_text.empty() ? s.convergence_text
              : s.compiles == 0             ? "no compiles"
                                            : "no steps in the logs"),
          run.programs, s.compiles, s.recompiles, esc(causes_text(s.causes)),
          esc(ms_text(s.compile_ms)),
          restart ? verdict_badge(*restart) + " vs " + esc(restart->cold_run) : "");
    }
  }
  return out + "</tbody></table></section>\n";
}

std::string legend(const std::set<std::string>& causes) {
  if (causes.empty()) return "";
  std::string out = R"(<p class="legend">recompiles by cause: )";
  for (const auto& c : causes) out += cause_badge(c) + " ";
  return out + "</p>";
}

std::string charts_section(const ReportModel& model, json& chart_data) {
  std::string out = R"(<section id="convergence"><h2>Convergence</h2>)";
  out += R"(<p class="muted">Programs cached vs step (step line), recompiles marked by cause, )"
         R"(compile time per step below. All charts share one step axis; hover one to read )"
         R"(every lane at that step.</p>)";
  std::set<std::string> causes;
  for (const auto& lane : model.lanes)
    for (const auto& run : lane.runs)
      for (const auto& m : run.chart.marks) causes.insert(m.cause);
  out += legend(causes);
  std::vector<std::string> no_steps, no_compiles;
  for (const auto& lane : model.lanes)
    for (const auto& run : lane.runs) {
      std::string title = lane.lane + " / " + run.summary.run;
      if (!run.chart.has_curve) {
        (run.summary.compiles == 0 ? no_compiles : no_steps).push_back(title);
        continue;
      }
      int index = static_cast<int>(chart_data.size());
      out += "<figure><figcaption>" + esc(title) + "</figcaption>";
      out +=
          render_chart_svg(run.chart, model.chart_first_step, model.chart_last_step, index, title);
      out += "<p class=\"muted\">" + esc(run.summary.convergence_text) + "<br>" +
             esc(step_axis_text(run.summary)) + "</p></figure>";
      json programs = json::array(), compiles = json::array(), marks = json::array();
      for (const auto& [step, n] : run.chart.programs) programs.push_back({step, n});
      for (const auto& b : run.chart.compiles)
        compiles.push_back({b.step, b.compiles, b.compile_ms ? json(*b.compile_ms) : json()});
      for (const auto& m : run.chart.marks) marks.push_back({m.step, m.cause, m.count});
      chart_data.push_back({{"lane", lane.lane},
                            {"run", run.summary.run},
                            {"first", run.chart.first_step},
                            {"last", run.chart.last_step},
                            {"bucket", run.chart.bucket},
                            {"programs", programs},
                            {"compiles", compiles},
                            {"marks", marks}});
    }
  auto names = [](const std::vector<std::string>& titles) {
    std::string s;
    for (const auto& t : titles) s += (s.empty() ? "" : ", ") + esc(t);
    return s;
  };
  if (!no_steps.empty())
    out += R"(<div class="nochart">No convergence curve for )" + names(no_steps) +
           R"(: their logs give no training steps (Dynamo logs carry none). Add step timings (a )"
           R"(CSV/JSONL file, or any log line through <code>rcf ingest --step-pattern</code>) or )"
           R"(the torch_xla metrics file (XLA_METRICS_FILE) to get one.</div>)";
  if (!no_compiles.empty())
    out += R"(<div class="nochart">No compile in the logs of )" + names(no_compiles) +
           R"(: nothing to converge.</div>)";
  return out + "</section>\n";
}

std::string bundle_block(const LaneReport& lane) {
  std::string out = "<h3>Bundle</h3>";
  for (const auto& run : lane.runs) {
    out += "<h4>run " + esc(run.summary.run) + "</h4>";
    if (run.bundle.empty())
      out += R"(<p class="muted">Stack versions and flags: not recorded for this run (the )"
             R"(ingested logs do not print them; <code>rcf ingest --bundle</code> or )"
             R"(<code>rcf capture</code> records them).</p>)";
    else {
      out += "<table><tbody>";
      for (const auto& e : run.bundle)
        out += "<tr><th>" + esc(e.key) + "</th><td><code>" + esc(e.value) + "</code></td></tr>";
      out += "</tbody></table>";
    }
    std::string formats;
    for (const auto& f : run.formats) formats += (formats.empty() ? "" : ", ") + f;
    out += fmt::format("<p>{} ingested ({}).</p>", plural(run.summary.sources, "source"),
                       esc(formats.empty() ? "none" : formats));
    if (run.summary.hosts.size() > 1) out += "<p>Hosts: " + esc(hosts_text(run.summary)) + ".</p>";
    if (!run.summary.no_evidence.empty())
      out += "<p><strong>No evidence:</strong> " + esc(run.summary.no_evidence) +
             "; nothing is known about this run's compiles.</p>";
  }
  return out;
}

std::string fix_first_block(const LaneReport& lane) {
  std::string out = "<h3>Fix first</h3>";
  for (const auto& run : lane.runs) {
    const auto& list = run.summary.fix_first;
    out += "<h4>run " + esc(run.summary.run) + "</h4>";
    if (list.empty()) {
      out += R"(<p class="muted">No recompiles in this run.</p>)";
      continue;
    }
    out += R"(<table><thead><tr><th>#</th><th>site</th><th>cause</th><th>recompiles</th>)"
           R"(<th>compile time lost</th><th>steps</th><th>latest detail</th><th>fix</th>)"
           R"(</tr></thead><tbody>)";
    int64_t shown = 0;
    for (const auto& f : list) {
      if (shown++ >= kMaxFixFirstRows) break;
      std::string lost = !f.compile_ms_lost ? "unknown"
                         : f.compile_ms_basis == "step_share"
                             ? "~" + analysis::duration_text(*f.compile_ms_lost)
                             : analysis::duration_text(*f.compile_ms_lost);
      std::string steps = !f.first_step ? ""
                          : *f.first_step == *f.last_step
                              ? std::to_string(*f.first_step)
                              : fmt::format("{}..{}", *f.first_step, *f.last_step);
      out += fmt::format(
          R"(<tr><td class="n">{}</td><td class="key">{}</td><td>{}</td><td class="n">{}</td>)"
          R"(<td class="n">{}</td><td>{}</td><td>{}</td><td>{}</td></tr>)",
          f.rank, esc(f.site), cause_badge(f.cause), f.recompiles, esc(lost), esc(steps),
          esc(f.detail), esc(f.remedy));
    }
    out += "</tbody></table>";
    // `shown` counts the row that stopped the loop too: the rows listed are at most the bound.
    const int64_t listed = std::min<int64_t>(kMaxFixFirstRows, static_cast<int64_t>(list.size()));
    if (run.summary.fix_first_total > listed)
      out += fmt::format(R"(<p class="muted">{} more groups: see the fix_first view.</p>)",
                         run.summary.fix_first_total - listed);
    if (run.summary.compile_ms || run.summary.wall_ms)
      out += fmt::format(
          "<p>Compile time {} of {} step wall time{}{}.</p>", esc(ms_text(run.summary.compile_ms)),
          esc(ms_text(run.summary.wall_ms)),
          run.summary.compile_share ? fmt::format(" ({:.0f}%)", *run.summary.compile_share * 100)
                                    : "",
          !run.summary.execute_ms
              ? std::string()
              : fmt::format("; execute {}, other {}", esc(ms_text(run.summary.execute_ms)),
                            other_step_ms(run.summary)
                                ? esc(ms_text(other_step_ms(run.summary)))
                                : std::string("unknown (execution overlaps host time)")));
  }
  return out;
}

std::string frontier_block(const LaneReport& lane) {
  std::string items;
  for (const auto& run : lane.runs) {
    if (run.first_failure) {
      const auto& f = *run.first_failure;
      items += fmt::format(
          "<li>run {}: {}compile #{} (<code>{}</code>) at <code>{}</code> raised {}</li>",
          esc(run.summary.run),
          f.step ? fmt::format("{} {}, ", run.summary.step_axis, *f.step) : "", f.ordinal,
          esc(f.program_key), esc(f.site), esc(f.reason));
    }
    if (run.first_recompile) {
      const auto& r = *run.first_recompile;
      items += fmt::format(
          "<li>run {}: {}compile #{} (<code>{}</code>) at <code>{}</code>: {} {}</li>",
          esc(run.summary.run),
          r.step ? fmt::format("{} {}, ", run.summary.step_axis, *r.step) : "", r.ordinal,
          esc(r.program_key), esc(run.first_recompile_site), cause_badge(r.cause), esc(r.detail));
    }
  }
  if (items.empty()) return "";
  return "<h3>First failing frontier</h3><ul>" + items + "</ul>";
}

std::string evidence_block(const RecompileEvidence& r) {
  std::string out;
  if (!r.guard_text.empty()) {
    std::string text = r.guard_text;
    bool clipped = text.size() > kMaxGuardText;
    if (clipped) text.resize(kMaxGuardText);
    out += "<div>guard failure (the newest rejected cache entry)";
    if (r.other_reasons > 0)
      out += fmt::format("; {} more cache {} also rejected the inputs", r.other_reasons,
                         r.other_reasons == 1 ? "entry" : "entries");
    out += ":</div><pre>" + esc(text) + (clipped ? "\n(clipped)" : "") + "</pre>";
  }
  if (r.hlo_compared) {
    if (!r.params.empty()) {
      out += fmt::format(
          "<div>parameters {} &rarr; {} ({} identical before, {} after the rows below)</div>",
          r.old_params, r.new_params, r.params_same_before, r.params_same_after);
      out += R"(<table><thead><tr><th>old #</th><th>old shape</th><th>new #</th>)"
             R"(<th>new shape</th></tr></thead><tbody>)";
      for (const auto& p : r.params)
        out +=
            fmt::format(R"(<tr><td class="n">{}</td><td><code>{}</code></td><td class="n">{}</td>)"
                        R"(<td><code>{}</code></td></tr>)",
                        p.old_number ? std::to_string(*p.old_number) : "&ndash;",
                        p.old_number ? esc(p.old_shape) : "absent",
                        p.new_number ? std::to_string(*p.new_number) : "&ndash;",
                        p.new_number ? esc(p.new_shape) : "absent");
      out += "</tbody></table>";
      if (r.params_not_listed)
        out += fmt::format(R"(<div class="muted">{} more changed parameters</div>)",
                           r.params_not_listed);
    }
    if (!r.constants.empty()) {
      out += R"(<table><thead><tr><th>constant</th><th>shape</th><th>old &rarr; new</th>)"
             R"(<th>used by</th><th>source</th></tr></thead><tbody>)";
      for (const auto& c : r.constants) {
        std::string used = c.user_op;
        if (!c.op_name.empty())
          used += (used.empty() ? "" : " (") + c.op_name + (used.empty() ? "" : ")");
        out += fmt::format(
            R"(<tr><td><code>{}</code></td><td><code>{}</code></td><td><code>{}</code> &rarr; )"
            R"(<code>{}</code></td><td>{}</td><td><code>{}</code></td></tr>)",
            esc(c.name), esc(c.shape), esc(c.old_value.empty() ? "(absent)" : c.old_value),
            esc(c.new_value.empty() ? "(absent)" : c.new_value), esc(used), esc(c.source));
      }
      out += "</tbody></table>";
      if (r.constants_not_listed)
        out += fmt::format(R"(<div class="muted">{} more changed constants</div>)",
                           r.constants_not_listed);
    }
    if (!r.op_delta.empty()) out += "<div>op delta: <code>" + esc(r.op_delta) + "</code></div>";
  }
  for (const std::string& line : evidence_lines(r.evidence))
    out += "<div class=\"muted\">from: " + esc(line) + "</div>";
  return out;
}

std::string recompile_row(const RecompileEvidence& r) {
  std::string evidence = evidence_block(r);
  return fmt::format(
      R"(<tr><td class="n">{}</td><td class="n">{}</td><td class="key">{}</td>)"
      R"(<td class="key">{}</td><td>{}</td><td>{}</td><td>{}{}</td></tr>)",
      r.ordinal, r.step ? std::to_string(*r.step) : "", esc(r.program_key), esc(r.prev_program_key),
      cause_badge(r.cause), esc(r.confidence), esc(r.detail),
      evidence.empty() ? "" : "<details><summary>evidence</summary>" + evidence + "</details>");
}

std::string sites_block(const LaneReport& lane) {
  std::string out = "<h3>Recompiles by site</h3>";
  for (const auto& run : lane.runs) {
    out += "<h4>run " + esc(run.summary.run) + "</h4>";
    if (run.sites.empty()) {
      out += R"(<p class="muted">No recompiles in this run.</p>)";
      continue;
    }
    for (const auto& site : run.sites) {
      const SiteSummary* summary = nullptr;
      for (const auto& s : run.summary.sites)
        if (s.site == site.site) summary = &s;
      out += R"(<div class="site"><h4>)" + esc(site.site) + "</h4>";
      if (summary) {
        out += fmt::format("<p>{}, {}", plural(summary->compiles, "compile"),
                           plural(summary->recompiles, "recompile"));
        if (!summary->causes.empty()) out += " [" + esc(causes_text(summary->causes)) + "]";
        if (summary->recompile_ms > 0)
          out += ", " + esc(analysis::duration_text(summary->recompile_ms)) + " lost to recompiles";
        out += "</p>";
      }
      out += R"(<table><thead><tr><th>#</th><th>step</th><th>program</th><th>vs</th>)"
             R"(<th>cause</th><th>confidence</th><th>detail and evidence</th></tr></thead><tbody>)";
      for (size_t i = 0; i < site.listed.size(); ++i) {
        if (static_cast<int64_t>(i) == site.head && site.not_listed > 0)
          out += fmt::format(
              R"(<tr><td colspan="7" class="muted">&hellip; {} more recompiles at this site )"
              R"((the recompiles view lists every one) &hellip;</td></tr>)",
              site.not_listed);
        out += recompile_row(site.listed[i]);
      }
      out += "</tbody></table></div>";
    }
    if (run.sites_not_listed)
      out += fmt::format(R"(<p class="muted">{} more sites with recompiles (see the )"
                         R"(recompiles view).</p>)",
                         run.sites_not_listed);
  }
  return out;
}

std::string limits_block(const LaneReport& lane) {
  std::string rows;
  for (const auto& run : lane.runs)
    for (const auto& site : run.summary.sites)
      for (const auto& h : site.limit_hits)
        rows += fmt::format(
            R"(<tr><td>{}</td><td class="key">{}</td><td>{}{}</td><td class="key">{}</td>)"
            R"(<td>{}</td><td>{}</td><td>{}</td></tr>)",
            esc(run.summary.run), esc(site.site), esc(h.limit_type),
            h.limit_value ? fmt::format(" ({})", *h.limit_value) : "", esc(h.program_key),
            h.hard_failure ? "raised FailOnRecompileLimitHit" : "falls back to eager",
            h.last_reason.empty()
                ? R"(<span class="muted">not printed by this PyTorch version</span>)"
                : cause_badge(h.last_reason_cause) + " <code>" + esc(h.last_reason) + "</code>",
            esc(h.where));
  std::string out = "<h3>Recompile-limit hits</h3>";
  if (rows.empty()) return out + R"(<p class="muted">None in the ingested logs.</p>)";
  return out +
         R"(<table><thead><tr><th>run</th><th>site</th><th>limit</th><th>refused</th>)"
         R"(<th>from then on</th><th>last reason</th><th>where</th></tr></thead><tbody>)" +
         rows + "</tbody></table>";
}

std::string breaks_block(const LaneReport& lane) {
  std::string rows;
  for (const auto& run : lane.runs) {
    const auto& breaks = run.summary.graph_breaks;  // host syncs first, then by count
    for (size_t i = 0; i < breaks.size(); ++i) {
      if (static_cast<int64_t>(i) >= kMaxGraphBreakRows) {
        rows += fmt::format(
            R"(<tr><td>{}</td><td colspan="4" class="muted">&hellip; {} more distinct graph )"
            R"(breaks (the graph_break table holds every one)</td></tr>)",
            esc(run.summary.run), breaks.size() - i);
        break;
      }
      const auto& b = breaks[i];
      rows +=
          fmt::format(R"(<tr><td>{}</td><td class="n">{}</td><td class="key">{}</td><td>{}</td>)"
                      R"(<td>{}</td></tr>)",
                      esc(run.summary.run), b.count, esc(b.location), esc(b.gb_type),
                      b.sync_signature ? cause_badge("sync_fragment") + " host sync" : "");
    }
  }
  if (rows.empty()) return "";
  return "<h3>Graph breaks</h3>"
         R"(<table><thead><tr><th>run</th><th>records</th><th>where</th><th>break</th>)"
         R"(<th></th></tr></thead><tbody>)" +
         rows + "</tbody></table>";
}

// Inductor's reasons for not using CUDA graphs (docs/cudagraph_skips.md).
std::string cudagraph_block(const LaneReport& lane) {
  std::string rows;
  for (const auto& run : lane.runs) {
    const auto& skips = run.summary.cudagraph_skips;  // most messages first
    for (size_t i = 0; i < skips.size(); ++i) {
      if (static_cast<int64_t>(i) >= kMaxGraphBreakRows) {
        rows += fmt::format(R"(<tr><td>{}</td><td colspan="5" class="muted">&hellip; {} more (the )"
                            R"(cudagraph_skips view holds every one)</td></tr>)",
                            esc(run.summary.run), skips.size() - i);
        break;
      }
      const auto& k = skips[i];
      rows +=
          fmt::format(R"(<tr><td>{}</td><td class="n">{}</td><td>{}</td><td class="key">{}</td>)"
                      R"(<td>{}</td><td class="key">{}</td></tr>)",
                      esc(run.summary.run), k.count, esc(k.kind), esc(k.program_key), esc(k.reason),
                      esc(k.user_location));
    }
  }
  if (rows.empty()) return "";
  return "<h3>CUDA graphs not used</h3>"
         R"(<table><thead><tr><th>run</th><th>messages</th><th>kind</th><th>compile</th>)"
         R"(<th>reason</th><th>from</th></tr></thead><tbody>)" +
         rows + "</tbody></table>";
}

// Where the ranks of each run stopped doing the same thing (docs/rank_divergence.md).
std::string rank_divergence_block(const LaneReport& lane) {
  std::string rows;
  for (const auto& run : lane.runs) rows += rank_divergence_html_rows(run.summary);
  if (rows.empty()) return "";
  return "<h3>Ranks diverge</h3>"
         R"(<table><thead><tr><th>run</th><th>kind</th><th>ranks that agree</th>)"
         R"(<th>first difference</th><th>what differs and why</th></tr></thead><tbody>)" +
         rows + "</tbody></table>";
}

std::string restart_block(const LaneReport& lane) {
  std::string out = "<h3>Restart proofs</h3>";
  if (lane.restarts.empty())
    return out + R"(<p class="muted">No cold/warm pair of runs in this lane (ingest a restart )"
                 R"(as runs labelled <code>cold</code> and <code>warm</code>).</p>)";
  for (const auto& r : lane.restarts) {
    const auto& p = r.proof;
    out += fmt::format("<h4>cold run {} &rarr; warm run {}</h4><p>{} {}</p>", esc(r.cold_run),
                       esc(r.warm_run), verdict_badge(r), esc(p.headline));
    if (!p.findings.empty()) {
      out += R"(<table><thead><tr><th>figure</th><th>cold &rarr; warm</th><th>cold evidence</th>)"
             R"(<th>warm evidence</th></tr></thead><tbody>)";
      for (const auto& f : p.findings)
        out += fmt::format("<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>", esc(f.what),
                           esc(f.text), esc(f.cold_evidence), esc(f.warm_evidence));
      out += "</tbody></table>";
    }
    if (!p.rebuilt.empty()) {
      out += fmt::format("<div>programs the warm run built ({}):</div>", p.rebuilt.size());
      out += R"(<table><thead><tr><th>program</th><th>site</th><th>step</th><th>kind</th>)"
             R"(<th>why</th><th>where</th></tr></thead><tbody>)";
      const size_t limit = static_cast<size_t>(kRecompileHead + kRecompileTail);
      for (size_t i = 0; i < p.rebuilt.size() && i < limit; ++i) {
        const auto& b = p.rebuilt[i];
        out +=
            fmt::format(R"(<tr><td class="key">{}</td><td class="key">{}</td><td class="n">{}</td>)"
                        R"(<td>{}</td><td>{}</td><td>{}</td></tr>)",
                        esc(b.build.program_key), esc(b.build.site),
                        b.build.step ? std::to_string(*b.build.step) : "",
                        esc(analysis::rebuild_kind_name(b.kind)), esc(b.why), esc(b.build.where));
      }
      out += "</tbody></table>";
      if (p.rebuilt.size() > limit)
        out += fmt::format(R"(<p class="muted">{} more (rcf restart lists every one).</p>)",
                           p.rebuilt.size() - limit);
    }
    if (!p.to_enable.empty()) {
      out += "<div>to decide, enable:</div><ul>";
      for (const auto& e : p.to_enable) out += "<li>" + esc(e) + "</li>";
      out += "</ul>";
    }
  }
  return out;
}

std::string ingest_block(const LaneReport& lane) {
  std::string out = "<h3>Ingest statistics</h3>";
  for (const auto& run : lane.runs) {
    out += fmt::format("<h4>run {}</h4>", esc(run.summary.run));
    out += R"(<table><thead><tr><th>file</th><th>format</th><th>lines</th><th>bytes</th>)"
           R"(<th>events</th><th>skipped</th><th>rejected</th><th>warnings</th>)"
           R"(<th>first error</th></tr></thead><tbody>)";
    for (const auto& s : run.sources)
      out += fmt::format(
          R"(<tr><td class="key">{}</td><td>{}{}</td><td class="n">{}</td><td class="n">{}</td>)"
          R"(<td class="n">{}</td><td class="n">{}</td><td class="n">{}{}</td>)"
          R"(<td class="n">{}</td>)"
          R"(<td>{}</td></tr>)",
          esc(s.path), esc(s.format), s.encoding == "gzip" ? " (gzip)" : "", s.lines, s.bytes,
          s.events, s.skipped, s.rejected,
          s.rejected_reasons.empty()
              ? ""
              : "<br><span class=\"muted\">" + esc(s.rejected_reasons) + "</span>",
          s.warnings,
          esc(s.read_error.empty() ? s.first_error : s.read_error + "; " + s.first_error));
    out += "</tbody></table>";
    if (run.sources_not_listed)
      out += fmt::format(R"(<p class="muted">{} more sources (see the ingest_stats view).</p>)",
                         run.sources_not_listed);
  }
  return out;
}

}  // namespace

const char* cause_colour(std::string_view cause) {
  static const std::map<std::string_view, const char*> kColours = {
      {"shape", "#1f77b4"},           {"dtype", "#9467bd"},
      {"tensor_meta", "#8c564b"},     {"constant", "#d62728"},
      {"key_subset", "#ff7f0e"},      {"sync_fragment", "#e377c2"},
      {"graph_structure", "#2ca02c"}, {"global_state", "#17becf"},
      {"object_identity", "#a6a12a"}, {"type", "#6b6ecf"},
      {"backend", "#393b79"},         {"first_compile", "#7f8c9a"}};
  auto it = kColours.find(cause);
  return it == kColours.end() ? "#7f7f7f" : it->second;
}

std::string utf8_clean(std::string_view s) {
  return util::valid_utf8(s);
}

std::string html_escape(std::string_view text) {
  return util::html_text(text);
}

std::string script_safe_json(const nlohmann::ordered_json& value) {
  std::string text =
      value.dump(-1, ' ', /*ensure_ascii=*/true, nlohmann::ordered_json::error_handler_t::replace);
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '<':
        out += "\\u003c";
        break;
      case '>':
        out += "\\u003e";
        break;
      case '&':
        out += "\\u0026";
        break;
      case '\'':
        out += "\\u0027";
        break;
      default:
        out += c;
    }
  }
  return out;
}

namespace {

// Where a chart's steps and program counts land in the SVG.
struct ChartFrame {
  int64_t first_step = 0, last_step = 0, span = 1;
  double col = 1;        // width of one step
  double y_max = 1;      // programs at the top of the plot (a round tick)
  double bar_width = 1;  // width of one bucket's bar
  double x(int64_t step) const { return kLeft + static_cast<double>(step - first_step) * col; }
  double y(double v) const { return kTop + kProgramsHeight - v / y_max * kProgramsHeight; }
};

ChartFrame chart_frame(const RunChart& chart, int64_t first_step, int64_t last_step) {
  ChartFrame f;
  f.first_step = first_step;
  f.last_step = last_step;
  f.span = std::max<int64_t>(1, last_step - first_step + 1);
  f.col = kPlotWidth / static_cast<double>(f.span);
  f.y_max = std::max<double>(
      1, std::ceil(std::max<double>(1, chart.max_programs) / tick_step(chart.max_programs, 4)) *
             tick_step(chart.max_programs, 4));
  f.bar_width = std::max(1.0, f.col * static_cast<double>(chart.bucket) - 1);
  return f;
}

// The programs axis with round ticks and the step axis with round ticks at column centres.
void chart_axes_svg(const ChartFrame& f, std::string& out) {
  double ystep = tick_step(f.y_max, 4);
  for (double v = 0; v <= f.y_max + 1e-9; v += ystep)
    out += fmt::format(R"(<line class="grid" x1="{}" x2="{}" y1="{}" y2="{}"/><text x="{}" y="{}" )"
                       R"(text-anchor="end">{}</text>)",
                       num(kLeft), num(kLeft + kPlotWidth), num(f.y(v)), num(f.y(v)),
                       num(kLeft - 6), num(f.y(v) + 4), num(v));
  out += fmt::format(R"(<text x="{}" y="{}">programs cached</text>)", num(kLeft), num(kTop - 8));
  double xstep = std::max(1.0, tick_step(static_cast<double>(f.span), 10));
  int64_t first_tick =
      static_cast<int64_t>(std::ceil(static_cast<double>(f.first_step) / xstep) * xstep);
  for (double s = static_cast<double>(first_tick); s <= static_cast<double>(f.last_step);
       s += xstep) {
    double cx = f.x(static_cast<int64_t>(s)) + f.col / 2;
    out += fmt::format(R"(<line class="axis" x1="{0}" x2="{0}" y1="{1}" y2="{2}"/>)"
                       R"(<text x="{0}" y="{3}" text-anchor="middle">{4}</text>)",
                       num(cx), num(kBarsTop + kBarsHeight), num(kBarsTop + kBarsHeight + 4),
                       num(kBarsTop + kBarsHeight + 16), static_cast<int64_t>(s));
  }
  out += fmt::format(R"(<text x="{}" y="{}" text-anchor="end">step</text>)",
                     num(kLeft + kPlotWidth), num(kBarsTop + kBarsHeight + 28));
  out += fmt::format(R"(<line class="axis" x1="{0}" x2="{1}" y1="{2}" y2="{2}"/>)", num(kLeft),
                     num(kLeft + kPlotWidth), num(f.y(0)));
}

// The step line: programs cached, one horizontal run per change point.
void programs_line_svg(const RunChart& chart, const ChartFrame& f, std::string& out) {
  if (chart.programs.empty()) return;
  std::string d =
      fmt::format("M{} {}", num(f.x(chart.first_step)), num(f.y(chart.programs[0].second)));
  for (size_t i = 1; i < chart.programs.size(); ++i)
    d += fmt::format("H{}V{}", num(f.x(chart.programs[i].first)),
                     num(f.y(chart.programs[i].second)));
  d += fmt::format("H{}", num(f.x(chart.last_step + 1)));
  out += R"(<path class="programs" d=")" + d + "\"/>";
}

// Compile time (or compiles, when no time is known) per step, below.
void compile_bars_svg(const RunChart& chart, const ChartFrame& f, std::string& out) {
  bool timed = chart.max_compile_ms > 0;
  int64_t max_compiles = 1;
  for (const auto& b : chart.compiles) max_compiles = std::max(max_compiles, b.compiles);
  out += fmt::format(
      R"(<text x="{}" y="{}">{} per step (max {})</text>)", num(kLeft), num(kBarsTop - 6),
      timed ? "compile time" : "compiles",
      esc(timed ? analysis::duration_text(chart.max_compile_ms) : std::to_string(max_compiles)));
  out += fmt::format(R"(<line class="axis" x1="{0}" x2="{1}" y1="{2}" y2="{2}"/>)", num(kLeft),
                     num(kLeft + kPlotWidth), num(kBarsTop + kBarsHeight));
  for (const auto& b : chart.compiles) {
    double share = timed ? b.compile_ms.value_or(0) / chart.max_compile_ms
                         : static_cast<double>(b.compiles) / static_cast<double>(max_compiles);
    if (share <= 0) continue;
    double h = std::max(1.0, share * kBarsHeight);
    out += fmt::format(
        R"(<rect class="bar" x="{}" y="{}" width="{}" height="{}"><title>{}</title></rect>)",
        num(f.x(b.step) + 0.5), num(kBarsTop + kBarsHeight - h), num(f.bar_width), num(h),
        esc(fmt::format("{} {}: {} compiles, {}", chart.bucket > 1 ? "steps from" : "step", b.step,
                        b.compiles, duration_or_unknown(b.compile_ms))));
  }
}

// Recompiles by cause. A few marked columns: one dot per column and cause on the step line,
// sized by count. Many (a long run that recompiles all along): a strip under the step line,
// each column split by cause in proportion, so the line stays readable.
void recompile_marks_svg(const RunChart& chart, const ChartFrame& f, std::string& out) {
  std::map<int64_t, int64_t> per_column;
  for (const auto& m : chart.marks) per_column[m.step] += m.count;
  auto mark_title = [&](const ChartMark& m) {
    return esc(fmt::format("{} {}: {} {} recompile{}", chart.bucket > 1 ? "steps from" : "step",
                           m.step, m.count, m.cause, m.count == 1 ? "" : "s"));
  };
  if (per_column.size() <= kMaxDotColumns) {
    std::map<int64_t, int> stacked;
    for (const auto& m : chart.marks) {
      int k = stacked[m.step]++;
      double r = 3.5 + std::min(4.0, std::log2(static_cast<double>(m.count)));
      out += fmt::format(
          R"(<circle cx="{}" cy="{}" r="{}" fill="{}" fill-opacity="0.85"><title>{}</title>)"
          R"(</circle>)",
          num(f.x(m.step) + f.col * static_cast<double>(chart.bucket) / 2),
          num(std::max(kTop, f.y(static_cast<double>(m.programs)) - k * 9)), num(r),
          cause_colour(m.cause), mark_title(m));
    }
    return;
  }
  out += fmt::format(R"(<text x="{}" y="{}" text-anchor="end">recompiles by cause</text>)",
                     num(kLeft - 6), num(kStripTop + kStripHeight - 1));
  std::map<int64_t, double> filled;  // per column, share of the strip already drawn
  for (const auto& m : chart.marks) {
    double share = static_cast<double>(m.count) / static_cast<double>(per_column[m.step]);
    double& done = filled[m.step];
    out += fmt::format(
        R"(<rect x="{}" y="{}" width="{}" height="{}" fill="{}"><title>{}</title></rect>)",
        num(f.x(m.step) + 0.5), num(kStripTop + done * kStripHeight), num(f.bar_width),
        num(share * kStripHeight), cause_colour(m.cause), mark_title(m));
    done += share;
  }
}

}  // namespace

std::string render_chart_svg(const RunChart& chart, int64_t first_step, int64_t last_step,
                             int index, const std::string& title) {
  const ChartFrame f = chart_frame(chart, first_step, last_step);
  std::string out =
      fmt::format(R"(<svg class="chart" data-chart="{}" viewBox="0 0 {} {}" role="img" )"
                  R"(aria-label="{}">)",
                  index, num(kWidth), num(kHeight), esc("convergence of " + title));
  chart_axes_svg(f, out);
  programs_line_svg(chart, f, out);
  compile_bars_svg(chart, f, out);
  recompile_marks_svg(chart, f, out);
  if (chart.bucket > 1)
    out += fmt::format(R"(<text x="{}" y="{}" text-anchor="end">each column: {} steps</text>)",
                       num(kLeft + kPlotWidth), num(kTop - 8), chart.bucket);
  out += fmt::format(
      R"(<line class="cursor" x1="0" x2="0" y1="{}" y2="{}" visibility="hidden"/>)"
      R"(<text class="readout" x="{}" y="{}" visibility="hidden"></text>)"
      R"(<text class="readout readout-marks" x="{}" y="{}" visibility="hidden"></text>)",
      num(kTop), num(kBarsTop + kBarsHeight), num(kLeft + 8), num(kTop + 12), num(kLeft + 8),
      num(kTop + 26));
  return out + "</svg>";
}

std::string render_report_html(const ReportModel& model) {
  json charts = json::array();
  std::string body;
  size_t runs = 0;
  for (const auto& lane : model.lanes) runs += lane.runs.size();
  body += "<header><h1>rcf report</h1><p>" +
          esc(fmt::format("{} lane{}, {} run{}", model.lanes.size(),
                          model.lanes.size() == 1 ? "" : "s", runs, runs == 1 ? "" : "s")) +
          " &middot; database <code>" + esc(model.database) + "</code>";
  if (!model.source_root.empty())
    body += " &middot; source paths relative to <code>" + esc(model.source_root) + "</code>";
  body +=
      "</p></header>\n<nav><a href=\"#summary\">summary</a><a href=\"#convergence\">"
      "convergence</a>";
  for (size_t i = 0; i < model.lanes.size(); ++i)
    body += fmt::format(R"(<a href="#{}">{}</a>)", lane_anchor(i), esc(model.lanes[i].lane));
  body += "</nav>\n<main>\n";
  if (model.lanes.empty()) body += "<p>No runs in this database. Ingest logs with rcf ingest.</p>";
  body += summary_section(model);
  body += charts_section(model, charts);
  for (size_t i = 0; i < model.lanes.size(); ++i) {
    const auto& lane = model.lanes[i];
    body += fmt::format(R"(<section class="lane" id="{}"><h2>Lane {}</h2>)", lane_anchor(i),
                        esc(lane.lane));
    body += bundle_block(lane);
    body += fix_first_block(lane);
    body += frontier_block(lane);
    body += sites_block(lane);
    body += limits_block(lane);
    body += breaks_block(lane);
    body += cudagraph_block(lane);
    body += rank_divergence_block(lane);
    body += restart_block(lane);
    body += ingest_block(lane);
    body += "</section>\n";
  }
  body += "</main>\n";
  json data = {{"geometry",
                {{"left", kLeft},
                 {"width", kPlotWidth},
                 {"first", model.chart_first_step},
                 {"last", std::max(model.chart_last_step, model.chart_first_step)}}},
               {"charts", charts}};
  std::string title = model.lanes.size() == 1 ? "rcf report: " + model.lanes[0].lane : "rcf report";
  return "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
         "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
         "<title>" +
         esc(title) + "</title>" + style_element() + "</head>\n<body>\n" + body +
         "<script type=\"application/json\" id=\"rcf-chart-data\">" + script_safe_json(data) +
         "</script>\n" + script_element() + "\n</body></html>\n";
}

}  // namespace rcf::report
