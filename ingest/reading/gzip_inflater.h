// The inflation of one gzip member at a time, by ISA-L's igzip where rcf was built with it, else
// by zlib. ingest/reading/byte_source.cc wraps it in the stream a reader sees (members one after
// another, truncation, trailing padding, the bomb guards), which is the same whichever engine
// inflates.
//
// Why ISA-L: inflation bounded the ingest of a gzipped log. zlib inflates about 540 MB/s of
// output on one core of the project's VM, below what the TORCH_TRACE reader parses; igzip
// inflates the same stream at 1.6 GB/s (bench/micro_bench BM_GzipInflate, docs/performance.md).
// Debian packages it (libisal-dev) for the architectures it has assembly for; elsewhere rcf
// builds with zlib alone.
#pragma once

#include <cstddef>
#include <memory>
#include <string>

namespace rcf::ingest {

enum class GzipEngine {
  kFastest,  // ISA-L when built with it, else zlib
  kZlib,
  kIsal,  // only when gzip_engine_available(kIsal)
};

// Whether `engine` can inflate in this build (kFastest and kZlib always can).
bool gzip_engine_available(GzipEngine engine);
// The engine kFastest stands for in this build, by name: "isa-l" or "zlib".
const char* gzip_engine_name(GzipEngine engine);

class GzipInflater {
 public:
  enum class Status {
    kOk,         // input used up or output full: call again with more of either
    kMemberEnd,  // the member's trailer was read and its CRC and size matched
    kError,      // corrupt data: message() says what
  };
  virtual ~GzipInflater() = default;
  // Makes the inflater ready for the next member (its header is expected next).
  virtual void reset() = 0;
  // Inflates from `*in` (`*avail_in` bytes) into `*out` (`*avail_out` bytes), advancing both
  // past what it used and wrote. Input after a member's end is left unread.
  virtual Status inflate(const unsigned char** in, size_t* avail_in, unsigned char** out,
                         size_t* avail_out) = 0;
  // What was wrong with the data, after kError.
  virtual std::string message() const = 0;
};

// An inflater of `engine` (kIsal falls back to zlib where it is not available).
std::unique_ptr<GzipInflater> make_gzip_inflater(GzipEngine engine);

}  // namespace rcf::ingest
