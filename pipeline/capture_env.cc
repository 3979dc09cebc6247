#include "pipeline/capture_env.h"

#include <unistd.h>  // environ

#include "ingest/reading/text_util.h"

namespace rcf::pipeline {
namespace {

using ingest::trim;

// Whether comma-separated TORCH_LOGS already names `component` ("+dynamo" names dynamo).
bool names_component(std::string_view torch_logs, std::string_view component) {
  while (!torch_logs.empty()) {
    size_t comma = torch_logs.find(',');
    std::string_view item = trim(torch_logs.substr(0, comma));
    if (!item.empty() && (item.front() == '+' || item.front() == '-')) item.remove_prefix(1);
    if (item == component) return true;
    if (comma == std::string_view::npos) break;
    torch_logs.remove_prefix(comma + 1);
  }
  return false;
}

// The directory of `--xla_dump_to=DIR` (or `--xla_dump_to DIR`) in XLA_FLAGS, or "".
std::string xla_dump_dir(std::string_view flags) {
  constexpr std::string_view kFlag = "--xla_dump_to";
  size_t at = flags.find(kFlag);
  if (at == std::string_view::npos) return "";
  std::string_view rest = flags.substr(at + kFlag.size());
  if (!rest.empty() && (rest.front() == '=' || rest.front() == ' ')) rest.remove_prefix(1);
  return std::string(rest.substr(0, rest.find(' ')));
}

class Planner {
 public:
  Planner(const std::map<std::string, std::string>& parent, CaptureEnv* out)
      : parent_(parent), out_(out) {
    out_->env = parent;
  }

  // The user's non-empty value of `name`, if any.
  const std::string* user(const std::string& name) const {
    auto it = parent_.find(name);
    return it == parent_.end() || it->second.empty() ? nullptr : &it->second;
  }

  // Sets `name` unless the user did; returns whether rcf's value is used.
  bool set_unless_user(const std::string& name, const std::string& value) {
    if (const std::string* mine = user(name)) {
      record(name, *mine, *mine, EnvAction::kKept);
      return false;
    }
    record(name, value, "", EnvAction::kSet);
    return true;
  }

  // A path-valued switch: kept user paths are ingested as external outputs.
  void set_path(const std::string& name, const std::string& path) {
    if (!set_unless_user(name, path)) {
      const std::string& value = *user(name);
      if (value != "STDOUT" && value != "STDERR") out_->external_outputs.push_back(value);
    }
  }

  void record(const std::string& name, const std::string& value, const std::string& previous,
              EnvAction action) {
    out_->env[name] = value;
    out_->settings.push_back({name, value, previous, action});
  }

 private:
  const std::map<std::string, std::string>& parent_;
  CaptureEnv* out_;
};

}  // namespace

std::optional<CaptureLevel> parse_capture_level(std::string_view name) {
  if (name == "light") return CaptureLevel::kLight;
  if (name == "full") return CaptureLevel::kFull;
  return std::nullopt;
}

const char* capture_level_name(CaptureLevel level) {
  return level == CaptureLevel::kFull ? "full" : "light";
}

const char* env_action_name(EnvAction action) {
  switch (action) {
    case EnvAction::kSet:
      return "set";
    case EnvAction::kAppended:
      return "appended";
    case EnvAction::kKept:
      return "kept";
  }
  return "set";
}

CaptureEnv plan_capture_env(const std::map<std::string, std::string>& parent,
                            const CaptureLayout& layout, CaptureLevel level) {
  CaptureEnv out;
  Planner p(parent, &out);
  const bool full = level == CaptureLevel::kFull;
  const std::string logs = layout.logs();

  // torch_xla. PT_XLA_DEBUG=1 is the only switch of the pt-xla-profiler step analysis; the level
  // decides the blocks (1: one per real compile; 2: also one per execution, cache hits included).
  p.set_unless_user("PT_XLA_DEBUG", "1");
  p.set_unless_user("PT_XLA_DEBUG_LEVEL", full ? "2" : "1");
  p.set_path("PT_XLA_DEBUG_FILE", logs + "/pt_xla_debug.log");
  p.set_path("XLA_METRICS_FILE", logs + "/metrics.txt");
  if (full) {
    // torch_xla appends the device ordinal: save_tensors.hlo.0
    p.set_path("XLA_SAVE_TENSORS_FILE", logs + "/save_tensors.hlo");
    p.set_unless_user("XLA_SAVE_TENSORS_FMT", "hlo");
  } else if (const std::string* saved = p.user("XLA_SAVE_TENSORS_FILE")) {
    // Not managed at this level, but what the user's own settings write is read all the same.
    out.external_outputs.push_back(*saved);
  }
  // XLA's own dump of every module it compiles (torch_xla and JAX alike), as text: the programs
  // whose diff names the changed parameter, dimension or literal (docs/capture.md). A dump the
  // user already directs elsewhere is kept and read from there.
  const std::string* flags = p.user("XLA_FLAGS");
  std::string dump = "--xla_dump_to=" + logs + "/xla_dump --xla_dump_hlo_as_text";
  if (!flags) {
    p.record("XLA_FLAGS", dump, "", EnvAction::kSet);
  } else if (std::string dir = xla_dump_dir(*flags); !dir.empty()) {
    p.record("XLA_FLAGS", *flags, *flags, EnvAction::kKept);
    out.external_outputs.push_back(dir);
  } else {
    p.record("XLA_FLAGS", *flags + " " + dump, *flags, EnvAction::kAppended);
  }

  // torch.compile: the Dynamo text log goes to stderr (kept in stderr.log); TORCH_TRACE is a
  // directory of structured logs.
  if (const std::string* logs_var = p.user("TORCH_LOGS")) {
    std::string value = *logs_var;
    for (const char* component : {"recompiles", "graph_breaks"})
      if (!names_component(value, component)) value += std::string(",") + component;
    p.record("TORCH_LOGS", value, *logs_var,
             value == *logs_var ? EnvAction::kKept : EnvAction::kAppended);
  } else {
    p.record("TORCH_LOGS", "recompiles,graph_breaks", "", EnvAction::kSet);
  }
  p.set_path("TORCH_TRACE", logs + "/torch_trace");

  // JAX: both log at WARNING through Python logging, to stderr.
  p.set_unless_user("JAX_LOG_COMPILES", "1");
  p.set_unless_user("JAX_EXPLAIN_CACHE_MISSES", "1");

  // Through a pipe Python would buffer stdout in blocks: lines would reach the terminal late and
  // out of order with stderr.
  p.set_unless_user("PYTHONUNBUFFERED", "1");
  return out;
}

std::map<std::string, std::string> current_environment() {
  std::map<std::string, std::string> env;
  for (char** e = environ; e && *e; ++e) {
    std::string_view entry(*e);
    size_t eq = entry.find('=');
    if (eq == std::string_view::npos || eq == 0) continue;
    env.emplace(std::string(entry.substr(0, eq)), std::string(entry.substr(eq + 1)));
  }
  return env;
}

std::vector<std::string> environment_strings(const std::map<std::string, std::string>& env) {
  std::vector<std::string> out;
  out.reserve(env.size());
  for (const auto& [name, value] : env) out.push_back(name + "=" + value);
  return out;
}

}  // namespace rcf::pipeline
