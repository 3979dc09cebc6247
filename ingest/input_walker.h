// Expands the PATH arguments of `rcf ingest` into the list of inputs to read.
#pragma once

#include <string>
#include <vector>

namespace rcf::ingest {

struct InputFile {
  std::string path;
  bool from_walk = false;  // found by walking a directory (vs named on the command line)
};

struct WalkProblem {
  std::string path;
  std::string message;
};

// Files are kept; directories are walked recursively in sorted order (deterministic), following
// symlinks but never entering a directory twice (symlink loops); "-" is stdin. Paths that do not
// exist or cannot be read are reported in `problems` (named paths and walked entries alike).
std::vector<InputFile> expand_inputs(const std::vector<std::string>& paths,
                                     std::vector<WalkProblem>* problems);

}  // namespace rcf::ingest
