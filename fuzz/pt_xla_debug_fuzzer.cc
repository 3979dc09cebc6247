// libFuzzer target: the pt_xla_debug importer (first byte = reading plan, see fuzz/fuzz_harness.h).
#include "fuzz/fuzz_target.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  return rcf::fuzz::importer_target("pt_xla_debug", data, size);
}
