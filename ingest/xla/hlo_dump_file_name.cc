// --xla_dump_to file names (docs/hlo_text.md). Recognised from the end: extension,
// then the stage (before_optimizations, <backend>after_optimizations..., a per-pass dump, or a
// known extra), and what is left after `module_NNNN.` is the module name.
#include "ingest/xla/hlo_dump_file_name.h"

#include "ingest/reading/text_util.h"

namespace rcf::ingest {
namespace {

// `core` ends with `tail` that starts a dot-separated segment (or the whole of `core`).
bool ends_with_segment(std::string_view core, std::string_view tail) {
  if (!core.ends_with(tail)) return false;
  return core.size() == tail.size() || core[core.size() - tail.size() - 1] == '.';
}

// Module name before a stage that starts at `pos` of `core` (the '.' before it is dropped).
std::string name_before(std::string_view core, size_t pos) {
  if (pos == 0) return "";
  return std::string(core.substr(0, pos - 1));
}

// Per-pass dump: `<name>.<step>.<pipeline>.after_<pass>.before_<pass>`. Sets `out` and returns
// true when `core` has that form.
bool parse_pass_dump(std::string_view core, DumpFileName& out) {
  size_t before = core.rfind(".before_");
  if (before == std::string_view::npos) return false;
  size_t after = core.rfind(".after_", before);
  if (after == std::string_view::npos || after == 0) return false;
  size_t pipeline_dot = core.rfind('.', after - 1);
  if (pipeline_dot == std::string_view::npos || pipeline_dot == 0) return false;
  size_t step_dot = core.rfind('.', pipeline_dot - 1);
  size_t step_begin = step_dot == std::string_view::npos ? 0 : step_dot + 1;
  if (!all_digits(core.substr(step_begin, pipeline_dot - step_begin))) return false;
  out.stage = std::string(core.substr(step_begin));
  out.module_name = name_before(core, step_begin);
  out.is_hlo_text = true;
  return true;
}

// `<name>.<backend>after_optimizations<variant>`; backend is "", "cpu_", "sm_9.0_gpu_", ...
bool parse_after_optimizations(std::string_view core, DumpFileName& out) {
  size_t pos = core.rfind("after_optimizations");
  if (pos == std::string_view::npos) return false;
  std::string_view tail = core.substr(pos);
  std::string_view prefix = core.substr(0, pos);  // "<name>.<backend>"
  if (!prefix.empty() && prefix.back() != '.' && prefix.back() != '_') return false;
  // The backend starts after the last '.' that does not sit between two digits ("sm_9.0_").
  size_t backend_begin = 0;
  for (size_t i = prefix.size(); i-- > 0;) {
    if (prefix[i] != '.') continue;
    bool version_dot =
        i > 0 && i + 1 < prefix.size() && is_digit(prefix[i - 1]) && is_digit(prefix[i + 1]);
    if (version_dot) continue;
    backend_begin = i + 1;
    break;
  }
  out.module_name = name_before(prefix, backend_begin);
  out.stage = std::string(tail);
  out.is_hlo_text = tail == "after_optimizations" ||
                    tail == "after_optimizations_before_buffer_assignment" ||
                    tail == "after_optimizations_after_buffer_assignment";
  return true;
}

}  // namespace

DumpFileName parse_dump_file_name(std::string_view file_name) {
  DumpFileName out;
  if (size_t slash = file_name.find_last_of("/\\"); slash != std::string_view::npos)
    file_name = file_name.substr(slash + 1);
  std::string_view rest = file_name;
  // Optional --xla_dump_include_timestamp prefix.
  if (size_t dot = rest.find('.'); dot != std::string_view::npos &&
                                   all_digits(rest.substr(0, dot)) &&
                                   rest.substr(dot + 1).starts_with("module_"))
    rest = rest.substr(dot + 1);
  if (!rest.starts_with("module_")) return out;
  rest.remove_prefix(7);
  size_t digits = 0;
  while (digits < rest.size() && is_digit(rest[digits])) ++digits;
  if (digits == 0 || digits > 18) return out;
  out.module_id = parse_int64(rest.substr(0, digits));
  rest.remove_prefix(digits);
  if (rest.empty() || rest[0] != '.') return out;
  rest.remove_prefix(1);

  static constexpr std::string_view kExtensions[] = {
      "hlo.pb.gz", "hlo.pb", "txt", "dot", "html", "url", "pbtxt",
      "textproto", "ll",     "ptx", "pb",  "json", "mlir"};
  std::string_view ext;
  std::string_view core = rest;
  for (std::string_view e : kExtensions) {
    if (rest.size() > e.size() && rest.ends_with(e) && rest[rest.size() - e.size() - 1] == '.') {
      ext = e;
      core = rest.substr(0, rest.size() - e.size() - 1);
      break;
    }
  }

  static constexpr std::string_view kExtras[] = {
      "execution_options", "hlo_module_config",  "target_arguments",     "tpu_comp_env",
      "flagfile",          "ir-no-opt-noinline", "ir-with-opt-noinline", "ir-no-opt",
      "ir-with-opt",       "autotune_results",   "gpu_target_config",    "metadata",
      "debug_options"};
  bool known = false;
  if (ends_with_segment(core, "before_optimizations")) {
    out.stage = "before_optimizations";
    out.module_name = name_before(core, core.size() - out.stage.size());
    out.is_hlo_text = true;
    known = true;
  } else if (parse_pass_dump(core, out) || parse_after_optimizations(core, out)) {
    known = true;
  } else if (size_t exec = core.rfind("execution_"); core.ends_with(".hlo_snapshot") &&
                                                     exec != std::string_view::npos &&
                                                     (exec == 0 || core[exec - 1] == '.')) {
    out.stage = std::string(core.substr(exec));
    out.module_name = name_before(core, exec);
    known = true;
  } else {
    for (std::string_view extra : kExtras) {
      if (ends_with_segment(core, extra)) {
        out.stage = std::string(extra);
        out.module_name = name_before(core, core.size() - extra.size());
        known = true;
        break;
      }
    }
  }
  if (!known) out.module_name = std::string(core);
  if (!ext.empty() && ext != "txt") {
    out.is_hlo_text = false;
    out.stage = out.stage.empty() ? std::string(ext) : out.stage + "." + std::string(ext);
  }
  if (ext.empty() && known && out.is_hlo_text) out.is_hlo_text = false;
  return out;
}

}  // namespace rcf::ingest
