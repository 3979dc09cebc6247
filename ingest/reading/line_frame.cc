#include "ingest/reading/line_frame.h"

#include <string.h>

#include <algorithm>
#include <array>
#include <deque>

#include "ingest/line_reasons.h"
#include "ingest/reading/text_util.h"

namespace rcf::ingest {
namespace {

// Lines of the head looked at when learning a wrapper (enough for a stable majority).
constexpr size_t kMaxLearnLines = 4000;
// Most tokens a wrapper has (e.g. quote + launcher + timestamp + quote).
constexpr size_t kMaxTokens = 4;
// Longest launcher tag accepted: `(RayTrainWorker pid=123, ip=10.0.0.1) `.
constexpr size_t kMaxLauncherTag = 96;

constexpr std::array<WrapperToken, 4> kAllTokens = {WrapperToken::kReplyQuote,
                                                    WrapperToken::kComment, WrapperToken::kLauncher,
                                                    WrapperToken::kAppTimestamp};

// A launcher tag's or logger name's characters.
bool is_tag_char(char c) {
  return is_identifier_char(c) || c == '-';
}

size_t digit_run(std::string_view s, size_t i) {
  size_t start = i;
  while (i < s.size() && is_digit(s[i])) ++i;
  return i - start;
}

int32_t to_int32(std::string_view digits) {
  int64_t v = 0;
  for (char c : digits) {
    v = v * 10 + (c - '0');
    if (v > INT32_MAX) return -1;
  }
  return static_cast<int32_t>(v);
}

// `> ` / `>`; `>>` (a REPL prompt) is not a quote.
size_t reply_quote_at(std::string_view s) {
  if (s.empty() || s[0] != '>') return 0;
  if (s.size() == 1) return 1;
  return s[1] == ' ' ? 2 : 0;
}

size_t comment_at(std::string_view s) {
  if (s.empty() || s[0] != '#') return 0;
  if (s.size() == 1) return 1;
  return s[1] == ' ' ? 2 : 0;
}

// `(…pid=N…) `: Ray and multiprocessing launchers.
size_t paren_launcher_at(std::string_view s, LineOrigin* origin) {
  if (s.size() < 7 || s[0] != '(') return 0;
  size_t close = s.find(')', 1);
  if (close == kNpos || close > kMaxLauncherTag) return 0;
  std::string_view inside = s.substr(1, close - 1);
  size_t pid_at = inside.find("pid=");
  if (pid_at == kNpos || (pid_at > 0 && inside[pid_at - 1] != ' ')) return 0;
  size_t pid_len = digit_run(inside, pid_at + 4);
  if (pid_len == 0) return 0;
  for (char c : inside)
    if (!is_tag_char(c) && c != ' ' && c != '=' && c != ',' && c != '.' && c != ':') return 0;
  origin->pid = inside.substr(pid_at + 4, pid_len);
  size_t end = close + 1;
  if (end < s.size() && s[end] == ' ') ++end;
  return end;
}

// `[default0]:` / `[trainer3]: `: torchrun's role + local rank. `[rankN]:` is PyTorch's own
// prefix and is left to the importers, which keep it.
size_t bracket_launcher_at(std::string_view s, LineOrigin* origin) {
  if (s.size() < 5 || s[0] != '[' || !is_alpha(s[1])) return 0;
  size_t i = 1;
  while (i < s.size() && i < kMaxLauncherTag && (is_alpha(s[i]) || s[i] == '_')) ++i;
  size_t digits = digit_run(s, i);
  if (digits == 0 || i + digits + 1 >= s.size() || s[i + digits] != ']' || s[i + digits + 1] != ':')
    return 0;
  if (s.substr(1, i - 1) == "rank") return 0;
  origin->rank = to_int32(s.substr(i, digits));
  size_t end = i + digits + 2;
  if (end < s.size() && s[end] == ' ') ++end;
  return end;
}

// `trainer-1  | `: docker compose's service column.
size_t compose_launcher_at(std::string_view s) {
  size_t i = 0;
  while (i < s.size() && i < kMaxLauncherTag && (is_tag_char(s[i]) || s[i] == '.')) ++i;
  if (i == 0 || i >= s.size() || s[i] != ' ') return 0;
  while (i < s.size() && s[i] == ' ') ++i;
  if (i >= s.size() || s[i] != '|') return 0;
  ++i;
  if (i < s.size() && s[i] == ' ') ++i;
  return i;
}

// `3: `: `srun --label`'s task number, the worker's rank.
size_t srun_label_at(std::string_view s, LineOrigin* origin) {
  size_t digits = digit_run(s, 0);
  if (digits == 0 || digits > 5 || digits + 1 >= s.size() || s[digits] != ':' ||
      s[digits + 1] != ' ')
    return 0;
  origin->rank = to_int32(s.substr(0, digits));
  return digits + 2;
}

// `YYYY-MM-DD[ T]HH:MM:SS` at `i`; returns the index after it or kNpos.
size_t date_time_at(std::string_view s, size_t i) {
  if (i + 19 > s.size() || !digits_at(s, i, 4) || s[i + 4] != '-' || !digits_at(s, i + 5, 2) ||
      s[i + 7] != '-' || !digits_at(s, i + 8, 2) || (s[i + 10] != ' ' && s[i + 10] != 'T') ||
      !digits_at(s, i + 11, 2) || s[i + 13] != ':' || !digits_at(s, i + 14, 2) ||
      s[i + 16] != ':' || !digits_at(s, i + 17, 2))
    return kNpos;
  i += 19;
  if (i + 1 < s.size() && (s[i] == '.' || s[i] == ',') && is_digit(s[i + 1]))
    i += 1 + digit_run(s, i + 1);
  return i;
}

// `logger.name: [LEVEL]` at `i`: the Python logging record of Dynamo's 2023 format, whose date
// belongs to the record, not to a wrapper.
bool python_logger_record_at(std::string_view s, size_t i) {
  size_t start = i;
  while (i < s.size() && (is_tag_char(s[i]) || s[i] == '.')) ++i;
  return i > start && s.compare(i, 3, ": [") == 0;
}

// A log level right after a date (`2021-01-27 17:00:59.245051: I   23980 tensor.cpp:1153]`,
// `... - DEBUG - ...`): the date is the record's own, as absl and many Python formats print it.
bool log_level_at(std::string_view s, size_t i) {
  bool dash = s.compare(i, 2, "- ") == 0;
  if (dash) i += 2;
  if (i + 1 < s.size() && s[i + 1] == ' ' &&
      (s[i] == 'I' || s[i] == 'W' || s[i] == 'E' || s[i] == 'F' || s[i] == 'V'))
    return true;
  // A level word counts only in the ` - LEVEL - ` form: `[date] WARNING:jax...` is a Python
  // record behind an app logger's date.
  if (!dash) return false;
  for (std::string_view level : {"DEBUG", "INFO", "WARNING", "WARN", "ERROR", "CRITICAL"}) {
    if (s.compare(i, level.size(), level) != 0) continue;
    size_t end = i + level.size();
    return end == s.size() || s[end] == ' ' || s[end] == ']' || s[end] == ':';
  }
  return false;
}

// `IP [N] ` after an xla_dist timestamp: the worker's address and ordinal.
size_t xla_dist_worker_at(std::string_view s, size_t i, LineOrigin* origin) {
  size_t j = i;
  for (int part = 0; part < 4; ++part) {
    size_t d = digit_run(s, j);
    if (d == 0 || d > 3) return 0;
    j += d;
    if (part < 3) {
      if (j >= s.size() || s[j] != '.') return 0;
      ++j;
    }
  }
  if (j + 3 >= s.size() || s[j] != ' ' || s[j + 1] != '[') return 0;
  size_t d = digit_run(s, j + 2);
  if (d == 0 || j + 2 + d >= s.size() || s[j + 2 + d] != ']') return 0;
  origin->rank = to_int32(s.substr(j + 2, d));
  size_t end = j + 3 + d;
  if (end < s.size() && s[end] == ' ') ++end;
  return end - i;
}

// After an RFC 3339 time: its zone (`Z`, `+01:00`) and, in a container runtime's log (CRI), the
// stream and the full/partial tag (`2025-03-04T05:06:07.123456789Z stderr F `), up to the space
// before the message.
size_t after_zone_and_stream(std::string_view s, size_t i, bool* stream_tag) {
  if (i < s.size() && s[i] == 'Z') {
    ++i;
  } else if (i + 6 <= s.size() && (s[i] == '+' || s[i] == '-') && digits_at(s, i + 1, 2) &&
             s[i + 3] == ':' && digits_at(s, i + 4, 2)) {
    i += 6;
  }
  for (std::string_view stream : {" stdout ", " stderr "}) {
    if (s.compare(i, stream.size(), stream) != 0) continue;
    size_t tag = i + stream.size();
    if (tag + 1 < s.size() && (s[tag] == 'F' || s[tag] == 'P') && s[tag + 1] == ' ') {
      *stream_tag = true;
      return tag + 1;
    }
  }
  return i;
}

// An app logger's timestamp: `[2025-03-04 05:06:07.123] `, `2019-07-18 17:15:45,048: `,
// `2021-04-19 13:28:12 10.164.0.25 [0] ` (xla_dist).
size_t app_timestamp_at(std::string_view s, LineOrigin* origin) {
  if (s.size() < 20) return 0;
  bool bracketed = s[0] == '[';
  if (!bracketed && !is_digit(s[0])) return 0;
  size_t i = date_time_at(s, bracketed ? 1 : 0);
  if (i == kNpos) return 0;
  // A container runtime's stream tag makes the date the runtime's, whatever follows it.
  bool runtime_tag = false;
  if (!bracketed) i = after_zone_and_stream(s, i, &runtime_tag);
  if (bracketed) {
    if (i >= s.size() || s[i] != ']') return 0;
    ++i;
  }
  if (i < s.size() && s[i] == ':') ++i;
  if (i >= s.size() || s[i] != ' ') return 0;
  ++i;
  if (!runtime_tag && (python_logger_record_at(s, i) || log_level_at(s, i))) return 0;
  LineOrigin worker;
  if (size_t w = xla_dist_worker_at(s, i, &worker)) {
    *origin = worker;
    i += w;
  }
  return i;
}

size_t leading_spaces(std::string_view s) {
  size_t i = 0;
  while (i < s.size() && s[i] == ' ') ++i;
  return i;
}

// A record start that glue may hide: a glog level and date (`I0228 `), a bracketed or bare ISO
// date.
bool record_start_at(std::string_view s, size_t i) {
  if (i + 6 > s.size()) return false;
  char c = s[i];
  if ((c == 'I' || c == 'W' || c == 'E' || c == 'V' || c == 'C' || c == 'F') &&
      digits_at(s, i + 1, 4) && s[i + 5] == ' ')
    return true;
  if (c == '[' && digits_at(s, i + 1, 4)) return true;
  return digits_at(s, i, 4) && s[i + 4] == '-';
}

bool starts_glued_record(char c) {
  return is_alpha(c) || is_digit(c) || c == '(' || c == '[' || c == '<' || c == '\'' || c == '"' ||
         c == '>' || c == '#';
}

// Removes terminal redraws: what a `\r` overwrote is not part of the record after it.
std::string_view cut_redraws(std::string_view line, bool* changed) {
  const void* cr = memchr(line.data(), '\r', line.size());
  if (cr == nullptr) return line;
  size_t at = line.rfind('\r');
  std::string_view after = line.substr(at + 1);
  // A trailing `\r` leaves an empty last segment: the last non-blank one is what was shown.
  while (is_blank(after) && at > 0) {
    size_t prev = line.rfind('\r', at - 1);
    size_t start = prev == kNpos ? 0 : prev + 1;
    after = line.substr(start, at - start);
    if (prev == kNpos) break;
    at = prev;
  }
  *changed = true;
  return after;
}

// Removes a stray backtick run (a log pasted into a Markdown code span) and test-runner progress
// dots glued in front of a timestamp.
std::string_view cut_leading_glue(std::string_view line, bool* changed) {
  if (line.empty()) return line;
  if (line[0] == '`') {
    size_t i = 0;
    while (i < line.size() && i < 3 && line[i] == '`') ++i;
    if (i < line.size() && line[i] != '`' && line[i] != ' ') {
      *changed = true;
      return line.substr(i);
    }
    return line;
  }
  if (line[0] == '.') {
    size_t i = 0;
    while (i < line.size() && line[i] == '.') ++i;
    if (record_start_at(line, i)) {
      *changed = true;
      return line.substr(i);
    }
    // `.../torch/_dynamo/guards.py:2772]`: a path the user elided; extra dots are glue.
    if (i > 3 && i < line.size() && (line[i] == '/' || line[i] == '\\')) {
      *changed = true;
      return line.substr(i - 3);
    }
    // Progress dots glued to a record (`..Recompiling function`, `.(pid=…`); an elision (`...`,
    // `.... 62 more`) is followed by a space, a dot or nothing.
    if (i <= 3 && i < line.size() && starts_glued_record(line[i])) {
      *changed = true;
      return line.substr(i);
    }
    // ... or to an indented continuation line (`.  * at x, now f32[8]`).
    if (i <= 3 && i < line.size() && line[i] == ' ') {
      size_t j = i;
      while (j < line.size() && line[j] == ' ') ++j;
      if (j < line.size() && line[j] != '.' && (j - i >= 2 || line[j] == '[')) {
        *changed = true;
        return line.substr(i);
      }
    }
  }
  return line;
}

// Removes the terminal colour escapes (`ESC [ ... m` and other CSI sequences) a colouring log
// handler puts around a prefix: they are display, not text. Returns false when there are none.
bool strip_escapes(std::string_view line, std::string* out) {
  if (memchr(line.data(), '\x1b', line.size()) == nullptr) return false;
  out->clear();
  for (size_t i = 0; i < line.size(); ++i) {
    if (line[i] != '\x1b' || i + 1 >= line.size() || line[i + 1] != '[') {
      out->push_back(line[i]);
      continue;
    }
    size_t j = i + 2;
    while (j < line.size() && line[j] >= 0x20 && line[j] <= 0x3F) ++j;
    if (j < line.size() && line[j] >= 0x40 && line[j] <= 0x7E) {
      i = j;  // the whole sequence, final byte included
    } else {
      out->push_back(line[i]);
    }
  }
  return true;
}

// A line ending in "**" (the end of Markdown emphasis), without a call per line.
bool ends_with_stars(std::string_view line) {
  return line.size() >= 2 && line[line.size() - 1] == '*' && line[line.size() - 2] == '*';
}

// `**text**` around a whole line (after its indentation): a Markdown reply that put a reason in
// bold. Emphasis is never part of a log record, and the line's indentation is structural, so the
// line is rebuilt without the markers.
bool has_line_emphasis(std::string_view text) {
  size_t lead = leading_spaces(text);
  return text.size() >= lead + 5 && text.ends_with("**") && text.compare(lead, 2, "**") == 0 &&
         text[lead + 2] != '*' && text[lead + 2] != ' ';
}

std::string_view token_name(WrapperToken t) {
  switch (t) {
    case WrapperToken::kReplyQuote:
      return "reply_quote";
    case WrapperToken::kComment:
      return "comment";
    case WrapperToken::kLauncher:
      return "launcher";
    case WrapperToken::kAppTimestamp:
      return "app_timestamp";
  }
  return "";
}

}  // namespace

size_t wrapper_token_at(std::string_view line, WrapperToken kind, LineOrigin* origin) {
  switch (kind) {
    case WrapperToken::kReplyQuote:
      return reply_quote_at(line);
    case WrapperToken::kComment:
      return comment_at(line);
    case WrapperToken::kLauncher:
      if (size_t n = paren_launcher_at(line, origin)) return n;
      if (size_t n = bracket_launcher_at(line, origin)) return n;
      if (size_t n = compose_launcher_at(line)) return n;
      return srun_label_at(line, origin);
    case WrapperToken::kAppTimestamp:
      return app_timestamp_at(line, origin);
  }
  return 0;
}

LineFramer LineFramer::learn(std::string_view head) {
  // The lines (redraws cut) and how far each one's wrapper has been matched so far.
  std::vector<std::string_view> lines;
  std::string plain;
  std::deque<std::string> plains;  // lines with their escapes removed, kept while learning
  for (size_t pos = 0; pos < head.size() && lines.size() < kMaxLearnLines;) {
    size_t end = head.find('\n', pos);
    if (end == kNpos) end = head.size();
    bool changed = false;
    std::string_view line = head.substr(pos, end - pos);
    if (strip_escapes(line, &plain)) line = plains.emplace_back(std::move(plain));
    line = cut_redraws(line, &changed);
    line = cut_leading_glue(line, &changed);
    if (!is_blank(line)) lines.push_back(line);
    pos = end + 1;
  }
  LineFramer framer;
  if (lines.empty()) return framer;
  // The indentation every line shares comes off first: a quoted or tagged log pasted deeper.
  size_t lead = kNpos;
  for (std::string_view line : lines) lead = std::min(lead, leading_spaces(line));
  framer.lead_indent_ = lead;
  std::vector<size_t> at(lines.size(), lead);
  std::vector<bool> wrapped(lines.size(), true);  // every token so far was present
  // Token by token: the kind most lines carry next, when nearly all do. Quotes and comment markers
  // are ordinary text elsewhere, so they need more agreement than launcher tags and timestamps.
  while (framer.tokens_.size() < kMaxTokens) {
    size_t best_count = 0;
    WrapperToken best = WrapperToken::kReplyQuote;
    for (WrapperToken kind : kAllTokens) {
      size_t count = 0;
      for (size_t i = 0; i < lines.size(); ++i) {
        LineOrigin ignored;
        if (wrapped[i] && wrapper_token_at(lines[i].substr(at[i]), kind, &ignored) > 0) ++count;
      }
      if (count > best_count) {
        best_count = count;
        best = kind;
      }
    }
    bool structured = best == WrapperToken::kLauncher || best == WrapperToken::kAppTimestamp;
    size_t needed = structured ? (lines.size() * 6 + 9) / 10 : (lines.size() * 9 + 9) / 10;
    if (best_count == 0 || best_count < needed) break;
    framer.tokens_.push_back(best);
    for (size_t i = 0; i < lines.size(); ++i) {
      LineOrigin ignored;
      size_t n = wrapped[i] ? wrapper_token_at(lines[i].substr(at[i]), best, &ignored) : 0;
      if (n == 0) wrapped[i] = false;
      at[i] += n;
    }
  }
  // The indentation every wrapped line still shares after the tokens.
  if (framer.tokens_.empty()) return framer;
  size_t indent = kNpos;
  for (size_t i = 0; i < lines.size(); ++i) {
    if (!wrapped[i]) continue;
    std::string_view rest = lines[i].substr(at[i]);
    if (is_blank(rest)) continue;
    indent = std::min(indent, leading_spaces(rest));
  }
  framer.indent_ = indent == kNpos ? 0 : indent;
  return framer;
}

FramedLine LineFramer::frame(std::string_view line, bool known_plain) const {
  FramedLine out;
  // The common case, on every line of every source: nothing to remove.
  if (!has_wrapper() && (line.empty() || (line[0] != '.' && line[0] != '`')) &&
      !ends_with_stars(line) && (known_plain || !has_cr_or_escape(line))) {
    out.text = line;
    return out;
  }
  if (strip_escapes(line, &plain_)) {
    line = plain_;
    out.unglued = true;
  }
  std::string_view text = cut_leading_glue(cut_redraws(line, &out.unglued), &out.unglued);
  if (lead_indent_ > 0) {
    size_t n = std::min(lead_indent_, leading_spaces(text));
    if (n > 0) {
      text.remove_prefix(n);
      out.unwrapped = true;
    }
  }
  for (WrapperToken kind : tokens_) {
    size_t n = wrapper_token_at(text, kind, &out.origin);
    if (n == 0) break;
    if (kind == WrapperToken::kAppTimestamp) out.stamp = text.substr(0, n);
    text.remove_prefix(n);
    out.unwrapped = true;
  }
  if (indent_ > 0) {
    size_t n = std::min(indent_, leading_spaces(text));
    if (n > 0) {
      text.remove_prefix(n);
      out.unwrapped = true;
    }
  }
  out.text = cut_leading_glue(text, &out.unglued);
  if (has_line_emphasis(out.text)) {
    size_t lead = leading_spaces(out.text);
    rebuilt_.assign(out.text.substr(0, lead));
    rebuilt_.append(out.text.substr(lead + 2, out.text.size() - lead - 4));
    out.text = rebuilt_;
    out.unglued = true;
  }
  return out;
}

std::string_view LineFramer::frame_head(std::string_view head, std::string* storage) const {
  storage->clear();
  bool changed = false;
  for (size_t pos = 0; pos < head.size();) {
    size_t end = head.find('\n', pos);
    bool last = end == kNpos;
    if (last) end = head.size();
    FramedLine f = frame(head.substr(pos, end - pos));
    changed |= f.unwrapped || f.unglued;
    storage->append(f.text);
    if (!last) storage->push_back('\n');
    pos = end + 1;
  }
  return changed ? std::string_view(*storage) : head;
}

std::string LineFramer::describe() const {
  std::vector<std::string> parts;
  if (lead_indent_ > 0) parts.push_back("indent " + std::to_string(lead_indent_));
  for (WrapperToken t : tokens_) {
    std::string name(token_name(t));
    for (char& c : name)
      if (c == '_') c = ' ';
    parts.push_back(name);
  }
  if (indent_ > 0) parts.push_back("indent " + std::to_string(indent_));
  std::string out;
  for (const auto& p : parts) out += (out.empty() ? "" : ", ") + p;
  return out;
}

std::string LineFramer::note_reason() const {
  std::string out(family_stem(reason::kWrapperFamily));
  if (lead_indent_ > 0) out += "_indent";
  for (WrapperToken t : tokens_) out += "_" + std::string(token_name(t));
  if (indent_ > 0) out += "_indent";
  return out;
}

}  // namespace rcf::ingest
