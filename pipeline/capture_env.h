// The environment `rcf capture` gives the command: the switches that make torch_xla,
// torch.compile and JAX write every log rcf reads, into the capture directory. A pure function of
// the parent environment, so that what is set, appended or kept is unit-testable.
//
// Rules: a variable the user already set is kept as it is, and what it points to is ingested too
// (at either level); TORCH_LOGS and XLA_FLAGS get rcf's entries appended to the user's.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rcf::pipeline {

enum class CaptureLevel {
  kLight,  // compile records: PT_XLA_DEBUG level 1, metrics per step, Dynamo and JAX compile logs,
           // and XLA's text dump of every compiled module
  kFull,   // also level-2 execution records and saved graphs as HLO (large)
};

std::optional<CaptureLevel> parse_capture_level(std::string_view name);
const char* capture_level_name(CaptureLevel level);

// Where each output goes, under the capture directory.
struct CaptureLayout {
  std::string dir;                                    // the capture directory
  std::string logs() const { return dir + "/logs"; }  // every tool output (ingested as one walk)
  std::string stdout_log() const { return dir + "/stdout.log"; }
  std::string stderr_log() const { return dir + "/stderr.log"; }
  std::string bundle() const { return dir + "/bundle.json"; }
};

enum class EnvAction {
  kSet,       // the user had not set it: rcf's value
  kAppended,  // rcf's entries appended to the user's value
  kKept,      // the user's value, unchanged
};
const char* env_action_name(EnvAction action);

// One variable as the command sees it.
struct EnvSetting {
  std::string name;
  std::string value;     // what the command gets
  std::string previous;  // the user's value ("" when unset)
  EnvAction action = EnvAction::kSet;
};

struct CaptureEnv {
  std::vector<EnvSetting> settings;        // the switches capture manages, in a fixed order
  std::map<std::string, std::string> env;  // the command's whole environment
  // Files and directories that the user's own (kept) settings write to, outside the capture
  // directory: their files written during the run are ingested too.
  std::vector<std::string> external_outputs;
};

CaptureEnv plan_capture_env(const std::map<std::string, std::string>& parent,
                            const CaptureLayout& layout, CaptureLevel level);

// `environ` as a map, and a map as the NAME=VALUE strings exec wants.
std::map<std::string, std::string> current_environment();
std::vector<std::string> environment_strings(const std::map<std::string, std::string>& env);

}  // namespace rcf::pipeline
