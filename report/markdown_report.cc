#include "report/markdown_report.h"

#include <fmt/format.h>

#include <algorithm>

#include "analysis/restart_proof.h"
#include "report/rank_divergence_output.h"
#include "report/report_text.h"
#include "util/safe_text.h"

namespace rcf::report {
namespace {

constexpr int64_t kFixFirstInNote = 10;  // fix-first rows per run in the note

std::string code(std::string_view s) {
  return md_code(s, false);
}
std::string cell_code(std::string_view s) {
  return md_code(s, true);
}

std::string lost_text(const FixFirstItem& f) {
  if (!f.compile_ms_lost) return "unknown";
  std::string t = analysis::duration_text(*f.compile_ms_lost);
  return f.compile_ms_basis == "step_share" ? "~" + t : t;
}

std::string steps_text(const RunChart& c, const RunSummary& s) {
  return fmt::format("{}s {}..{}", s.step_axis, c.first_step, s.last_step);
}

// What the convergence curve of one run supports, in one or two sentences, in the run's unit
// (training steps, or syncs where the training step is undecided), and what decided that unit.
std::string convergence_claim(const RunReport& run) {
  const RunSummary& s = run.summary;
  const std::string& u = s.step_axis;
  const std::string path = "in the checked path (" + steps_text(run.chart, s) + ")";
  std::string axis_text = step_axis_text(s);
  axis_text[0] = 'S';  // a sentence of its own: "Steps: ..."
  const std::string axis = " " + md_text(axis_text) + ".";
  if (s.settle_state == "settled") {
    if (s.settle_step == 0) return fmt::format("This lane built no new program {}.", path) + axis;
    if (run.recompiles_after_settle == 0)
      return fmt::format(
                 "This lane settled at {} {} with {} and showed no recompiles after {} {} {}.", u,
                 s.settle_step, plural(s.programs_at_settle, "program"), u, s.settle_step, path) +
             axis;
    return fmt::format(
               "This lane settled at {} {} with {} {}; {} after {} {} rebuilt programs it "
               "already had.",
               u, s.settle_step, plural(s.programs_at_settle, "program"), path,
               plural(run.recompiles_after_settle, "recompile"), u, s.settle_step) +
           axis;
  }
  if (s.settle_state == "still_growing")
    return fmt::format("This lane did not settle {}: {}.", path, md_text(s.convergence_text)) +
           axis;
  if (s.settle_state == "not_settled")
    return fmt::format(
               "This lane was still building new programs at the last {} seen ({} {}, {}): the "
               "checked path ({}) is too short to call it settled.",
               u, u, s.last_step, plural(s.final_programs, "program"), steps_text(run.chart, s)) +
           axis;
  if (s.compiles == 0) return "The logs of this run show no compile.";
  return "The logs of this run carry no training steps, so whether it settled cannot be judged.";
}

std::string counts_claim(const RunReport& run) {
  const RunSummary& s = run.summary;
  std::string out = fmt::format("{} of {}", plural(s.compiles, "compile"),
                                plural(run.programs, "distinct program"));
  if (s.failed) out += fmt::format(" ({} failed)", s.failed);
  if (s.recompiles == 0)
    out += "; no recompiles in the checked path";
  else
    out += fmt::format("; {}: {}", plural(s.recompiles, "recompile"),
                       causes_text(s.causes, [](const std::string& c) { return code(c); }));
  out += ".";
  if (s.compile_ms && s.wall_ms && s.compile_share) {
    out += fmt::format(" Compile time {} of {} step wall time ({:.0f}%)",
                       analysis::duration_text(*s.compile_ms), analysis::duration_text(*s.wall_ms),
                       *s.compile_share * 100);
    if (s.execute_ms) {
      std::optional<double> other = other_step_ms(s);
      out += fmt::format("; execute {}, other {}", analysis::duration_text(*s.execute_ms),
                         other ? analysis::duration_text(*other)
                               : std::string("unknown (execution overlaps host time)"));
    }
    out += ".";
  } else if (s.compile_ms)
    out += fmt::format(" Compile time {}.", analysis::duration_text(*s.compile_ms));
  return out;
}

// A run without evidence is said so, never "no recompiles".
std::string no_evidence_claim(const RunSummary& s) {
  return fmt::format("**No evidence:** {}, so nothing is known about its compiles or recompiles.",
                     md_text(s.no_evidence));
}

std::string run_claims(const RunReport& run) {
  if (!run.summary.no_evidence.empty()) return no_evidence_claim(run.summary);
  return convergence_claim(run) + " " + counts_claim(run);
}

bool reused_everything(const analysis::RestartProof& p) {
  return p.verdict == analysis::RestartVerdict::kProven && p.warm.programs_built &&
         p.warm.programs_built->value == 0 && p.cold.programs_built &&
         p.cold.programs_built->value > 0 && p.warm.programs_loaded &&
         p.warm.programs_loaded->value >= p.cold.programs_built->value;
}

std::string restart_claim(const RestartReport& r) {
  const auto& p = r.proof;
  std::string pair = fmt::format("{} → {}", code(r.cold_run), code(r.warm_run));
  if (reused_everything(p))
    return fmt::format("Warm restart {}: the restart reused all {} executables ({}).", pair,
                       static_cast<int64_t>(p.cold.programs_built->value), md_text(p.headline));
  return fmt::format("Warm restart {}: {}.", pair, md_text(p.headline));
}

std::string sources_line(const RunReport& run) {
  std::string formats;
  for (const auto& f : run.formats) formats += (formats.empty() ? "" : ", ") + code(f);
  std::string out = fmt::format("{} ({})", plural(run.summary.sources, "source"),
                                formats.empty() ? "none" : formats);
  if (run.summary.rejected_lines)
    out += fmt::format(", {} rejected", plural(run.summary.rejected_lines, "input line"));
  if (run.summary.hosts.size() > 1) out += "; hosts: " + md_text(hosts_text(run.summary));
  return out;
}

// Runs with the same bundle share one entry ("runs `cold`, `warm`: torch `2.12.0`, ...").
std::string bundle_text(const LaneReport& lane) {
  std::vector<std::pair<std::string, std::vector<std::string>>> groups;  // entries -> runs
  for (const auto& run : lane.runs) {
    if (run.bundle.empty()) continue;
    std::string entries;
    for (const auto& e : run.bundle)
      entries += (entries.empty() ? "" : ", ") + md_text(e.key) + " " + code(e.value);
    auto it = std::find_if(groups.begin(), groups.end(),
                           [&](const auto& g) { return g.first == entries; });
    if (it == groups.end()) it = groups.insert(groups.end(), {entries, {}});
    it->second.push_back(code(run.summary.run));
  }
  std::string out;
  for (const auto& [entries, runs] : groups) {
    std::string names;
    for (const auto& r : runs) names += (names.empty() ? "" : ", ") + r;
    out += fmt::format("{}run{} {}: {}", out.empty() ? "" : "; ", runs.size() > 1 ? "s" : "", names,
                       entries);
  }
  return out;
}

std::string fix_first_table(const RunReport& run) {
  const auto& list = run.summary.fix_first;
  std::string out =
      "| # | site | cause | recompiles | compile time lost | steps | latest detail |\n"
      "|---:|---|---|---:|---:|---|---|\n";
  int64_t shown = 0;
  for (const auto& f : list) {
    if (shown++ >= kFixFirstInNote) break;
    std::string steps = !f.first_step ? ""
                        : *f.first_step == *f.last_step
                            ? std::to_string(*f.first_step)
                            : fmt::format("{}..{}", *f.first_step, *f.last_step);
    out += fmt::format("| {} | {} | {} | {} | {} | {} | {} |\n", f.rank, cell_code(f.site),
                       cell_code(f.cause), f.recompiles, lost_text(f), steps, md_text(f.detail));
  }
  const int64_t listed = std::min<int64_t>(kFixFirstInNote, static_cast<int64_t>(list.size()));
  if (run.summary.fix_first_total > listed)
    out += fmt::format("\n{} more groups in the `fix_first` view.\n",
                       run.summary.fix_first_total - listed);
  return out;
}

// Inductor's reasons for not using CUDA graphs in one run (docs/cudagraph_skips.md).
std::string cudagraph_table(const RunReport& run) {
  const auto& skips = run.summary.cudagraph_skips;
  std::string out = "| messages | kind | compile | reason | from |\n|---:|---|---|---|---|\n";
  for (size_t i = 0; i < skips.size(); ++i) {
    if (static_cast<int64_t>(i) >= kMaxGraphBreakRows) {
      out += fmt::format("\n{} more (the `cudagraph_skips` view holds every one).\n",
                         skips.size() - i);
      break;
    }
    const CudagraphSkipInfo& k = skips[i];
    out += fmt::format("| {} | {} | {} | {} | {} |\n", k.count, k.kind,
                       k.program_key.empty() ? "" : cell_code(k.program_key), cell_code(k.reason),
                       k.user_location.empty() ? "" : cell_code(k.user_location));
  }
  return out;
}

// The words of a validated or risk claim about a run ("run `x`: ...").
std::string run_claim_text(const LaneReport& lane, const LaneClaim& c) {
  const RunReport& run = lane.runs[c.run];
  const RunSummary& s = run.summary;
  const std::string label = "run " + code(s.run);
  switch (c.kind) {
    case ClaimKind::kSettledClean:
      return fmt::format(
          "{}: settled at {} {} with {}; no recompiles after {} {} in the checked path ({}).",
          label, s.step_axis, s.settle_step, plural(s.programs_at_settle, "program"), s.step_axis,
          s.settle_step, steps_text(run.chart, s));
    case ClaimKind::kNoRecompiles:
      return fmt::format("{}: this lane did not show extra recompiles in the checked path ({}).",
                         label, plural(s.compiles, "compile"));
    case ClaimKind::kNoEvidence:
      return fmt::format("{}: no evidence ({}); ingest its logs before relying on it.", label,
                         md_text(s.no_evidence));
    case ClaimKind::kNotSettled:
      return fmt::format("{}: {}.", label, md_text(s.convergence_text));
    case ClaimKind::kNoSteps:
      return fmt::format(
          "{}: no training steps in the logs, so convergence is unchecked (ingest step timings, "
          "`--step-pattern`, or the XLA metrics file).",
          label);
    case ClaimKind::kUnknownCause: {
      const FixFirstItem& f = s.fix_first[c.item];
      return fmt::format("{}: {} at {} with cause `unknown`: {}", label,
                         plural(f.recompiles, "recompile"), code(f.site), md_text(f.detail));
    }
    case ClaimKind::kMoreUnknownCauses:
      return fmt::format(
          "{}: {} more sites with cause `unknown` (the `fix_first` view lists them).", label,
          c.count);
    case ClaimKind::kLimitHit: {
      const SiteSummary& site = s.sites[c.item];
      const LimitHitInfo& h = site.limit_hits[c.sub];
      return fmt::format(
          "{}: {} hit `{}`{} at {}; {}.", label, code(site.site), md_text(h.limit_type),
          h.limit_value ? fmt::format(" ({})", *h.limit_value) : "", md_text(h.where),
          h.hard_failure ? "the run raised FailOnRecompileLimitHit"
                         : "the frame runs eager from there on (a fallback, not a fix)");
    }
    case ClaimKind::kFailedCompiles:
      return fmt::format("{}: {} raised (no program was installed).", label,
                         plural(s.failed, "compile"));
    case ClaimKind::kRejectedLines:
      return fmt::format(
          "{}: {} rejected at ingest; the claims cover only what was read (see the ingest "
          "statistics).",
          label, plural(s.rejected_lines, "input line"));
    default:
      return "";
  }
}

// The words of a workaround or frontier claim about a run.
std::string run_action_text(const LaneReport& lane, const LaneClaim& c) {
  const RunReport& run = lane.runs[c.run];
  const RunSummary& s = run.summary;
  const std::string label = "run " + code(s.run);
  if (c.kind == ClaimKind::kRemedy) {
    const FixFirstItem& f = s.fix_first[c.item];
    return fmt::format("{}, {} at {} ({}, {} lost): {}.", label, code(f.cause), code(f.site),
                       plural(f.recompiles, "recompile"), lost_text(f), md_text(f.remedy));
  }
  if (c.kind == ClaimKind::kFirstFailure) {
    const auto& f = *run.first_failure;
    return fmt::format("{}: {}compile #{} ({}) at {} raised{}", label,
                       f.step ? fmt::format("{} {}, ", s.step_axis, *f.step) : "", f.ordinal,
                       code(f.program_key), code(f.site),
                       f.reason.empty() ? "" : " " + code(f.reason));
  }
  const auto& r = *run.first_recompile;
  return fmt::format("{}: {}compile #{} ({}) at {}: {}{}{}", label,
                     r.step ? fmt::format("{} {}, ", s.step_axis, *r.step) : "", r.ordinal,
                     code(r.program_key), code(run.first_recompile_site), code(r.cause),
                     r.detail.empty() ? "" : " — ", md_text(r.detail));
}

std::string claim_text(const LaneReport& lane, const LaneClaim& c) {
  switch (c.kind) {
    case ClaimKind::kRestartProven:
    case ClaimKind::kRestartNotProven:
      return restart_claim(lane.restarts[c.item]);
    case ClaimKind::kRestartToEnable: {
      const RestartReport& r = lane.restarts[c.item];
      return fmt::format("to decide the restart {} → {}, enable: {}", code(r.cold_run),
                         code(r.warm_run), md_text(r.proof.to_enable[c.sub]));
    }
    case ClaimKind::kNoBundle:
      return "the stack versions are not recorded, so these claims are not yet tied to a torch / "
             "torch_xla / libtpu / jax bundle.";
    case ClaimKind::kRemedy:
    case ClaimKind::kFirstFailure:
    case ClaimKind::kFirstRecompile:
      return run_action_text(lane, c);
    default:
      return run_claim_text(lane, c);
  }
}

std::string claims_list(const LaneReport& lane, const char* title,
                        const std::vector<LaneClaim>& claims, const char* none) {
  std::string s = fmt::format("\n### {}\n\n", title);
  if (claims.empty()) return s + none + "\n";
  for (const LaneClaim& c : claims) s += "- " + claim_text(lane, c) + "\n";
  return s;
}

// The bundle line, each run's sources and what the logs show of each run and restart.
std::string lane_summary(const LaneReport& lane) {
  std::string out = fmt::format("## Lane {}\n\n", code(lane.lane));
  std::string bundle = bundle_text(lane);
  out += "- **Bundle:** " +
         (bundle.empty() ? std::string("not recorded (the ingested logs do not print the torch / "
                                       "torch_xla / libtpu / jax versions; `rcf ingest --bundle` "
                                       "or `rcf capture` records them)")
                         : bundle) +
         "\n";
  for (const auto& run : lane.runs)
    out += fmt::format("- **Run {}:** {}\n", code(run.summary.run), sources_line(run));
  out += "\n### What the logs show\n\n";
  for (const auto& run : lane.runs)
    out += fmt::format("- Run {}: {}\n", code(run.summary.run), run_claims(run));
  for (const auto& r : lane.restarts) out += "- " + restart_claim(r) + "\n";
  return out;
}

// Per run: the fix-first table, CUDA graphs not used and where the ranks diverge.
std::string lane_tables(const LaneReport& lane) {
  std::string out;
  for (const auto& run : lane.runs) {
    if (run.summary.fix_first.empty()) continue;
    out += fmt::format("\n### Fix first (run {})\n\n", code(run.summary.run));
    out += fix_first_table(run);
  }
  for (const auto& run : lane.runs) {
    if (run.summary.cudagraph_skips.empty()) continue;
    out += fmt::format("\n### CUDA graphs not used (run {})\n\n", code(run.summary.run));
    out += cudagraph_table(run);
  }
  for (const auto& run : lane.runs) {
    if (run.summary.rank_divergence.empty()) continue;
    out += fmt::format("\n### Ranks diverge (run {})\n\n", code(run.summary.run));
    out += rank_divergence_markdown(run.summary);
  }
  return out;
}

std::string lane_claim_lists(const LaneReport& lane) {
  const LaneClaims& claims = lane.claims;
  std::string out = claims_list(
      lane, "Validated default", claims.validated,
      "Nothing validated: no run of this lane settled without recompiles in the checked path, "
      "and no restart was proven.");
  out += claims_list(lane, "Workaround (suggested by the causes; not validated by these logs)",
                     claims.workaround,
                     claims.evidence ? "None needed: no recompiles in the checked path."
                                     : "Unknown: no run of this lane holds evidence.");
  out += claims_list(lane, "Open risk", claims.risk, "None found in the checked path.");
  out += claims_list(lane, "First failing frontier", claims.frontier,
                     claims.evidence ? "None in the checked path: no recompile."
                                     : "Unknown: no run of this lane holds evidence.");
  return out;
}

std::string ingest_table(const LaneReport& lane) {
  std::string out =
      "\n### Ingest statistics\n\n| run | file | format | lines | events | rejected |\n"
      "|---|---|---|---:|---:|---:|\n";
  for (const auto& run : lane.runs) {
    for (const auto& src : run.sources)
      out += fmt::format("| {} | {} | {} | {} | {} | {} |\n", cell_code(run.summary.run),
                         cell_code(src.path), cell_code(src.format), src.lines, src.events,
                         src.rejected);
    if (run.sources_not_listed)
      out += fmt::format("| {} | ({} more) | | | | |\n", cell_code(run.summary.run),
                         run.sources_not_listed);
  }
  return out;
}

std::string lane_note(const LaneReport& lane) {
  return lane_summary(lane) + lane_tables(lane) + lane_claim_lists(lane) + ingest_table(lane);
}

}  // namespace

std::string md_code(std::string_view text, bool in_table) {
  return util::markdown_code(text, in_table);
}

std::string md_text(std::string_view text) {
  return util::markdown_text(text);
}

std::string render_report_markdown(const ReportModel& model) {
  std::string out = "# Upgrade note: compile behaviour per lane\n\n";
  out +=
      "Generated by `rcf report` from the ingested logs. Every statement is about one lane (a "
      "configuration: model, flags and stack bundle) and only what its logs show; \"the checked "
      "path\" is the steps those logs cover.\n\n";
  if (model.lanes.empty()) return out + "No runs in this database.\n";
  out +=
      "| lane | run | convergence | programs | compiles | recompiles | restart |\n"
      "|---|---|---|---:|---:|---:|---|\n";
  for (const auto& lane : model.lanes)
    for (const auto& run : lane.runs) {
      std::string restart;
      for (const auto& r : lane.restarts)
        if (r.warm_run == run.summary.run)
          restart =
              fmt::format("{} vs {}", cell_code(analysis::restart_verdict_name(r.proof.verdict)),
                          cell_code(r.cold_run));
      out +=
          fmt::format("| {} | {} | {} | {} | {} | {} | {} |\n", cell_code(lane.lane),
                      cell_code(run.summary.run),
                      md_text(!run.summary.no_evidence.empty()        ? "no evidence"
                              : !run.summary.convergence_text.empty() ? run.summary.convergence_text
                              : run.summary.compiles == 0             ? "no compiles"
                                                                      : "no steps in the logs"),
                      run.programs, run.summary.compiles, run.summary.recompiles, restart);
    }
  for (const auto& lane : model.lanes) out += "\n" + lane_note(lane);
  return out;
}

}  // namespace rcf::report
