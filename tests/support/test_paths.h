// Where the tests find the fixtures, the goldens and the `rcf` binary. The paths are defined in one
// generated translation unit (tests/CMakeLists.txt writes it), so no other test object holds a path
// of the checkout or the build: a compiler cache shares them between clones and build directories.
#pragma once

namespace rcf::testing {

// Constant-initialised, so they are set before any test file's static initialisers read them.
extern const char* const kFixturesDir;
extern const char* const kGoldenDir;
extern const char* const kRcfBinary;
// The build directory and the cmake that configured it (install_test runs `cmake --install`).
extern const char* const kBuildDir;
extern const char* const kCmakeCommand;

}  // namespace rcf::testing

#define RCF_FIXTURES_DIR (::rcf::testing::kFixturesDir)
#define RCF_GOLDEN_DIR (::rcf::testing::kGoldenDir)
#define RCF_BINARY (::rcf::testing::kRcfBinary)
