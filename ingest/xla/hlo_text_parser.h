// Streaming parser of XLA HLO text (docs/hlo_text.md), both printing styles (long
// `%name = f32[..] op(f32[..] %a)` and short-parsable `name = f32[..] op(a)`). Used by the HLO
// dump importer (one module per --xla_dump_to file) and by the saved-graph importer (modules
// embedded in XLA_SAVE_TENSORS_FILE with XLA_SAVE_TENSORS_FMT=hlo).
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "ingest/events.h"

namespace rcf::ingest {

class HloTextParser {
 public:
  HloTextParser();
  ~HloTextParser();

  // Feeds one line (without '\n'). Returns true when the line was consumed as HLO text (a module
  // header, a computation, an instruction, a closing brace, a comment inside a module), false
  // when it is not HLO (the caller accounts for it). `line` is only valid during the call.
  bool feed(std::string_view line, int64_t line_no);
  // Modules completed so far (a module completes at the next `HloModule` line or at finish()),
  // each with its instructions; ownership moves to the caller.
  std::vector<HloModule> take_modules();
  // End of input: completes the open module (marked truncated if it was cut off).
  void finish();

 private:
  struct State;
  State* state_;
};

}  // namespace rcf::ingest
