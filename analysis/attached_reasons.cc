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
  // A counting sort on compact arrays (a compile's first reason, then the next free place): the
  // compiles themselves (104 bytes each) are walked once, at the end, where walking them for
  // each step was most of the time at 200 000 compiles.
  util::LargeVector<uint32_t> next(merged.size() + 1, 0);
  for (const AttachedReason& r : reasons_) ++next[r.compile + 1];
  for (size_t i = 1; i < next.size(); ++i) next[i] += next[i - 1];
  // Each reason copied to its place in a new array, read in order: following the permutation's
  // cycles in place swapped two scattered reasons at each step (BM_GroupReasons in
  // bench/micro_bench.cc: about a third slower).
  util::LargeVector<AttachedReason> grouped(reasons_.size());
  for (const AttachedReason& r : reasons_) grouped[next[r.compile]++] = r;
  reasons_ = std::move(grouped);
  // next[i] is now where compile i's reasons end, and so where compile i + 1's begin.
  auto reason_less = [](const AttachedReason& a, const AttachedReason& b) {
    return std::tie(a.entry_index, a.source_id, a.line) <
           std::tie(b.entry_index, b.source_id, b.line);
  };
  uint32_t first = 0;
  for (size_t i = 0; i < merged.size(); ++i) {
    Merged& m = merged[i];
    m.first_reason = first;
    m.reasons = next[i] - first;
    first = next[i];
    auto from = reasons_.begin() + m.first_reason, to = from + m.reasons;
    if (m.reasons > 1 && !std::is_sorted(from, to, reason_less))
      std::stable_sort(from, to, reason_less);
  }
}

}  // namespace rcf::analysis
