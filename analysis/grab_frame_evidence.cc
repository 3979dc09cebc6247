#include "analysis/grab_frame_evidence.h"

#include <fmt/format.h>

#include <set>

namespace rcf::analysis {
namespace {

// Bounds the compiles one summary line adds: M is read from the input.
constexpr int64_t kMaxProgramsPerGroup = 100000;

// The site a group's stack gives, as torch_xla compiles name theirs (analysis/xla_compiles.cc):
// the innermost user frame, else the innermost frame.
std::string group_site(const GrabFrameRecord& g) {
  if (g.frames.empty()) return "<frame cut off in the grab_graphs.py output>";
  const auto user = innermost_user_frame(g.frames);
  return frame_text(user ? *user : g.frames.front());
}

bool at_site(const AttributedCompile& c, const std::string& site) {
  if (c.kind != "xla" || c.evidence_kind == kGrabGraphsEvidence) return false;
  return c.site == site || (c.site.starts_with(site) && c.site.compare(site.size(), 2, " [") == 0);
}

std::string summary_text(const GrabFrameRecord& g, const std::map<int64_t, std::string>& names) {
  auto name = names.find(g.source_id);
  return fmt::format("grab_graphs.py `Frame has {} graph(s) ({} unique)` at {}:{}", g.graphs,
                     g.unique, name == names.end() ? "?" : name->second, g.line);
}

std::string counts_text(const GrabFrameRecord& g) {
  return fmt::format("{} program{} at this frame: {} recompile{}, {} cache hit{}", g.unique,
                     g.unique == 1 ? "" : "s", g.unique - 1, g.unique == 2 ? "" : "s",
                     g.graphs - g.unique, g.graphs - g.unique == 1 ? "" : "s");
}

// The saved graphs' count next to the compile records already at the site.
void corroborate(const GrabFrameRecord& g, const std::string& summary,
                 const std::vector<size_t>& at, std::vector<AttributedCompile>& compiles) {
  std::set<std::string> programs;
  for (size_t i : at) programs.insert(compiles[i].program_key);
  const auto k = static_cast<int64_t>(programs.size());
  const std::string agreement =
      k == g.unique
          ? std::string("the compile records here show as many")
          : fmt::format(
                "the compile records here show {}: the summary counts distinct saved graph texts "
                "(from torch_xla 2.2 text IR hides constants, so two programs can print alike), "
                "and its file may cover another part of the run",
                k);
  const std::string line =
      fmt::format("corroborated by {}: {}; {}", summary, counts_text(g), agreement);
  for (size_t i : at) {
    AttributedCompile& c = compiles[i];
    c.evidence += "\n" + line;
    if (c.cause != "first_compile")
      c.detail += fmt::format(
          "; grab_graphs.py counts {} programs at this frame too; the cause above is decided by "
          "this compile's own records",
          g.unique);
  }
}

// The summary alone: M programs at the frame, what changed between them unknown.
void add_compiles(const GrabFrameRecord& g, const std::string& site, const std::string& summary,
                  const std::string& source, int64_t& ordinal,
                  std::vector<AttributedCompile>& compiles) {
  const int64_t n = std::min(g.unique, kMaxProgramsPerGroup);
  std::string prev;
  for (int64_t k = 1; k <= n; ++k) {
    AttributedCompile a;
    a.key.source_id = g.source_id;
    a.ordinal = ordinal++;
    a.line = g.line;
    a.kind = "xla";
    a.cache = "miss";
    a.evidence_kind = std::string(kGrabGraphsEvidence);
    a.site = site;
    a.program_key = fmt::format("grab_graphs {}:{} program {}/{}", source, g.line, k, g.unique);
    a.evidence = summary;
    if (k == 1) {
      a.cause = "first_compile";
      a.confidence = "medium";
      a.detail = fmt::format("the first of the {} counted by {}", counts_text(g), summary);
    } else {
      a.cause = "unknown";
      a.confidence = "low";
      a.subject = "programs counted by grab_graphs.py";
      a.prev_program_key = prev;
      a.detail = fmt::format(
          "one of the {} recompiles {} counts ({}); the cause is unknown: the summary counts "
          "distinct graphs, not what changed between them; the saved graphs themselves (ingest "
          "the XLA_SAVE_TENSORS_FILE it read, saved with XLA_SAVE_TENSORS_FMT=hlo, together with "
          "a PT_XLA_DEBUG=1 log) or an HLO dump (--xla_dump_to) would decide it",
          g.unique - 1, summary, counts_text(g));
      if (g.unique > n) a.detail += fmt::format("; only the first {} programs are listed", n);
    }
    prev = a.program_key;
    compiles.push_back(std::move(a));
  }
}

}  // namespace

void apply_grab_frames(const std::vector<GrabFrameRecord>& groups,
                       const std::map<int64_t, std::string>& source_name, int64_t& ordinal,
                       std::vector<AttributedCompile>& compiles) {
  std::map<std::string, const GrabFrameRecord*> by_site;
  std::vector<std::string> order;
  for (const GrabFrameRecord& g : groups) {
    auto [it, added] = by_site.try_emplace(group_site(g), &g);
    if (added) order.push_back(it->first);
    if (g.unique > it->second->unique) it->second = &g;
  }
  for (const std::string& site : order) {
    const GrabFrameRecord& g = *by_site[site];
    const std::string summary = summary_text(g, source_name);
    std::vector<size_t> at;
    for (size_t i = 0; i < compiles.size(); ++i)
      if (at_site(compiles[i], site)) at.push_back(i);
    if (!at.empty()) {
      corroborate(g, summary, at, compiles);
      continue;
    }
    auto name = source_name.find(g.source_id);
    add_compiles(g, site, summary, name == source_name.end() ? "?" : name->second, ordinal,
                 compiles);
  }
}

}  // namespace rcf::analysis
