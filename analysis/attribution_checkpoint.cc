#include "analysis/attribution_checkpoint.h"

#include <algorithm>
#include <map>

namespace rcf::analysis {

namespace {

// One bit of 64 for a compile key: a kept compile is looked up among the changed keys only when
// its bit is among theirs (a lookup for each of 200 000 kept compiles was a twentieth of a
// watch's CPU at 100 000 compiles, docs/performance.md).
uint64_t key_bit(const DynamoKey& k) {
  auto pair = [](int32_t high, int32_t low) {
    return (uint64_t{static_cast<uint32_t>(high)} << 32) | static_cast<uint32_t>(low);
  };
  // Four independent products (a chain of seven was 3 % of the watch's CPU).
  const uint64_t h = pair(k.frame_id, k.frame_compile_id) * 0x9E3779B97F4A7C15ull +
                     pair(k.source_id, k.ca_id) * 0xC2B2AE3D27D4EB4Full +
                     pair(k.rank, k.epoch) * 0x165667B19E3779F9ull +
                     static_cast<uint64_t>(k.line_if_no_id) * 0xD6E8FEB86659FD93ull;
  return uint64_t{1} << (h >> 58);
}

}  // namespace

size_t AttributionCheckpoint::usable(const DynamoAttributionRun& run, const RunInputs& in,
                                     const RunAttributionFacts& facts,
                                     const std::vector<DynamoKey>& changed,
                                     const TrainingSteps& steps, int64_t memo_generation) const {
  const size_t kept = kept_count();
  if (!state_ || kept == 0 || memo_generation != memo_generation_ || facts.other_runtimes ||
      !(facts == facts_) || run.size() < kept)
    return 0;
  uint64_t changed_bits = 0;
  for (const DynamoKey& key : changed) changed_bits |= key_bit(key);
  auto is_changed = [&changed, changed_bits](const DynamoKey& key) {
    return (changed_bits & key_bit(key)) != 0 &&
           std::binary_search(changed.begin(), changed.end(), key);
  };
  // A break is matched through the compile it was traced in (its function names the frame a
  // resume function was split from).
  for (const BreakRecord& b : in.breaks)
    if (is_changed(b.key)) return 0;
  // Below these lines the steps place compiles as they did (no need to ask each compile again).
  const std::map<int64_t, int64_t> as_before =
      facts.steps_decided ? steps.placed_as_before(placement_) : std::map<int64_t, int64_t>{};
  auto placed_as_before = [&as_before](const StepPlace& place) {
    auto it = as_before.find(place.first);
    return it != as_before.end() && place.second < it->second;
  };
  for (size_t i = 0; i < kept; ++i) {
    const Kept& k = kept_at(i);
    if (run.key_at(i) != k.key || is_changed(k.key)) return 0;
    if (facts.steps_decided && k.place.first >= 0 && !placed_as_before(k.place) &&
        steps.step_of(k.place.first, k.place.second, {}, k.start_us) != k.step)
      return 0;
  }
  return kept;
}

void AttributionCheckpoint::keep_first(size_t n) {
  if (n <= borrowed_) {
    borrowed_ = n;
    compiles_.clear();
  } else {
    compiles_.resize(std::min(n - borrowed_, compiles_.size()));
  }
}

AttributionCheckpoint::Resumed AttributionCheckpoint::resume() {
  Resumed resumed = std::move(*state_);
  state_.reset();
  return resumed;
}

void AttributionCheckpoint::plan(size_t kept, size_t until, RunAttributionFacts facts,
                                 const TrainingSteps& steps) {
  if (!plans_) {
    until_ = 0;  // keeps() and ends_at() say no to every compile
    state_.reset();
    return;
  }
  keep_first(kept);  // then grown by keep() (reserving `until` at every batch would copy them all)
  until_ = until;
  facts_ = std::move(facts);
  placement_ = steps.series_placement();
  state_.reset();
  memo_generation_ = -1;
}

void AttributionCheckpoint::keep(const AttributedCompile& c, StepPlace place) {
  compiles_.push_back({c.key, place, c.start_us, c.step});
}

void AttributionCheckpoint::take(RollupBuilder& rollup, const StepCurve& curve, int64_t unplaced,
                                 int64_t unclocked) {
  state_.emplace(Resumed{rollup.checkpoint(), curve, unplaced, unclocked});
}

AttributionCheckpoint AttributionCheckpoint::fork() const {
  AttributionCheckpoint copy;
  if (borrowed_ == 0) {
    copy.borrowed_from_ = &compiles_;
    copy.borrowed_ = compiles_.size();
  } else {  // a fork of a fork (not made by rcf): its own copy
    copy.compiles_.reserve(kept_count());
    for (size_t i = 0; i < kept_count(); ++i) copy.compiles_.push_back(kept_at(i));
  }
  copy.until_ = until_;
  copy.facts_ = facts_;
  copy.placement_ = placement_;
  if (state_)
    copy.state_.emplace(
        Resumed{state_->rollup.fork(), state_->curve, state_->unplaced, state_->unclocked});
  copy.memo_generation_ = memo_generation_;
  return copy;
}

AttributionCheckpoint AttributionCheckpoint::trial() const {
  AttributionCheckpoint copy = fork();
  copy.plans_ = false;
  return copy;
}

void AttributionCheckpoint::written(int64_t memo_generation,
                                    const std::vector<std::pair<uint32_t, int64_t>>& site_sids,
                                    const std::vector<uint32_t>& groups_changed_after) {
  if (!state_) return;
  memo_generation_ = memo_generation;
  for (const auto& [number, sid] : site_sids) state_->rollup.set_site_sid(number, sid);
  state_->rollup.hand_again(groups_changed_after);
}

}  // namespace rcf::analysis
