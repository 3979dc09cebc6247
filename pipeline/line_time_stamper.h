// An EventSink in front of another that gives the progress lines of a console their arrival time
// from the console's line-time sidecar (pipeline/console_line_times.h): a `step_line` marker
// without a printed time gets the time its line arrived, as a zoned (epoch) time. Every other
// event and note passes through unchanged. Holds both references for the ingest of one source.
#pragma once

#include <vector>

#include "ingest/events.h"
#include "pipeline/console_line_times.h"

namespace rcf::pipeline {

class LineTimeStamper : public ingest::EventSink {
 public:
  LineTimeStamper(ingest::EventSink& next, const ConsoleLineTimes& times)
      : next_(next), times_(times) {}

  void emit(ingest::Event&& event) override {
    stamp(event);
    next_.emit(std::move(event));
  }
  void emit_batch(std::vector<ingest::Event>&& batch) override {
    for (auto& event : batch) stamp(event);
    next_.emit_batch(std::move(batch));
  }
  void note(int64_t line, ingest::LineFate fate, std::string_view reason,
            std::string_view excerpt) override {
    next_.note(line, fate, reason, excerpt);
  }
  using ingest::EventSink::note;

  int64_t stamped() const { return stamped_; }

 private:
  void stamp(ingest::Event& event) {
    auto* marker = std::get_if<ingest::StepMarker>(&event);
    if (!marker || marker->origin != "step_line" || marker->time_s) return;
    if (auto t = times_.time_of(marker->line)) {
      marker->time_s = *t;
      marker->time_zoned = true;
      marker->time_on_arrival = true;
      ++stamped_;
    }
  }

  ingest::EventSink& next_;
  const ConsoleLineTimes& times_;
  int64_t stamped_ = 0;
};

}  // namespace rcf::pipeline
