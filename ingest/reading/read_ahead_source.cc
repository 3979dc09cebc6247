#include "ingest/reading/read_ahead_source.h"

#include <string.h>

#include <algorithm>
#include <new>
#include <system_error>

namespace rcf::ingest {

ReadAheadSource::ReadAheadSource(std::unique_ptr<ByteSource> inner, size_t block_bytes,
                                 size_t blocks)
    : inner_(std::move(inner)),
      block_bytes_(std::max<size_t>(block_bytes, 1)),
      raw_size_(inner_->raw_size()),
      encoding_(inner_->encoding()) {
  for (size_t i = 0; i < std::max<size_t>(blocks, 2); ++i)
    free_.push_back(std::make_unique<Block>());
  try {
    thread_ = std::thread([this] { read_loop(); });
  } catch (const std::system_error&) {
    // No thread to be had: read() reads the inner source itself.
  }
}

ReadAheadSource::~ReadAheadSource() {
  {
    std::lock_guard lock(mu_);
    stop_ = true;
  }
  free_cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

// The reading thread: fills free blocks, in order, until the inner source ends or fails.
void ReadAheadSource::read_loop() {
  for (;;) {
    std::unique_ptr<Block> block;
    {
      std::unique_lock lock(mu_);
      free_cv_.wait(lock, [&] { return stop_ || !free_.empty(); });
      if (stop_) return;
      block = std::move(free_.front());
      free_.pop_front();
    }
    block->size = 0;
    std::string failure;
    // Allocated on first use and left uninitialised: a small file faults in only what it fills.
    // Nothing may escape this thread: no memory for a block ends the input as a read error.
    if (!block->bytes) {
      try {
        block->bytes.reset(new char[block_bytes_]);
      } catch (const std::bad_alloc&) {
        block->end = block->failed = true;
        failure = "out of memory for the read-ahead buffer";
      }
    }
    while (!block->end && block->size < block_bytes_) {
      int64_t got = inner_->read(block->bytes.get() + block->size, block_bytes_ - block->size);
      if (got > 0) {
        block->size += static_cast<size_t>(got);
        continue;
      }
      block->end = true;
      block->failed = got < 0;
      if (got < 0) failure = inner_->error();
    }
    block->raw_bytes_read = inner_->raw_bytes_read();
    const bool end = block->end;
    {
      std::lock_guard lock(mu_);
      if (block->failed) inner_error_ = std::move(failure);
      filled_.push_back(std::move(block));
    }
    filled_cv_.notify_one();
    if (end) return;
  }
}

void ReadAheadSource::next_block() {
  std::unique_lock lock(mu_);
  if (current_) {
    free_.push_back(std::move(current_));
    free_cv_.notify_one();
  }
  filled_cv_.wait(lock, [&] { return !filled_.empty(); });
  current_ = std::move(filled_.front());
  filled_.pop_front();
  current_pos_ = 0;
  raw_bytes_read_ = current_->raw_bytes_read;
  if (current_->end) {
    ended_ = true;
    failed_ = current_->failed;
    if (failed_) error_ = inner_error_;
  }
}

int64_t ReadAheadSource::read(char* buf, size_t n) {
  if (!thread_.joinable()) {  // no thread: the inner source directly
    int64_t got = inner_->read(buf, n);
    raw_bytes_read_ = inner_->raw_bytes_read();
    if (got < 0) error_ = inner_->error();
    return got;
  }
  if (n == 0) return 0;
  for (;;) {
    if (current_ && current_pos_ < current_->size) {
      size_t take = std::min(n, current_->size - current_pos_);
      memcpy(buf, current_->bytes.get() + current_pos_, take);
      current_pos_ += take;
      return static_cast<int64_t>(take);
    }
    if (ended_) return failed_ ? -1 : 0;
    next_block();
  }
}

}  // namespace rcf::ingest
