// Golden files: tests/golden/<name> holds an expected output byte for byte. After an intended
// change of the output, RCF_UPDATE_GOLDEN=1 rewrites the files instead of comparing them; review
// `git diff tests/golden` against the raw logs before committing.
#pragma once

#include <string>

namespace rcf::testing {

// Whether RCF_UPDATE_GOLDEN=1 is set: golden files are rewritten, not compared.
bool update_golden();

// Compares `actual` with tests/golden/<name>, or rewrites the file when RCF_UPDATE_GOLDEN=1.
// Fails the current test when the file is missing or differs.
void expect_golden(const std::string& name, const std::string& actual);

}  // namespace rcf::testing
