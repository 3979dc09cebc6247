// The guard failures of a Dynamo run attached to its merged compiles (analysis/merged_compile.h),
// each as it is read: what attribution reads of a reason, held in 56 bytes (a ReasonRecord takes
// 120; a run holds one per guard failure). Internal to analysis/dynamo_attribution.cc.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "analysis/dynamo_attribution.h"
#include "analysis/merged_compile.h"
#include "analysis/texts_by_id.h"
#include "ingest/compile_id.h"
#include "util/large_array_allocator.h"

namespace rcf::analysis {

// One guard failure attached to its compile: what attribution reads of it, in 56 bytes where a
// ReasonRecord takes 120 (a run holds one per guard failure: 179,000 on the dense log). Its
// texts are found again through AttachedReasons.
struct AttachedReason {
  int64_t line = 0;
  int64_t entry_index = 0;
  ingest::CompileId old;  // its old compile id, when old_form is AttachedReasons::kCanonicalOldId
  int64_t text = 0;  // its text's string id (>= 0), else -(1 + index in AttachedReasons::views_)
  uint32_t compile = 0;  // the position of its compile among the merged compiles (key order)
  int32_t source_id = 0;
  uint32_t old_form = 0;  // kCanonicalOldId, else 1 + index in AttachedReasons::other_old_ids_
  uint32_t origin = 0;    // index in AttachedReasons::origins_
};
static_assert(sizeof(AttachedReason) <= 56, "a run holds one per guard failure: keep it small");

// The explaining guard failures of a run's merged compiles, each attached to its compile as it
// is added (in row order), then grouped by compile (group()): Merged::first_reason/reasons index
// them. A reason without a compile id (2023-era text) belongs to the closest recompile block
// above it in its source; a reason whose compile is not there, or that explains no compile (a
// limit warning, a profiler table), is dropped.
class AttachedReasons {
 public:
  static constexpr uint32_t kCanonicalOldId = 0;

  // `texts`, when given, are the run's texts: a reason's text is then kept as its string id only
  // if it is that id's text in `texts` (else as a view). Without them, a reason that has a string
  // id must view that id's text in RunInputs::texts (the loader's reasons do).
  void add(const ReasonRecord& r, util::LargeVector<Merged>& merged, const TextsById* texts);

  // How many reasons are attached.
  size_t size() const { return reasons_.size(); }
  // Whether a reason without a compile id was added: its compile is the closest recompile block
  // above it, which compiles added later may change.
  bool has_idless() const { return idless_.has_value(); }
  // The merged compiles were copied anew with compiles inserted at `added` (ascending positions
  // in the new array; the others keep their order): the reasons' compiles follow, before the next
  // add() into the new array (ungrouped reasons only).
  void compiles_inserted(const std::vector<uint32_t>& added);

  // Groups the reasons by compile, each compile's by entry index, then log position, then row
  // order. Placed with a counting sort (stable: row order within a compile), then each compile's
  // few reasons ordered where they are not already.
  void group(util::LargeVector<Merged>& merged);

  std::span<const AttachedReason> of(const Merged& m) const {
    return {reasons_.data() + m.first_reason, m.reasons};
  }
  std::string_view text(const AttachedReason& r, const RunInputs& in) const {
    if (r.text < 0) return views_[static_cast<size_t>(-(r.text + 1))];
    return in.texts.find(r.text).value_or(std::string_view());
  }
  std::optional<int64_t> sid(const AttachedReason& r) const {
    return r.text >= 0 ? std::optional<int64_t>(r.text) : std::nullopt;
  }
  std::string_view origin(const AttachedReason& r) const { return origins_[r.origin]; }
  // Its old compile id as the log printed it ("" when none).
  std::string old_id_text(const AttachedReason& r) const {
    return r.old_form == kCanonicalOldId ? r.old.text() : other_old_ids_[r.old_form - 1];
  }
  bool has_old_id(const AttachedReason& r) const {
    return r.old_form == kCanonicalOldId || !other_old_ids_[r.old_form - 1].empty();
  }
  std::optional<ingest::CompileId> old_id(const AttachedReason& r) const {
    if (r.old_form == kCanonicalOldId) return r.old;
    return ingest::CompileId::parse(other_old_ids_[r.old_form - 1]);
  }

 private:
  const Merged* owner_of(const ReasonRecord& r, util::LargeVector<Merged>& merged);

  int64_t text_ref(const ReasonRecord& r, const TextsById* texts);

  // Kept parsed when the text is the canonical form of what it parses to ("0/1", "!0/1/0"): the
  // text is then made again from it. Any other text (none, or another spelling) is kept as text.
  void set_old_id(const std::string& text, AttachedReason& a);

  uint32_t origin_index(std::string_view origin);

  util::LargeVector<AttachedReason> reasons_;  // in row order until group(), then by compile
  std::vector<std::string_view> views_;        // texts kept as views
  std::vector<std::string> other_old_ids_;
  std::unordered_map<std::string, uint32_t> other_old_id_index_;
  std::vector<std::string_view> origins_;  // by content; views into the RunInputs
  // (source, rank) -> keys of the id-less compiles there, in line order; built at the first
  // id-less reason.
  std::optional<std::map<std::pair<int64_t, int64_t>, std::vector<DynamoKey>>> idless_;
  const Merged* last_owner_ = nullptr;
};

}  // namespace rcf::analysis
