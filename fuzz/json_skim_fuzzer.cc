// libFuzzer target: the JSON skimmer (the whole input is the JSON text).
#include "fuzz/fuzz_target.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  rcf::fuzz::check(rcf::fuzz::run_json_skim(text));
  return 0;
}
