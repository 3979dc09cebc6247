// Line framing: finds where a log record starts in a line that a paste, a launcher or a logger
// wrapped, before any importer (or sniffer) sees it. One layer for every format, so that a log
// quoted in a reply, commented in docs, re-indented, prefixed by a launcher or an app logger, or
// glued to a progress bar gives the same answers as the log itself (docs/line_framing.md).
//
// Two kinds of wrapping are undone:
//  * a *wrapper*: the same kinds of tokens in front of (almost) every line of a source, learned
//    once from its head: `> ` reply quotes, `# ` comment markers, launcher tags (`(pid=N) `,
//    `(RayWorker pid=N) `, `[default0]:`), app-logger timestamps (`[2025-03-04 05:06:07.123] `,
//    xla_dist's `2021-04-19 13:28:12 10.164.0.25 [0] `) and a common indentation;
//  * *glue* on single lines: terminal redraws (`\r`, tqdm), test-runner dots or a stray backtick
//    in front of a timestamp or record, Markdown `**bold**` around a whole line, terminal colour
//    escapes.
// Launcher tags that carry a worker identity (a local rank, an ordinal, a pid) are kept.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace rcf::ingest {

// What may stand in front of a record on every line of a source.
enum class WrapperToken : uint8_t {
  kReplyQuote,    // `> ` (also `>` alone on an empty quoted line)
  kComment,       // `# ` (also `#` alone)
  kLauncher,      // `(pid=N) `, `(Name pid=N, ip=…) `, `[default0]:`, `[trainer3]: `,
                  // `trainer-1  | ` (compose), `3: ` (srun --label)
  kAppTimestamp,  // `[YYYY-MM-DD HH:MM:SS.mmm] `, `YYYY-MM-DD HH:MM:SS,mmm: `, + xla_dist `IP [N]
                  // `, a container runtime's `YYYY-MM-DDTHH:MM:SS.nZ stderr F `
};

// The identity a launcher tag gave the line; rank -1 / pid "" when none.
struct LineOrigin {
  int32_t rank = -1;     // `[default3]:` -> 3, xla_dist `[3]` -> 3
  std::string_view pid;  // `(RayWorker pid=48211)` -> "48211"
  bool operator==(const LineOrigin&) const = default;
};

struct FramedLine {
  std::string_view text;  // the line with wrapper and glue removed
  LineOrigin origin;
  // The app-logger timestamp the wrapper removed (`2026-11-26 20:42:48,656 `), "" when none: a
  // progress line's step end time (ingest/steps/step_line.h).
  std::string_view stamp;
  bool unwrapped = false;  // a wrapper token or indentation was removed
  bool unglued = false;    // glue (redraws, dots, backticks) was removed
};

class LineFramer {
 public:
  // A framer that changes nothing except glue.
  LineFramer() = default;
  // Learns the wrapper of a source from `head` (whole lines of its start).
  static LineFramer learn(std::string_view head);

  // Frames one physical line. Views point into `line` (or, when framing rebuilt the line, into
  // the framer until the next call). `known_plain`: the caller knows that `line` holds no '\r'
  // and no ESC (LineReader::line_is_plain), so it is not searched for them again.
  FramedLine frame(std::string_view line, bool known_plain = false) const;
  // `head` with every line framed (a copy only when something changed), for sniffing.
  std::string_view frame_head(std::string_view head, std::string* storage) const;

  bool has_wrapper() const { return lead_indent_ > 0 || !tokens_.empty() || indent_ > 0; }
  // Human-readable wrapper, e.g. "reply quote, launcher tag, indent 2"; "" when none.
  std::string describe() const;
  // snake_case name of the wrapper for line notes, e.g. "wrapper_reply_quote": a name of the
  // catalogue's `wrapper_*` family (ingest/line_reasons.h), noted under its fate.
  std::string note_reason() const;

 private:
  size_t lead_indent_ = 0;            // spaces removed before the tokens (a re-indented paste)
  std::vector<WrapperToken> tokens_;  // in line order
  size_t indent_ = 0;                 // spaces removed after the tokens
  // The last framed line when framing had to rebuild it (Markdown emphasis removed): frame()'s
  // result points here until the next call.
  mutable std::string rebuilt_;
  mutable std::string plain_;  // the last framed line without its colour escapes
};

// The token of `kind` at the start of `line`: its length (0 = absent) and the origin it carries.
size_t wrapper_token_at(std::string_view line, WrapperToken kind, LineOrigin* origin);

}  // namespace rcf::ingest
