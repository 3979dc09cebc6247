// Log-line prefixes of every Dynamo era (docs/dynamo_text.md, Prefixes), parsed by hand:
// no regex on the per-line path.
#pragma once

#include <cstdint>
#include <string_view>

namespace rcf::ingest {

enum class PrefixForm : uint8_t {
  kNone,         // no recognised prefix: the line is plain text (user prints, tracebacks)
  kGlog,         // `[rankN]:V0228 06:22:06.195000 886349 torch/_dynamo/guards.py:2940] ...`
  kTrimmedGlog,  // `.../torch/_dynamo/guards.py:2772] [16/8] [__x] ...`, bare `[0/1] [__x] ...`
  kBracketDate,  // `[rankN]:[2023-11-21 19:02:13,073] torch._dynamo.guards.__recompiles: [DEBUG]
                 // ...`
  kTorchdynamoBare,  // 2022 `Torchdynamo: [WARNING] ...`
  kShort,            // TORCH_LOGS_FORMAT=short: `DEBUG:torch._dynamo.guards.__recompiles:...`
};

// All views point into the parsed line and live as long as it does.
struct LogPrefix {
  PrefixForm form = PrefixForm::kNone;
  int32_t rank = -1;           // `[rankN]:`; also read on kNone lines (torchrun tracebacks)
  std::string_view noise;      // junk before the prefix (tqdm, app timestamps, vLLM tags)
  std::string_view level;      // "V", "I", "W", ... (glog) or "DEBUG", "WARNING", ... (others)
  std::string_view timestamp;  // "0228 06:22:06.195000" or "2023-11-21 19:02:13,073"
  std::string_view process;    // glog pid or thread id
  std::string_view path;       // glog source path ("" when the user trimmed it away)
  std::string_view path_line;  // digits after `path:`
  std::string_view trace_id;   // compile id inside `[...]`, e.g. "5/0_2"; "" when absent
  std::string_view artifact;   // "recompiles" from `[__recompiles]` or a logger `...__recompiles`
  std::string_view logger;     // logger name of the bracket-date, bare and short forms
  // The prefix text that identifies one log record: from `[rankN]:` (or the level) through the
  // artifact / level, without noise, the space before the message, or the message. Lines of one
  // multi-line record share it.
  std::string_view key;
  std::string_view message;  // everything after the prefix, untrimmed (indentation matters)
};

// Parses the prefix of `line`. Never fails: lines without a prefix come back as kNone with
// `message` = the line after an optional `[rankN]:` (and one space after it).
LogPrefix parse_log_prefix(std::string_view line);

}  // namespace rcf::ingest
