// A one-line record that a terminal or a document wrapped across lines (the 2023
// `('Recompiling function ...', 'triggered by ...')` tuple, a hook's `GuardFail(reason=...)`, a
// guard of a `TORCH_LOGS=guards` dump): its physical lines are gathered until its quotes and
// brackets close (docs/dynamo_text.md, "Records cut across lines").
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "ingest/events.h"

namespace rcf::ingest {

// Lines a cut repr may span before it is read as it stands (a record never ends otherwise).
constexpr size_t kMaxCutReprLines = 16;

// One repr being gathered. Lifetime: from its first line until it closes, a line that cannot
// continue it arrives, or the source ends; it owns copies of its text.
struct CutRepr {
  enum class Kind : uint8_t { kRecompileTuple, kGuardFail, kGuardDumpLine };
  Kind kind = Kind::kRecompileTuple;
  CompileRef ref;          // the record's stream (the GuardFail reader uses its rank only)
  int64_t process = -1;    // the guard dump's process id, -1 when the prefix had none
  std::string text;        // the repr so far, its lines joined back
  std::string first_line;  // the whole first physical line, for notes
  int64_t line_no = 0;     // of the first line
  std::vector<int64_t> continuation_lines;

  // Whether the repr is still open after its lines so far.
  bool is_open() const;
  // Joins the next physical line the way the wrap split it: a word wrap's rest (indented two
  // spaces) after one space, a terminal's cut straight on.
  void append(std::string_view line, int64_t at);
  bool full() const { return continuation_lines.size() + 1 >= kMaxCutReprLines; }
};

}  // namespace rcf::ingest
