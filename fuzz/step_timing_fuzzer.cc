// libFuzzer target: the step_timing importer (first byte = reading plan, see fuzz/fuzz_harness.h).
#include "fuzz/fuzz_target.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  return rcf::fuzz::importer_target("step_timing", data, size);
}
