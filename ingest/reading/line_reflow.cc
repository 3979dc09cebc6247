// Re-flowed lines: what a terminal, a document or a log viewer did to a log's lines, and the
// rules that join them back (docs/line_framing.md, "Re-flowed lines").
#include "ingest/reading/line_reflow.h"

#include <algorithm>
#include <functional>
#include <map>
#include <set>
#include <utility>
#include <vector>

#include "ingest/dynamo/log_prefix.h"
#include "ingest/reading/text_util.h"

namespace rcf::ingest {

// What the candidate cuts of a hard wrap look like.
struct ReflowCutCounts {
  size_t rules = 0;        // the cut line ends with a rule (`====`, `----`): a banner
  size_t in_token = 0;     // a name, number or path goes on across the cut
  size_t in_word = 0;      // a word, number or path goes on in lower case or digits
  size_t widest_rest = 0;  // the rest is as wide as the widest line (rows of a table)
};
namespace {

constexpr size_t kReflowNpos = std::string_view::npos;
// Lines of the head looked at when learning (enough for a stable decision).
constexpr size_t kReflowLearnLines = 4000;
// A width below this is a short log, not a terminal or a document.
constexpr size_t kMinWrapWidth = 40;
// Widths above this are no terminal's or document's.
constexpr size_t kMaxWrapWidth = 1024;
// Breaks that must be seen before a source counts as wrapped at a width: fewer when every one
// of them cut a token in two (a short excerpt has few long lines).
constexpr size_t kMinBreaks = 3;
constexpr size_t kMinMidTokenBreaks = 2;
// Prefix-alone lines that make a source one whose viewer put the prefix on a line of its own.
constexpr size_t kMinPrefixLines = 2;
// Characters of a line's start that its record-start shape looks at.
constexpr size_t kStartShapeChars = 6;
// Record starts learned of each kind, and the share of lines (1 in N) each must start.
constexpr size_t kMaxRecordKeys = 4;
constexpr size_t kShapeShare = 4;
constexpr size_t kWordShare = 50;
// The longest first word that can be a record's label (`Compilation`,
// `torchdynamo.convert_frame:`).
constexpr size_t kMaxFirstWordChars = 40;

// Phrases that start a Dynamo or JAX record or one of its fields (docs/dynamo_text.md,
// docs/jax_log.md): a line that begins with one is a line of its own, never the rest of a
// hard-wrapped line before it (unless that line is a prefix still waiting for its message). Nor
// is it evidence for or against a word wrap when one is learned: a field's own indentation
// is neither a break nor a sign that the log indents its lines.
constexpr std::string_view kReflowAnchors[] = {
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
    // jax_explain_cache_misses (docs/jax_log.md): the header and the fields of every era.
    "TRACING CACHE MISS",
    "never seen",
    "all previously seen",
    "closest seen",
    "but seen another",
    "Several previous keys",
    "tracing context doesn't match",
    "cache miss explanation unavailable",
};

// Starts that only ever begin a physical line (a traceback's frames and header): a word wrap
// never leaves them at the start of a continuation, since it breaks after a line's first word.
constexpr std::string_view kLineOnlyStarts[] = {
    "File \"",
    "Traceback (most recent call last)",
};

bool reflow_starts_with_field_anchor(std::string_view text) {
  text = ltrim(text);
  for (std::string_view anchor : kReflowAnchors)
    if (text.starts_with(anchor)) return true;
  return false;
}

bool reflow_starts_with_anchor(std::string_view text) {
  std::string_view trimmed = ltrim(text);
  return trimmed.starts_with("- ") || trimmed.starts_with("* ") ||
         reflow_starts_with_field_anchor(text);
}

// Whether `text` opens with a whole log prefix: with its date, or trimmed to its level and
// location or compile id (`W convert_frame.py:1676] `, `W [0/8] `). A trimmed `path:line]` alone
// may as well be the middle of a prefix that a wrap cut; a level letter and a space never are.
bool reflow_starts_with_whole_prefix(std::string_view text) {
  LogPrefix p = parse_log_prefix(text);
  if (!p.noise.empty()) return false;
  if (p.form == PrefixForm::kTrimmedGlog)
    return !p.level.empty() && text.size() > 1 && text[0] == p.level[0] && text[1] == ' ';
  return p.form == PrefixForm::kGlog || p.form == PrefixForm::kBracketDate ||
         p.form == PrefixForm::kTorchdynamoBare || p.form == PrefixForm::kShort;
}

// A log prefix with nothing after it, as a viewer that shows the prefix on a line of its own
// leaves it (the space before the message is gone with the message).
bool reflow_is_prefix_alone(std::string_view text) {
  if (text.empty() || text.back() == ' ') return false;
  LogPrefix p = parse_log_prefix(text);
  return (p.form == PrefixForm::kGlog || p.form == PrefixForm::kBracketDate) && p.noise.empty() &&
         p.message.empty();
}

// A log prefix whose message a wrap moved to the next line: the next line is that message, even
// when it starts with an anchor.
bool reflow_wants_message(std::string_view last) {
  LogPrefix p = parse_log_prefix(last);
  return p.form != PrefixForm::kNone && is_blank(p.message);
}

size_t reflow_first_word_width(std::string_view text) {
  size_t end = text.find(' ');
  return display_width(text.substr(0, end == kReflowNpos ? text.size() : end));
}

// The class of one character in a start shape: digits and letters stand for their class,
// everything else for itself.
char reflow_shape_class(char c) {
  if (c >= '0' && c <= '9') return '9';
  if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')) return 'a';
  return c;
}

std::string reflow_start_shape(std::string_view line) {
  std::string shape;
  for (size_t i = 0; i < line.size() && i < kStartShapeChars; ++i)
    shape.push_back(reflow_shape_class(line[i]));
  return shape;
}

// Whether a shape says "log prefix": a digit or a punctuation mark, not only words and spaces.
bool reflow_shape_is_prefix_like(std::string_view shape) {
  return std::any_of(shape.begin(), shape.end(), [](char c) { return c != 'a' && c != ' '; });
}

// A line with every run of digits written `#` (`epoch 0 step 12/100` and `epoch 0 step 3/100`
// are one shape), or "" when it says too little to be told from another line's rest: without a
// run of three letters, a rest such as `)` or `0]` may well match a line of its own by chance.
std::string reflow_line_shape(std::string_view line) {
  std::string shape;
  size_t letters = 0, longest_word = 0;
  for (size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    const bool digit = c >= '0' && c <= '9';
    if (digit && !shape.empty() && shape.back() == '#') continue;
    shape.push_back(digit ? '#' : c);
    letters = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ? letters + 1 : 0;
    longest_word = std::max(longest_word, letters);
  }
  return longest_word >= 3 ? shape : "";
}

// The shapes of the lines that follow a line of the greatest width and also follow a narrower
// line elsewhere in the head (or open it): such a line is one of the log's own lines (a progress
// line printed after each record), not the rest of a cut, however often it follows a line that
// happens to be as wide as the widest (docs/line_framing.md). A terminal's rests are tails of cut
// lines, which no line of the log starts as.
std::set<std::string, std::less<>> reflow_own_line_shapes(
    const std::vector<std::string_view>& lines, size_t widest) {
  std::set<std::string, std::less<>> alone, after_widest;
  size_t previous = kReflowNpos;  // the last non-blank line before (double spacing skips blanks)
  for (size_t i = 0; i < lines.size(); ++i) {
    if (is_blank(lines[i])) continue;
    const bool after_cut_width =
        previous != kReflowNpos && display_width(lines[previous]) == widest;
    std::string shape = reflow_line_shape(lines[i]);
    previous = i;
    if (shape.empty()) continue;
    (after_cut_width ? after_widest : alone).insert(std::move(shape));
  }
  std::set<std::string, std::less<>> own;
  for (const std::string& shape : after_widest)
    if (alone.count(shape)) own.insert(shape);
  return own;
}

// The first word of a line that starts at column 0 (a logger's name, a tool's label), "" when
// the line is indented or the word is too short or too long to be one.
std::string_view reflow_first_word(std::string_view line) {
  size_t end = line.find(' ');
  if (end == kReflowNpos || end < 2 || end > kMaxFirstWordChars) return {};
  return line.substr(0, end);
}

// The keys (`key_of(line)`, "" for none) that many of the lines of `lines` with a key and for
// which `counts(i)` holds share: each at least kMinBreaks times and on 1 in `share` of them; the
// most common first, at most kMaxRecordKeys.
template <typename Key, typename Pred>
std::vector<std::string> reflow_common_keys(const std::vector<std::string_view>& lines, Key key_of,
                                            Pred counts, size_t share) {
  std::map<std::string, size_t, std::less<>> keys;
  size_t counted = 0;
  for (size_t i = 0; i < lines.size(); ++i) {
    if (is_blank(lines[i]) || !counts(i)) continue;
    std::string key = key_of(lines[i]);
    if (key.empty()) continue;
    ++counted;
    ++keys[key];
  }
  std::vector<std::pair<size_t, std::string>> common;
  for (auto& [key, n] : keys)
    if (n >= kMinBreaks && n * share >= counted) common.emplace_back(n, key);
  std::sort(common.begin(), common.end(), std::greater<>());
  std::vector<std::string> out;
  for (size_t i = 0; i < common.size() && i < kMaxRecordKeys; ++i) out.push_back(common[i].second);
  return out;
}

// How the records of the head start, by `key_of`. A hard wrap's continuations all follow a line
// of the widest width, and a prefix cut at one width gives them one start too: the lines that
// follow a narrower line decide, unless too few do (every line as wide as the widest).
template <typename Key>
std::vector<std::string> reflow_learn_record_keys(const std::vector<std::string_view>& lines,
                                                  size_t widest, Key key_of, size_t share) {
  auto after_narrower = [&](size_t i) { return i == 0 || display_width(lines[i - 1]) < widest; };
  size_t voters = 0;
  for (size_t i = 0; i < lines.size(); ++i) voters += !is_blank(lines[i]) && after_narrower(i);
  if (voters >= kMinBreaks) return reflow_common_keys(lines, key_of, after_narrower, share);
  return reflow_common_keys(
      lines, key_of, [](size_t) { return true; }, share);
}

std::string reflow_prefix_like_shape(std::string_view line) {
  if (line.size() < kStartShapeChars) return "";
  std::string shape = reflow_start_shape(line);
  return reflow_shape_is_prefix_like(shape) ? shape : "";
}

std::vector<std::string_view> reflow_head_lines(std::string_view head) {
  std::vector<std::string_view> lines;
  for (size_t pos = 0; pos < head.size() && lines.size() < kReflowLearnLines;) {
    size_t end = head.find('\n', pos);
    if (end == kReflowNpos) end = head.size();
    std::string_view line = head.substr(pos, end - pos);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    lines.push_back(line);
    pos = end + 1;
  }
  return lines;
}

// No two non-blank lines are adjacent, over enough lines to tell.
bool reflow_learn_double_spacing(const std::vector<std::string_view>& lines) {
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

// A line indented by exactly two spaces, as a word wrap's rest is, and no traceback line.
bool reflow_is_two_space_line(std::string_view line) {
  if (line.size() < 3 || line[0] != ' ' || line[1] != ' ' || line[2] == ' ') return false;
  for (std::string_view start : kLineOnlyStarts)
    if (line.substr(2).starts_with(start)) return false;
  return true;
}

// Widths a word wrap cannot have had: a line longer than the width stays whole only when it has
// no space to break at before the width, so a line with its first space (after its indentation)
// at `s` and `n` characters rules out every width in (s, n). Adds +1 to `ruled_out[w]` where such
// a range starts and -1 where it ends.
void reflow_rule_out_widths(std::string_view line, std::vector<int>* ruled_out) {
  size_t lead = line.find_first_not_of(' ');
  if (lead == kReflowNpos) return;
  size_t space = line.find(' ', lead + 1);
  size_t width = display_width(line);
  if (space == kReflowNpos || space + 1 >= width) return;
  ++(*ruled_out)[std::min(space + 1, kMaxWrapWidth + 1)];
  --(*ruled_out)[std::min(width, kMaxWrapWidth + 1)];
}

// Widths at which `next` can be the rest of `line` broken by a word wrap: the break fell at the
// end of `line` (before the width) and the first word of the rest did not fit (docs/
// line_framing.md). A rest that starts with a space (a break inside a run of spaces, at the last
// column) is left out: an indented line after a long one looks the same. Adds +1 where the range
// starts and -1 after it ends.
void reflow_fit_widths(std::string_view line, std::string_view next, std::vector<int>* fits) {
  if (!reflow_is_two_space_line(next) || is_blank(line)) return;
  size_t low = display_width(line) + 1;
  size_t high = low + reflow_first_word_width(next.substr(2));
  if (low > kMaxWrapWidth) return;
  ++(*fits)[low];
  --(*fits)[std::min(high, kMaxWrapWidth) + 1];
}

void reflow_count_cut(std::string_view line, std::string_view rest, size_t widest,
                      ReflowCutCounts* counts) {
  auto alnum = [](char c) {
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
  };
  char last = line.back(), first = rest[0];
  bool word_before = alnum(last) || last == '.' || last == '_' || last == '/' || last == ':';
  counts->in_token += word_before && (alnum(first) || first == '.' || first == '_' || first == '/');
  counts->rules += line.size() >= 4 && !alnum(last) && last != ' ' &&
                   line.substr(line.size() - 4) == std::string(4, last);
  counts->in_word +=
      word_before && ((first >= 'a' && first <= 'z') || (first >= '0' && first <= '9')) ? 1 : 0;
  counts->widest_rest += display_width(rest) == widest ? 1 : 0;
}

// A terminal cuts wherever the width falls, mostly inside a token, and leaves rests of any width;
// the rows of a table or the lines of a banner are all one width and end at a column's edge.
// Many cuts: most rests narrower or one cut in three inside a token (a long line cut several
// times leaves rests as wide as the widest), not all after a rule (`=====`). Few cuts (a short
// excerpt): all inside a word.
bool reflow_looks_hard_wrapped(const ReflowCutCounts& counts, size_t cuts) {
  if (cuts >= kMinBreaks)
    return (2 * counts.widest_rest < cuts || 3 * counts.in_token >= cuts) && counts.rules < cuts;
  return cuts >= kMinMidTokenBreaks && counts.in_word == cuts;
}

// The widths a word wrap may have had: the run of widths, not ruled out by a line, at which the
// most adjacent lines can be a break and its rest; {0, 0} when none.
std::pair<size_t, size_t> reflow_learn_word_width(const std::vector<std::string_view>& lines) {
  std::vector<int> ruled_out(kMaxWrapWidth + 2, 0), fits(kMaxWrapWidth + 2, 0);
  for (size_t i = 0; i < lines.size(); ++i) {
    reflow_rule_out_widths(lines[i], &ruled_out);
    if (i + 1 < lines.size()) reflow_fit_widths(lines[i], lines[i + 1], &fits);
  }
  int open = 0, fitting = 0, best_fit = 0;
  std::pair<size_t, size_t> best{0, 0};
  for (size_t w = 0; w <= kMaxWrapWidth; ++w) {
    open += ruled_out[w];
    fitting += fits[w];
    bool allowed = w >= kMinWrapWidth && open == 0;
    if (allowed && fitting > best_fit) {
      best = {w, w};
      best_fit = fitting;
    } else if (allowed && fitting == best_fit && best.second + 1 == w) {
      best.second = w;
    }
  }
  return best;
}

}  // namespace

size_t display_width(std::string_view s) {
  size_t n = 0;
  for (char c : s)
    if ((static_cast<unsigned char>(c) & 0xC0) != 0x80) ++n;
  return n;
}

// A line of its own: a log prefix, an anchor, a bullet, or the start most lines share.
bool LineReflow::starts_record(std::string_view text) const {
  if (is_blank(text) || reflow_starts_with_anchor(text) || reflow_starts_with_whole_prefix(text))
    return true;
  for (const std::string& word : record_words_)
    if (text.starts_with(word) && text.size() > word.size() && text[word.size()] == ' ')
      return true;
  if (!own_line_shapes_.empty() && own_line_shapes_.count(reflow_line_shape(text))) return true;
  if (record_start_.empty() || text.size() < record_start_.size()) return false;
  for (size_t i = 0; i < record_start_.size(); ++i)
    if (reflow_shape_class(text[i]) != record_start_[i]) return false;
  return true;
}

// Whether `next` may continue `last`, cut by a hard wrap: it does not start a record, unless
// `last` is a prefix still waiting for its message.
bool LineReflow::may_continue_hard(std::string_view last, std::string_view next) const {
  if (is_blank(next)) return false;
  return !starts_record(next) || reflow_wants_message(last);
}

// Whether `next` is the rest of `last` broken by a word wrap at `width` (docs/line_framing.md):
// two spaces, then the rest. The break was the last space before the width, so the first word of
// the rest did not fit; a rest that starts with a space was broken inside a run of spaces, which
// only a line one short of the width leaves. A log prefix or a traceback line starts a record;
// so does an anchor phrase, unless the line it follows is a prefix waiting for its message.
bool LineReflow::word_wrap_break(std::string_view last, std::string_view next,
                                 std::pair<size_t, size_t> widths, bool prefix_waiting,
                                 std::string_view* rest) const {
  if (widths.first == 0 || next.size() < 3 || next[0] != ' ' || next[1] != ' ') return false;
  *rest = next.substr(2);
  // The break fell before the width: the width is past the end of `last`.
  size_t past_last = display_width(last) + 1;
  size_t past_word = (*rest)[0] == ' ' ? past_last : past_last + reflow_first_word_width(*rest);
  if (past_word < widths.first || past_last > widths.second || is_blank(*rest)) return false;
  std::string_view text = ltrim(*rest);
  for (std::string_view start : kLineOnlyStarts)
    if (text.starts_with(start)) return false;
  if (reflow_starts_with_field_anchor(*rest) && !prefix_waiting) return false;
  return !reflow_starts_with_whole_prefix(*rest);
}

// The hard-wrap cuts of the head at `widest`: distinct (cut line, rest) pairs, so that repeated
// identical lines prove nothing. A line that is ever followed by a line that starts a record is a
// whole line wherever it appears (a terminal's cut line always goes on): a heartbeat line as wide
// as the widest before varied output is no cut.
size_t LineReflow::count_hard_cuts(const std::vector<std::string_view>& lines,
                                   const std::vector<size_t>& next, size_t widest,
                                   ReflowCutCounts* counts) const {
  std::set<std::string_view> whole;
  for (size_t i = 0; i < lines.size(); ++i)
    if (display_width(lines[i]) == widest &&
        (next[i] == kReflowNpos || !may_continue_hard(lines[i], lines[next[i]])))
      whole.insert(lines[i]);
  std::set<std::pair<std::string_view, std::string_view>> cuts;
  for (size_t i = 0; i < lines.size(); ++i) {
    if (next[i] == kReflowNpos || (!double_spaced_ && next[i] != i + 1)) continue;
    // A log prefix alone on its line is a viewer's break, not a terminal's.
    if (display_width(lines[i]) != widest || whole.count(lines[i]) > 0 ||
        reflow_is_prefix_alone(lines[i]))
      continue;
    if (cuts.emplace(lines[i], lines[next[i]]).second)
      reflow_count_cut(lines[i], lines[next[i]], widest, counts);
  }
  return cuts.size();
}

LineReflow LineReflow::learn(std::string_view head) {
  LineReflow reflow;
  std::vector<std::string_view> lines = reflow_head_lines(head);
  reflow.double_spaced_ = reflow_learn_double_spacing(lines);
  // The next non-blank line after each line (double spacing puts blanks between them).
  std::vector<size_t> next(lines.size(), kReflowNpos);
  for (size_t i = lines.size(), following = kReflowNpos; i-- > 0;) {
    next[i] = following;
    if (!is_blank(lines[i])) following = i;
  }
  size_t widest = 0, prefix_alone = 0;
  for (std::string_view line : lines) {
    widest = std::max(widest, display_width(line));
    prefix_alone += reflow_is_prefix_alone(line) ? 1 : 0;
  }
  reflow.prefix_lines_ = prefix_alone >= kMinPrefixLines;
  if (widest < kMinWrapWidth) return reflow;
  std::vector<std::string> shapes =
      reflow_learn_record_keys(lines, widest, reflow_prefix_like_shape, kShapeShare);
  if (!shapes.empty()) reflow.record_start_ = shapes[0];
  reflow.record_words_ = reflow_learn_record_keys(
      lines, widest, [](std::string_view line) { return std::string(reflow_first_word(line)); },
      kWordShare);
  reflow.own_line_shapes_ = reflow_own_line_shapes(lines, widest);
  ReflowCutCounts cut_counts;
  size_t hard_cuts = reflow.count_hard_cuts(lines, next, widest, &cut_counts);
  std::pair<size_t, size_t> word_widths = reflow_learn_word_width(lines);
  std::set<std::pair<std::string_view, std::string_view>> word_cuts;  // distinct, as above
  size_t two_space_unbroken = 0;
  for (size_t i = 0; i < lines.size(); ++i) {
    if (next[i] == kReflowNpos || (!reflow.double_spaced_ && next[i] != i + 1)) continue;
    std::string_view following = lines[next[i]], rest;
    if (!reflow_is_two_space_line(following) ||
        (reflow_starts_with_field_anchor(following) && !reflow_wants_message(lines[i])))
      continue;
    if (reflow.word_wrap_break(lines[i], following, word_widths, true, &rest))
      word_cuts.emplace(lines[i], following);
    else
      ++two_space_unbroken;
  }
  // A log whose own lines are indented by two spaces (fields, not breaks) is no word wrap: at
  // least twice as many breaks as two-space lines that are none.
  bool word = word_cuts.size() >= kMinMidTokenBreaks && word_cuts.size() >= 2 * two_space_unbroken;
  if (word && word_cuts.size() >= hard_cuts)
    reflow.word_widths_ = word_widths;
  else if (reflow_looks_hard_wrapped(cut_counts, hard_cuts))
    reflow.hard_width_ = widest;
  return reflow;
}

std::string LineReflow::describe() const {
  std::string out;
  auto add = [&out](const std::string& part) { out += (out.empty() ? "" : ", ") + part; };
  if (double_spaced_) add("double spacing");
  if (hard_width_ > 0) add("hard wrap at " + std::to_string(hard_width_) + " columns");
  if (word_widths_.first > 0)
    add("word wrap at " + std::to_string(word_widths_.first) + "-" +
        std::to_string(word_widths_.second) + " columns");
  if (prefix_lines_) add("log prefixes on lines of their own");
  return out;
}

const LineReason* LineReflow::join_reason(std::string_view pending, std::string_view last,
                                          bool single, std::string_view next,
                                          std::string* joined) const {
  std::string_view rest;
  if (word_widths_.first > 0 &&
      word_wrap_break(last, next, word_widths_, reflow_wants_message(pending), &rest)) {
    joined->assign(pending).append(" ").append(rest);
    return &reason::kRejoinedWordWrap;
  }
  if (hard_width_ > 0 && display_width(last) == hard_width_ && may_continue_hard(last, next)) {
    joined->assign(pending).append(next);
    return &reason::kRejoinedHardWrap;
  }
  // The message may start with the rest of the prefix (`[0/8] [__recompiles] ...`).
  if (prefix_lines_ && single && reflow_is_prefix_alone(pending) &&
      !reflow_starts_with_whole_prefix(next)) {
    joined->assign(pending).append(" ").append(next);
    return &reason::kRejoinedPrefixLine;
  }
  return nullptr;
}

std::string LineReflow::rejoin_head(std::string_view head) const {
  std::string out, pending, joined;
  std::string_view last;
  bool single = true, have = false;
  int blank_run = 0;
  for (std::string_view line : reflow_head_lines(head)) {
    blank_run = is_blank(line) ? blank_run + 1 : 0;
    if (blank_run > 0 && is_spacer(blank_run)) continue;
    if (have && join_reason(pending, last, single, line, &joined)) {
      std::swap(pending, joined);
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
