// libFuzzer target: the xla_saved_graph importer (first byte = reading plan, see
// fuzz/fuzz_harness.h).
#include "fuzz/fuzz_target.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  return rcf::fuzz::importer_target("xla_saved_graph", data, size);
}
