// libFuzzer target: the jax_log importer (first byte = reading plan, see fuzz/fuzz_harness.h).
#include "fuzz/fuzz_target.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  return rcf::fuzz::importer_target("jax_log", data, size);
}
