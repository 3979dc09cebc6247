#include "ingest/reading/line_reader.h"

#include <fmt/format.h>
#include <string.h>

#include "util/large_array_allocator.h"

namespace rcf::ingest {

LineReader::LineReader(ByteSource& source, size_t buffer_size, size_t max_line)
    : source_(source),
      buf_(std::max<size_t>(buffer_size, 16),
           source.raw_size() >= static_cast<int64_t>(buffer_size)),
      max_line_(max_line) {}

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
  Bytes grown = allocate(size, data_.get_deleter().huge);
  memcpy(grown.get(), data_.get(), std::min(size_, size));
  data_ = std::move(grown);
  size_ = size;
}

bool LineReader::fill() {
  if (eof_) return false;
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
  if (!line->empty() && line->back() == '\r') line->remove_suffix(1);
  return true;
}

namespace {
std::string format_hash(const ContentHash& hash, int64_t bytes) {
  return fmt::format("{:016x}-{}", hash.digest(), bytes);
}
}  // namespace

void LineReader::hash_input(const char* data, size_t size) {
  int64_t room = prefix_bytes_ - total_read_;
  if (prefix_hash_.empty() && room >= 0 && room <= static_cast<int64_t>(size)) {
    // The prefix ends inside this chunk: digest it there, then go on.
    hash_.update(data, static_cast<size_t>(room));
    prefix_hash_ = format_hash(hash_, prefix_bytes_);
    data += room;
    size -= static_cast<size_t>(room);
    total_read_ += room;
  }
  hash_.update(data, size);
  total_read_ += static_cast<int64_t>(size);
}

void LineReader::hash_prefix(int64_t bytes) {
  prefix_bytes_ = bytes;
  prefix_hash_.clear();
  if (bytes == 0) prefix_hash_ = format_hash(hash_, 0);
}

std::string LineReader::content_hash() const {
  return format_hash(hash_, total_read_);
}

}  // namespace rcf::ingest
