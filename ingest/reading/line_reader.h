// Splits a ByteSource into lines with a reused buffer and memchr; no whole-file buffers.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ingest/reading/byte_source.h"
#include "ingest/reading/content_hash.h"
#include "ingest/reading/prefix_checkpoints.h"

namespace rcf::ingest {

class LineReader {
 public:
  // `buffer_size`: initial read buffer (grows for long lines up to `max_line`). Lines longer
  // than `max_line` are returned cut to `max_line` bytes with line_was_cut() true; the rest of
  // such a line is read and dropped without being stored.
  LineReader(ByteSource& source, size_t buffer_size = size_t{4} << 20,
             size_t max_line = size_t{64} << 20);
  ~LineReader();
  LineReader(const LineReader&) = delete;
  LineReader& operator=(const LineReader&) = delete;

  // Up to `n` bytes from the start of the input, for sniffing. Call before the first next().
  std::string_view head(size_t n);

  // Next line without '\n' and without one trailing '\r'. The view is valid until the next call.
  // Returns false at end of input or on a read error (see error()).
  bool next(std::string_view* line);

  // After next() returned false at the end of the input (not on an error), reads on when the
  // source has more: a growing file whose read limit was moved (ByteSource::set_raw_limit).
  void resume() {
    if (error_.empty()) eof_ = false;
  }

  int64_t line_number() const { return line_no_; }  // of the line last returned
  bool line_was_cut() const { return cut_; }
  bool last_line_had_no_newline() const { return no_newline_; }
  // True when the line last returned is known to hold no '\r' and no ESC (has_cr_or_escape):
  // the thread that reads ahead searched the blocks of its bytes for them, where the framer
  // searched each line (docs/performance.md). False when not known.
  bool line_is_plain() const { return plain_; }
  int64_t bytes_consumed() const { return consumed_; }  // decompressed bytes returned so far
  // The source's raw_bytes_read() when the bytes being split were read: for progress, which
  // must not ask the source while a block is read ahead.
  int64_t raw_bytes_read() const { return ahead_ ? ahead_raw_read_ : source_.raw_bytes_read(); }
  const std::string& error() const { return error_; }
  // Streaming hash (XXH64 and length) of all decompressed bytes read so far: identical content
  // gives an identical hash whatever the compression or buffer size. Valid once next() has
  // returned false.
  std::string content_hash() const;
  // Also hashes the first `bytes` bytes of the input on their own, so that a log that grew since
  // it was ingested (its old content hash equals this prefix's) can be told from one that
  // changed. Call before the first read.
  void hash_prefix(int64_t bytes);
  // content_hash() of the first hash_prefix() bytes; empty when the input was shorter.
  const std::string& prefix_hash() const { return prefix_hash_; }
  // The hashes of the bytes read so far at the fixed offsets of
  // ingest/reading/prefix_checkpoints.h, as source.prefix_checkpoints holds them.
  const std::string& prefix_checkpoints() const { return checkpoints_.text(); }

 private:
  // Reads more input after buf_[end_]; returns false at end of input or error.
  bool fill();
  // fill() while a thread reads ahead (AheadRead): takes its block, the line begun before it
  // copied in front, and asks for the next.
  bool fill_ahead();
  // Back to reading on this thread: the block read ahead is appended to the buffer. False when
  // that read found the end of the input or an error.
  bool end_ahead();
  void start_ahead();
  // Feeds read bytes to the content hash (and the prefix hash).
  void hash_input(const char* data, size_t size);

  // The read buffer: new bytes are left uninitialised (reads fill them), since zeroing a 4 MiB
  // buffer per source (and faulting in all its pages) cost more than reading a small file of a
  // dump directory. A plain array, not a vector with a non-initialising allocator: freeing it is
  // one call at any optimisation level, where such a vector destroys its bytes one by one in an
  // unoptimised build (a third of the sanitizer test pass's time).
  //
  // `huge`: on transparent huge pages (util/large_array_allocator.h), for a source larger than
  // the buffer, which fills all of it: its 1024 first touches of a 4 KiB page were about a
  // twentieth of a large TORCH_TRACE log's ingest (docs/performance.md). A small file touches
  // a few pages only, where one 2 MiB page would be zeroed whole.
  class Buffer {
   public:
    Buffer(size_t size, bool huge) : data_(allocate(size, huge)), size_(size) {}
    char* data() { return data_.get(); }
    size_t size() const { return size_; }
    // Keeps the first min(size(), size) bytes.
    void resize(size_t size);

   private:
    struct Release {
      size_t size = 0;
      bool huge = false;
      void operator()(char* bytes) const;
    };
    using Bytes = std::unique_ptr<char[], Release>;
    static Bytes allocate(size_t size, bool huge);

    Bytes data_;
    size_t size_;
  };

  // Read size while dropping the rest of a cut line (it lives after the kept max_line_ bytes).
  static constexpr size_t kCutScratch = size_t{1} << 16;
  // A source at least this large is read a block ahead on a thread of its own (AheadRead):
  // reading (the kernel's copy out of the page cache) and the content hash were about a quarter
  // of a large TORCH_TRACE log's parsing thread (docs/performance.md). Smaller ones start no
  // thread.
  static constexpr int64_t kAheadMinBytes = int64_t{16} << 20;
  // Room before each block read ahead for the end of the line begun in the block before; a
  // longer line ends reading ahead.
  static constexpr size_t kAheadHeadroom = size_t{256} << 10;
  class AheadRead;

  ByteSource& source_;
  bool ahead_allowed_ = false;  // until reading ahead starts (once at most); before buf_, which
                                // is half the size when it is allowed
  Buffer buf_;
  // While a block is read ahead: the thread, the buffer it reads into (the next block, after
  // kAheadHeadroom) and the source's count of raw bytes read after the current block.
  std::unique_ptr<AheadRead> ahead_;
  std::optional<Buffer> spare_;
  int64_t ahead_raw_read_ = 0;
  // Whether the bytes now in buf_ (a block read ahead and the start of the line begun before it)
  // hold no '\r' and no ESC; and so the line last returned, of those bytes.
  bool block_plain_ = false;
  bool plain_ = false;
  size_t max_line_;
  size_t begin_ = 0;  // start of unreturned data
  size_t end_ = 0;    // end of valid data
  bool eof_ = false;
  bool cut_ = false;
  bool no_newline_ = false;
  int64_t line_no_ = 0;
  int64_t consumed_ = 0;
  ContentHash hash_;
  int64_t prefix_bytes_ = -1;  // -1: no prefix hash wanted
  std::string prefix_hash_;
  PrefixCheckpoints checkpoints_;
  std::string error_;
};

}  // namespace rcf::ingest
