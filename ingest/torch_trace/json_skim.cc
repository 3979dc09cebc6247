#include "ingest/torch_trace/json_skim.h"

#include <charconv>
#include <cmath>
#include <cstring>

#if defined(__SSE2__)
#include <immintrin.h>

#include "ingest/reading/text_util.h"
#endif

namespace rcf::ingest::json_skim {
namespace {

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// Bytes that end a run of plain string content: '"', '\\' and control characters.
struct StringStopTable {
  bool stop[256];
  constexpr StringStopTable() : stop() {
    for (int c = 0; c < 0x20; ++c) stop[c] = true;
    stop[int('"')] = true;
    stop[int('\\')] = true;
  }
};
constexpr StringStopTable kStringStop;

size_t skip_number(std::string_view text, size_t pos) {
  size_t i = pos;
  if (i < text.size() && text[i] == '-') ++i;
  if (i >= text.size()) return kInvalid;
  if (text[i] == '0') {
    ++i;
  } else if (is_digit(text[i])) {
    while (i < text.size() && is_digit(text[i])) ++i;
  } else {
    return kInvalid;
  }
  if (i < text.size() && text[i] == '.') {
    ++i;
    size_t start = i;
    while (i < text.size() && is_digit(text[i])) ++i;
    if (i == start) return kInvalid;
  }
  if (i < text.size() && (text[i] == 'e' || text[i] == 'E')) {
    ++i;
    if (i < text.size() && (text[i] == '+' || text[i] == '-')) ++i;
    size_t start = i;
    while (i < text.size() && is_digit(text[i])) ++i;
    if (i == start) return kInvalid;
  }
  return i;
}

void append_utf8(uint32_t code_point, std::string* out) {
  if (code_point < 0x80) {
    out->push_back(char(code_point));
  } else if (code_point < 0x800) {
    out->push_back(char(0xC0 | (code_point >> 6)));
    out->push_back(char(0x80 | (code_point & 0x3F)));
  } else if (code_point < 0x10000) {
    out->push_back(char(0xE0 | (code_point >> 12)));
    out->push_back(char(0x80 | ((code_point >> 6) & 0x3F)));
    out->push_back(char(0x80 | (code_point & 0x3F)));
  } else {
    out->push_back(char(0xF0 | (code_point >> 18)));
    out->push_back(char(0x80 | ((code_point >> 12) & 0x3F)));
    out->push_back(char(0x80 | ((code_point >> 6) & 0x3F)));
    out->push_back(char(0x80 | (code_point & 0x3F)));
  }
}

int read_hex4(std::string_view s, size_t pos) {
  if (pos + 4 > s.size()) return -1;
  int value = 0;
  for (size_t i = 0; i < 4; ++i) {
    int h = hex_value(s[pos + i]);
    if (h < 0) return -1;
    value = value * 16 + h;
  }
  return value;
}

#if defined(__SSE2__)
// The position of the first '"', '\\' or control character at or after `i`, looking only while a
// whole vector fits before `n`: where it returns a position with fewer bytes left, the caller's
// byte loop goes on from there. Plain content runs dominate the strings of a TORCH_TRACE log
// (cache keys, stack frames), so they are stepped over a vector at a time.
size_t plain_run_end_sse2(const unsigned char* data, size_t i, size_t n) {
  const __m128i quote = _mm_set1_epi8('"');
  const __m128i backslash = _mm_set1_epi8('\\');
  const __m128i max_control = _mm_set1_epi8(0x1F);
  while (i + 16 <= n) {
    __m128i chunk = _mm_loadu_si128(reinterpret_cast<const __m128i*>(data + i));
    // A byte is a control character when max(byte, 0x1F) == 0x1F (unsigned).
    __m128i stops =
        _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(chunk, quote), _mm_cmpeq_epi8(chunk, backslash)),
                     _mm_cmpeq_epi8(_mm_max_epu8(chunk, max_control), max_control));
    int mask = _mm_movemask_epi8(stops);
    if (mask != 0) return i + size_t(__builtin_ctz(unsigned(mask)));
    i += 16;
  }
  return i;
}

// The same, 32 bytes at a time (half the loop's steps over a long run), then 16.
[[gnu::target("avx2")]] size_t plain_run_end_avx2(const unsigned char* data, size_t i, size_t n) {
  const __m256i quote = _mm256_set1_epi8('"');
  const __m256i backslash = _mm256_set1_epi8('\\');
  const __m256i max_control = _mm256_set1_epi8(0x1F);
  while (i + 32 <= n) {
    __m256i chunk = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(data + i));
    __m256i stops = _mm256_or_si256(
        _mm256_or_si256(_mm256_cmpeq_epi8(chunk, quote), _mm256_cmpeq_epi8(chunk, backslash)),
        _mm256_cmpeq_epi8(_mm256_max_epu8(chunk, max_control), max_control));
    unsigned mask = static_cast<unsigned>(_mm256_movemask_epi8(stops));
    if (mask != 0) return i + size_t(__builtin_ctz(mask));
    i += 32;
  }
  return plain_run_end_sse2(data, i, n);
}

// Chosen once: the AVX2 form where the processor has it.
const bool kPlainRunAvx2 = __builtin_cpu_supports("avx2");
#endif

}  // namespace

size_t skip_string(std::string_view text, size_t pos) {
  const unsigned char* data = reinterpret_cast<const unsigned char*>(text.data());
  size_t i = pos + 1;
  const size_t n = text.size();
  while (true) {
#if defined(__SSE2__)
    i = kPlainRunAvx2 ? plain_run_end_avx2(data, i, n) : plain_run_end_sse2(data, i, n);
#endif
    while (i < n && !kStringStop.stop[data[i]]) ++i;
    if (i >= n) return kInvalid;
    if (data[i] == '"') return i + 1;
    if (data[i] != '\\') return kInvalid;  // raw control character
    if (i + 1 >= n) return kInvalid;
    switch (data[i + 1]) {
      case '"':
      case '\\':
      case '/':
      case 'b':
      case 'f':
      case 'n':
      case 'r':
      case 't':
        i += 2;
        break;
      case 'u':
        if (read_hex4(text, i + 2) < 0) return kInvalid;
        i += 6;
        break;
      default:
        return kInvalid;
    }
  }
}

size_t skip_value(std::string_view text, size_t pos, int depth) {
  pos = skip_whitespace(text, pos);
  if (pos >= text.size()) return kInvalid;
  switch (text[pos]) {
    case '"':
      return skip_string(text, pos);
    case '{': {
      if (depth >= kMaxDepth) return kInvalid;
      pos = skip_whitespace(text, pos + 1);
      if (pos < text.size() && text[pos] == '}') return pos + 1;
      while (true) {
        if (pos >= text.size() || text[pos] != '"') return kInvalid;
        pos = skip_string(text, pos);
        if (pos == kInvalid) return kInvalid;
        pos = skip_whitespace(text, pos);
        if (pos >= text.size() || text[pos] != ':') return kInvalid;
        pos = skip_value(text, pos + 1, depth + 1);
        if (pos == kInvalid) return kInvalid;
        pos = skip_whitespace(text, pos);
        if (pos >= text.size()) return kInvalid;
        if (text[pos] == '}') return pos + 1;
        if (text[pos] != ',') return kInvalid;
        pos = skip_whitespace(text, pos + 1);
      }
    }
    case '[': {
      if (depth >= kMaxDepth) return kInvalid;
      pos = skip_whitespace(text, pos + 1);
      if (pos < text.size() && text[pos] == ']') return pos + 1;
      while (true) {
        pos = skip_value(text, pos, depth + 1);
        if (pos == kInvalid) return kInvalid;
        pos = skip_whitespace(text, pos);
        if (pos >= text.size()) return kInvalid;
        if (text[pos] == ']') return pos + 1;
        if (text[pos] != ',') return kInvalid;
        pos = skip_whitespace(text, pos + 1);
      }
    }
    case 't':
      return text.substr(pos, 4) == "true" ? pos + 4 : kInvalid;
    case 'f':
      return text.substr(pos, 5) == "false" ? pos + 5 : kInvalid;
    case 'n':
      return text.substr(pos, 4) == "null" ? pos + 4 : kInvalid;
    default:
      return skip_number(text, pos);
  }
}

bool is_valid(std::string_view text) {
  size_t end = skip_value(text, 0);
  return end != kInvalid && skip_whitespace(text, end) == text.size();
}

std::optional<std::string> to_string(std::string_view raw) {
  if (raw.size() < 2 || raw.front() != '"' || raw.back() != '"') return std::nullopt;
  std::string_view body = raw.substr(1, raw.size() - 2);
  std::string out;
  out.reserve(body.size());
  size_t i = 0;
  while (i < body.size()) {
    size_t backslash = body.find('\\', i);
    if (backslash == std::string_view::npos) {
      out.append(body.substr(i));
      break;
    }
    out.append(body.substr(i, backslash - i));
    if (backslash + 1 >= body.size()) return std::nullopt;
    char escape = body[backslash + 1];
    i = backslash + 2;
    switch (escape) {
      case '"':
        out.push_back('"');
        break;
      case '\\':
        out.push_back('\\');
        break;
      case '/':
        out.push_back('/');
        break;
      case 'b':
        out.push_back('\b');
        break;
      case 'f':
        out.push_back('\f');
        break;
      case 'n':
        out.push_back('\n');
        break;
      case 'r':
        out.push_back('\r');
        break;
      case 't':
        out.push_back('\t');
        break;
      case 'u': {
        int unit = read_hex4(body, i);
        if (unit < 0) return std::nullopt;
        i += 4;
        uint32_t code_point = uint32_t(unit);
        if (unit >= 0xD800 && unit <= 0xDBFF && i + 6 <= body.size() && body[i] == '\\' &&
            body[i + 1] == 'u') {
          int low = read_hex4(body, i + 2);
          if (low >= 0xDC00 && low <= 0xDFFF) {
            code_point = 0x10000 + ((uint32_t(unit) - 0xD800) << 10) + (uint32_t(low) - 0xDC00);
            i += 6;
          }
        }
        if (code_point >= 0xD800 && code_point <= 0xDFFF) code_point = 0xFFFD;  // lone surrogate
        append_utf8(code_point, &out);
        break;
      }
      default:
        return std::nullopt;
    }
  }
  return out;
}

std::optional<double> to_double(std::string_view raw) {
  if (raw.empty() || !(raw.front() == '-' || is_digit(raw.front()))) return std::nullopt;
  double value = 0;
  auto [end, ec] = std::from_chars(raw.data(), raw.data() + raw.size(), value);
  if (ec != std::errc() || end != raw.data() + raw.size() || !std::isfinite(value))
    return std::nullopt;
  return value;
}

std::optional<int64_t> to_int(std::string_view raw) {
  if (raw.empty() || !(raw.front() == '-' || is_digit(raw.front()))) return std::nullopt;
  int64_t value = 0;
  auto [end, ec] = std::from_chars(raw.data(), raw.data() + raw.size(), value);
  if (ec == std::errc() && end == raw.data() + raw.size()) return value;
  std::optional<double> d = to_double(raw);
  if (!d || std::fabs(*d) > 9.0e18) return std::nullopt;
  return int64_t(std::llround(*d));
}

std::optional<bool> to_bool(std::string_view raw) {
  if (raw == "true") return true;
  if (raw == "false") return false;
  return std::nullopt;
}

}  // namespace rcf::ingest::json_skim
