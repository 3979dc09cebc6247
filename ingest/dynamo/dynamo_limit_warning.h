// Recompile / cache-size limit warnings of every era (docs/dynamo_text.md) and the
// `FailOnRecompileLimitHit` hard failure.
#pragma once

#include <optional>
#include <string_view>

#include "ingest/dynamo/dynamo_text_block.h"
#include "ingest/events.h"

namespace rcf::ingest {

// True for `torch._dynamo hit config.<limit> (<n>)` / `torchdynamo hit ...` headers, also when a
// wrap cut them right after `hit` (the limit on the next line).
bool is_limit_warning_header(std::string_view message);

// True for a line that names a field of a limit warning, at any indentation: `function:`, `last
// reason:`, `reasons:`, the two trailer sentences, or the `config.<limit> (<n>)` rest of a header
// cut after `hit`.
bool names_limit_warning_field(std::string_view line);

// True for the line that ends a limit warning (`To diagnose recompilation issues, ...`).
bool is_limit_warning_trailer(std::string_view message);

// True for a line that can continue a limit warning printed without per-line prefixes (2022).
bool continues_limit_warning(std::string_view line);

// True for a `function:` / `last reason:` / `reasons:` line: a limit warning whose header is not
// in the log.
bool starts_limit_warning_fragment(std::string_view message);

// Parses a kLimitWarning block. Emits the GuardFailures of its reasons (`last reason:`, the 2022
// `reasons:` list) through `out` and returns the hit itself, which the caller emits (it may still
// learn from a following `FailOnRecompileLimitHit` that the hit was a hard failure).
RecompileLimitHit parse_limit_warning(const DynamoBlock& block, BlockOutput& out);

// True for a `torch._dynamo.exc.Unsupported: Dynamo recompile limit exceeded` block (2026): the
// limit hit raised as an exception rather than logged as a warning.
bool is_unsupported_limit_block(const DynamoBlock& block);

// Parses such a block: the limit type from `Limit type: <name>`, its value from `(currently set to
// N)` in the explanation; the last reason is not printed in this form.
RecompileLimitHit parse_unsupported_limit(const DynamoBlock& block, BlockOutput& out);

// `...FailOnRecompileLimitHit: <limit_type> reached with fullgraph=True. ...` or
// `...FailOnRecompileLimitHit: Hard failure due to ...`: a hit with hard_failure set and the limit
// type when printed; nullopt when `text` is not such an exception line.
std::optional<RecompileLimitHit> parse_fail_on_recompile_limit(std::string_view text);

}  // namespace rcf::ingest
