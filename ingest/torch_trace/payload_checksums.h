// Verifies TORCH_TRACE payload checksums on a thread of its own. MD5 was about half of the
// TORCH_TRACE importer's time on the parsing thread (docs/performance.md); here the parsing
// thread only copies each payload's bytes into a chunk, and a worker hashes the chunks while the
// next lines are parsed, the payloads of a chunk several at once (ingest/reading/md5_lanes.h).
// Mismatches come back in record order at finish(), so the notes they become are the same as when
// they were checked inline (a note's tally keeps its first line).
//
// Lifetime: one per importer (one source); the worker starts at the first payload and is joined
// by finish() or the destructor.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "ingest/reading/md5.h"
#include "util/batch_worker.h"

namespace rcf::ingest {

class PayloadChecksums {
 public:
  struct Mismatch {
    int64_t line;         // the record's envelope line
    std::string excerpt;  // the start of that line
  };

  PayloadChecksums() = default;
  ~PayloadChecksums();
  // A copy whose finish() says what this one's would say now, for ending a source on a copy of
  // its importer (ingest/importer.h): it waits until the worker has hashed what it was handed,
  // then copies the state, without a worker (the copy hashes what it holds at its finish()).
  PayloadChecksums(const PayloadChecksums& other);
  PayloadChecksums& operator=(const PayloadChecksums&) = delete;

  // Starts a record's payload: bytes appended since the last end_record() (a record abandoned
  // half-way) are dropped unchecked.
  void begin_record();
  // The next line of the current record's payload: a '\n' before it unless it is the record's
  // first, then its bytes. Inline, as chunk() and open_record(): they run on every payload line.
  void append_line(std::string_view line, bool first) {
    record_open_ = true;
    Chunk& c = chunk();
    if (!first) c.bytes.push_back('\n');
    c.bytes.append(line);
    if (!held_ && c.bytes.size() >= kChunkBytes) hand_over();
  }
  // Ends the current record's payload; the next append() starts the next record's. `expected`
  // is null when the envelope's checksum is not 32 hex digits (always a mismatch).
  void end_record(int64_t line, std::string_view excerpt, const Md5Digest* expected);

  // Holding a record keeps its bytes whole in one chunk, which is not handed to the worker until
  // the hold ends (end_record() included), so that the caller reads the payload from there
  // instead of keeping a copy of its own: open_record() views the bytes appended since the
  // record began. Set right after begin_record(), before any append(); begin_record() ends it.
  void hold_record(bool hold);
  // The current record's bytes while it is held (empty when not held): valid until the next
  // append(), begin_record() or hold_record(false); end_record() leaves them valid.
  std::string_view open_record() const {
    if (!held_ || filling_.empty()) return {};
    return std::string_view(filling_.front().bytes).substr(record_begin_);
  }
  // Waits for the worker; the records whose payload did not match, in record order.
  std::vector<Mismatch> finish();

 private:
  // A run of payload bytes with the ends of the records that finish inside it.
  struct Chunk {
    struct RecordEnd {
      size_t offset;  // bytes of the chunk before the record's end
      int64_t line;
      bool check;  // false: the bytes before are dropped unchecked (begin_record)
      bool expected_valid;
      Md5Digest expected;
      uint32_t excerpt_begin, excerpt_size;  // in `excerpts`
    };
    std::string bytes;
    std::vector<RecordEnd> ends;
    // The records' excerpts end to end: one buffer reused with the chunk, where a string per
    // record cost an allocation per record.
    std::string excerpts;
  };

  // A chunk is handed to the worker at this size: large enough that the hand-over costs nothing
  // per byte, small enough that the queue (kQueuedChunks) stays a few MB.
  static constexpr size_t kChunkBytes = size_t{1} << 20;

  // A new chunk's bytes are reserved at once: grown by doubling, each chunk was copied on the way
  // and touched twice its pages (docs/performance.md). The slack is a few lines past the size.
  static constexpr size_t kChunkCapacity = kChunkBytes + (size_t{256} << 10);

  Chunk& chunk() {
    if (filling_.empty()) filling_.emplace_back().bytes.reserve(kChunkCapacity);
    return filling_.front();
  }
  void add_end(int64_t line, std::string_view excerpt, const Md5Digest* expected, bool check);
  void start_worker();
  void hand_over();
  bool chunk_full() const;
  void hash(std::vector<Chunk>& chunks);  // on the worker thread
  void check(const Chunk& chunk, const Chunk::RecordEnd& end, const Md5Digest& actual);

  std::unique_ptr<util::BatchWorker<Chunk>> worker_;  // started at the first record
  std::vector<Chunk> filling_;                        // one chunk, filled by the caller
  bool record_open_ = false;                          // bytes appended since the last end
  bool held_ = false;                                 // hold_record(true), until it ends
  size_t record_begin_ = 0;  // where the current record's bytes begin in filling_.front()
  // Worker thread only: the record that spans chunks (continued_: md5_ holds its first bytes),
  // and, for the chunk being hashed, its whole records and their digests.
  Md5 md5_;
  bool continued_ = false;
  std::vector<std::string_view> whole_;
  std::vector<const Chunk::RecordEnd*> whole_ends_;
  std::vector<Md5Digest> digests_;
  std::vector<Mismatch> mismatches_;  // worker thread until finish()
};

}  // namespace rcf::ingest
