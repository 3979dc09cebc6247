#include "ingest/torch_trace/payload_checksums.h"

#include <utility>

#include "ingest/reading/md5_lanes.h"

namespace rcf::ingest {
namespace {

constexpr size_t kQueuedChunks = 4;
constexpr size_t kChunkRecords = 4096;  // records without payload bytes still end a chunk

}  // namespace

// The worker uses md5_ and mismatches_: it is drained and joined before they go.
PayloadChecksums::~PayloadChecksums() {
  worker_.reset();
}

void PayloadChecksums::begin_record() {
  hold_record(false);
  if (record_open_) add_end(0, {}, nullptr, /*check=*/false);
  record_begin_ = chunk().bytes.size();
}

void PayloadChecksums::hold_record(bool hold) {
  const bool released = held_ && !hold;
  held_ = hold;
  if (released && !filling_.empty() && chunk_full()) hand_over();
}

bool PayloadChecksums::chunk_full() const {
  const Chunk& c = filling_.front();
  return c.bytes.size() >= kChunkBytes || c.ends.size() >= kChunkRecords;
}

void PayloadChecksums::end_record(int64_t line, std::string_view excerpt,
                                  const Md5Digest* expected) {
  add_end(line, excerpt, expected, /*check=*/true);
}

void PayloadChecksums::add_end(int64_t line, std::string_view excerpt, const Md5Digest* expected,
                               bool check) {
  record_open_ = false;
  Chunk& c = chunk();
  Chunk::RecordEnd& end = c.ends.emplace_back();
  end.offset = c.bytes.size();
  end.line = line;
  end.check = check;
  end.expected_valid = expected != nullptr;
  if (expected) end.expected = *expected;
  end.excerpt_begin = static_cast<uint32_t>(c.excerpts.size());
  end.excerpt_size = static_cast<uint32_t>(excerpt.size());
  c.excerpts.append(excerpt);
  if (!held_ && chunk_full()) hand_over();
}

void PayloadChecksums::start_worker() {
  // The first chunk is hashed on the importer's thread: a log of one chunk starts no thread.
  worker_ = std::make_unique<util::BatchWorker<Chunk>>(
      [this](std::vector<Chunk>& chunks) { hash(chunks); }, kQueuedChunks, nullptr,
      /*keep_items=*/true, util::kInlineBatches);
}

void PayloadChecksums::hand_over() {
  if (!worker_) start_worker();
  filling_ = worker_->hand_over(std::move(filling_));
  for (Chunk& chunk : filling_) {  // a consumed chunk: its buffers are reused
    chunk.bytes.clear();
    chunk.ends.clear();
    chunk.excerpts.clear();
  }
  if (filling_.size() > 1) filling_.resize(1);
  // A chunk grown past its size by a held record is not kept for reuse at that size.
  if (!filling_.empty() && filling_.front().bytes.capacity() > 2 * kChunkBytes)
    std::string().swap(filling_.front().bytes);
  record_begin_ = 0;  // a record still open goes on at the start of the next chunk
}

void PayloadChecksums::check(const Chunk& chunk, const Chunk::RecordEnd& end,
                             const Md5Digest& actual) {
  if (end.check && (!end.expected_valid || actual != end.expected))
    mismatches_.push_back({end.line, chunk.excerpts.substr(end.excerpt_begin, end.excerpt_size)});
}

// A record whose bytes all lie in one chunk is hashed with the chunk's other such records, one
// per SIMD lane (md5_many); a record that spans chunks (the first of a chunk, begun in an earlier
// one, and the last, ending in a later one) streams through md5_. Mismatches are noted in record
// order either way.
void PayloadChecksums::hash(std::vector<Chunk>& chunks) {
  for (const Chunk& chunk : chunks) {
    size_t from = 0, first_whole = 0;
    if (continued_ && !chunk.ends.empty()) {
      const Chunk::RecordEnd& end = chunk.ends.front();
      md5_.update(chunk.bytes.data(), end.offset);
      check(chunk, end, md5_.finish());  // leaves md5_ reset
      from = end.offset;
      first_whole = 1;
      continued_ = false;
    }
    whole_.clear();
    whole_ends_.clear();
    for (size_t i = first_whole; i < chunk.ends.size(); ++i) {
      const Chunk::RecordEnd& end = chunk.ends[i];
      if (end.check) {
        whole_.push_back(std::string_view(chunk.bytes).substr(from, end.offset - from));
        whole_ends_.push_back(&end);
      }
      from = end.offset;
    }
    md5_many(whole_, &digests_);
    for (size_t i = 0; i < whole_.size(); ++i) check(chunk, *whole_ends_[i], digests_[i]);
    if (from < chunk.bytes.size()) {
      md5_.update(chunk.bytes.data() + from, chunk.bytes.size() - from);
      continued_ = true;
    }
  }
}

PayloadChecksums::PayloadChecksums(const PayloadChecksums& other)
    : filling_(other.filling_),
      record_open_(other.record_open_),
      held_(other.held_),
      record_begin_(other.record_begin_) {
  // The worker's state is read once it is idle (wait_idle orders its writes before these reads).
  if (other.worker_) other.worker_->wait_idle();
  md5_ = other.md5_;
  continued_ = other.continued_;
  mismatches_ = other.mismatches_;
}

std::vector<PayloadChecksums::Mismatch> PayloadChecksums::finish() {
  held_ = false;
  if (!filling_.empty() && (!filling_.front().bytes.empty() || !filling_.front().ends.empty())) {
    if (!worker_) start_worker();
    worker_->finish_with(std::move(filling_));
    filling_.clear();
  } else if (worker_) {
    worker_->finish();
  }
  worker_.reset();
  return std::move(mismatches_);
}

}  // namespace rcf::ingest
