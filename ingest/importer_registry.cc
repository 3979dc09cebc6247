#include <algorithm>
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

}  // namespace rcf::ingest
