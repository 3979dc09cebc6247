// Names of the files that `--xla_dump_to` writes (docs/hlo_text.md, File names):
//   [<timestamp>.]module_<id>[.<module name>].<suffix>
// Module names contain dots (`SyncTensorsGraph.68`), so the suffix is recognised from the end.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace rcf::ingest {

struct DumpFileName {
  std::optional<int64_t> module_id;  // NNNN of module_NNNN; nullopt when the name has none
  std::string module_name;           // "" when not in the name (long names are dropped)
  // What the file holds, backend prefix and ".txt" removed: "before_optimizations",
  // "after_optimizations", "after_optimizations_after_buffer_assignment",
  // "after_optimizations-buffer-assignment", a pass dump's
  // "<step>.<pipeline>.after_<pass>.before_<pass>", or an extra's name ("ir-no-opt.ll",
  // "flagfile", "hlo.pb", ...). "" when unrecognised.
  std::string stage;
  bool is_hlo_text = false;  // the file holds HLO module text
};

// Parses a dump file name; a directory part ('/' or '\\') is ignored. Never throws.
DumpFileName parse_dump_file_name(std::string_view file_name);

}  // namespace rcf::ingest
