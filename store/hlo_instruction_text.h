// The stored instructions of an HLO module (table hlo_instruction_text), decoded. The encoding
// is ingest/xla/hlo_instruction_encoding.h: the HLO parser writes it, the store keeps it as is.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ingest/xla/hlo_instruction_encoding.h"
#include "ingest/xla_events.h"
#include "store/database.h"

namespace rcf::store {

// The stored instructions of hlo_module `hlo_module_id`; nullopt with `*error` saying why when
// the module or its instructions are not in the store.
std::optional<std::vector<ingest::HloInstructionText>> read_hlo_instructions(Database& db,
                                                                             int64_t hlo_module_id,
                                                                             std::string* error);

}  // namespace rcf::store
