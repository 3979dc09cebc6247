#include "ingest/reading/line_reader.h"

#include <fmt/format.h>
#include <string.h>

#include <algorithm>
#include <condition_variable>
#include <mutex>
#include <thread>

#include "ingest/reading/text_util.h"
#include "util/large_array_allocator.h"

namespace rcf::ingest {

// Reads one block at a time into the range it is asked for, on a thread of its own, and feeds
// it to the reader's content hash there; the reader touches neither the source nor the hash
// while the thread lives (docs/performance.md).
class LineReader::AheadRead {
 public:
  explicit AheadRead(LineReader& reader) : reader_(reader), thread_([this] { loop(); }) {}
  // Lets the read in progress end, then stops.
  ~AheadRead() {
    {
      std::lock_guard lock(mu_);
      stop_ = true;
    }
    cv_.notify_all();
    thread_.join();
  }
  AheadRead(const AheadRead&) = delete;
  AheadRead& operator=(const AheadRead&) = delete;

  // Asks for up to `n` bytes at `at`; at most one request is open.
  void request(char* at, size_t n) {
    {
      std::lock_guard lock(mu_);
      at_ = at;
      n_ = n;
      requested_ = true;
      done_ = false;
    }
    cv_.notify_all();
  }

  // Waits for the open request: the count read (0 at the end of the input, -1 on an error, with
  // its text in `*error`), the source's raw_bytes_read() after it and whether the bytes read
  // hold no '\r' and no ESC.
  int64_t wait(std::string* error, int64_t* raw_read, bool* plain) {
    std::unique_lock lock(mu_);
    cv_.wait(lock, [&] { return done_; });
    *raw_read = raw_read_;
    *plain = plain_;
    if (got_ < 0) *error = error_;
    return got_;
  }

 private:
  void loop() {
    for (;;) {
      char* at;
      size_t n;
      {
        std::unique_lock lock(mu_);
        cv_.wait(lock, [&] { return requested_ || stop_; });
        if (stop_) return;
        requested_ = false;
        at = at_;
        n = n_;
      }
      int64_t got = reader_.source_.read(at, n);
      bool plain = false;
      if (got > 0) {
        reader_.hash_input(at, static_cast<size_t>(got));
        plain = !has_cr_or_escape(std::string_view(at, static_cast<size_t>(got)));
      }
      {
        std::lock_guard lock(mu_);
        got_ = got;
        plain_ = plain;
        if (got < 0) error_ = reader_.source_.error();
        raw_read_ = reader_.source_.raw_bytes_read();
        done_ = true;
      }
      cv_.notify_all();
    }
  }

  LineReader& reader_;
  std::mutex mu_;
  std::condition_variable cv_;
  char* at_ = nullptr;
  size_t n_ = 0;
  bool requested_ = false, done_ = false, stop_ = false, plain_ = false;
  int64_t got_ = 0, raw_read_ = 0;
  std::string error_;
  std::thread thread_;  // last: started once the members it uses are
};

namespace {

// Whether `source` is read a block ahead (LineReader::AheadRead): a large source, whose line begun
// in one block fits in front of the next, and whose buffer never grows past max_line meanwhile.
bool reads_ahead(const ByteSource& source, size_t buffer_size, size_t max_line, int64_t min_bytes,
                 size_t headroom) {
  return source.raw_size() >= min_bytes && buffer_size >= 4 * headroom &&
         max_line >= 2 * buffer_size;
}

}  // namespace

// Reading ahead, the buffer is two of half the size each, so that memory stays as it was.
LineReader::LineReader(ByteSource& source, size_t buffer_size, size_t max_line)
    : source_(source),
      ahead_allowed_(reads_ahead(source, buffer_size, max_line, kAheadMinBytes, kAheadHeadroom)),
      buf_(std::max<size_t>(ahead_allowed_ ? buffer_size / 2 : buffer_size, 16),
           source.raw_size() >= static_cast<int64_t>(buffer_size)),
      max_line_(max_line) {}

// The thread uses the source and the hash: it stops before they go.
LineReader::~LineReader() {
  ahead_.reset();
}

void LineReader::start_ahead() {
  ahead_allowed_ = false;
  spare_.emplace(buf_.size(), true);
  ahead_raw_read_ = source_.raw_bytes_read();
  ahead_ = std::make_unique<AheadRead>(*this);
  ahead_->request(spare_->data() + kAheadHeadroom, spare_->size() - kAheadHeadroom);
}

bool LineReader::fill_ahead() {
  const size_t partial = end_ - begin_;
  if (partial > kAheadHeadroom) return end_ahead();
  std::string error;
  bool plain = false;
  const int64_t got = ahead_->wait(&error, &ahead_raw_read_, &plain);
  if (got <= 0) {
    ahead_.reset();
    spare_.reset();
    if (got < 0) error_ = error;
    eof_ = true;
    block_plain_ = false;
    return false;
  }
  memcpy(spare_->data() + kAheadHeadroom - partial, buf_.data() + begin_, partial);
  std::swap(buf_, *spare_);
  begin_ = kAheadHeadroom - partial;
  end_ = kAheadHeadroom + static_cast<size_t>(got);
  block_plain_ = plain && !has_cr_or_escape(std::string_view(buf_.data() + begin_, partial));
  ahead_->request(spare_->data() + kAheadHeadroom, spare_->size() - kAheadHeadroom);
  return true;
}

bool LineReader::end_ahead() {
  std::string error;
  bool plain = false;
  const int64_t got = ahead_->wait(&error, &ahead_raw_read_, &plain);
  ahead_.reset();
  block_plain_ = false;
  if (got > 0) {
    memmove(buf_.data(), buf_.data() + begin_, end_ - begin_);
    end_ -= begin_;
    begin_ = 0;
    if (buf_.size() - end_ < static_cast<size_t>(got)) buf_.resize(end_ + static_cast<size_t>(got));
    memcpy(buf_.data() + end_, spare_->data() + kAheadHeadroom, static_cast<size_t>(got));
    end_ += static_cast<size_t>(got);
  } else {
    if (got < 0) error_ = error;
    eof_ = true;
  }
  spare_.reset();
  return got > 0;
}

LineReader::Buffer::Bytes LineReader::Buffer::allocate(size_t size, bool huge) {
  if (!huge) return Bytes(new char[size], Release{size, false});
  return Bytes(util::LargeArrayAllocator<char>().allocate(size), Release{size, true});
}

void LineReader::Buffer::Release::operator()(char* bytes) const {
  if (huge)
    util::LargeArrayAllocator<char>().deallocate(bytes, size);
  else
    delete[] bytes;
}

void LineReader::Buffer::resize(size_t size) {
  // Grown for a long line: ordinary memory, as before huge pages (a gzip bomb's single line
  // grows it to max_line).
  Bytes grown = allocate(size, false);
  memcpy(grown.get(), data_.get(), std::min(size_, size));
  data_ = std::move(grown);
  size_ = size;
}

bool LineReader::fill() {
  if (eof_) return false;
  if (ahead_) return fill_ahead();
  if (begin_ > 0 && (end_ == buf_.size() || begin_ == end_)) {
    // Compact: keep the partial line at the front of the buffer.
    memmove(buf_.data(), buf_.data() + begin_, end_ - begin_);
    end_ -= begin_;
    begin_ = 0;
  }
  if (end_ == buf_.size()) {
    // Room for max_line_ + 1 bytes is enough to tell a line of exactly max_line_ bytes (not cut)
    // from a longer one; the last growth also makes the scratch room that cutting needs, so
    // that a cut line never costs another copy of the buffer.
    if (buf_.size() > max_line_) return true;  // caller cuts the line
    size_t grown = buf_.size() * 2;
    buf_.resize(grown > max_line_ ? max_line_ + kCutScratch : grown);
  }
  int64_t got = source_.read(buf_.data() + end_, buf_.size() - end_);
  if (got < 0) {
    error_ = source_.error();
    eof_ = true;
    return false;
  }
  if (got == 0) {
    eof_ = true;
    return false;
  }
  hash_input(buf_.data() + end_, static_cast<size_t>(got));
  end_ += static_cast<size_t>(got);
  if (ahead_allowed_) start_ahead();
  return true;
}

std::string_view LineReader::head(size_t n) {
  while (end_ - begin_ < n && !eof_) {
    if (end_ == buf_.size() && buf_.size() > max_line_) break;
    if (!fill()) break;
  }
  return std::string_view(buf_.data() + begin_, std::min(n, end_ - begin_));
}

bool LineReader::next(std::string_view* line) {
  cut_ = false;
  // After the last line, last_line_had_no_newline() keeps telling about that line.
  if (eof_ && begin_ == end_) return false;
  no_newline_ = false;
  size_t scanned = begin_;  // bytes before `scanned` are known to hold no '\n'
  for (;;) {
    const char* nl = static_cast<const char*>(memchr(buf_.data() + scanned, '\n', end_ - scanned));
    if (nl) {
      size_t len = static_cast<size_t>(nl - (buf_.data() + begin_));
      // A long line whose end is already in the buffer is cut all the same.
      cut_ = len > max_line_;
      *line = std::string_view(buf_.data() + begin_, cut_ ? max_line_ : len);
      consumed_ += static_cast<int64_t>(len + 1);
      begin_ += len + 1;
      break;
    }
    if (end_ - begin_ > max_line_) {
      // Too long: keep the first max_line_ bytes at the front of the buffer, then read and drop
      // input up to the next '\n' (never storing it). The rest of the buffer after the kept
      // prefix is scratch space for that.
      memmove(buf_.data(), buf_.data() + begin_, max_line_);
      consumed_ += static_cast<int64_t>(end_ - begin_);
      if (buf_.size() < max_line_ + kCutScratch) buf_.resize(max_line_ + kCutScratch);
      begin_ = end_ = max_line_;
      no_newline_ = true;  // until the '\n' is found
      while (!eof_) {
        int64_t got = source_.read(buf_.data() + max_line_, kCutScratch);
        if (got <= 0) {
          if (got < 0) error_ = source_.error();
          eof_ = true;
          break;
        }
        const char* chunk = buf_.data() + max_line_;
        hash_input(chunk, static_cast<size_t>(got));
        const char* p = static_cast<const char*>(memchr(chunk, '\n', static_cast<size_t>(got)));
        if (p) {
          size_t used = static_cast<size_t>(p - chunk) + 1;
          consumed_ += static_cast<int64_t>(used);
          begin_ = max_line_ + used;  // the bytes after the newline start the next line
          end_ = max_line_ + static_cast<size_t>(got);
          no_newline_ = false;
          break;
        }
        consumed_ += got;
      }
      *line = std::string_view(buf_.data(), max_line_);
      cut_ = true;
      break;
    }
    scanned = end_;
    size_t before_begin = begin_;
    if (!fill()) {
      scanned -= before_begin - begin_;
      if (begin_ == end_) return false;  // clean end of input
      // Last line without a trailing newline.
      *line = std::string_view(buf_.data() + begin_, end_ - begin_);
      consumed_ += static_cast<int64_t>(end_ - begin_);
      begin_ = end_;
      no_newline_ = true;
      break;
    }
    scanned -= before_begin - begin_;  // fill() may have compacted the buffer
  }
  ++line_no_;
  plain_ = block_plain_;
  if (!line->empty() && line->back() == '\r') line->remove_suffix(1);
  return true;
}

void LineReader::hash_input(const char* data, size_t size) {
  // The bytes are hashed in pieces that end where a digest is due: the prefix hash and each
  // checkpoint (ingest/reading/prefix_checkpoints.h).
  while (size > 0) {
    const int64_t hashed = static_cast<int64_t>(hash_.size());
    int64_t stop = checkpoints_.next_offset();
    const bool prefix_due = prefix_hash_.empty() && prefix_bytes_ >= hashed;
    if (prefix_due) stop = std::min(stop, prefix_bytes_);
    const int64_t room = stop - hashed;
    if (room > static_cast<int64_t>(size)) {
      hash_.update(data, size);
      return;
    }
    hash_.update(data, static_cast<size_t>(room));
    data += room;
    size -= static_cast<size_t>(room);
    if (prefix_due && stop == prefix_bytes_) prefix_hash_ = hash_.text();
    if (stop == checkpoints_.next_offset()) checkpoints_.add(hash_.digest());
  }
}

void LineReader::hash_prefix(int64_t bytes) {
  prefix_bytes_ = bytes;
  prefix_hash_.clear();
  if (bytes == 0) prefix_hash_ = hash_.text();
}

std::string LineReader::content_hash() const {
  return hash_.text();
}

}  // namespace rcf::ingest
