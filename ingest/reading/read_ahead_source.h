// ReadAheadSource: a byte source that reads (and so decompresses) its inner source on a thread of
// its own, a few blocks ahead of the format reader. Inflating a gzip log is as much work as
// parsing it (docs/performance.md), and with one thread the two took turns; now they overlap on
// two cores. The bytes, their order, the end of input and a read error (with the bytes before it)
// are exactly the inner source's.
//
// Only for inner sources whose reads always return (regular files): the destructor waits for the
// read in progress, and a read of a pipe that nobody writes to would never return.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "ingest/reading/byte_source.h"

namespace rcf::ingest {

class ReadAheadSource : public ByteSource {
 public:
  // Reads `inner` in blocks of `block_bytes`, at most `blocks` of them read and not yet consumed.
  ReadAheadSource(std::unique_ptr<ByteSource> inner, size_t block_bytes = size_t{512} << 10,
                  size_t blocks = 4);
  // Stops the reading thread (after the read it is in, if any) and frees the blocks.
  ~ReadAheadSource() override;
  ReadAheadSource(const ReadAheadSource&) = delete;
  ReadAheadSource& operator=(const ReadAheadSource&) = delete;

  int64_t read(char* buf, size_t n) override;
  const std::string& error() const override { return error_; }
  // The inner source's count when the block being consumed was read: progress follows what the
  // reader has been given, not what the thread has read ahead.
  int64_t raw_bytes_read() const override { return raw_bytes_read_; }
  int64_t raw_size() const override { return raw_size_; }
  const char* encoding() const override { return encoding_; }

 private:
  struct Block {
    std::unique_ptr<char[]> bytes;  // block_bytes_ of them, allocated by the thread on first use
    size_t size = 0;                // bytes read into it
    int64_t raw_bytes_read = 0;     // the inner source's count after reading it
    bool end = false;               // the inner source ended after this block's bytes
    bool failed = false;            // ... with an error (inner error text in error_ once consumed)
  };

  void read_loop();  // the reading thread
  // Hands the current block back and waits for the next one read.
  void next_block();

  std::unique_ptr<ByteSource> inner_;  // read only by the thread, until it has stopped
  const size_t block_bytes_;
  const int64_t raw_size_;
  const char* const encoding_;

  std::mutex mu_;  // guards free_, filled_, stop_, inner_error_
  std::condition_variable free_cv_, filled_cv_;
  std::deque<std::unique_ptr<Block>> free_, filled_;
  bool stop_ = false;
  std::string inner_error_;  // the inner error, copied by the thread with the failed block

  // The consumer's side (the caller of read()).
  std::unique_ptr<Block> current_;
  size_t current_pos_ = 0;
  bool ended_ = false;
  bool failed_ = false;
  int64_t raw_bytes_read_ = 0;
  std::string error_;

  std::thread thread_;  // started by the constructor; none when the system refused one
};

}  // namespace rcf::ingest
