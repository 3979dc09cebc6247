// Readers for the TORCH_TRACE payloads that say what a compiled graph does across ranks
// (docs/rank_divergence.md): each turns a payload into the items of a GraphFact.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rcf::ingest {

// `inductor_collective_schedule`: a JSON list of op names. nullopt when it is not one.
std::optional<std::vector<std::string>> collective_schedule_items(std::string_view payload);

// `inductor_output_code`: the collective ops the generated code calls, in order
// (`torch.ops._c10d_functional.<op>.<overload>(`); commented-out calls and names inside strings
// are not calls. nullopt when the code never mentions a functional collective.
std::optional<std::vector<std::string>> code_collective_items(std::string_view code);

// `inductor_runtime_and_tensor_meta`: one item per op, "<name> -> <dtype>[<shape>] stride
// [<stride>] + ..." ("no outputs" when none; the estimated runtimes are left out: they are
// estimates, not behaviour).
std::optional<std::vector<std::string>> tensor_meta_items(std::string_view payload);

// `graph_execution`: the compile ids of `graph_execution_order`, in order.
std::optional<std::vector<std::string>> execution_order_items(std::string_view payload);

}  // namespace rcf::ingest
