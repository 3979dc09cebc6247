#include "store/hlo_instruction_text.h"

#include <fmt/format.h>

namespace rcf::store {

using ingest::HloInstructionText;

std::optional<std::vector<HloInstructionText>> read_hlo_instructions(Database& db,
                                                                     int64_t hlo_module_id,
                                                                     std::string* error) {
  auto st = db.prepare("SELECT instructions FROM hlo_instruction_text WHERE hlo_module_id = ?");
  st.bind(1, hlo_module_id);
  if (!st.step()) {
    *error = fmt::format("HLO module {} has no instructions in the store", hlo_module_id);
    return std::nullopt;
  }
  auto instructions = ingest::decode_hlo_instructions(st.text(0));
  if (!instructions)
    *error = fmt::format("the stored instructions of HLO module {} do not decode", hlo_module_id);
  return instructions;
}

}  // namespace rcf::store
