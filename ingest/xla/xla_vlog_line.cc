#include "ingest/xla/xla_vlog_line.h"

#include <cstring>

#include "ingest/reading/text_util.h"
#include "ingest/reading/wall_time.h"

namespace rcf::ingest {
namespace {

// A VLOG prefix is short; `]` further in belongs to the message.
constexpr size_t kMaxPrefix = 512;

int64_t number_at(std::string_view s, size_t i, size_t n) {
  int64_t v = 0;
  for (size_t k = i; k < i + n; ++k) v = v * 10 + (s[k] - '0');
  return v;
}

// `HH:MM:SS[.ffffff]` at `i`: seconds since midnight, or nullopt.
std::optional<double> time_of_day_at(std::string_view s, size_t i) {
  if (!digits_at(s, i, 2) || i + 8 > s.size() || s[i + 2] != ':' || !digits_at(s, i + 3, 2) ||
      s[i + 5] != ':' || !digits_at(s, i + 6, 2))
    return std::nullopt;
  double t = number_at(s, i, 2) * 3600.0 + number_at(s, i + 3, 2) * 60.0 + number_at(s, i + 6, 2);
  size_t k = i + 8;
  if (k < s.size() && s[k] == '.') {
    double scale = 0.1;
    for (++k; k < s.size() && is_digit(s[k]); ++k, scale /= 10) t += (s[k] - '0') * scale;
  }
  return t;
}

// `<digits>[.<digits>]` at `i` as seconds.
double epoch_seconds_at(std::string_view s, size_t i) {
  double t = 0;
  for (; i < s.size() && is_digit(s[i]); ++i) t = t * 10 + (s[i] - '0');
  if (i < s.size() && s[i] == '.') {
    double scale = 0.1;
    for (++i; i < s.size() && is_digit(s[i]); ++i, scale /= 10) t += (s[i] - '0') * scale;
  }
  return t;
}

// The clock of a line that starts with `YYYY-MM-DD HH:MM:SS.f` or glog's `Lmmdd HH:MM:SS.f`.
std::optional<double> clock_of(std::string_view s) {
  if (digits_at(s, 0, 4) && s.size() > 19 && s[4] == '-' && digits_at(s, 5, 2) && s[7] == '-' &&
      digits_at(s, 8, 2) && (s[10] == ' ' || s[10] == 'T')) {
    auto t = time_of_day_at(s, 11);
    if (!t) return std::nullopt;
    return days_from_civil(number_at(s, 0, 4), number_at(s, 5, 2), number_at(s, 8, 2)) * 86400.0 +
           *t;
  }
  if (s.size() > 14 && std::strchr("IWEF", s[0]) != nullptr && digits_at(s, 1, 4) && s[5] == ' ') {
    // absl without a time zone: `I0000 00:00:1709629921.100200` (seconds since 1970).
    if (s.compare(6, 6, "00:00:") == 0 && digits_at(s, 12, 9)) return epoch_seconds_at(s, 12);
    auto t = time_of_day_at(s, 6);
    if (!t) return std::nullopt;
    // No year: months and days are enough for the differences the importer takes.
    return days_from_civil(2001, number_at(s, 1, 2), number_at(s, 3, 2)) * 86400.0 + *t;
  }
  return std::nullopt;
}

// `<file>:<line>` with a file extension, e.g. `torch_xla/csrc/tensor.cpp:1153`.
bool is_source_location(std::string_view token) {
  size_t colon = token.rfind(':');
  if (colon == kNpos || colon == 0 || !all_digits(token.substr(colon + 1))) return false;
  return token.substr(0, colon).find('.') != kNpos;
}

// A severity token: `I`, `W`, `E`, `F`, or glog's `I0127`.
bool is_level_token(std::string_view token) {
  if (token.empty() || std::strchr("IWEF", token[0]) == nullptr) return false;
  return token.size() == 1 || (token.size() == 5 && all_digits(token.substr(1)));
}

// The space-separated token of `s` that ends at `end` (exclusive), and where it starts.
std::string_view token_before(std::string_view s, size_t end, size_t* start) {
  while (end > 0 && s[end - 1] == ' ') --end;
  size_t b = end;
  while (b > 0 && s[b - 1] != ' ') --b;
  *start = b;
  return s.substr(b, end - b);
}

// `<hash>[ on device <dev>][ <tail>]` after a message lead-in.
VlogMessage hash_message(VlogKind kind, std::string_view rest) {
  VlogMessage m;
  size_t space = rest.find(' ');
  m.hash = rest.substr(0, space);
  if (!is_graph_hash(m.hash)) return {VlogKind::kBadHash, {}, {}, 0};
  m.kind = kind;
  if (space == kNpos) return m;
  rest = rest.substr(space);
  constexpr std::string_view kOnDevice = " on device ";
  if (rest.starts_with(kOnDevice)) {
    rest.remove_prefix(kOnDevice.size());
    size_t end = rest.find(' ');
    m.device = rest.substr(0, end);
    rest = end == kNpos ? std::string_view() : rest.substr(end);
  }
  bool done = rest.find("done") != kNpos;
  if (kind == VlogKind::kCompileStart && done) m.kind = VlogKind::kCompileDone;
  if (kind == VlogKind::kExecuteStart && done) m.kind = VlogKind::kExecuteDone;
  return m;
}

VlogMessage count_message(VlogKind kind, std::string_view digits) {
  size_t end = 0;
  while (end < digits.size() && is_digit(digits[end])) ++end;
  if (end == 0 || end > 18) return {VlogKind::kBadHash, {}, {}, 0};
  return {kind, {}, {}, number_at(digits, 0, end)};
}

struct Lead {
  std::string_view text;
  VlogKind kind;
};

}  // namespace

bool is_graph_hash(std::string_view hash) {
  if (hash.empty() || hash.size() > 39) return false;
  bool hex_letter = false;
  for (char c : hash) {
    if (is_digit(c)) continue;
    if (c < 'a' || c > 'f') return false;
    hex_letter = true;
  }
  return !hex_letter || hash.size() <= 32;
}

bool split_vlog_line(std::string_view line, VlogLine* out) {
  std::string_view head = line.substr(0, kMaxPrefix);
  for (size_t at = head.find(']'); at != kNpos; at = head.find(']', at + 1)) {
    if (at + 1 < line.size() && line[at + 1] != ' ') continue;
    size_t loc_start = 0;
    if (!is_source_location(token_before(line, at, &loc_start))) continue;
    // Before the location: [thread] and the level, possibly after a date and time.
    size_t tok_start = 0;
    std::string_view tok = token_before(line, loc_start, &tok_start);
    int64_t thread = -1;
    if (all_digits(tok) && tok.size() < 19) {
      thread = number_at(tok, 0, tok.size());
      tok = token_before(line, tok_start, &tok_start);
    }
    // glog puts the time between the level and the thread.
    if (tok.size() >= 8 && tok[2] == ':' && tok_start > 0)
      tok = token_before(line, tok_start, &tok_start);
    if (!is_level_token(tok)) continue;
    out->message = at + 2 <= line.size() ? line.substr(at + 2) : std::string_view();
    out->thread = thread;
    out->clock_s = clock_of(line);
    return true;
  }
  return false;
}

VlogMessage classify_vlog_message(std::string_view m) {
  static constexpr Lead kLeads[] = {
      {"Compiling IR graph hash ", VlogKind::kCompileStart},
      {"Executing IR graph hash ", VlogKind::kExecuteStart},
      {"Tensors graph hash ", VlogKind::kTensorsGraph},
      {"Trying to get the value of ", VlogKind::kGetTensor},
      {"TensorsGraphSize=", VlogKind::kGraphSize},
      {"Parameter sequence graph hash ", VlogKind::kParameterSequence},
      {"Graph hash: ", VlogKind::kCacheHit},
      {"SyncTensorsGraphSize=", VlogKind::kGraphSize},
      {"Waiting on device barrier", VlogKind::kDeviceBarrier},
  };
  if (m.empty() || std::strchr("CETPGSW", m[0]) == nullptr) return {};
  for (const Lead& lead : kLeads) {
    if (lead.text[0] != m[0] || !m.starts_with(lead.text)) continue;
    std::string_view rest = m.substr(lead.text.size());
    switch (lead.kind) {
      case VlogKind::kGetTensor:
      case VlogKind::kGraphSize:
        return count_message(lead.kind, rest);
      case VlogKind::kDeviceBarrier:
        return {lead.kind, {}, {}, 0};
      default:
        return hash_message(lead.kind, rest);
    }
  }
  return {};
}

}  // namespace rcf::ingest
