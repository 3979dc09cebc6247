// The name of the machine rcf runs on: the default `--host` of `rcf ingest` and `rcf capture`,
// recorded on every source so that the shards of a fleet say where each log came from.
#pragma once

#include <string>

namespace rcf::util {

// gethostname(2); empty when the system gives none (a store then holds NULL for the host).
std::string this_host();

}  // namespace rcf::util
