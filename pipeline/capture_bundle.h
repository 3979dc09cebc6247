// The bundle `rcf capture` records for its run: the versions of the stack found in the
// environment (python, torch, torch_xla, libtpu, jax, jaxlib: what is installed for the python the
// command uses), the capture level, the switches capture set and the user's own XLA / torch / JAX
// variables, and the command line.
#pragma once

#include <chrono>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "pipeline/capture_env.h"

namespace rcf::pipeline {

// The python the command would use: the command itself when it is a python (python3.11, ...),
// else $PYTHON, else python3 (from PATH).
std::string python_for(const std::vector<std::string>& command,
                       const std::map<std::string, std::string>& env);

// Asks `python` for the installed versions (importlib.metadata: nothing is imported) within
// `timeout`: {"python": "3.11.9", "torch": "2.5.1", ...}, only the packages found. On failure
// returns an empty object and says why in *error; never throws.
nlohmann::json probe_stack_versions(const std::string& python,
                                    const std::map<std::string, std::string>& env,
                                    std::chrono::milliseconds timeout, std::string* error);

// The bundle: `versions`, "capture_level", "command", every setting of `plan` and the user's
// variables named XLA_*, PT_XLA_*, PJRT_*, LIBTPU_*, TPU_*, TORCH*, JAX_* (flags that change what
// gets compiled). Paths under `capture_dir` are written as "<capture>/...", so that the bundles of
// two captures differ only where their configurations do. `probe_error`, when not empty, is kept
// as "versions_probe".
nlohmann::json capture_bundle(const nlohmann::json& versions, const std::string& probe_error,
                              CaptureLevel level, const CaptureEnv& plan,
                              const std::map<std::string, std::string>& parent_env,
                              const std::vector<std::string>& command,
                              const std::string& capture_dir);

// argv as a shell would need it typed (words with spaces or quotes single-quoted).
std::string shell_join(const std::vector<std::string>& argv);

}  // namespace rcf::pipeline
