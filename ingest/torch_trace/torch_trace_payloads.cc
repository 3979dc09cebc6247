// TORCH_TRACE payload readers that need no importer state. Format: docs/torch_trace.md.
#include "ingest/torch_trace/torch_trace_payloads.h"

#include <algorithm>
#include <cstdlib>
#include <optional>

#include "ingest/dynamo/dynamo_graph_break.h"
#include "ingest/dynamo/sync_signature.h"
#include "ingest/torch_trace/json_skim.h"
#include "ingest/torch_trace/torch_trace_envelope.h"
#include "ingest/torch_trace/torch_trace_json.h"

namespace rcf::ingest::torch_trace {

using std::string_view_literals::operator""sv;

std::pair<std::string, std::string> split_reason(std::string_view item) {
  size_t colon = item.find(": ");
  if (colon != kNpos && CompileId::parse(item.substr(0, colon)))
    return {std::string(item.substr(0, colon)), std::string(rtrim(item.substr(colon + 2)))};
  return {std::string(), std::string(rtrim(item))};
}

// A user-stack frame inside PyTorch itself (eval_frame / convert_frame wrappers, nn.Module call
// plumbing): trailing ones are dropped from dynamo_start stacks, as tlparse does.
bool is_torch_internal_file(std::string_view file) {
  return file.find("/torch/_") != kNpos || file.ends_with("/torch/nn/modules/module.py");
}

// Parses the text of a graph-break report (`dynamo_graph_break_reason` artifact; same text as the
// `graph_breaks` log, docs/dynamo_text.md). Falls back to the whole text as the reason.
void parse_graph_break_text(std::string_view text, GraphBreak* out) {
  enum class Section { kHeader, kReason, kTraceback } section = Section::kHeader;
  std::string reason;
  bool saw_reason = false;
  for_each_line(text, [&](std::string_view line) {
    std::string_view stripped = rtrim(line);
    if (section != Section::kTraceback && stripped.starts_with("User code traceback:")) {
      section = Section::kTraceback;
      return;
    }
    if (section == Section::kHeader) {
      if (stripped.starts_with("Graph break") && out->user_file.empty()) {
        constexpr std::string_view kAt = " in user code at ";
        if (size_t at = stripped.find(kAt); at != kNpos) {
          std::string_view location = stripped.substr(at + kAt.size());
          size_t colon = location.rfind(':');
          if (colon != kNpos && colon + 1 < location.size() &&
              std::all_of(location.begin() + colon + 1, location.end(), is_digit)) {
            out->user_file = std::string(location.substr(0, colon));
            out->user_line =
                std::strtoll(std::string(location.substr(colon + 1)).c_str(), nullptr, 10);
          } else {
            out->user_file = std::string(location);
          }
        }
        if (stripped.find("suppressed") != kNpos) out->suppressed = true;
        return;
      }
      for (std::string_view prefix : {"Graph Break Reason: "sv, "Reason: "sv}) {
        if (stripped.starts_with(prefix)) {
          std::string_view first = stripped.substr(prefix.size());
          if (prefix.front() == 'G') out->gb_type = std::string(first);
          reason.assign(first);
          saw_reason = true;
          section = Section::kReason;
          return;
        }
      }
      return;
    }
    if (section == Section::kReason) {
      reason += '\n';
      reason += line;
      return;
    }
    // Traceback: `  File "<file>", line <n>, in <fn>` followed by the source line.
    std::string_view t = trim(line);
    if (t.starts_with("File \"")) {
      size_t quote = t.find('"', 6);
      if (quote == kNpos) return;
      StackFrame frame;
      frame.file = std::string(t.substr(6, quote - 6));
      std::string_view rest = t.substr(quote + 1);
      if (size_t ln = rest.find(", line "); ln != kNpos)
        frame.line = std::strtoll(std::string(rest.substr(ln + 7, 20)).c_str(), nullptr, 10);
      if (size_t in = rest.find(", in "); in != kNpos)
        frame.function = std::string(rest.substr(in + 5));
      out->user_stack.push_back(std::move(frame));
    } else if (!t.empty() && !out->user_stack.empty() && out->user_stack.back().code.empty()) {
      out->user_stack.back().code = std::string(t);
    }
  });
  out->reason = saw_reason ? std::string(rtrim(reason)) : std::string(trim(text));
  // The registry type, when the reason has one, names the break better than its first line
  // (2.8+: a generic `Encountered graph break when attempting to trace ...` comes first).
  if (std::string_view type = registry_gb_type(out->reason); !type.empty())
    out->gb_type = std::string(type);
  if (!out->user_stack.empty()) out->user_function = out->user_stack.back().function;
  out->sync_signature = has_sync_signature(out->reason);
}

// The exception lines at the end of a Python traceback (after the last indented line, up to the
// first blank line): "torch._dynamo.exc.BackendCompilerFailed: ...\nRuntimeError: ...".
std::string traceback_summary(std::string_view text) {
  std::vector<std::string_view> lines;
  for_each_line(text, [&](std::string_view line) { lines.push_back(rtrim(line)); });
  size_t start = 0;
  for (size_t i = 0; i < lines.size(); ++i)
    if (!lines[i].empty() && lines[i].front() == ' ') start = i + 1;
  std::string summary;
  for (size_t i = start; i < lines.size() && !lines[i].empty(); ++i) {
    if (!summary.empty()) summary += '\n';
    summary += lines[i];
  }
  return summary;
}

void read_dynamo_config(std::string_view raw, DynamoCompile* compile) {
  std::string decoded;
  std::string_view config = raw;
  if (!raw.empty() && raw.front() == '"') {
    std::optional<std::string> text = json_skim::to_string(raw);
    if (!text) return;
    decoded = std::move(*text);
    config = decoded;
  }
  std::optional<int64_t> recompile_limit, cache_size_limit, accumulated_limit,
      accumulated_cache_size_limit;
  json_skim::for_each_member(config, [&](std::string_view key, std::string_view value) {
    if (key == "recompile_limit") {
      recompile_limit = json_skim::to_int(value);
    } else if (key == "cache_size_limit") {  // older name of recompile_limit
      cache_size_limit = json_skim::to_int(value);
    } else if (key == "accumulated_recompile_limit") {
      accumulated_limit = json_skim::to_int(value);
    } else if (key == "accumulated_cache_size_limit") {
      accumulated_cache_size_limit = json_skim::to_int(value);
    }
  });
  compile->recompile_limit = recompile_limit ? recompile_limit : cache_size_limit;
  compile->accumulated_recompile_limit =
      accumulated_limit ? accumulated_limit : accumulated_cache_size_limit;
}
std::vector<std::string> cpp_guard_lines(std::string_view payload) {
  std::vector<std::string> guards;
  for_each_line(payload, [&](std::string_view line) {
    size_t i = 0;
    while (i + 1 < line.size() && line[i] == '|' && line[i + 1] == ' ') i += 2;
    if (line.substr(i, 3) != "+- ") return;
    std::string_view guard = rtrim(line.substr(i + 3));
    std::string_view guard_kind = guard.substr(0, guard.find(':'));
    if (guard_kind.ends_with("Manager")) return;  // GuardManager, DictGuardManager, ...
    // The first "  # " starts the source comments (a source line, then a file:line).
    if (size_t comment = guard.find("  # "); comment != kNpos && comment > guard_kind.size())
      guard = rtrim(guard.substr(0, comment));
    guards.emplace_back(guard);
  });
  return guards;
}

// One pass over the event: its args (which may copy a cache key's every component, tens of KB)
// are walked where they stand instead of being skipped over and then read again.
bool read_chromium_event(std::string_view event, ChromiumEvent* out) {
  using json_skim::kInvalid;
  auto read_arg = [&](std::string_view arg, size_t at) {
    size_t end = json_skim::skip_value(event, at, 2);
    if (end == kInvalid) return end;
    std::string_view value = event.substr(at, end - at);
    if (arg == "compile_id") {
      out->args_compile_id = skim_string(value);
    } else if (arg == "key") {
      out->cache_key = skim_string(value);
    } else if (arg == "cache_bypass_reason") {
      out->bypass_reason = skim_string(value);
    }
    return end;
  };
  size_t end = json_skim::walk_object(event, 0, 0, [&](std::string_view key, size_t at) {
    if (key == "args" && at < event.size() && event[at] == '{')
      return json_skim::walk_object(event, at, 1, read_arg);
    size_t value_end = json_skim::skip_value(event, at, 1);
    if (value_end == kInvalid) return value_end;
    std::string_view value = event.substr(at, value_end - at);
    if (key == "name") {
      out->name = skim_string(value);
    } else if (key == "ph") {
      out->phase = skim_string(value);
    } else if (key == "ts") {
      out->ts = json_skim::to_double(value);
    } else if (key == "dur") {
      out->duration = json_skim::to_double(value);
    }
    return value_end;
  });
  return end != kInvalid && json_skim::skip_whitespace(event, end) == event.size();
}

std::string chromium_cache_name(std::string_view name, std::string_view state) {
  if (name.starts_with("fx_graph_cache_")) return "fx_graph";
  if (name.starts_with("autograd_cache_") || name.starts_with("aotautograd_cache_"))
    return "aotautograd";
  return std::string(name.substr(0, name.size() - state.size() - 7));
}

}  // namespace rcf::ingest::torch_trace
