// MD5 of many independent messages at once: one message per SIMD lane (4 with SSE2, 8 with
// AVX2, 16 with AVX-512, chosen at run time), each lane running the same compression step on its
// own block. MD5 is a chain of dependent 32-bit steps, so one message cannot go faster than one
// core's scalar rate (about 550 MB/s here); a TORCH_TRACE log is thousands of payloads, whose
// checksums are independent (docs/performance.md).
//
// The digests are those of Md5::digest, message by message; nothing is held between calls.
#pragma once

#include <cstddef>
#include <string_view>
#include <vector>

#include "ingest/reading/md5.h"

namespace rcf::ingest {

// The instruction sets md5_many can use; kBest picks the widest this CPU has.
enum class Md5Lanes { kBest, kScalar, kSse2, kAvx2, kAvx512 };

// Whether this CPU (and this build) can run `lanes`.
bool md5_lanes_available(Md5Lanes lanes);

// digests[i] = MD5 of messages[i], for every i; `digests` is resized to messages.size().
// `lanes` other than kBest is for tests and benchmarks (it must be available).
void md5_many(const std::vector<std::string_view>& messages, std::vector<Md5Digest>* digests,
              Md5Lanes lanes = Md5Lanes::kBest);

}  // namespace rcf::ingest
