#include "analysis/attached_reasons.h"

#include <algorithm>
#include <tuple>

namespace rcf::analysis {
namespace {

// (source, rank) -> keys of the id-less compiles there, in line order.
using IdlessCompiles = std::map<std::pair<int64_t, int64_t>, std::vector<DynamoKey>>;

IdlessCompiles index_idless_compiles(const util::LargeVector<Merged>& merged) {
  IdlessCompiles idless;
  for (const Merged& m : merged)
    if (m.key.frame_id < 0 && m.key.ca_id < 0)
      idless[{m.key.source_id, m.key.rank}].push_back(m.key);
  for (auto& [where, keys] : idless)
    std::sort(keys.begin(), keys.end(), [](const DynamoKey& a, const DynamoKey& b) {
      return a.line_if_no_id < b.line_if_no_id;
    });
  return idless;
}

}  // namespace

void AttachedReasons::add(const ReasonRecord& r, util::LargeVector<Merged>& merged,
                          const TextsById* texts) {
  if (!explains_compile(r.origin)) return;
  const Merged* owner = owner_of(r, merged);
  if (!owner) return;
  AttachedReason a;
  a.line = r.line;
  a.entry_index = r.entry_index;
  a.compile = static_cast<uint32_t>(owner - merged.data());
  a.source_id = r.key.source_id;
  a.text = text_ref(r, texts);
  set_old_id(r.old_compile_id, a);
  a.origin = origin_index(r.origin);
  reasons_.push_back(a);
}

const Merged* AttachedReasons::owner_of(const ReasonRecord& r, util::LargeVector<Merged>& merged) {
  DynamoKey key = r.key;
  if (key.frame_id < 0 && key.ca_id < 0) {
    if (!idless_) idless_ = index_idless_compiles(merged);
    auto it = idless_->find({key.source_id, key.rank});
    if (it == idless_->end()) return nullptr;
    const auto& keys = it->second;
    auto after =
        std::upper_bound(keys.begin(), keys.end(), r.line,
                         [](int64_t line, const DynamoKey& k) { return line < k.line_if_no_id; });
    if (after == keys.begin()) return nullptr;  // no recompile block above this reason
    key = *(after - 1);
  }
  // The reasons of one recompile block are consecutive rows: its compile is looked up once.
  if (!last_owner_ || last_owner_->key != key) {
    const size_t from = last_owner_ ? static_cast<size_t>(last_owner_ - merged.data()) : 0;
    last_owner_ = find_merged_from(merged, key, from);
    if (!last_owner_) return nullptr;
  }
  return last_owner_;
}

int64_t AttachedReasons::text_ref(const ReasonRecord& r, const TextsById* texts) {
  if (r.reason_sid && *r.reason_sid >= 0) {
    if (!texts) return *r.reason_sid;
    std::optional<std::string_view> known = texts->find(*r.reason_sid);
    if (known && known->data() == r.reason.data() && known->size() == r.reason.size())
      return *r.reason_sid;
  }
  views_.push_back(r.reason);
  return -static_cast<int64_t>(views_.size());
}

void AttachedReasons::set_old_id(const std::string& text, AttachedReason& a) {
  if (std::optional<ingest::CompileId> id = ingest::CompileId::parse(text);
      id && id->is_text(text)) {
    a.old = *id;
    a.old_form = kCanonicalOldId;
    return;
  }
  auto [it, added] =
      other_old_id_index_.try_emplace(text, static_cast<uint32_t>(other_old_ids_.size()));
  if (added) other_old_ids_.push_back(text);
  a.old_form = it->second + 1;
}

uint32_t AttachedReasons::origin_index(std::string_view origin) {
  for (uint32_t i = 0; i < origins_.size(); ++i)
    if (origins_[i] == origin) return i;
  origins_.push_back(origin);
  return static_cast<uint32_t>(origins_.size() - 1);
}

void AttachedReasons::compiles_inserted(const std::vector<uint32_t>& added) {
  last_owner_ = nullptr;  // it pointed into the array before
  if (added.empty()) return;
  // A compile at old position p is after the added one j (at new position added[j], with
  // added[j] - j old compiles before it) when p >= added[j] - j.
  std::vector<uint32_t> old_before(added.size());
  for (size_t j = 0; j < added.size(); ++j) old_before[j] = added[j] - static_cast<uint32_t>(j);
  for (AttachedReason& r : reasons_)
    r.compile += static_cast<uint32_t>(
        std::upper_bound(old_before.begin(), old_before.end(), r.compile) - old_before.begin());
}

void AttachedReasons::group(util::LargeVector<Merged>& merged) {
  for (Merged& m : merged) m.reasons = 0;
  for (const AttachedReason& r : reasons_) ++merged[r.compile].reasons;
  uint32_t placed = 0;
  for (Merged& m : merged) {
    m.first_reason = placed;
    placed += m.reasons;
    m.reasons = 0;  // counts again while placing
  }
  // Each reason copied to its place in a new array, read in order: following the permutation's
  // cycles in place swapped two scattered reasons at each step (BM_GroupReasons in
  // bench/micro_bench.cc: about a third slower).
  util::LargeVector<AttachedReason> grouped(reasons_.size());
  for (const AttachedReason& r : reasons_) {
    Merged& owner = merged[r.compile];
    grouped[owner.first_reason + owner.reasons++] = r;
  }
  reasons_ = std::move(grouped);
  auto reason_less = [](const AttachedReason& a, const AttachedReason& b) {
    return std::tie(a.entry_index, a.source_id, a.line) <
           std::tie(b.entry_index, b.source_id, b.line);
  };
  for (const Merged& m : merged) {
    auto first = reasons_.begin() + m.first_reason, last = first + m.reasons;
    if (!std::is_sorted(first, last, reason_less)) std::stable_sort(first, last, reason_less);
  }
}

}  // namespace rcf::analysis
