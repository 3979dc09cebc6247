// BatchingSink: the shared seam between an importer's events and a consumer of whole batches
// (parse-ahead workers, the SQLite writer's queue).
#include "ingest/batching_sink.h"

#include <gtest/gtest.h>

#include <vector>

namespace rcf::ingest {
namespace batching_sink_test {

Event reason_at(int64_t line) {
  GuardFailure g;
  g.line = line;
  return g;
}

int64_t line_of(const Event& e) {
  return std::get<GuardFailure>(e).line;
}

// Records every batch it is handed; gives back a recycled vector when asked to.
class RecordingSink : public BatchingSink {
 public:
  RecordingSink(size_t batch_events, bool recycle)
      : BatchingSink(batch_events), recycle_(recycle) {}
  std::vector<std::vector<int64_t>> batches;
  std::vector<size_t> capacities_given;

 protected:
  std::vector<Event> deliver(std::vector<Event>&& batch) override {
    EXPECT_FALSE(batch.empty());
    std::vector<int64_t> lines;
    for (const auto& e : batch) lines.push_back(line_of(e));
    batches.push_back(lines);
    if (!recycle_) return {};
    batch.clear();  // a consumer gives back what it emptied, capacity kept
    capacities_given.push_back(batch.capacity());
    return std::move(batch);
  }

 private:
  bool recycle_;
};

TEST(BatchingSink, FullBatchesAsTheyFillThenTheRestOnFlush) {
  RecordingSink sink(3, false);
  for (int64_t i = 1; i <= 7; ++i) sink.emit(reason_at(i));
  ASSERT_EQ(sink.batches.size(), 2u);
  sink.flush();
  sink.flush();  // nothing pending: no empty batch
  std::vector<std::vector<int64_t>> want = {{1, 2, 3}, {4, 5, 6}, {7}};
  EXPECT_EQ(sink.batches, want);
}

TEST(BatchingSink, AWholeBatchGoesOnAsItIsAfterThePendingEvents) {
  RecordingSink sink(4, false);
  sink.emit(reason_at(1));
  sink.emit(reason_at(2));
  std::vector<Event> gathered;
  for (int64_t i = 3; i <= 8; ++i) gathered.push_back(reason_at(i));  // larger than a batch
  sink.emit_batch(std::move(gathered));
  sink.emit_batch({});  // nothing to hand over
  sink.emit(reason_at(9));
  sink.flush();
  std::vector<std::vector<int64_t>> want = {{1, 2}, {3, 4, 5, 6, 7, 8}, {9}};
  EXPECT_EQ(sink.batches, want);
}

TEST(BatchingSink, ARecycledVectorIsFilledAgain) {
  RecordingSink sink(2, true);
  for (int64_t i = 1; i <= 6; ++i) sink.emit(reason_at(i));
  std::vector<std::vector<int64_t>> want = {{1, 2}, {3, 4}, {5, 6}};
  EXPECT_EQ(sink.batches, want);
  for (size_t c : sink.capacities_given) EXPECT_GE(c, 2u);
}

TEST(EventSink, TheDefaultEmitBatchEmitsOneByOne) {
  struct Collect : EventSink {
    std::vector<int64_t> lines;
    void emit(Event&& e) override { lines.push_back(line_of(e)); }
    void note(int64_t, LineFate, std::string_view, std::string_view) override {}
  } sink;
  std::vector<Event> batch;
  batch.push_back(reason_at(5));
  batch.push_back(reason_at(6));
  sink.emit_batch(std::move(batch));
  EXPECT_EQ(sink.lines, (std::vector<int64_t>{5, 6}));
}

}  // namespace batching_sink_test
}  // namespace rcf::ingest
