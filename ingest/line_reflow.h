// Re-flowed pastes: physical lines that were one log line before a terminal, a document or a log
// viewer broke them, joined back before any importer sees them (docs/line_framing.md,
// "Re-flowed lines"). Like a wrapper, a re-flow is a property of the whole source, learned once
// from its head:
//  * double spacing: a blank line after every line (no two non-blank lines are adjacent);
//  * a hard wrap: lines cut at exactly one width, mid-token, continued at column 0;
//  * a word wrap: lines broken at the last space before a width, continued two spaces deep;
//  * the record prefix alone on its line (`W0701 ... convert_frame.py:964]`), its message below.
// A line that starts a record (a log prefix, an anchor phrase, a `- ` bullet) is never joined to
// the line before it.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace rcf::ingest {

class LineReflow {
 public:
  LineReflow() = default;
  // Learns the re-flow of a source from `head` (whole lines of its start, wrappers removed).
  static LineReflow learn(std::string_view head);

  bool active() const {
    return double_spaced_ || hard_width_ > 0 || word_width_ > 0 || prefix_lines_;
  }
  // Describes the learned re-flow, e.g. "hard wrap at 100 columns"; "" when none.
  std::string describe() const;

  // Whether `next` (framed) continues `pending`, the logical line read so far, whose last
  // physical line was `last` (raw, as the source holds it); `single`: `pending` is one physical
  // line. Returns the line-note reason of the join (`rejoined_hard_wrap`, `rejoined_word_wrap`,
  // `rejoined_prefix_line`) and sets `*joined` to the logical line; "" when it does not continue.
  std::string_view join_reason(std::string_view pending, std::string_view last, bool single,
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
  size_t word_width_ = 0;
  bool prefix_lines_ = false;
};

// Characters (UTF-8 code points) of `s`: widths count what a terminal shows.
size_t display_width(std::string_view s);

}  // namespace rcf::ingest
