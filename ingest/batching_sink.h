// An EventSink that gathers an importer's events into batches and hands each full batch to
// deliver(): the seam between a producer that emits one event at a time and a consumer on another
// thread that takes whole batches, so that a lock is taken once per batch, not once per event.
// Shared by the parse-ahead workers (pipeline/parse_ahead.cc) and the SQLite writer's queue
// (store/ingest_writer.cc).
#pragma once

#include <cstddef>
#include <utility>
#include <vector>

#include "ingest/events.h"

namespace rcf::ingest {

class BatchingSink : public EventSink {
 public:
  explicit BatchingSink(size_t batch_events) : batch_events_(batch_events) {
    batch_.reserve(batch_events_);
  }

  void emit(Event&& event) final {
    batch_.push_back(std::move(event));
    if (batch_.size() >= batch_events_) flush();
  }
  // A batch gathered elsewhere (by another BatchingSink) is handed over as it is, after the
  // events pending here: no event is moved twice.
  void emit_batch(std::vector<Event>&& batch) final {
    flush();
    if (!batch.empty()) deliver(std::move(batch));
  }
  // Notes are tallied by the ingest driver into the source's SourceStats, not sent as events.
  void note(int64_t, LineFate, std::string_view, std::string_view) override {}

  // Hands over the pending events, if any (at the end of a source).
  void flush() {
    if (batch_.empty()) return;
    batch_ = deliver(std::move(batch_));
    batch_.clear();
    if (batch_.capacity() < batch_events_) batch_.reserve(batch_events_);
  }

 protected:
  // Takes a non-empty batch. Returns a vector for the next batch: an emptied one given back by
  // the consumer keeps its capacity (a fresh one costs page faults each time), else {}.
  // May throw; the exception leaves through emit() or flush().
  virtual std::vector<Event> deliver(std::vector<Event>&& batch) = 0;

 private:
  size_t batch_events_;
  std::vector<Event> batch_;
};

}  // namespace rcf::ingest
