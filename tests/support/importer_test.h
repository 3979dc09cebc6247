// The preamble the importer tests share: the collecting sink and its helpers
// (tests/support/collecting_sink.h) and the shapes events are compared in. An importer test says
// `using namespace rcf::testing;` once, then names its importer in its own run/fixture helpers.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "tests/support/collecting_sink.h"

namespace rcf::testing {

using Notes = std::map<std::string, int>;  // note reason -> count
using Lines = std::vector<int64_t>;        // line numbers
using Strings = std::vector<std::string>;  // events described one per string

}  // namespace rcf::testing
