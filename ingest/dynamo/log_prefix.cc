#include "ingest/dynamo/log_prefix.h"

#include <charconv>

#include "ingest/reading/text_util.h"

namespace rcf::ingest {
namespace {

// Longest source path we accept inside a prefix; bounds the search for `:LINE]` on junk lines.
constexpr size_t kMaxPathLength = 4096;

// `[rankN]:` at `pos`: returns the index after the ':' and sets `rank`, or kNpos.
size_t read_rank(std::string_view line, size_t pos, int32_t* rank) {
  if (pos + 8 > line.size() || line[pos] != '[' || line[pos + 1] != 'r' || line[pos + 2] != 'a' ||
      line[pos + 3] != 'n' || line[pos + 4] != 'k')
    return kNpos;
  size_t i = pos + 5;
  size_t start = i;
  while (i < line.size() && is_digit(line[i])) ++i;
  if (i == start || i - start > 9 || i + 1 >= line.size() || line[i] != ']' || line[i + 1] != ':')
    return kNpos;
  std::from_chars(line.data() + start, line.data() + i, *rank);
  return i + 2;
}

// `[rankN]:` ending right before `pos`: returns its start and sets `rank`, or kNpos.
size_t rank_before(std::string_view line, size_t pos, int32_t* rank) {
  if (pos < 8 || line[pos - 1] != ':' || line[pos - 2] != ']') return kNpos;
  size_t i = pos - 2;
  while (i > 0 && is_digit(line[i - 1])) --i;
  if (i < 5 || i == pos - 2) return kNpos;
  return read_rank(line, i - 5, rank) == pos ? i - 5 : kNpos;
}

// The start of the digits of a `:LINE]` whose ']' is at `close`, with at least one byte of path
// after `start` before the ':'; kNpos when the ']' ends no such mark.
size_t path_line_digits(std::string_view line, size_t start, size_t close) {
  size_t d = close;
  while (d > start && is_digit(line[d - 1])) --d;
  return d < close && d > start + 1 && line[d - 1] == ':' ? d : kNpos;
}

// `PATH:LINE]` starting at `start`: sets `path` / `path_line` and returns the index after ']'.
size_t read_path_and_line(std::string_view line, size_t start, std::string_view* path,
                          std::string_view* path_line) {
  size_t search = start;
  while (true) {
    size_t close = line.find(']', search);
    if (close == kNpos || close - start > kMaxPathLength) return kNpos;
    if (size_t d = path_line_digits(line, start, close); d != kNpos) {
      *path = line.substr(start, d - 1 - start);
      *path_line = line.substr(d, close - d);
      return close + 1;
    }
    search = close + 1;
  }
}

// A run of digits at `s[*i]`; advances `*i`.
bool skip_digits(std::string_view s, size_t* i) {
  size_t start = *i;
  while (*i < s.size() && is_digit(s[*i])) ++*i;
  return *i > start;
}

// `!?\d+(/\d+){0,2}(_\d+)?` followed by ']' at `s[i]`: the trace id (docs/dynamo_text.md, Compile
// ids). Returns the index of the ']' or kNpos. Cheaper than CompileId::parse on the per-line path.
size_t scan_trace_id(std::string_view s, size_t i) {
  if (i < s.size() && s[i] == '!') ++i;
  if (!skip_digits(s, &i)) return kNpos;
  for (int slashes = 0; slashes < 2 && i < s.size() && s[i] == '/'; ++slashes) {
    ++i;
    if (!skip_digits(s, &i)) return kNpos;
  }
  if (i < s.size() && s[i] == '_') {
    ++i;
    if (!skip_digits(s, &i)) return kNpos;
  }
  return i < s.size() && s[i] == ']' ? i : kNpos;
}

// After the `]` that ends a glog location: optional ` [<compile id>]`, optional ` [__<artifact>]`,
// then one space and the message (or the end of the line). `key_start` begins the record key.
void read_trace_artifact_message(std::string_view line, size_t i, size_t key_start,
                                 LogPrefix* out) {
  const size_t n = line.size();
  if (i + 2 < n && line[i] == ' ' && line[i + 1] == '[') {
    size_t close = scan_trace_id(line, i + 2);
    if (close != kNpos) {
      out->trace_id = line.substr(i + 2, close - i - 2);
      i = close + 1;
    }
  }
  if (i + 4 < n && line[i] == ' ' && line[i + 1] == '[' && line[i + 2] == '_' &&
      line[i + 3] == '_') {
    size_t j = i + 4;
    while (j < n && is_identifier_char(line[j])) ++j;
    if (j < n && j > i + 4 && line[j] == ']') {
      out->artifact = line.substr(i + 4, j - i - 4);
      i = j + 1;
    }
  }
  out->key = line.substr(key_start, i - key_start);
  if (i < n && line[i] == ' ') ++i;
  out->message = line.substr(i);
}

// Glog prefix with its level letter at `p`:
// `LEVEL MMDD hh:mm:ss.uuuuuu PID PATH:LINE]`.
bool parse_glog_at(std::string_view line, size_t p, LogPrefix* out) {
  const size_t n = line.size();
  if (p + 16 > n) return false;
  // Fixed-width part `LMMDD hh:mm:ss.`, checked byte by byte without bounds checks.
  const char* s = line.data() + p;
  char level = s[0];
  if (level != 'V' && level != 'I' && level != 'W' && level != 'E' && level != 'C') return false;
  if (!is_digit(s[1]) || !is_digit(s[2]) || !is_digit(s[3]) || !is_digit(s[4]) || s[5] != ' ' ||
      !is_digit(s[6]) || !is_digit(s[7]) || s[8] != ':' || !is_digit(s[9]) || !is_digit(s[10]) ||
      s[11] != ':' || !is_digit(s[12]) || !is_digit(s[13]) || s[14] != '.')
    return false;
  size_t i = p + 15;
  if (!skip_digits(line, &i) || i >= n || line[i] != ' ') return false;
  const size_t timestamp_end = i;
  const size_t process_start = ++i;
  if (!skip_digits(line, &i) || i >= n || line[i] != ' ') return false;
  const size_t process_end = i;
  std::string_view path, path_line;
  i = read_path_and_line(line, i + 1, &path, &path_line);
  if (i == kNpos) return false;
  // `out` is still as parse_log_prefix made it: no other parser writes before failing.
  out->form = PrefixForm::kGlog;
  out->timestamp = line.substr(p + 1, timestamp_end - p - 1);
  out->process = line.substr(process_start, process_end - process_start);
  out->path = path;
  out->path_line = path_line;
  out->level = line.substr(p, 1);
  size_t rank_start = rank_before(line, p, &out->rank);
  size_t key_start = rank_start == kNpos ? p : rank_start;
  out->noise = line.substr(0, key_start);
  read_trace_artifact_message(line, i, key_start, out);
  return true;
}

bool parse_logger_level_at(std::string_view line, size_t i, LogPrefix* out);

// `[YYYY-MM-DD HH:MM:SS,mmm] <logger>: [LEVEL] <msg>` at `p` (2022 and 2023 eras). An app
// logger that wrote the same record behind its own date (`[... 05:06:00.000123] ...`) uses a
// '.' and other precisions: the logger and level decide the form, not the date's digits.
bool parse_bracket_date_at(std::string_view line, size_t p, LogPrefix* out) {
  const size_t n = line.size();
  if (p + 22 > n || line[p] != '[') return false;
  if (!digits_at(line, p + 1, 4) || line[p + 5] != '-' || !digits_at(line, p + 6, 2) ||
      line[p + 8] != '-' || !digits_at(line, p + 9, 2) || line[p + 11] != ' ' ||
      !digits_at(line, p + 12, 2) || line[p + 14] != ':' || !digits_at(line, p + 15, 2) ||
      line[p + 17] != ':' || !digits_at(line, p + 18, 2))
    return false;
  size_t close = p + 20;
  if (line[close] == ',' || line[close] == '.') {
    size_t digits = close + 1;
    while (digits < n && is_digit(line[digits])) ++digits;
    if (digits - close - 1 < 1 || digits - close - 1 > 9) return false;
    close = digits;
  }
  if (close + 1 >= n || line[close] != ']' || line[close + 1] != ' ') return false;
  if (!parse_logger_level_at(line, close + 2, out)) return false;
  out->timestamp = line.substr(p + 1, close - p - 1);
  return true;
}

// `[<compile id>] ` (Sep 2023 on) then `<logger>: [LEVEL] <msg>` at `i`: the part of the
// bracket-date form after the date, which users also paste with the date cut away.
bool parse_logger_level_at(std::string_view line, size_t i, LogPrefix* out) {
  const size_t n = line.size();
  std::string_view trace_id;
  if (i + 1 < n && line[i] == '[') {
    size_t close = scan_trace_id(line, i + 1);
    if (close == kNpos || close + 1 >= n || line[close + 1] != ' ') return false;
    trace_id = line.substr(i + 1, close - i - 1);
    i = close + 2;
  }
  size_t logger_start = i;
  while (i < n && (is_identifier_char(line[i]) || line[i] == '.')) ++i;
  if (i == logger_start || line.compare(i, 3, ": [") != 0) return false;
  size_t logger_end = i;
  i += 3;
  size_t level_start = i;
  while (i < n && is_upper(line[i])) ++i;
  if (i == level_start || i >= n || line[i] != ']') return false;
  out->form = PrefixForm::kBracketDate;
  out->trace_id = trace_id;
  out->logger = line.substr(logger_start, logger_end - logger_start);
  out->level = line.substr(level_start, i - level_start);
  ++i;
  out->key = line.substr(0, i);
  if (i < n && line[i] == ' ') ++i;
  out->message = line.substr(i);
  return true;
}

// 2022 `Torchdynamo: [LEVEL] <msg>` at `p`.
bool parse_torchdynamo_bare_at(std::string_view line, size_t p, LogPrefix* out) {
  if (line.compare(p, 14, "Torchdynamo: [") != 0 && line.compare(p, 14, "torchdynamo: [") != 0)
    return false;
  size_t i = p + 14;
  size_t level_start = i;
  while (i < line.size() && is_upper(line[i])) ++i;
  if (i == level_start || i >= line.size() || line[i] != ']') return false;
  out->form = PrefixForm::kTorchdynamoBare;
  out->logger = line.substr(p, 11);
  out->level = line.substr(level_start, i - level_start);
  ++i;
  out->key = line.substr(0, i);
  if (i < line.size() && line[i] == ' ') ++i;
  out->message = line.substr(i);
  return true;
}

// `logging.BASIC_FORMAT` (`TORCH_LOGS_FORMAT=short`): `LEVELNAME:logger:message` at `p`.
bool parse_short_at(std::string_view line, size_t p, LogPrefix* out) {
  static constexpr std::string_view kLevels[] = {
      "DEBUG:", "INFO:", "WARNING:", "ERROR:", "CRITICAL:"};
  for (std::string_view level : kLevels) {
    if (line.compare(p, level.size(), level) != 0) continue;
    size_t i = p + level.size();
    size_t logger_start = i;
    while (i < line.size() && (is_identifier_char(line[i]) || line[i] == '.')) ++i;
    if (i == logger_start || i >= line.size() || line[i] != ':') return false;
    out->form = PrefixForm::kShort;
    out->level = level.substr(0, level.size() - 1);
    out->logger = line.substr(logger_start, i - logger_start);
    out->key = line.substr(0, i);
    out->message = line.substr(i + 1);
    return true;
  }
  return false;
}

// Prefix shortened by the user to `<path>:<line>] ...` at `p` (path with a '/' or '\').
bool parse_trimmed_path_at(std::string_view line, size_t p, LogPrefix* out) {
  if (p >= line.size() || line[p] == ' ' || line[p] == '[') return false;
  std::string_view path, path_line;
  size_t i = read_path_and_line(line, p, &path, &path_line);
  if (i == kNpos) return false;
  if (path.find(' ') != kNpos) return false;
  if (path.find('/') == kNpos && path.find('\\') == kNpos) return false;
  int32_t rank = out->rank;
  *out = LogPrefix{};
  out->form = PrefixForm::kTrimmedGlog;
  out->rank = rank;
  out->path = path;
  out->path_line = path_line;
  read_trace_artifact_message(line, i, 0, out);
  return true;
}

bool is_level_letter(char c) {
  return c == 'V' || c == 'I' || c == 'W' || c == 'E' || c == 'C' || c == 'D';
}

// A glog prefix trimmed by a custom format to its level and location, `W convert_frame.py:1676]`,
// at `p`: the level letter, one space, a path without spaces (a bare file name is enough).
bool parse_level_location_at(std::string_view line, size_t p, LogPrefix* out) {
  if (p + 5 > line.size() || !is_level_letter(line[p]) || line[p + 1] != ' ' ||
      line[p + 2] == ' ' || line[p + 2] == '[')
    return false;
  std::string_view path, path_line;
  size_t i = read_path_and_line(line, p + 2, &path, &path_line);
  if (i == kNpos || path.find(' ') != kNpos) return false;
  int32_t rank = out->rank;
  *out = LogPrefix{};
  out->form = PrefixForm::kTrimmedGlog;
  out->rank = rank;
  out->level = line.substr(p, 1);
  out->path = path;
  out->path_line = path_line;
  int32_t ignored = -1;
  size_t rank_start = rank_before(line, p, &ignored);
  read_trace_artifact_message(line, i, rank_start == kNpos ? p : rank_start, out);
  return true;
}

// `[__<artifact>]` at `i` (a TORCH_LOGS artifact tag); sets `artifact` and returns the index
// after the ']', or kNpos.
size_t read_artifact_tag(std::string_view line, size_t i, std::string_view* artifact) {
  if (line.compare(i, 3, "[__") != 0) return kNpos;
  size_t j = i + 3;
  while (j < line.size() && is_identifier_char(line[j])) ++j;
  if (j >= line.size() || j == i + 3 || line[j] != ']') return kNpos;
  *artifact = line.substr(i + 3, j - i - 3);
  return j + 1;
}

// A prefix trimmed to its compile id or artifact tag, with or without the level letter:
// `W [0/8] msg`, `[0/8] msg`, `[__recompiles] msg`. A compile id must hold a '/' (frame and
// compile): a bare `[3]` is too common in other output to be taken for one.
bool parse_level_trace_at(std::string_view line, size_t p, LogPrefix* out) {
  size_t i = p;
  if (i + 1 < line.size() && is_level_letter(line[i]) && line[i + 1] == ' ') i += 2;
  if (i + 4 > line.size() || line[i] != '[') return false;
  LogPrefix result;
  result.form = PrefixForm::kTrimmedGlog;
  result.rank = out->rank;
  if (i > p) result.level = line.substr(p, 1);
  int32_t ignored = -1;
  size_t rank_start = rank_before(line, p, &ignored);
  size_t key_start = rank_start == kNpos ? p : rank_start;
  if (is_digit(line[i + 1])) {
    size_t close = scan_trace_id(line, i + 1);
    if (close == kNpos || line.substr(i + 1, close - i - 1).find('/') == kNpos) return false;
    if (close + 1 < line.size() && line[close + 1] != ' ') return false;
    result.trace_id = line.substr(i + 1, close - i - 1);
    read_trace_artifact_message(line, close + 1, key_start, &result);
  } else {
    size_t end = read_artifact_tag(line, i, &result.artifact);
    if (end == kNpos) return false;
    result.key = line.substr(key_start, end - key_start);
    result.message = line.substr(end < line.size() && line[end] == ' ' ? end + 1 : end);
  }
  *out = result;
  return true;
}

// `[<compile id>] [__<artifact>] <msg>` anywhere in the line (prefix cut off by the user).
bool parse_bare_trace_artifact(std::string_view line, LogPrefix* out) {
  for (size_t mark = line.find("] [__"); mark != kNpos; mark = line.find("] [__", mark + 1)) {
    size_t open = line.rfind('[', mark);
    if (open == kNpos || mark - open > 48 || scan_trace_id(line, open + 1) != mark) continue;
    LogPrefix result;
    result.form = PrefixForm::kTrimmedGlog;
    result.trace_id = line.substr(open + 1, mark - open - 1);
    size_t i = mark + 1;
    size_t j = i + 4;
    while (j < line.size() && is_identifier_char(line[j])) ++j;
    if (j >= line.size() || j == i + 4 || line[j] != ']') continue;
    result.artifact = line.substr(i + 4, j - i - 4);
    i = j + 1;
    size_t rank_start = rank_before(line, open, &result.rank);
    size_t key_start = rank_start == kNpos ? open : rank_start;
    result.key = line.substr(key_start, i - key_start);
    if (i < line.size() && line[i] == ' ') ++i;
    result.message = line.substr(i);
    result.noise = line.substr(0, key_start);
    *out = result;
    return true;
  }
  return false;
}

// Which of the `]`-marks of the slower prefix forms a line holds: a `:LINE]` (digits between
// the ':' and the ']'), which ends every glog location and trimmed path, and a `] [__`, which
// starts a bare trace artifact.
struct CloseMarks {
  bool path_line = false;
  bool artifact = false;
};
CloseMarks close_marks(std::string_view line) {
  CloseMarks marks;
  for (size_t close = line.find(']'); close != kNpos; close = line.find(']', close + 1)) {
    if (path_line_digits(line, 0, close) != kNpos) marks.path_line = true;
    if (line.compare(close, 5, "] [__") == 0) marks.artifact = true;
    if (marks.path_line && marks.artifact) break;
  }
  return marks;
}

// A bracket-date prefix after junk (a paste indented by its own lines' depth, a progress bar
// redrawn over the line): any `[YYYY-` after `start` that opens a whole prefix.
bool parse_bracket_date_after_junk(std::string_view line, size_t start, LogPrefix* out) {
  for (size_t p = line.find('[', start + 1); p != kNpos; p = line.find('[', p + 1)) {
    if (!digits_at(line, p + 1, 4) || p + 5 >= line.size() || line[p + 5] != '-') continue;
    LogPrefix result;
    if (!parse_bracket_date_at(line, p, &result)) continue;
    size_t rank_start = rank_before(line, p, &result.rank);
    size_t key_start = rank_start == kNpos ? p : rank_start;
    const size_t key_end = result.key.size();  // parse_logger_level_at keys from byte 0
    result.key = line.substr(key_start, key_end - key_start);
    result.noise = line.substr(0, key_start);
    *out = result;
    return true;
  }
  return false;
}

// `torch._dynamo.guards.__recompiles` carries the artifact after `.__`.
void artifact_from_logger(LogPrefix* out) {
  size_t at = out->logger.rfind(".__");
  if (at != kNpos) out->artifact = out->logger.substr(at + 3);
}

}  // namespace

LogPrefix parse_log_prefix(std::string_view line) {
  LogPrefix out;
  // Every prefix form holds a ']' (a glog path:line], a bracketed date, level, rank or compile id)
  // or a ':' (the short `LEVEL:logger:` form): a line of user output with neither, such as most
  // progress lines, is decided without trying each form.
  if (line.find(']') == kNpos && line.find(':') == kNpos) {
    out.message = line;
    return out;
  }
  size_t start = 0;
  size_t after_rank = read_rank(line, 0, &out.rank);
  if (after_rank != kNpos) start = after_rank;

  // Fast paths: the prefix starts the line (after an optional `[rankN]:`).
  if (start < line.size()) {
    char c = line[start];
    if (parse_glog_at(line, start, &out)) return out;
    if (c == '[' && parse_bracket_date_at(line, start, &out)) {
      artifact_from_logger(&out);
      return out;
    }
    if ((c == 'T' || c == 't') && parse_torchdynamo_bare_at(line, start, &out)) return out;
    if ((c == 'D' || c == 'I' || c == 'W' || c == 'E' || c == 'C') &&
        parse_short_at(line, start, &out)) {
      artifact_from_logger(&out);
      return out;
    }
    // 2022 `torchdynamo.convert_frame: [WARNING] ...`: a logger and level without a date.
    if ((c == 't' || c == 'T') && parse_logger_level_at(line, start, &out)) {
      artifact_from_logger(&out);
      return out;
    }
    if (start + 1 < line.size() && line[start + 1] == ' ' &&
        (parse_level_location_at(line, start, &out) || parse_level_trace_at(line, start, &out)))
      return out;
  }
  if (line.find("] ", start) != kNpos && parse_bracket_date_after_junk(line, start, &out)) {
    artifact_from_logger(&out);
    return out;
  }
  // The 2023 bracket-date form with its date cut away: ` [0/1] torch._dynamo.guards.__guards:`.
  if (size_t at = line.find_first_not_of(' ', start);
      at != kNpos && line[at] == '[' && at + 1 < line.size() && is_digit(line[at + 1]) &&
      parse_logger_level_at(line, at, &out)) {
    artifact_from_logger(&out);
    return out;
  }
  if (start < line.size() && line[start] == '[' && parse_level_trace_at(line, start, &out))
    return out;
  // The forms left hold a `PATH:LINE]` (a glog prefix after junk, a trimmed path) or a `] [__`
  // (a bare trace artifact): a line with neither, such as a progress bar, is user text.
  const CloseMarks marks = close_marks(line);
  if (marks.path_line) {
    // Junk before a glog prefix: every glog time has a ':' 8 bytes after the level letter.
    for (size_t colon = line.find(':', start + 8); colon != kNpos;
         colon = line.find(':', colon + 1))
      if (parse_glog_at(line, colon - 8, &out)) return out;
    if (parse_trimmed_path_at(line, start, &out)) return out;
  }
  if (marks.artifact && parse_bare_trace_artifact(line, &out)) return out;

  out = LogPrefix{};
  after_rank = read_rank(line, 0, &out.rank);
  start = after_rank == kNpos ? 0 : after_rank;
  if (after_rank != kNpos && start < line.size() && line[start] == ' ') ++start;
  out.message = line.substr(start);
  return out;
}

}  // namespace rcf::ingest
