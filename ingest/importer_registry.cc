#include <re2/re2.h>

#include <algorithm>
#include <string>
#include <vector>

#include "ingest/dynamo/dynamo_text_importer.h"
#include "ingest/importer.h"
#include "ingest/jax/jax_log_importer.h"
#include "ingest/steps/plain_text_importer.h"
#include "ingest/steps/step_timing_importer.h"
#include "ingest/torch_trace/torch_trace_importer.h"
#include "ingest/xla/hlo_text_importer.h"
#include "ingest/xla/pt_xla_debug_importer.h"
#include "ingest/xla/xla_dump_listing_importer.h"
#include "ingest/xla/xla_metrics_importer.h"
#include "ingest/xla/xla_saved_graph_importer.h"
#include "ingest/xla/xla_vlog_importer.h"

namespace rcf::ingest {

const std::vector<ImporterInfo>& importer_registry() {
  // Order matters only for equal sniff scores. Adding a format = one line here. plain_text
  // sniffs low, and only a console of progress lines, so it never wins against a real format; it
  // is also read when named (--format) or for an unrecognised file under --step-pattern
  // (docs/plain_text.md).
  static const std::vector<ImporterInfo> registry = {
      torch_trace_importer_info(),     dynamo_text_importer_info(),
      pt_xla_debug_importer_info(),    xla_metrics_importer_info(),
      xla_saved_graph_importer_info(), hlo_text_importer_info(),
      jax_log_importer_info(),         step_timing_importer_info(),
      xla_vlog_importer_info(),        xla_dump_listing_importer_info(),
      plain_text_importer_info(),
  };
  return registry;
}

const ImporterInfo* find_importer(std::string_view name) {
  for (const auto& info : importer_registry())
    if (info.name == name) return &info;
  return nullptr;
}

namespace {

// Registry indices by the highest score each sniffer can give, highest first (ties in registry
// order): once a score is found, the sniffers after the first that cannot reach it are not run.
const std::vector<size_t>& sniff_order() {
  static const std::vector<size_t> order = [] {
    const std::vector<ImporterInfo>& registry = importer_registry();
    std::vector<size_t> by_max(registry.size());
    for (size_t i = 0; i < by_max.size(); ++i) by_max[i] = i;
    std::stable_sort(by_max.begin(), by_max.end(), [&](size_t a, size_t b) {
      return registry[a].max_score > registry[b].max_score;
    });
    return by_max;
  }();
  return order;
}

}  // namespace

const ImporterInfo* sniff_importer(std::string_view head) {
  const std::vector<ImporterInfo>& registry = importer_registry();
  size_t best = registry.size();
  int best_score = 0;
  for (size_t i : sniff_order()) {
    const ImporterInfo& info = registry[i];
    if (info.max_score < best_score) break;                  // nor can any after it
    if (info.max_score == best_score && i > best) continue;  // it could only tie, and lose
    int score = info.sniff(head);
    if (score > best_score || (score == best_score && score > 0 && i < best)) {
      best = i;
      best_score = score;
    }
  }
  return best < registry.size() ? &registry[best] : nullptr;
}

namespace {

// Any console format's marker, as one pattern: a console's line is searched once for all of
// them, and only a line that holds one is sniffed (three sniffers' markers a line, one by one,
// took a plain console's read from 2.3 to 3.9-5.7 s for 1.76 M lines).
const RE2& any_console_marker() {
  static const RE2* pattern = [] {
    std::string alternatives;
    for (const ImporterInfo& info : importer_registry())
      for (std::string_view marker : info.console_markers)
        (alternatives += alternatives.empty() ? "" : "|") += RE2::QuoteMeta(marker);
    RE2::Options options;
    options.set_log_errors(false);
    return new RE2(alternatives.empty() ? "$^" : alternatives, options);
  }();
  return *pattern;
}

}  // namespace

const ImporterInfo* console_format_of(std::string_view line) {
  if (!RE2::PartialMatch(line, any_console_marker())) return nullptr;
  const ImporterInfo* found = nullptr;
  for (const ImporterInfo& info : importer_registry())
    if (!info.console_markers.empty() && (!found || info.max_score > found->max_score) &&
        info.sniff(line) >= info.max_score)
      found = &info;
  return found;
}

}  // namespace rcf::ingest
