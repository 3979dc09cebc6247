#include "analysis/attribution_checkpoint.h"

#include <algorithm>

namespace rcf::analysis {

size_t AttributionCheckpoint::usable(const DynamoAttributionRun& run, const RunInputs& in,
                                     const RunAttributionFacts& facts,
                                     const std::vector<DynamoKey>& changed,
                                     const TrainingSteps& steps, int64_t memo_generation) const {
  const size_t kept = kept_count();
  if (!state_ || kept == 0 || memo_generation != memo_generation_ || facts.other_runtimes ||
      !(facts == facts_) || run.size() < kept)
    return 0;
  auto is_changed = [&changed](const DynamoKey& key) {
    return std::binary_search(changed.begin(), changed.end(), key);
  };
  // A break is matched through the compile it was traced in (its function names the frame a
  // resume function was split from).
  for (const BreakRecord& b : in.breaks)
    if (is_changed(b.key)) return 0;
  for (size_t i = 0; i < kept; ++i) {
    const Kept& k = kept_at(i);
    if (run.key_at(i) != k.key || is_changed(k.key)) return 0;
    if (facts.steps_decided && k.place.first >= 0 &&
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

void AttributionCheckpoint::plan(size_t kept, size_t until, RunAttributionFacts facts) {
  keep_first(kept);  // then grown by keep() (reserving `until` at every batch would copy them all)
  until_ = until;
  facts_ = std::move(facts);
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
  if (state_)
    copy.state_.emplace(
        Resumed{state_->rollup.fork(), state_->curve, state_->unplaced, state_->unclocked});
  copy.memo_generation_ = memo_generation_;
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
