// Dynamo guard-failure reason classifier: one reason text (one rejected cache entry, any log era)
// to a cause of the vocabulary of docs/causes.md, with the structured evidence the text carries.
// Grammar: docs/dynamo_text.md; rule table: docs/causes.md, Guard texts (the .cc cites its rows by
// number). No I/O.
#pragma once

#include <string>
#include <string_view>

namespace rcf::analysis {

struct GuardReason {
  // shape, dtype, tensor_meta, constant, key_subset, global_state, object_identity, type, backend,
  // unknown.
  std::string cause;
  std::string confidence;  // "high", "medium", "low"
  // What is guarded: tensor name or source expression, `L['x']` normalised to `x`; for global
  // state the changed items (`grad_mode, autocast`).
  std::string subject;
  int dim = -1;          // dimension index for size/stride mismatches and shape-env guards
  std::string expected;  // old value (the rejecting entry's expectation) when the text has it
  std::string actual;    // new value when the text has it (or it follows from a failed bool test)
  // The guard's source comment without its leading `# `: `x = x + y  # file.py:12 in fn`, or
  // `file.py:12 in fn` when no source line was available. Empty when absent.
  std::string user_code;
  // The cleaned guard text that was classified: prefix, compile id, source comment and HINT
  // removed, right-trimmed; `L['x']` kept as logged (see strip_local_scope).
  std::string guard;
  std::string detail;  // one human sentence with the evidence
  // recompiles_verbose joins every failing guard of an entry with `; `: the first is classified,
  // this counts the others (also mentioned in detail).
  int more_failures = 0;
};

// `reason` is one rejected cache entry's reason as logged, possibly still prefixed by "- " and/or
// "<F/C>: ". Only the first line is used (a newest-era `User stack trace:` may follow).
GuardReason classify_guard_reason(std::string_view reason);

// L['x'] / L["x"] -> x (the substitution `L\[\s*['"](.*?)['"]\s*\]` -> `$1`), so reasons of the
// eras before and after Dynamo dropped the local-scope prefix aggregate together.
std::string strip_local_scope(std::string_view text);

}  // namespace rcf::analysis
