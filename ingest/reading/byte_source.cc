#include "ingest/reading/byte_source.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <vector>

#include "ingest/reading/gzip_inflater.h"
#include "ingest/reading/read_ahead_source.h"

namespace rcf::ingest {
namespace {

class FileSource : public ByteSource {
 public:
  FileSource(int fd, bool owned, int64_t size, int64_t limit)
      : fd_(fd),
        owned_(owned),
        size_(limit >= 0 && size >= 0 ? std::min(size, limit) : size),
        limit_(limit) {}
  ~FileSource() override {
    if (owned_) ::close(fd_);
  }

  // Bytes pushed back by the sniffing in open_byte_source() are served first.
  void unread(std::string bytes) { pushback_ = std::move(bytes); }

  int64_t read(char* buf, size_t n) override {
    if (pushback_pos_ < pushback_.size()) {
      size_t take = std::min(n, pushback_.size() - pushback_pos_);
      memcpy(buf, pushback_.data() + pushback_pos_, take);
      pushback_pos_ += take;
      return static_cast<int64_t>(take);
    }
    if (limit_ >= 0) n = static_cast<size_t>(std::min<int64_t>(n, limit_ - raw_read_));
    if (n == 0) return 0;
    for (;;) {
      ssize_t got = ::read(fd_, buf, n);
      if (got >= 0) {
        raw_read_ += got;
        return got;
      }
      if (errno == EINTR) continue;
      error_ = strerror(errno);
      return -1;
    }
  }
  // Reads directly, bypassing the pushback: used only before anything was pushed back.
  int64_t read_raw(char* buf, size_t n) { return read(buf, n); }
  const std::string& error() const override { return error_; }
  int64_t raw_bytes_read() const override { return raw_read_; }
  int64_t raw_size() const override { return size_; }
  const char* encoding() const override { return "plain"; }
  bool set_raw_limit(int64_t raw_limit) override {
    if (!owned_ || (raw_limit >= 0 && raw_limit < raw_read_)) return false;
    limit_ = raw_limit;
    struct stat st;
    if (fstat(fd_, &st) == 0 && S_ISREG(st.st_mode))
      size_ = limit_ >= 0 ? std::min<int64_t>(st.st_size, limit_) : st.st_size;
    return true;
  }

 private:
  int fd_;
  bool owned_;
  int64_t size_;
  int64_t limit_;  // bytes that may be read from fd_, -1: no limit
  int64_t raw_read_ = 0;
  std::string pushback_;
  size_t pushback_pos_ = 0;
  std::string error_;
};

// Streaming gzip (also concatenated members, as `cat a.gz b.gz` produces); each member is
// inflated by a GzipInflater (ingest/reading/gzip_inflater.h), the rest is the same for every
// engine.
class GzipSource : public ByteSource {
 public:
  GzipSource(std::unique_ptr<FileSource> file, const OpenOptions& options)
      : file_(std::move(file)),
        options_(options),
        in_(1 << 20),
        inflater_(make_gzip_inflater(options.gzip_engine)) {}

  int64_t read(char* buf, size_t n) override {
    if (done_) return 0;
    if (failed_) return -1;
    out_ = reinterpret_cast<unsigned char*>(buf);
    size_t avail_out = n;
    while (avail_out > 0) {
      if (avail_in_ == 0 && !input_ended_) {
        int64_t got = file_->read(in_.data(), in_.size());
        if (got < 0) return fail("read error: " + file_->error(), buf);
        input_ended_ = got == 0;
        next_in_ = reinterpret_cast<const unsigned char*>(in_.data());
        avail_in_ = static_cast<size_t>(got);
      }
      if (member_ended_) {
        if (avail_in_ == 0) {  // the file ended after a whole member
          done_ = true;
          break;
        }
        // Another member follows (concatenated gzip), or trailing garbage. The two magic bytes
        // may straddle two reads: keep a lone 0x1f and read on behind it.
        if (avail_in_ == 1 && next_in_[0] == 0x1f && !input_ended_) {
          in_[0] = 0x1f;
          int64_t got = file_->read(in_.data() + 1, in_.size() - 1);
          if (got < 0) return fail("read error: " + file_->error(), buf);
          input_ended_ = got == 0;
          next_in_ = reinterpret_cast<const unsigned char*>(in_.data());
          avail_in_ = static_cast<size_t>(1 + got);
        }
        if (avail_in_ >= 2 && next_in_[0] == 0x1f && next_in_[1] == 0x8b) {
          inflater_->reset();
          member_ended_ = false;
        } else {
          avail_in_ = 0;  // ignore trailing zero padding, as gzip does
          continue;
        }
      }
      // At the end of the file the inflater is called on no input until it gives nothing more:
      // it may hold bytes it has inflated and not yet written out, and which bytes come out
      // before a truncated stream's error must not depend on the size of the reads.
      unsigned char* const before = out_;
      GzipInflater::Status status = inflater_->inflate(&next_in_, &avail_in_, &out_, &avail_out);
      if (status == GzipInflater::Status::kMemberEnd) {
        member_ended_ = true;
      } else if (status == GzipInflater::Status::kError) {
        return fail("corrupt gzip data: " + inflater_->message(), buf);
      } else if (input_ended_ && avail_in_ == 0 && out_ == before) {
        return fail("truncated gzip stream (unexpected end of file)", buf);
      }
    }
    int64_t produced = static_cast<int64_t>(reinterpret_cast<char*>(out_) - buf);
    inflated_ += produced;
    if (inflated_ > options_.max_inflated_bytes) {
      failed_ = true;
      error_ = "gzip stream inflates past the limit of " +
               std::to_string(options_.max_inflated_bytes) + " bytes (possible gzip bomb); stopped";
      return -1;
    }
    // Compressed bytes the inflater consumed (not those read ahead into in_).
    const int64_t compressed = file_->raw_bytes_read() - static_cast<int64_t>(avail_in_);
    if (inflated_ > options_.ratio_check_after &&
        inflated_ / std::max<int64_t>(compressed, 1) > options_.max_inflate_ratio) {
      failed_ = true;
      error_ = "gzip stream inflates more than " + std::to_string(options_.max_inflate_ratio) +
               " times its compressed size (" + std::to_string(inflated_) + " bytes from " +
               std::to_string(compressed) + "; possible gzip bomb); stopped";
      return -1;
    }
    return produced;
  }
  const std::string& error() const override { return error_; }
  int64_t raw_bytes_read() const override { return file_->raw_bytes_read(); }
  int64_t raw_size() const override { return file_->raw_size(); }
  const char* encoding() const override { return "gzip"; }

 private:
  // Records the error; bytes inflated before it are still returned once.
  int64_t fail(std::string message, char* buf) {
    failed_ = true;
    error_ = std::move(message);
    int64_t produced = static_cast<int64_t>(reinterpret_cast<char*>(out_) - buf);
    inflated_ += produced;
    return produced > 0 ? produced : -1;
  }

  std::unique_ptr<FileSource> file_;
  OpenOptions options_;
  std::vector<char> in_;
  const unsigned char* next_in_ = nullptr;  // the unread input in in_
  size_t avail_in_ = 0;
  unsigned char* out_ = nullptr;  // where read() writes next
  std::unique_ptr<GzipInflater> inflater_;
  bool member_ended_ = false;
  bool input_ended_ = false;  // the file has no more bytes
  bool done_ = false;
  bool failed_ = false;
  int64_t inflated_ = 0;
  std::string error_;
};

}  // namespace

std::unique_ptr<ByteSource> open_byte_source(const std::string& path, const OpenOptions& options,
                                             std::string* error) {
  int fd = 0;
  bool owned = false;
  int64_t size = -1;
  if (path != "-") {
    fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
      *error = strerror(errno);
      return nullptr;
    }
    owned = true;
    struct stat st;
    if (fstat(fd, &st) == 0) {
      if (S_ISDIR(st.st_mode)) {
        ::close(fd);
        *error = "is a directory";
        return nullptr;
      }
      if (S_ISREG(st.st_mode)) {
        size = st.st_size;
        posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
      }
    }
  }
  auto file = std::make_unique<FileSource>(fd, owned, size, options.max_raw_bytes);
  // Sniff the gzip magic. Short reads (pipes) are retried until 2 bytes or end of input.
  std::string head;
  char tmp[2];
  while (head.size() < 2) {
    int64_t got = file->read_raw(tmp, 2 - head.size());
    if (got < 0) {
      *error = file->error();
      return nullptr;
    }
    if (got == 0) break;
    head.append(tmp, got);
  }
  bool gzip = head.size() == 2 && static_cast<unsigned char>(head[0]) == 0x1f &&
              static_cast<unsigned char>(head[1]) == 0x8b;
  file->unread(std::move(head));
  if (!gzip) return file;
  auto inflater = std::make_unique<GzipSource>(std::move(file), options);
  // Only a regular file: the reading thread must never wait on a pipe nobody writes to.
  if (size < 0 || options.read_ahead_min_bytes < 0 || size < options.read_ahead_min_bytes)
    return inflater;
  return std::make_unique<ReadAheadSource>(std::move(inflater));
}

}  // namespace rcf::ingest
