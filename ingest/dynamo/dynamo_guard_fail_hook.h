// `GuardFail(reason=..., orig_code=<code object ...>)`: the repr a guard-failure hook
// (`torch._dynamo.optimize(..., guard_fail_fn=print)`, 2023) prints for each cache entry whose
// guards failed before a recompile (docs/dynamo_text.md, "Guard-failure hooks").
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "ingest/events.h"

namespace rcf::ingest {

struct GuardFailRepr {
  std::string reason;
  std::string co_name;      // of orig_code; "" when the repr was cut before it
  std::string co_filename;  // "" when not shown
  int64_t co_firstlineno = -1;
  std::string code_address;  // `0x7f...`: one code object, one function
};

// Whether `text` (a line's message) starts a GuardFail repr.
bool is_guard_fail_repr(std::string_view text);

// The repr's fields; nullopt when `text` is not one or its reason cannot be read.
std::optional<GuardFailRepr> parse_guard_fail_repr(std::string_view text);

// Turns the reprs of one stream into recompiles: the lines one lookup printed for the entries of
// one code object, one after the other, are one recompile (its cause the first line's reason, the
// newest entry's); a line of another code object, or after other output, starts another. Two
// recompiles printed back to back with nothing between them are counted as one: the reprs carry no
// compile id to tell them apart.
class GuardFailHookReader {
 public:
  explicit GuardFailHookReader(EventSink& sink) : sink_(sink) {}
  // Reads one repr line of worker `rank`. False when `text` is no readable repr.
  bool read(std::string_view text, int32_t rank, int64_t line_no);

 private:
  EventSink& sink_;
  std::string code_address_;  // of the recompile being read
  int32_t rank_ = -1;
  int64_t last_line_ = -1;
  int32_t next_entry_ = 0;
};

}  // namespace rcf::ingest
