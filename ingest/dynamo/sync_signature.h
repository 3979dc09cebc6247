// Host-sync signatures: reason texts that show a graph break was caused by reading a tensor value
// on the host (`.item()`, data-dependent control flow, dynamic-output-shape ops). Shared by the
// TORCH_TRACE and Dynamo text importers so both mark GraphBreak::sync_signature the same way.
#pragma once

#include <string_view>

namespace rcf::ingest {

// True when `reason` contains any known host-sync signature (case-sensitive substring match).
bool has_sync_signature(std::string_view reason);

}  // namespace rcf::ingest
