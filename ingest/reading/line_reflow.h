// Re-flowed pastes: physical lines that were one log line before a terminal, a document or a log
// viewer broke them, joined back before any importer sees them (docs/line_framing.md,
// "Re-flowed lines"). Like a wrapper, a re-flow is a property of the whole source, learned once
// from its head:
//  * double spacing: a blank line after every line (no two non-blank lines are adjacent);
//  * a hard wrap: lines cut at exactly one width, mid-token, continued at column 0;
//  * a word wrap: lines broken at the last space before a width, continued two spaces deep (and
//    deeper when the break fell inside a run of spaces);
//  * the record prefix alone on its line (`W0701 ... convert_frame.py:964]`), its message below.
// A line that starts a record (a log prefix, an anchor phrase, a `- ` bullet, or the start most
// lines of the head share) is never joined to a hard-wrapped line before it.
#pragma once

#include <cstdint>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ingest/line_reasons.h"

namespace rcf::ingest {

struct ReflowCutCounts;  // line_reflow.cc: what the candidate cuts of a hard wrap look like

class LineReflow {
 public:
  LineReflow() = default;
  // Learns the re-flow of a source from `head` (whole lines of its start, wrappers removed).
  static LineReflow learn(std::string_view head);

  bool active() const {
    return double_spaced_ || hard_width_ > 0 || word_widths_.first > 0 || prefix_lines_;
  }
  // Describes the learned re-flow, e.g. "hard wrap at 100 columns"; "" when none.
  std::string describe() const;

  // Whether `next` (framed) continues `pending`, the logical line read so far, whose last
  // physical line was `last` (raw, as the source holds it); `single`: `pending` is one physical
  // line. Returns the line-note reason of the join (`reason::kRejoinedHardWrap`,
  // `kRejoinedWordWrap`, `kRejoinedPrefixLine`) and sets `*joined` to the logical line; null
  // when it does not continue.
  const LineReason* join_reason(std::string_view pending, std::string_view last, bool single,
                                std::string_view next, std::string* joined) const;
  // `head` (whole framed lines) with its broken lines joined and its spacers dropped, for
  // sniffing: a marker a wrap cut in two is whole again.
  std::string rejoin_head(std::string_view head) const;
  // Whether a blank line is a spacer of double spacing: `blank_run` counts the blank lines
  // since the last non-blank one, this one included.
  bool is_spacer(int blank_run) const { return double_spaced_ && blank_run % 2 == 1; }

 private:
  bool double_spaced_ = false;
  size_t hard_width_ = 0;  // in characters
  // The narrowest and widest widths the word wrap's breaks allow (its width is one of them).
  std::pair<size_t, size_t> word_widths_{0, 0};
  bool prefix_lines_ = false;
  // How most lines of the head start (the classes of their first characters, see
  // line_reflow.cc), when that start has a digit or a punctuation mark, as a log prefix does;
  // "" when no start dominates. A line that starts this way starts a record.
  std::string record_start_;
  // First words many lines of the head start with (`Compilation` of `Compilation Analysis:`,
  // `Metric:`). A line that starts with one starts a record.
  std::vector<std::string> record_words_;
  // The shapes (digits as `#`) of lines that follow a line of the greatest width but also stand
  // alone after a narrower one: the log's own lines, never a cut's rest (line_reflow.cc).
  std::set<std::string, std::less<>> own_line_shapes_;

  bool starts_record(std::string_view text) const;
  size_t count_hard_cuts(const std::vector<std::string_view>& lines,
                         const std::vector<size_t>& next, size_t widest,
                         ReflowCutCounts* counts) const;
  bool may_continue_hard(std::string_view last, std::string_view next) const;
  bool word_wrap_break(std::string_view last, std::string_view next,
                       std::pair<size_t, size_t> widths, bool prefix_waiting,
                       std::string_view* rest) const;
};

// Characters (UTF-8 code points) of `s`: widths count what a terminal shows.
size_t display_width(std::string_view s);

}  // namespace rcf::ingest
