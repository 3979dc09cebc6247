#include "pipeline/capture_bundle.h"

#include <cctype>
#include <string_view>

#include "pipeline/capture_process.h"
#include "util/json_depth.h"

namespace rcf::pipeline {
namespace {

// Prints one JSON object of the installed versions; distribution names as pip knows them.
constexpr const char* kProbeScript = R"(import json, platform
out = {"python": platform.python_version()}
try:
    from importlib import metadata
except ImportError:
    metadata = None
for key, dists in (("torch", ["torch"]), ("torch_xla", ["torch_xla", "torch-xla"]),
                   ("libtpu", ["libtpu", "libtpu-nightly"]), ("jax", ["jax"]),
                   ("jaxlib", ["jaxlib"])):
    for dist in dists:
        try:
            out[key] = metadata.version(dist)
            break
        except Exception:
            pass
print(json.dumps(out))
)";

std::string base_name(const std::string& path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// python, python3, python3.11 (not python-config, pythonw.exe, ...).
bool is_python(const std::string& name) {
  if (!name.starts_with("python")) return false;
  for (char c : name.substr(6))
    if (!(c == '.' || (c >= '0' && c <= '9'))) return false;
  return true;
}

bool recorded_user_variable(const std::string& name) {
  for (const char* prefix : {"XLA_", "PT_XLA_", "PJRT_", "LIBTPU_", "TPU_", "TORCH", "JAX_"})
    if (name.starts_with(prefix)) return true;
  return false;
}

std::string replace_all(std::string text, const std::string& from, const std::string& to) {
  if (from.empty()) return text;
  for (size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size()))
    text.replace(at, from.size(), to);
  return text;
}

}  // namespace

std::string python_for(const std::vector<std::string>& command,
                       const std::map<std::string, std::string>& env) {
  if (!command.empty() && is_python(base_name(command[0]))) return command[0];
  auto it = env.find("PYTHON");
  if (it != env.end() && !it->second.empty()) return it->second;
  return "python3";
}

nlohmann::json probe_stack_versions(const std::string& python,
                                    const std::map<std::string, std::string>& env,
                                    std::chrono::milliseconds timeout, std::string* error) {
  HelperOutcome out = run_helper({python, "-c", kProbeScript}, environment_strings(env), timeout);
  if (!out.ok) {
    *error = out.error;
    return nlohmann::json::object();
  }
  auto j = util::parse_json_bounded(out.output);
  if (!j.is_object()) {
    *error = python + " printed no version list";
    return nlohmann::json::object();
  }
  nlohmann::json versions = nlohmann::json::object();
  for (const auto& [key, value] : j.items())
    if (value.is_string()) versions[key] = value;
  return versions;
}

nlohmann::json capture_bundle(const nlohmann::json& versions, const std::string& probe_error,
                              CaptureLevel level, const CaptureEnv& plan,
                              const std::map<std::string, std::string>& parent_env,
                              const std::vector<std::string>& command,
                              const std::string& capture_dir) {
  nlohmann::json bundle = versions.is_object() ? versions : nlohmann::json::object();
  if (!probe_error.empty()) bundle["versions_probe"] = probe_error;
  bundle["capture_level"] = capture_level_name(level);
  bundle["command"] = shell_join(command);
  for (const auto& s : plan.settings)
    bundle[s.name] = replace_all(s.value, capture_dir, "<capture>");
  for (const auto& [name, value] : parent_env)
    if (recorded_user_variable(name) && !bundle.contains(name)) bundle[name] = value;
  return bundle;
}

std::string shell_join(const std::vector<std::string>& argv) {
  std::string out;
  for (const auto& arg : argv) {
    bool plain = !arg.empty();
    for (char c : arg)
      plain = plain && (std::isalnum(static_cast<unsigned char>(c)) ||
                        std::string_view("-_./=:,+@%").find(c) != std::string_view::npos);
    std::string word = plain ? arg : "'" + replace_all(arg, "'", "'\\''") + "'";
    out += (out.empty() ? "" : " ") + word;
  }
  return out;
}

}  // namespace rcf::pipeline
