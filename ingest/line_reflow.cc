#include "ingest/line_reflow.h"

#include <algorithm>
#include <set>
#include <vector>

#include "ingest/log_prefix.h"
#include "ingest/text_util.h"

namespace rcf::ingest {
namespace {

constexpr size_t kNpos = std::string_view::npos;
// Lines of the head looked at when learning (enough for a stable decision).
constexpr size_t kMaxLearnLines = 4000;
// A width below this is a short log, not a terminal or a document.
constexpr size_t kMinWrapWidth = 40;
// Breaks that must be seen before a source counts as wrapped at a width.
constexpr size_t kMinBreaks = 3;
// Prefix-alone lines that make a source one whose viewer put the prefix on a line of its own.
constexpr size_t kMinPrefixLines = 2;

// Phrases that start a Dynamo record or one of its fields (docs/dynamo_text.md): a line that
// begins with one is a line of its own, never the rest of the line before it.
constexpr std::string_view kAnchors[] = {
    "Recompiling function",
    "triggered by the following guard failure",
    "torch._dynamo hit config.",
    "torchdynamo hit",
    "Graph break",
    "function:",
    "last reason:",
    "reasons:",
    "To log all recompilation reasons",
    "To diagnose recompilation issues",
    "Traceback (most recent call last)",
};

bool starts_with_anchor(std::string_view text) {
  text = ltrim(text);
  if (text.starts_with("- ") || text.starts_with("* ")) return true;
  for (std::string_view anchor : kAnchors)
    if (text.starts_with(anchor)) return true;
  return false;
}

// Whether `text` opens a line of its own: a whole log prefix at its start (with its date: a
// trimmed `path:line]` may as well be the middle of a prefix that a wrap cut), or an anchor.
bool starts_with_whole_prefix(std::string_view text) {
  LogPrefix p = parse_log_prefix(text);
  return p.noise.empty() &&
         (p.form == PrefixForm::kGlog || p.form == PrefixForm::kBracketDate ||
          p.form == PrefixForm::kTorchdynamoBare || p.form == PrefixForm::kShort);
}

bool starts_own_line(std::string_view text) {
  return is_blank(text) || starts_with_anchor(text) || starts_with_whole_prefix(text);
}

// A log prefix with nothing after it, as a viewer that shows the prefix on a line of its own
// leaves it (the space before the message is gone with the message).
bool is_prefix_alone(std::string_view text) {
  if (text.empty() || text.back() == ' ') return false;
  LogPrefix p = parse_log_prefix(text);
  return (p.form == PrefixForm::kGlog || p.form == PrefixForm::kBracketDate) && p.noise.empty() &&
         p.message.empty();
}

size_t first_word_width(std::string_view text) {
  size_t end = text.find(' ');
  return display_width(text.substr(0, end == kNpos ? text.size() : end));
}

// A log prefix whose message a wrap moved to the next line: the next line is that message, even
// when it starts with an anchor.
bool wants_message(std::string_view last) {
  LogPrefix p = parse_log_prefix(last);
  return p.form != PrefixForm::kNone && is_blank(p.message);
}

// Whether `next` may continue `last`: it does not start a line of its own, unless `last` is a
// prefix still waiting for its message.
bool may_continue(std::string_view last, std::string_view next) {
  if (is_blank(next)) return false;
  return !starts_own_line(next) || wants_message(last);
}

// The rest of a word-wrapped line: two spaces, then text (docs and mail indent continuations).
bool word_wrap_rest(std::string_view last, std::string_view next, std::string_view* rest) {
  if (next.size() < 3 || next[0] != ' ' || next[1] != ' ' || next[2] == ' ') return false;
  *rest = next.substr(2);
  return may_continue(last, *rest);
}

// Whether `next` is the rest of `last` broken by a word wrap at `width`: the first word of the
// rest did not fit on `last`.
bool word_wrap_break(std::string_view last, std::string_view next, size_t width,
                     std::string_view* rest) {
  return word_wrap_rest(last, next, rest) &&
         display_width(last) + 1 + first_word_width(*rest) > width;
}

std::vector<std::string_view> head_lines(std::string_view head) {
  std::vector<std::string_view> lines;
  for (size_t pos = 0; pos < head.size() && lines.size() < kMaxLearnLines;) {
    size_t end = head.find('\n', pos);
    if (end == kNpos) end = head.size();
    std::string_view line = head.substr(pos, end - pos);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    lines.push_back(line);
    pos = end + 1;
  }
  return lines;
}

// No two non-blank lines are adjacent, over enough lines to tell.
bool learn_double_spacing(const std::vector<std::string_view>& lines) {
  size_t non_blank = 0;
  bool previous_blank = true;
  for (std::string_view line : lines) {
    bool blank = is_blank(line);
    if (!blank && !previous_blank) return false;
    non_blank += blank ? 0 : 1;
    previous_blank = blank;
  }
  return non_blank >= 4;
}

}  // namespace

size_t display_width(std::string_view s) {
  size_t n = 0;
  for (char c : s)
    if ((static_cast<unsigned char>(c) & 0xC0) != 0x80) ++n;
  return n;
}

LineReflow LineReflow::learn(std::string_view head) {
  LineReflow reflow;
  std::vector<std::string_view> lines = head_lines(head);
  reflow.double_spaced_ = learn_double_spacing(lines);
  // The next non-blank line after each line (double spacing puts blanks between them).
  std::vector<size_t> next(lines.size(), kNpos);
  for (size_t i = lines.size(), following = kNpos; i-- > 0;) {
    next[i] = following;
    if (!is_blank(lines[i])) following = i;
  }
  // A word wrap leaves a line wider than its width only when the line has no space to break at
  // (a long path): the width is that of the widest line that has one.
  size_t widest = 0, widest_breakable = 0, prefix_alone = 0;
  for (std::string_view line : lines) {
    size_t width = display_width(line);
    widest = std::max(widest, width);
    size_t lead = line.find_first_not_of(' ');
    if (lead != kNpos && line.find(' ', lead + 1) != kNpos)
      widest_breakable = std::max(widest_breakable, width);
    prefix_alone += is_prefix_alone(line) ? 1 : 0;
  }
  reflow.prefix_lines_ = prefix_alone >= kMinPrefixLines;
  if (widest < kMinWrapWidth) return reflow;
  // Breaks of each kind: distinct cut lines, so that repeated identical lines prove nothing.
  std::set<std::string_view> hard_cuts, word_cuts;
  for (size_t i = 0; i < lines.size(); ++i) {
    if (next[i] == kNpos || (!reflow.double_spaced_ && next[i] != i + 1)) continue;
    std::string_view following = lines[next[i]], rest;
    if (display_width(lines[i]) == widest && may_continue(lines[i], following))
      hard_cuts.insert(lines[i]);
    if (word_wrap_break(lines[i], following, widest_breakable, &rest)) word_cuts.insert(lines[i]);
  }
  if (word_cuts.size() >= kMinBreaks && word_cuts.size() >= hard_cuts.size())
    reflow.word_width_ = widest_breakable;
  else if (hard_cuts.size() >= kMinBreaks)
    reflow.hard_width_ = widest;
  return reflow;
}

std::string LineReflow::describe() const {
  std::string out;
  auto add = [&out](const std::string& part) { out += (out.empty() ? "" : ", ") + part; };
  if (double_spaced_) add("double spacing");
  if (hard_width_ > 0) add("hard wrap at " + std::to_string(hard_width_) + " columns");
  if (word_width_ > 0) add("word wrap at " + std::to_string(word_width_) + " columns");
  if (prefix_lines_) add("log prefixes on lines of their own");
  return out;
}

std::string_view LineReflow::join_reason(std::string_view pending, std::string_view last,
                                         bool single, std::string_view next,
                                         std::string* joined) const {
  std::string_view rest;
  if (word_width_ > 0 && word_wrap_break(last, next, word_width_, &rest)) {
    *joined = std::string(pending) + " " + std::string(rest);
    return "rejoined_word_wrap";
  }
  if (hard_width_ > 0 && display_width(last) == hard_width_ && may_continue(last, next)) {
    *joined = std::string(pending) + std::string(next);
    return "rejoined_hard_wrap";
  }
  // The message may start with the rest of the prefix (`[0/8] [__recompiles] ...`).
  if (prefix_lines_ && single && is_prefix_alone(pending) && !starts_with_whole_prefix(next)) {
    *joined = std::string(pending) + " " + std::string(next);
    return "rejoined_prefix_line";
  }
  return "";
}

std::string LineReflow::rejoin_head(std::string_view head) const {
  std::string out, pending, joined;
  std::string_view last;
  bool single = true, have = false;
  int blank_run = 0;
  for (std::string_view line : head_lines(head)) {
    blank_run = is_blank(line) ? blank_run + 1 : 0;
    if (blank_run > 0 && is_spacer(blank_run)) continue;
    if (have && !join_reason(pending, last, single, line, &joined).empty()) {
      pending = std::move(joined);
      single = false;
    } else {
      if (have) out.append(pending).push_back('\n');
      pending.assign(line);
      single = true;
      have = true;
    }
    last = line;
  }
  if (have) out.append(pending).push_back('\n');
  return out;
}

}  // namespace rcf::ingest
