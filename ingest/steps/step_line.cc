#include "ingest/steps/step_line.h"

#include <array>
#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "ingest/reading/text_util.h"
#include "ingest/reading/wall_time.h"
#include "util/plausible.h"

namespace rcf::ingest {
namespace {

constexpr size_t kMaxShape = 64;  // the end of a long prefix is kept: it holds the keyword

char lower(char c) {
  return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c;
}

bool word_at(std::string_view text, size_t at, std::string_view word) {
  if (at + word.size() > text.size()) return false;
  for (size_t i = 0; i < word.size(); ++i)
    if (lower(text[at + i]) != word[i]) return false;
  return true;
}

// Digits at `at` (at most 12), not part of a decimal number; the position after them.
std::optional<size_t> number_end(std::string_view text, size_t at) {
  size_t end = at;
  while (end < text.size() && is_digit(text[end]) && end - at < 13) ++end;
  if (end == at || end - at > 12) return std::nullopt;
  if (end + 1 < text.size() && text[end] == '.' && is_digit(text[end + 1])) return std::nullopt;
  return end;
}

// `/M` after a number: the position after M, when M >= n (a progress total, not a date).
size_t skip_total(std::string_view text, size_t at, int64_t n) {
  if (at >= text.size() || text[at] != '/') return at;
  auto end = number_end(text, at + 1);
  if (!end || digits_value(text.substr(at + 1, *end - at - 1)) < n) return at;
  return *end;
}

std::string shape_of(std::string_view prefix) {
  std::string shape;
  for (char c : prefix) {
    char out = is_digit(c) ? '#' : (c == ' ' || c == '\t') ? ' ' : c;
    if (!shape.empty() && out == shape.back() && (out == '#' || out == ' ')) continue;
    if (shape.empty() && out == ' ') continue;
    shape.push_back(out);
  }
  if (shape.size() > kMaxShape) shape.erase(0, shape.size() - kMaxShape);
  return shape;
}

// The first position at or after `from` of a byte that may start a keyword (s, S, i or I), or
// text.size(). Every line of user output is searched, and most hold no keyword: 16 bytes at a
// time where SSE2 exists (the byte loop was a fifth of a training log's ingest instructions).
size_t next_keyword_start(std::string_view text, size_t from) {
  const unsigned char* data = reinterpret_cast<const unsigned char*>(text.data());
  size_t at = from;
#if defined(__SSE2__)
  const __m128i case_bit = _mm_set1_epi8(0x20);  // 'S' | 0x20 == 's'; no other byte maps to s or i
  const __m128i s = _mm_set1_epi8('s'), i = _mm_set1_epi8('i');
  auto first_in = [&](const unsigned char* block) {
    __m128i folded =
        _mm_or_si128(_mm_loadu_si128(reinterpret_cast<const __m128i*>(block)), case_bit);
    return _mm_movemask_epi8(_mm_or_si128(_mm_cmpeq_epi8(folded, s), _mm_cmpeq_epi8(folded, i)));
  };
  for (; at + 16 <= text.size(); at += 16)
    if (int mask = first_in(data + at); mask != 0)
      return at + static_cast<size_t>(__builtin_ctz(static_cast<unsigned>(mask)));
  if (at < text.size()) {  // the last bytes, copied into a zeroed block (never read past the end)
    unsigned char last[16] = {};
    std::memcpy(last, data + at, text.size() - at);
    if (int mask = first_in(last); mask != 0)
      return at + static_cast<size_t>(__builtin_ctz(static_cast<unsigned>(mask)));
  }
  return text.size();
#else
  for (; at < text.size(); ++at) {
    char c = lower(static_cast<char>(data[at]));
    if (c == 's' || c == 'i') return at;
  }
  return text.size();
#endif
}

// `step 12`, `Step: 12/500`, `global_step=12`, `iter #12`: the step and the end of the match.
std::optional<std::pair<int64_t, size_t>> keyword_step(std::string_view text) {
  static constexpr std::array<std::string_view, 3> kWords = {"iteration", "step", "iter"};
  for (size_t at = next_keyword_start(text, 0); at < text.size();
       at = next_keyword_start(text, at + 1)) {
    if (at > 0 && (is_alpha(text[at - 1]) || is_digit(text[at - 1]))) continue;
    for (std::string_view word : kWords) {
      if (!word_at(text, at, word)) continue;
      size_t p = at + word.size();
      if (p < text.size() && (is_alpha(text[p]) || text[p] == '_')) break;
      while (p < text.size() && text[p] == ' ') ++p;
      if (p < text.size() && (text[p] == ':' || text[p] == '=' || text[p] == '#')) ++p;
      while (p < text.size() && text[p] == ' ') ++p;
      auto end = number_end(text, p);
      if (!end) break;
      int64_t n = digits_value(text.substr(p, *end - p));
      return std::make_pair(n, skip_total(text, *end, n));
    }
  }
  return std::nullopt;
}

// A line that opens with `N/M` or `[ N/M]` (tqdm-like progress without a keyword).
std::optional<std::pair<int64_t, size_t>> opening_progress(std::string_view text) {
  size_t p = 0;
  while (p < text.size() && text[p] == ' ') ++p;
  if (p < text.size() && text[p] == '[') ++p;
  while (p < text.size() && text[p] == ' ') ++p;
  auto end = number_end(text, p);
  if (!end || *end >= text.size() || text[*end] != '/') return std::nullopt;
  int64_t n = digits_value(text.substr(p, *end - p));
  size_t after = skip_total(text, *end, n);
  if (after == *end || n == 0) return std::nullopt;
  if (after < text.size() && (text[after] == '/' || is_digit(text[after]))) return std::nullopt;
  return std::make_pair(n, after);
}

// A `key=value` (CLU's scalars: `loss=0.52`, `train/loss=0.5`, `collection=train`) or `Got `
// (CLU's `Got raw tensors: ...`, `Got images: ...`) at `at`.
bool metric_values_at(std::string_view text, size_t at) {
  if (text.substr(at).starts_with("Got ")) return true;
  size_t p = at;
  while (p < text.size() && (is_alpha(text[p]) || is_digit(text[p]) || text[p] == '_' ||
                             text[p] == '/' || text[p] == '.' || text[p] == '-'))
    ++p;
  return p > at && is_alpha(text[at]) && p < text.size() && text[p] == '=';
}

// A metric writer's line: `[100] loss=0.52, lr=0.001` (CLU's LoggingWriter, through absl:
// `[%d]%s %s`), `train[100] loss=...` (its earlier `%s[%d] %s` with a prefix), after an optional
// time. The number in brackets is the step.
std::optional<std::pair<int64_t, size_t>> metric_writer_step(std::string_view text) {
  size_t p = 0;
  if (auto t = leading_wall_time(text)) p = t->length;
  while (p < text.size() && text[p] == ' ') ++p;
  size_t open = text.find('[', p);
  if (open == std::string_view::npos || open - p > 32) return std::nullopt;
  for (size_t i = p; i < open; ++i)  // a prefix is one word
    if (!is_alpha(text[i]) && !is_digit(text[i]) && text[i] != '_' && text[i] != '/')
      return std::nullopt;
  auto end = number_end(text, open + 1);
  if (!end || *end + 2 >= text.size() || text[*end] != ']' || text[*end + 1] != ' ')
    return std::nullopt;
  if (!metric_values_at(text, *end + 2)) return std::nullopt;
  return std::make_pair(digits_value(text.substr(open + 1, *end - open - 1)), *end + 1);
}

}  // namespace

std::optional<StepLine> read_step_line(std::string_view text) {
  auto found = keyword_step(text);
  if (!found) found = opening_progress(text);
  if (!found) found = metric_writer_step(text);
  if (!found) return std::nullopt;
  // A metrics block header counts syncs, not training steps (docs/training_steps.md). Looked for
  // only on a match: most lines of a training log match nothing.
  if (text.find("[MetricsData") != std::string_view::npos) return std::nullopt;
  StepLine out{found->first, std::string(), std::nullopt, false};
  size_t shape_from = 0;
  if (auto t = leading_wall_time(text); t && t->length < found->second) {
    out.time_s = t->epoch_s;
    out.time_zoned = t->zoned;
    shape_from = t->length;
  }
  out.shape = shape_of(text.substr(shape_from, found->second - shape_from));
  return out;
}

StepMarker progress_marker(int64_t line_no, StepLine&& progress) {
  return StepMarker{line_no,         progress.step,      "step_line", std::move(progress.shape),
                    progress.time_s, progress.time_zoned};
}

const LineReason* implausible_progress_reason(const StepLine& progress) {
  // The step has at most 12 digits (number_end), always within 0..2^53; only the time can be
  // out of range.
  if (progress.time_s && !util::plausible_epoch_s(*progress.time_s))
    return &reason::kImplausibleTimestampSkipped;
  return nullptr;
}

void emit_progress(EventSink& sink, int64_t line_no, StepLine&& progress, std::string_view line) {
  if (const LineReason* why = implausible_progress_reason(progress))
    return sink.note(line_no, *why, line);
  sink.emit(progress_marker(line_no, std::move(progress)));
}

}  // namespace rcf::ingest
