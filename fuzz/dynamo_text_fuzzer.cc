// libFuzzer target: the dynamo_text importer (first byte = reading plan, see fuzz/fuzz_harness.h).
#include "fuzz/fuzz_target.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  return rcf::fuzz::importer_target("dynamo_text", data, size);
}
