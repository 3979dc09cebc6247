// What the libFuzzer entry points share: a broken invariant is a crash (abort), so libFuzzer keeps
// the input.
#pragma once

#include <cstdio>
#include <cstdlib>

#include "fuzz/fuzz_harness.h"

namespace rcf::fuzz {

inline void check(const Outcome& out) {
  if (out.violations.empty()) return;
  for (const auto& v : out.violations)
    fprintf(stderr, "rcf fuzz invariant broken: %s\n", v.c_str());
  abort();
}

inline int importer_target(std::string_view format, const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  std::string_view text(reinterpret_cast<const char*>(data) + 1, size - 1);
  check(run_importer(format, text, decode_plan(data[0])));
  return 0;
}

}  // namespace rcf::fuzz
