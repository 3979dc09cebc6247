#include "analysis/classified_reasons.h"

#include <cstring>

#include "util/batch_worker.h"

namespace rcf::analysis {

struct ClassifiedReasons::Background {
  explicit Background(ClassifiedReasons& to)
      : feeder(
            [&to](std::vector<Pending>& batch) {
              for (const Pending& p : batch) to.classify(p.sid, p.reason);
            },
            // Never blocks the loader: what waits is a few hundred thousand small items at most.
            /*batch_items=*/1024, /*max_queued=*/size_t{1} << 20, nullptr, false,
            util::kInlineBatches) {}
  util::BatchFeeder<Pending> feeder;
};

ClassifiedReasons::ClassifiedReasons() = default;

ClassifiedReasons::~ClassifiedReasons() {
  wait_dropping_errors();
}

ClassifiedReasons::ClassifiedReasons(ClassifiedReasons&& other) noexcept {
  other.wait_dropping_errors();
  t_ = std::move(other.t_);
  base_ = other.base_;
}

ClassifiedReasons& ClassifiedReasons::operator=(ClassifiedReasons&& other) noexcept {
  wait_dropping_errors();
  other.wait_dropping_errors();
  t_ = std::move(other.t_);
  base_ = other.base_;
  return *this;
}

void ClassifiedReasons::wait_dropping_errors() noexcept {
  try {
    wait();
  } catch (...) {  // nobody reads these classifications any more
  }
}

void ClassifiedReasons::start_background() {
  if (!background_) background_ = std::make_unique<Background>(*this);
}

void ClassifiedReasons::add(int64_t sid, std::string_view reason) {
  if (!background_) {
    classify(sid, reason);
    return;
  }
  if (sid >= 0 && sid < static_cast<int64_t>(t_.dense.size())) {
    if (t_.queued_dense[static_cast<size_t>(sid)]) return;
    t_.queued_dense[static_cast<size_t>(sid)] = true;
  } else if (!t_.queued_sparse.insert(sid).second) {
    return;
  }
  background_->feeder.add({sid, reason});
}

ClassifiedReasons ClassifiedReasons::fork() const {
  wait();
  ClassifiedReasons copy;
  copy.base_ = this;
  return copy;
}

void ClassifiedReasons::wait() const {
  if (!background_) return;
  std::unique_ptr<Background> running = std::move(background_);
  running->feeder.finish();
}

void ClassifiedReasons::classify(int64_t sid, std::string_view reason) {
  uint32_t* slot = nullptr;
  if (sid >= 0 && sid < static_cast<int64_t>(t_.dense.size()))
    slot = &t_.dense[static_cast<size_t>(sid)];
  else
    slot = &t_.sparse[sid];
  if (*slot != 0) return;
  if (base_ && base_->find(sid)) return;  // classified before the fork (the slot stays 0)
  const GuardReason g = classify_guard_reason(reason);
  Entry e;
  e.dim = g.dim;
  const std::string* texts[kTexts] = {&g.cause,  &g.confidence, &g.subject, &g.expected,
                                      &g.actual, &g.user_code,  &g.detail};
  size_t total = 0;
  for (const std::string* t : texts) total += t->size();
  char* at = t_.arena.allocate(total);
  e.at = at;
  for (int i = 0; i < kTexts; ++i) {
    e.size[i] = static_cast<uint32_t>(texts[i]->size());
    if (!texts[i]->empty()) std::memcpy(at, texts[i]->data(), texts[i]->size());
    at += texts[i]->size();
  }
  t_.entries.push_back(e);
  *slot = static_cast<uint32_t>(t_.entries.size());
}

ReasonClass ClassifiedReasons::view(const Entry& e) const {
  std::string_view texts[kTexts];
  const char* at = e.at;
  for (int i = 0; i < kTexts; ++i) {
    texts[i] = std::string_view(at, e.size[i]);
    at += e.size[i];
  }
  return {texts[0], texts[1], texts[2], texts[3], texts[4], texts[5], texts[6], e.dim};
}

}  // namespace rcf::analysis
