// 32-bit little-endian loads and stores, as MD5 reads its message words and writes its digest
// (ingest/reading/md5.cc, ingest/reading/md5_lanes.cc).
#pragma once

#include <cstdint>
#include <cstring>

namespace rcf::ingest {

inline uint32_t load_le32(const uint8_t* p) {
  uint32_t v;
  std::memcpy(&v, p, 4);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
  v = __builtin_bswap32(v);
#endif
  return v;
}

inline void store_le32(uint8_t* p, uint32_t v) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
  v = __builtin_bswap32(v);
#endif
  std::memcpy(p, &v, 4);
}

}  // namespace rcf::ingest
