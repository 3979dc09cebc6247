#include "ingest/dynamo/compilation_metrics_counts.h"

#include <utility>

namespace rcf::ingest {

std::optional<int64_t> DynamoCompile::*compilation_metrics_count(std::string_view key) {
  static constexpr std::pair<std::string_view, std::optional<int64_t> DynamoCompile::*> kCounts[] =
      {
          {"cache_size", &DynamoCompile::cache_size},
          {"accumulated_cache_size", &DynamoCompile::accumulated_cache_size},
          {"guard_count", &DynamoCompile::guard_count},
          {"shape_env_guard_count", &DynamoCompile::shape_env_guard_count},
          {"graph_op_count", &DynamoCompile::graph_op_count},
          {"graph_node_count", &DynamoCompile::graph_node_count},
          {"graph_input_count", &DynamoCompile::graph_input_count},
      };
  for (const auto& [name, member] : kCounts)
    if (name == key) return member;
  return nullptr;
}

}  // namespace rcf::ingest
