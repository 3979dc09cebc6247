// The fixture of tests that run rcf as a process in a temporary directory of their own (the
// directory lives as long as the test).
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/support/rcf_process.h"
#include "tests/support/temp_files.h"

namespace rcf::testing {

class RcfInTempDir : public ::testing::Test {
 protected:
  RcfOptions in_tmp() const {
    RcfOptions options;
    options.cwd = tmp_.path();
    return options;
  }
  RcfRun rcf(const std::vector<std::string>& args) { return run_rcf(args, in_tmp()); }
  std::string path(const std::string& name) const { return tmp_.file(name); }

  TempDir tmp_;
};

}  // namespace rcf::testing
