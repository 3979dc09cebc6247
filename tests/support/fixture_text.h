// Fixtures as text, for the tests that write a log themselves (in pieces, in variants).
#pragma once

#include <string>

namespace rcf::testing {

// The decompressed bytes of fixtures/`relative` (plain or gzip); a test failure when unreadable.
std::string fixture_text(const std::string& relative);

// The real consoles of fixtures/real_runs (but JAX's) and fixtures/dynamo, one after the other,
// in name order: a console longer than the sniffing window, with recompile blocks, limit warnings
// and graph breaks.
std::string real_consoles_one_after_the_other();

}  // namespace rcf::testing
