#include "ingest/reading/gzip_inflater.h"

#include <zlib.h>

#include <algorithm>
#include <cstring>

#if defined(RCF_HAVE_ISAL)
#include <isa-l/igzip_lib.h>
#endif

namespace rcf::ingest {
namespace {

// Both libraries count in 32 bits: a call is given at most this much of either side.
constexpr size_t kMaxStep = size_t{1} << 30;

// What run_step returns when the engine claims to have more input or output left than it was
// given: igzip can hand back bytes of its bit buffer that an earlier call read, which lie before
// the caller's pointer (a crafted member boundary). The caller's pointers are left alone and the
// member is an error, never a pointer moved out of its buffer.
constexpr int kGaveBackEarlierInput = -1000;

// Gives `stream` (a z_stream or an inflate_state: both name their sides next_in, avail_in,
// next_out and avail_out) the caller's buffers, runs `step`, and moves the caller's pointers
// past what it read and wrote. Returns what `step` returned, or kGaveBackEarlierInput.
template <typename Stream, typename Step>
int run_step(Stream& stream, const unsigned char** in, size_t* avail_in, unsigned char** out,
             size_t* avail_out, Step step) {
  stream.next_in = const_cast<unsigned char*>(*in);
  stream.avail_in = static_cast<decltype(stream.avail_in)>(std::min(*avail_in, kMaxStep));
  stream.next_out = *out;
  stream.avail_out = static_cast<decltype(stream.avail_out)>(std::min(*avail_out, kMaxStep));
  const size_t in_given = stream.avail_in, out_given = stream.avail_out;
  const int rc = step();
  if (stream.avail_in > in_given || stream.avail_out > out_given) return kGaveBackEarlierInput;
  *in += in_given - stream.avail_in;
  *avail_in -= in_given - stream.avail_in;
  *out += out_given - stream.avail_out;
  *avail_out -= out_given - stream.avail_out;
  return rc;
}

const char* describe_gave_back() {
  return "invalid member boundary (the engine gave back input read before this step)";
}

class ZlibInflater : public GzipInflater {
 public:
  ZlibInflater() {
    memset(&zs_, 0, sizeof(zs_));
    inflateInit2(&zs_, 15 + 16);  // gzip wrapper only
  }
  ~ZlibInflater() override { inflateEnd(&zs_); }

  void reset() override { inflateReset(&zs_); }

  Status inflate(const unsigned char** in, size_t* avail_in, unsigned char** out,
                 size_t* avail_out) override {
    const int rc =
        run_step(zs_, in, avail_in, out, avail_out, [this] { return ::inflate(&zs_, Z_NO_FLUSH); });
    if (rc == Z_STREAM_END) return Status::kMemberEnd;
    if (rc == Z_OK || rc == Z_BUF_ERROR) return Status::kOk;
    message_ = rc == kGaveBackEarlierInput ? describe_gave_back()
               : zs_.msg                   ? zs_.msg
                                           : "inflate failed";
    return Status::kError;
  }

  std::string message() const override { return message_; }

 private:
  z_stream zs_;
  std::string message_;
};

#if defined(RCF_HAVE_ISAL)
// igzip parses the gzip header and checks the trailer itself (ISAL_GZIP); a member has ended
// when its block state is ISAL_BLOCK_FINISH, with the input after it left in next_in.
class IsalInflater : public GzipInflater {
 public:
  IsalInflater() { reset(); }

  void reset() override {
    isal_inflate_init(&state_);
    isal_gzip_header_init(&header_);
    state_.crc_flag = ISAL_GZIP_NO_HDR_VER;
    header_read_ = false;
  }

  Status inflate(const unsigned char** in, size_t* avail_in, unsigned char** out,
                 size_t* avail_out) override {
    const int rc = run_step(state_, in, avail_in, out, avail_out, [this] {
      if (!header_read_) {
        const int header = isal_read_gzip_header(&state_, &header_);
        if (header == ISAL_END_INPUT) return ISAL_DECOMP_OK;  // more of the header to come
        // A name, comment or extra field is skipped (no buffer is given for it): any other
        // answer is a header that cannot be read.
        if (header != ISAL_DECOMP_OK) return header < 0 ? header : ISAL_INVALID_WRAPPER;
        header_read_ = true;
      }
      return isal_inflate(&state_);
    });
    if (rc < 0 || rc == ISAL_NEED_DICT) {
      message_ = describe(rc);
      return Status::kError;
    }
    return state_.block_state == ISAL_BLOCK_FINISH ? Status::kMemberEnd : Status::kOk;
  }

  std::string message() const override { return message_; }

 private:
  // In zlib's words where it has them, so that a note reads the same whichever engine ran.
  static const char* describe(int rc) {
    switch (rc) {
      case ISAL_INVALID_BLOCK:
        return "invalid block type";
      case ISAL_INVALID_SYMBOL:
        return "invalid code";
      case ISAL_INVALID_LOOKBACK:
        return "invalid distance too far back";
      case ISAL_INVALID_WRAPPER:
        return "incorrect header check";
      case ISAL_UNSUPPORTED_METHOD:
        return "unknown compression method";
      case ISAL_INCORRECT_CHECKSUM:
        return "incorrect data check";
      case ISAL_NEED_DICT:
        return "need dictionary";
      case kGaveBackEarlierInput:
        return describe_gave_back();
      default:
        return "inflate failed";
    }
  }

  inflate_state state_;
  isal_gzip_header header_;
  bool header_read_ = false;
  std::string message_;
};
#endif

}  // namespace

bool gzip_engine_available(GzipEngine engine) {
#if defined(RCF_HAVE_ISAL)
  (void)engine;
  return true;
#else
  return engine != GzipEngine::kIsal;
#endif
}

const char* gzip_engine_name(GzipEngine engine) {
#if defined(RCF_HAVE_ISAL)
  return engine == GzipEngine::kZlib ? "zlib" : "isa-l";
#else
  (void)engine;
  return "zlib";
#endif
}

std::unique_ptr<GzipInflater> make_gzip_inflater(GzipEngine engine) {
#if defined(RCF_HAVE_ISAL)
  if (engine != GzipEngine::kZlib) return std::make_unique<IsalInflater>();
#else
  (void)engine;
#endif
  return std::make_unique<ZlibInflater>();
}

}  // namespace rcf::ingest
