// libFuzzer target: the HLO text parser on its own (first byte = reading plan).
#include "fuzz/fuzz_target.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  std::string_view text(reinterpret_cast<const char*>(data) + 1, size - 1);
  rcf::fuzz::check(rcf::fuzz::run_hlo_parser(text, rcf::fuzz::decode_plan(data[0])));
  return 0;
}
