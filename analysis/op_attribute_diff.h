// Which instructions differ between two HLO modules that have the same inputs and the same
// skeleton (the same ops wired the same way) but another structure: the op attributes and the
// shapes they give, e.g. a slice bound or a reshape size that a Python int baked into the graph.
// The instructions come from the store (hlo_instruction_text), never from the input files: the
// causes are the same wherever and whenever the store is analysed. Only such pairs (program_diff
// rule 4a) are compared, a few per run.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "ingest/xla_events.h"
#include "store/database.h"

namespace rcf::analysis {

struct OpAttributeChanges {
  std::string detail;   // the sentence for `recompiles.detail`
  std::string subject;  // "slice attributes", "iota shape": the first origin
};

// Pairs the instructions of `before` and `after` by position and names the origins of the
// change: instructions whose attributes differ, or whose shape differs while their operands'
// shapes do not (parameters of called computations and instructions that call one follow from
// elsewhere). The instructions that only follow from their operands are counted. nullopt when
// the lists do not pair up (other opcodes or counts: not the same skeleton) or nothing differs.
std::optional<OpAttributeChanges> describe_op_attribute_changes(
    const std::vector<ingest::HloInstructionText>& before,
    const std::vector<ingest::HloInstructionText>& after);

// Describes the change between two stored modules (hlo_module ids).
// Returns the changes, or nullopt with `*error` saying why they cannot be named.
using OpAttributeDescriber = std::function<std::optional<OpAttributeChanges>(
    int64_t before_module, int64_t after_module, std::string* error)>;

// An OpAttributeDescriber over the store's hlo_instruction_text rows. It holds `db` by reference
// (valid while the analysis of one run lasts), keeps the last few modules it decoded, and decodes
// at most `max_reads` modules; after that it says the limit was reached.
OpAttributeDescriber store_op_attribute_describer(store::Database& db, int max_reads = 256);

}  // namespace rcf::analysis
