// Byte sources: where input bytes come from. Decompression is a layer under the format readers:
// importers only ever see decompressed lines.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "ingest/reading/gzip_inflater.h"

namespace rcf::ingest {

class ByteSource {
 public:
  virtual ~ByteSource() = default;
  // Reads up to `n` bytes into `buf`. Returns the count read, 0 at end of input, -1 on error
  // (then error() says why; bytes read before the error stay valid).
  virtual int64_t read(char* buf, size_t n) = 0;
  virtual const std::string& error() const = 0;
  // Bytes consumed from the underlying file so far (compressed bytes for .gz): for progress.
  virtual int64_t raw_bytes_read() const = 0;
  // Size of the underlying file, or -1 when unknown (stdin, pipes).
  virtual int64_t raw_size() const = 0;
  // "plain" or "gzip".
  virtual const char* encoding() const = 0;
  // Moves the end of a plain file: reading goes on up to `raw_limit` bytes of it (-1: to its
  // end, as it is now). False where the source cannot (gzip, a pipe).
  virtual bool set_raw_limit(int64_t /*raw_limit*/) { return false; }
};

struct OpenOptions {
  // Stop a gzip stream once it has inflated this many bytes (a bomb guard): reading fails with
  // a clear error instead of running for hours. Memory use never depends on it (streaming).
  int64_t max_inflated_bytes = int64_t{64} << 30;
  // The bomb guard that does not wait for that limit: once a stream has inflated more than
  // `ratio_check_after` bytes, it stops when it has inflated more than `max_inflate_ratio` times
  // the compressed bytes read. Deflate tops out near 1030:1 (runs of one byte); logs, even
  // identical blocks repeated, stay near 200:1, so only near-constant bytes reach the limit.
  int64_t max_inflate_ratio = 500;
  int64_t ratio_check_after = int64_t{256} << 20;
  // A gzip file of at least this many (compressed) bytes is inflated on a thread of its own, a
  // few blocks ahead of its reader (ingest/reading/read_ahead_source.h); -1: never. Below it,
  // starting a thread costs more than the overlap gains (a dump directory is thousands of small
  // files).
  int64_t read_ahead_min_bytes = int64_t{1} << 20;
  // Which library inflates gzip (ingest/reading/gzip_inflater.h): the fastest this build has,
  // unless a test asks for one.
  GzipEngine gzip_engine = GzipEngine::kFastest;
  // Read at most this many bytes of a plain file, as if it ended there; -1: all of it. `rcf
  // watch` reads a growing log up to its last complete line (docs/watch.md).
  int64_t max_raw_bytes = -1;
};

// Opens `path` ("-" = stdin). Sniffs the gzip magic (1f 8b) from the first bytes, never from the
// file name, and wraps the file in a streaming inflater when present (read ahead on a thread of
// its own when it is a regular file of OpenOptions::read_ahead_min_bytes or more). Returns
// nullptr and sets `*error` when the file cannot be opened.
std::unique_ptr<ByteSource> open_byte_source(const std::string& path, const OpenOptions& options,
                                             std::string* error);

}  // namespace rcf::ingest
