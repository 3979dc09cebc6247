#include "ingest/dynamo/sync_signature.h"

#include <array>

namespace rcf::ingest {

bool has_sync_signature(std::string_view reason) {
  // Substrings printed by Dynamo when tracing hits a value that only exists on the device.
  static constexpr std::array<std::string_view, 10> kSignatures = {
      "Tensor.item()",
      "aten._local_scalar_dense",
      "Data-dependent branching",
      "generic_jump TensorVariable()",
      "attempted to jump with TensorVariable",
      "Dynamic shape operator",
      "aten.nonzero",
      "capture_scalar_outputs",
      "capture_dynamic_output_shape_ops",
      "data dependent operator",  // 2023-24 wording (explain() / graph_breaks)
  };
  for (std::string_view signature : kSignatures)
    if (reason.find(signature) != std::string_view::npos) return true;
  return false;
}

}  // namespace rcf::ingest
