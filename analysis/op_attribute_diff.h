// Which instructions differ between two HLO modules that have the same inputs and the same
// skeleton (the same ops wired the same way) but another structure: the op attributes and the
// shapes they give, e.g. a slice bound or a reshape size that a Python int baked into the graph.
// The store keeps fingerprints, not instructions, so the two modules are read again from their
// files; this happens only for such pairs (program_diff rule 4a), a few per run.
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

// The instructions of the module whose `HloModule` line is line `line` of `path` (plain or
// gzip). nullopt with `*error` set when the file cannot be read or holds no such module, or when
// the module read has another structure fingerprint than `structure_fingerprint` (the file
// changed since it was ingested).
std::optional<std::vector<ingest::HloInstructionText>> reread_module_instructions(
    const std::string& path, int64_t line, const std::string& structure_fingerprint,
    std::string* error);

// Describes the change between two stored modules (hlo_module ids), reading them again.
// Returns the changes, or nullopt with `*error` saying why they cannot be named.
using OpAttributeDescriber = std::function<std::optional<OpAttributeChanges>(
    int64_t before_module, int64_t after_module, std::string* error)>;

// An OpAttributeDescriber over the store's hlo_module and source rows. It holds `db` by
// reference (valid while the analysis of one run lasts), keeps the last few modules it read,
// and reads at most `max_reads` modules; after that it says the limit was reached.
OpAttributeDescriber store_op_attribute_describer(store::Database& db, int max_reads = 256);

}  // namespace rcf::analysis
