// The `Recompiling function` block of every era (docs/dynamo_text.md): the new
// compile, one GuardFailure per `- ` entry, and the older compiles the entries name.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "ingest/dynamo/dynamo_text_block.h"
#include "ingest/dynamo/emitted_compile_refs.h"
#include "ingest/events.h"

namespace rcf::ingest {

struct RecompileHeader {
  std::string co_name;
  std::string co_filename;
  int64_t co_firstlineno = -1;  // -1 when the era printed none (May 2023: `in test.py`)
};

// Whether `text`, a line of a recompile block, is an entry printed without its `- ` bullet: it
// starts with a compile id (`0/0: ...`), or it is the block's `first` entry (a paste that kept
// only the reason under the header).
bool is_bulletless_recompile_entry(std::string_view text, bool first);

// `<co_name>[ in <co_filename>[:<co_firstlineno>]]`, the text after `Recompiling function `.
// co_name may itself contain " in " (`<resume in forward>`).
std::optional<RecompileHeader> parse_recompile_header(std::string_view text);

// True for a line that can continue a recompile block printed without per-line prefixes
// (indented entries, blank group separators).
bool continues_recompile_block(std::string_view line);

// True for the first line of a recompile fragment whose header is not in the log.
bool starts_recompile_fragment(std::string_view message);

// Whether unprefixed `text` is a recompile record's reason line by its own wording: a `- `
// bullet (with or without its `0/1: ` compile id) whose reason is a guard expression or a tensor
// guard's mismatch (`L['x'] == 3`, `___check_type_id(...)`, `tensor 'L['x']' size mismatch`). A
// paste that dropped the log prefix keeps a cut record's first reasons this way.
bool is_guard_failure_bullet(std::string_view text);

// True for the `Detected recompile when torch.compile stance is 'fail_on_recompile'. ...` error
// text, which heads a recompile block like `Recompiling function` does.
bool is_fail_on_recompile_header(std::string_view line);

// Emits the events of a kRecompile block (header optional: a log can start mid-block). `emitted`
// holds the compiles the source has emitted a record with a function name for: an older compile
// an entry names gets a `referenced` record only when it has none yet (nullptr: once per block).
void parse_recompile_block(const DynamoBlock& block, BlockOutput& out,
                           EmittedCompileRefs* emitted = nullptr);

// The May 2023 one-line tuple repr `('Recompiling function <fn> in <file>', "triggered by the
// following guard failure: <reason>")`. Emits its events and returns true, or returns false
// (nothing emitted) when `message` is not a well-formed tuple.
bool parse_recompile_tuple(std::string_view message, const CompileRef& ref, int64_t line_no,
                           EventSink& sink);

}  // namespace rcf::ingest
