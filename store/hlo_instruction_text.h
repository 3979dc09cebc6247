// The instructions of an HLO module as the store keeps them (table hlo_instruction_text), so that
// analysis compares two programs' op attributes from the store alone, never from the input files
// (which may have moved, or been read from standard input).
//
// Encoding, one line per instruction in printed order, fields separated by tabs:
//   ordinal, name, opcode, shape, shown_shape, operands (ordinals joined by ','), op_name,
//   source_file, source_line, then four fields per attribute: key, calls ('1' or '0'),
//   canonical, shown.
// A shown text equal to its canonical text is written empty. '\\', tab, '\n' and '\r' inside a
// field are written as "\\\\", "\\t", "\\n", "\\r".
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ingest/xla_events.h"
#include "store/database.h"

namespace rcf::store {

std::string encode_hlo_instructions(const std::vector<ingest::HloInstructionText>& instructions);

// nullopt when `text` is not an encoding written by encode_hlo_instructions.
std::optional<std::vector<ingest::HloInstructionText>> decode_hlo_instructions(
    std::string_view text);

// The stored instructions of hlo_module `hlo_module_id`; nullopt with `*error` saying why when
// the module or its instructions are not in the store.
std::optional<std::vector<ingest::HloInstructionText>> read_hlo_instructions(Database& db,
                                                                             int64_t hlo_module_id,
                                                                             std::string* error);

}  // namespace rcf::store
