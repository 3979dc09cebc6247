// JAX log importer (docs/jax_log.md): jax_log_compiles records, jax_explain_cache_misses
// explanations and persistent compilation cache lines, of every era.
//
// Prefixes vary (bare, `WARNING:absl:`, JAX's own `{levelname}:{asctime}:{name}:{lineno}: `, user
// formatters, pytest ids), so a line's prefix is stripped by the known forms and, failing that,
// the message body is searched for by its distinctive words (docs/jax_log.md: do not anchor on a
// prefix). Python logging prefixes only the first line of a multi-line message, so a cache-miss
// explanation is its header plus the unprefixed lines that follow it; prefixed lines of other
// records (DEBUG compiler lines) may come in between and do not end it.
#include "ingest/jax/jax_log_importer.h"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ingest/reading/text_util.h"
#include "ingest/steps/step_line.h"
#include "util/plausible.h"

namespace rcf::ingest {
namespace {

// An explanation is a handful of lines; the bound keeps memory independent of the input.
constexpr size_t kMaxExplanationLines = 10000;

bool is_level(std::string_view s) {
  return s == "DEBUG" || s == "INFO" || s == "WARNING" || s == "WARN" || s == "ERROR" ||
         s == "CRITICAL" || s == "FATAL";
}

bool is_logger_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '-';
}

// `YYYY-MM-DD HH:MM:SS` followed by `,mmm` or `.mmm` (optional); returns the length or 0.
size_t datetime_length(std::string_view s) {
  static constexpr std::string_view kShape = "dddd-dd-dd dd:dd:dd";
  if (s.size() < kShape.size()) return 0;
  for (size_t i = 0; i < kShape.size(); ++i) {
    char want = kShape[i];
    if (want == 'd' ? !is_digit(s[i]) : s[i] != want && !(i == 10 && s[i] == 'T')) return 0;
  }
  size_t n = kShape.size();
  if (n < s.size() && (s[n] == ',' || s[n] == '.')) {
    size_t m = n + 1;
    while (m < s.size() && is_digit(s[m])) ++m;
    if (m > n + 1) n = m;
  }
  return n;
}

// `DEBUG:2025-01-08 11:37:25,064:jax._src.dispatch:182: ` (JAX's logging_config.py format).
std::optional<std::string_view> strip_jax_formatter(std::string_view s, std::string_view* logger) {
  size_t colon = s.find(':');
  if (colon == std::string_view::npos || !is_level(s.substr(0, colon))) return std::nullopt;
  std::string_view rest = s.substr(colon + 1);
  size_t dt = datetime_length(rest);
  if (dt == 0 || dt >= rest.size() || rest[dt] != ':') return std::nullopt;
  rest = rest.substr(dt + 1);
  size_t name_end = rest.find(':');
  if (name_end == std::string_view::npos || name_end == 0) return std::nullopt;
  *logger = rest.substr(0, name_end);
  rest = rest.substr(name_end + 1);
  size_t digits_end = rest.find(':');
  if (digits_end == std::string_view::npos || !all_digits(rest.substr(0, digits_end)))
    return std::nullopt;
  rest = rest.substr(digits_end + 1);
  if (rest.starts_with(' ')) rest.remove_prefix(1);
  return rest;
}

// `WARNING:absl:` / `DEBUG:jax._src.dispatch:` (Python's default basicConfig format).
std::optional<std::string_view> strip_level_logger(std::string_view s, std::string_view* logger) {
  size_t colon = s.find(':');
  if (colon == std::string_view::npos || !is_level(s.substr(0, colon))) return std::nullopt;
  std::string_view rest = s.substr(colon + 1);
  size_t name_end = 0;
  while (name_end < rest.size() && is_logger_char(rest[name_end])) ++name_end;
  if (name_end == 0 || name_end >= rest.size() || rest[name_end] != ':') return std::nullopt;
  *logger = rest.substr(0, name_end);
  return rest.substr(name_end + 1);
}

// `2024-07-22 11:56:03,008 - DEBUG - ` and `... - jax._src.compiler - DEBUG - ` user formats:
// a timestamp, then ` - `-separated fields up to the level.
std::optional<std::string_view> strip_dash_format(std::string_view s, std::string_view* logger) {
  size_t dt = datetime_length(s);
  if (dt == 0) return std::nullopt;
  std::string_view rest = s.substr(dt);
  for (int field = 0; field < 4 && rest.starts_with(" - "); ++field) {
    rest.remove_prefix(3);
    size_t end = rest.find(" - ");
    if (end == std::string_view::npos) return std::nullopt;
    std::string_view value = rest.substr(0, end);
    rest = rest.substr(end);
    if (is_level(value)) return rest.substr(3);
    *logger = value;
  }
  return std::nullopt;
}

// absl's native form: `I0108 11:37:25.064000 140 dispatch.py:182] message`.
std::optional<std::string_view> strip_absl_native(std::string_view s) {
  if (s.size() < 20 || !std::strchr("IWEF", s[0]) || !all_digits(s.substr(1, 4)) || s[5] != ' ')
    return std::nullopt;
  size_t close = s.find("] ");
  if (close == std::string_view::npos || close > 200) return std::nullopt;
  return s.substr(close + 2);
}

bool is_pytest_outcome(std::string_view s) {
  return s == "PASSED" || s == "FAILED" || s == "SKIPPED" || s == "XFAIL" || s == "XPASS" ||
         s == "ERROR";
}

// Drops a trailing pytest outcome (` PASSED`, ` PASSED [ 50%]`); true when one was there.
bool strip_pytest_outcome(std::string_view* s) {
  std::string_view t = rtrim(*s);
  if (t.ends_with("%]")) {
    size_t open = t.rfind(" [");
    if (open == std::string_view::npos) return false;
    t = rtrim(t.substr(0, open));
  }
  size_t space = t.rfind(' ');
  std::string_view word = space == std::string_view::npos ? t : t.substr(space + 1);
  if (!is_pytest_outcome(word)) return false;
  *s = space == std::string_view::npos ? std::string_view() : rtrim(t.substr(0, space));
  return true;
}

struct Body {
  std::string_view message;  // the log message, prefix removed
  bool prefixed = false;     // a log-record prefix (or unknown text) came before the message
  bool pytest_only = false;  // a pytest id/outcome line with no message
  std::string_view logger;   // logger name when the prefix names one
};

Body split_line(std::string_view line) {
  Body b;
  std::string_view s = line;
  // pytest `-rA`/`-v` output: `tests/api_test.py::Class::test <message>` then `PASSED`.
  bool pytest = false;
  if (!s.empty() && s[0] != ' ' && s[0] != '\t') {
    size_t space = s.find(' ');
    std::string_view token = s.substr(0, space);
    if (contains(token, "::")) {
      pytest = true;
      s = space == std::string_view::npos ? std::string_view() : ltrim(s.substr(space));
    }
  }
  if (pytest || is_pytest_outcome(rtrim(s)) || rtrim(s).ends_with("%]")) {
    std::string_view before = s;
    if (strip_pytest_outcome(&s) || pytest) {
      if (is_blank(s)) {
        b.pytest_only = true;
        return b;
      }
    } else {
      s = before;
    }
  }
  std::string_view logger;
  if (auto m = strip_jax_formatter(s, &logger)) {
    b.message = *m;
    b.prefixed = true;
  } else if (auto m2 = strip_level_logger(s, &logger)) {
    b.message = *m2;
    b.prefixed = true;
  } else if (auto m3 = strip_dash_format(s, &logger)) {
    b.message = *m3;
    b.prefixed = true;
  } else if (auto m4 = strip_absl_native(s)) {
    b.message = *m4;
    b.prefixed = true;
  } else {
    b.message = s;
    b.prefixed = pytest;
  }
  b.logger = logger;
  return b;
}

// Where a known message starts inside text with an unknown prefix; npos when none does.
size_t find_message(std::string_view s) {
  static constexpr std::string_view kMarkers[] = {
      "Finished tracing ",
      "Finished jaxpr to MLIR module conversion ",
      "Finished XLA compilation of ",
      "TRACING CACHE MISS at ",
      "Persistent compilation cache hit for",
      "PERSISTENT COMPILATION CACHE MISS for",
      "Not writing persistent cache entry",
  };
  size_t best = std::string_view::npos;
  for (std::string_view marker : kMarkers) best = std::min(best, s.find(marker));
  // Messages whose first word is too common to search for: find their middle words.
  for (auto [middle, first] : {std::pair<std::string_view, std::string_view>{
                                   " with global shapes and types ", "Compiling "},
                               {" to persistent compilation cache", "Writing "},
                               {" for args (", "Compiling "}}) {
    size_t at = s.find(middle);
    if (at == std::string_view::npos) continue;
    size_t start = s.rfind(first, at);
    if (start != std::string_view::npos) best = std::min(best, start);
  }
  return best;
}

// `jit(f)` -> `f`, `jit_f` -> `f` (docs/jax_log.md: names in logs, HLO modules, cache keys).
std::string normalise_function(std::string_view name) {
  name = trim(name);
  if (name.starts_with("jit(") && name.ends_with(")") && name.size() > 5)
    return std::string(name.substr(4, name.size() - 5));
  if (name.starts_with("jit_") && name.size() > 4) return std::string(name.substr(4));
  return std::string(name);
}

// `<fun> (<python id>)` -> `<fun>` (2021 and pmap wordings).
std::string_view drop_object_id(std::string_view fun) {
  fun = rtrim(fun);
  if (fun.ends_with(")")) {
    size_t open = fun.rfind(" (");
    if (open != std::string_view::npos && all_digits(fun.substr(open + 2, fun.size() - open - 3)))
      return fun.substr(0, open);
  }
  return fun;
}

// `<fun> in <t> sec` -> fun, seconds.
bool split_timed(std::string_view rest, std::string_view* fun, double* seconds) {
  rest = rtrim(rest);
  if (!rest.ends_with(" sec")) return false;
  rest.remove_suffix(4);
  size_t in = rest.rfind(" in ");
  if (in == std::string_view::npos) return false;
  auto value = parse_double(rest.substr(in + 4));
  if (!value) return false;
  *fun = rest.substr(0, in);
  *seconds = *value;
  return !trim(*fun).empty();
}

enum class Parse { kNotMine, kParsed, kBad };

Parse parse_compile(std::string_view msg, int64_t line_no, EventSink& sink) {
  JaxCompile c;
  c.line = line_no;
  c.raw = std::string(rtrim(msg));
  std::string_view fun;
  double seconds = 0;
  if (msg.starts_with("Finished tracing ")) {
    std::string_view rest = msg.substr(17);
    if (rest.starts_with("+ transforming ")) rest.remove_prefix(15);
    if (!split_timed(rest, &fun, &seconds)) return Parse::kBad;
    if (fun.ends_with(" for pjit")) {
      fun.remove_suffix(9);
    } else if (fun.ends_with(" for jit")) {
      fun.remove_suffix(8);
    } else {
      return Parse::kBad;
    }
    c.phase = "trace";
  } else if (msg.starts_with("Finished jaxpr to MLIR module conversion ")) {
    if (!split_timed(msg.substr(41), &fun, &seconds)) return Parse::kBad;
    c.phase = "lower";
  } else if (msg.starts_with("Finished XLA compilation of ")) {
    if (!split_timed(msg.substr(28), &fun, &seconds)) return Parse::kBad;
    c.phase = "compile";
  } else if (msg.starts_with("Compiling ")) {
    std::string_view rest = rtrim(msg.substr(10));
    c.phase = "compiling";
    if (size_t at = rest.find(" with global shapes and types "); at != std::string_view::npos) {
      // 0.4.29+: `f with global ...`; Jul 2022 - 0.4.28: `f for with global ...` (sic).
      fun = rest.substr(0, at);
      if (fun.ends_with(" for")) fun.remove_suffix(4);
      std::string_view sig = rest.substr(at + 30);
      if (size_t map = sig.find(". Argument mapping: "); map != std::string_view::npos)
        sig = sig.substr(0, map);
      else if (sig.ends_with("."))
        sig.remove_suffix(1);
      c.signature = std::string(trim(sig));
    } else if (size_t args = rest.find(" for args "); args != std::string_view::npos) {
      // 2021: `f (140417529333056) for args (ShapedArray(float32[], weak_type=True),).`
      fun = drop_object_id(rest.substr(0, args));
      std::string_view sig = rest.substr(args + 10);
      if (sig.ends_with(".")) sig.remove_suffix(1);
      c.signature = std::string(trim(sig));
    } else if (size_t dev = rest.find(" devices with args "); dev != std::string_view::npos) {
      // pmap: `f (140...) for 8 devices with args [...]. (num_replicas=8 ...)`
      std::string_view head = rest.substr(0, dev);
      size_t for_at = head.rfind(" for ");
      if (for_at == std::string_view::npos || !all_digits(head.substr(for_at + 5)))
        return Parse::kNotMine;
      fun = drop_object_id(head.substr(0, for_at));
      std::string_view sig = rest.substr(dev + 19);
      if (size_t tail = sig.find(". (num_replicas="); tail != std::string_view::npos)
        sig = sig.substr(0, tail);
      c.signature = std::string(trim(sig));
    } else {
      return Parse::kNotMine;  // "Compiling ..." from some other tool
    }
    if (trim(fun).empty()) return Parse::kBad;
    c.function = normalise_function(fun);
    sink.emit(std::move(c));
    return Parse::kParsed;
  } else {
    return Parse::kNotMine;
  }
  c.function = normalise_function(fun);
  // A time out of range is no evidence (util/plausible.h): the compile is kept without it.
  if (util::plausible_duration_ms(seconds * 1000))
    c.seconds = seconds;
  else
    sink.note(line_no, reason::kImplausibleDurationWarning, msg);
  sink.emit(std::move(c));
  return Parse::kParsed;
}

// A quoted (`'x'`, `"x"`) or bare token at the start of `s`; advances `s` past it.
std::string_view take_token(std::string_view* s) {
  std::string_view t = *s;
  if (!t.empty() && (t[0] == '\'' || t[0] == '"')) {
    size_t close = t.find(t[0], 1);
    if (close == std::string_view::npos) return {};
    *s = t.substr(close + 1);
    return t.substr(1, close - 1);
  }
  size_t end = t.find(' ');
  if (end == std::string_view::npos) end = t.size();
  *s = t.substr(end);
  std::string_view token = t.substr(0, end);
  if (token.ends_with(".")) token.remove_suffix(1);
  return token;
}

// The key after ` with key ` anywhere in `s`, "" when absent.
std::string_view key_after(std::string_view s) {
  size_t at = s.find(" with key ");
  if (at == std::string_view::npos) return {};
  std::string_view rest = s.substr(at + 10);
  return take_token(&rest);
}

// The module name from a key `jit_<name>-<sha256hex>`.
std::string_view module_of_key(std::string_view key) {
  size_t dash = key.rfind('-');
  if (dash == std::string_view::npos || key.size() - dash - 1 != 64) return {};
  return key.substr(0, dash);
}

Parse parse_persistent_cache(std::string_view msg, int64_t line_no, EventSink& sink) {
  JaxPersistentCache p;
  p.line = line_no;
  std::string_view module;
  msg = rtrim(msg);
  if (msg.starts_with("Persistent compilation cache hit for") ||
      msg.starts_with("PERSISTENT COMPILATION CACHE MISS for")) {
    bool hit = msg.starts_with("Persistent");
    std::string_view rest = ltrim(msg.substr(hit ? 36 : 37));
    module = take_token(&rest);
    p.event = hit ? "hit" : "miss";
    p.key = std::string(key_after(rest));
  } else if (msg.starts_with("Writing ") && contains(msg, " to persistent compilation cache")) {
    std::string_view rest = msg.substr(8);
    module = take_token(&rest);
    p.event = "write";
    p.key = std::string(key_after(rest));
  } else if (msg.starts_with("Not writing persistent cache entry")) {
    // `for '<module>' because it took < <min> seconds to compile (<t>s)`, `with key '<key>'
    // since ...`, `since process_id != 0`.
    std::string_view rest = msg.substr(34);
    p.event = "skip";
    if (rest.starts_with(" for ")) {
      rest.remove_prefix(5);
      module = take_token(&rest);
      if (module.empty()) return Parse::kBad;
    }
    p.key = std::string(key_after(rest));
    if (rest.ends_with("s)") && contains(rest, " to compile (")) {
      size_t open = rest.rfind('(');
      if (open != std::string_view::npos)
        p.seconds = parse_double(rest.substr(open + 1, rest.size() - open - 3));
      if (p.seconds && !util::plausible_duration_ms(*p.seconds * 1000)) {
        sink.note(line_no, reason::kImplausibleDurationWarning, msg);
        p.seconds.reset();
      }
    }
    if (module.empty()) module = module_of_key(p.key);
    p.function = normalise_function(module);
    sink.emit(std::move(p));
    return Parse::kParsed;
  } else {
    return Parse::kNotMine;
  }
  if (module.empty()) module = module_of_key(p.key);
  if (module.empty()) return Parse::kBad;
  p.function = normalise_function(module);
  sink.emit(std::move(p));
  return Parse::kParsed;
}

// ---------------------------------------------------------------------------------------------
// Cache-miss explanations (docs/jax_log.md).

// A short type as printed in explanations: `f32[8]`, `f32[]{weak_type=True}`,
// `f32[8]({Auto: ('x',)})`.
struct ShortType {
  std::string_view dtype, dims;
  bool weak = false;
  std::string_view rest;  // sharding and anything else after the dims
};

ShortType parse_short_type(std::string_view t) {
  ShortType s;
  t = trim(t);
  // HEAD appends the weak-type docs link to the last line without a separator.
  if (size_t link = t.find("http"); link != std::string_view::npos) t = t.substr(0, link);
  size_t open = t.find('[');
  size_t close = open == std::string_view::npos ? open : t.find(']', open);
  if (close == std::string_view::npos) {
    s.dtype = t;
    return s;
  }
  s.dtype = t.substr(0, open);
  s.dims = t.substr(open + 1, close - open - 1);
  std::string_view rest = t.substr(close + 1);
  if (contains(rest, "weak_type=True")) {
    s.weak = true;
    size_t end = rest.find('}');
    rest = end == std::string_view::npos ? std::string_view() : rest.substr(end + 1);
  }
  s.rest = trim(rest);
  return s;
}

// Cause of one type bullet (`* at x, now f32[8] and before f32[4]`, 0.4.24:
// `* at x, seen f32[3], but now given f32[4]`); nullopt when it is no type bullet.
std::optional<std::string> classify_type_bullet(std::string_view t) {
  if (!t.starts_with("* at ")) return std::nullopt;
  std::string_view now, before;
  if (size_t n = t.find(", now "); n != std::string_view::npos) {
    std::string_view rest = t.substr(n + 6);
    size_t b = rest.find(" and before ");
    if (b == std::string_view::npos) return std::nullopt;
    now = rest.substr(0, b);
    before = rest.substr(b + 12);
    if (size_t so = before.find(", so "); so != std::string_view::npos)
      before = before.substr(0, so);
  } else if (size_t s = t.find(", seen "); s != std::string_view::npos) {
    std::string_view rest = t.substr(s + 7);
    size_t g = rest.find(", but now given ");
    if (g == std::string_view::npos) return std::nullopt;
    before = rest.substr(0, g);
    now = rest.substr(g + 16);
  } else {
    return std::nullopt;
  }
  ShortType a = parse_short_type(now), b = parse_short_type(before);
  if (a.dtype != b.dtype) return "dtype";
  if (a.dims != b.dims) return "shape";
  if (a.weak != b.weak) return "weak_type";
  return "other";  // sharding-only differences
}

enum class Category { kNone, kNeverSeen, kContext, kPytree, kStatic, kTypes, kOther };

// The difference class a line of an explanation announces (docs/causes.md, JAX).
Category category_of(std::string_view t) {
  if (contains(t, "never seen function")) return Category::kNeverSeen;
  if (contains(t, "racing context")) return Category::kContext;
  if (contains(t, "input pytree") || contains(t, "different number of args and kwargs") ||
      t.starts_with("never seen passing "))
    return Category::kPytree;
  if (contains(t, "static arg") || contains(t, "static kwarg") || contains(t, "static_argnums"))
    return Category::kStatic;
  if (contains(t, "input types") || contains(t, "input type signature")) return Category::kTypes;
  if (contains(t, "Debug info doesn't match") || contains(t, "explanation unavailable"))
    return Category::kOther;
  // 0.6-0.8 generic `different <key_field>:`.
  if (t.starts_with("different ") && t.ends_with(":")) return Category::kOther;
  return Category::kNone;
}

struct Explanation {
  int64_t line = 0;
  std::string callsite;  // `<file>:<line>` of the call site
  std::vector<std::string> body;
};

// `<file>:<line>:<col> (<function>)` -> `<file>:<line>`.
std::string callsite_location(std::string_view callsite) {
  callsite = trim(callsite);
  if (callsite.ends_with(")")) {
    size_t open = callsite.rfind(" (");
    if (open != std::string_view::npos) callsite = callsite.substr(0, open);
  }
  std::string_view file;
  int64_t line = 0;
  if (split_file_line(callsite, &file, &line)) {
    std::string_view file2;
    int64_t line2 = 0;
    // The column comes last; when two numbers follow the file, drop it.
    if (split_file_line(file, &file2, &line2)) return std::string(file);
  }
  return std::string(callsite);
}

// Whether a call site starts with `<file>:<line>` (a header cut after it can still be read).
bool starts_with_file_line(std::string_view callsite) {
  std::string_view file;
  int64_t line = 0;
  return split_file_line(callsite.substr(0, callsite.find(' ')), &file, &line);
}

// Fills function/location from `<fn> id=<id> defined at <loc>` or `for <fn> defined at <loc>`.
void take_function(std::string_view t, JaxCacheMiss* miss) {
  std::string_view loc;
  if (size_t at = t.find(" defined at "); at != std::string_view::npos) {
    loc = trim(t.substr(at + 12));
    t = t.substr(0, at);
  }
  if (size_t id = t.find(" id="); id != std::string_view::npos) t = t.substr(0, id);
  miss->function = std::string(trim(t));
  if (!loc.empty()) miss->location = std::string(loc);
}

bool mentions_static(const std::vector<std::string>& body) {
  for (const std::string& line : body)
    if (contains(line, "static") || contains(line, "Static")) return true;
  return false;
}

// Builds the event; false when the explanation says too little to name its cause (cut off).
bool build_cache_miss(const Explanation& e, JaxCacheMiss* miss) {
  miss->line = e.line;
  Category category = Category::kNone;
  std::optional<std::string> type_cause;
  bool need_function_line = false;
  for (size_t i = 0; i < e.body.size(); ++i) {
    std::string_view t = trim(e.body[i]);
    if (need_function_line) {
      take_function(t, miss);
      need_function_line = false;
      continue;
    }
    if (miss->function.empty() && t.starts_with("for ")) {
      take_function(t.substr(4), miss);
      continue;
    }
    Category c = category_of(t);
    if (c == Category::kNeverSeen && category == Category::kNone) need_function_line = true;
    if (category == Category::kNone) {
      category = c;
    } else if (category == Category::kTypes && !type_cause) {
      type_cause = classify_type_bullet(t);
    }
  }
  if (miss->location.empty()) miss->location = e.callsite;
  for (size_t i = 0; i < e.body.size(); ++i) {
    if (i) miss->detail += '\n';
    miss->detail += e.body[i];
  }
  switch (category) {
    case Category::kNeverSeen:
      miss->cause_class = "never_seen";
      return !miss->function.empty();
    case Category::kContext:
      miss->cause_class = "context";
      return true;
    case Category::kPytree:
      // HEAD keeps static arguments in the input pytree: a differing static node is a static
      // argument that took a new value (docs/xla_formats.md).
      miss->cause_class = mentions_static(e.body) ? "static_arg" : "pytree";
      return true;
    case Category::kStatic:
      miss->cause_class = "static_arg";
      return true;
    case Category::kTypes:
      miss->cause_class = type_cause.value_or("other");
      return type_cause.has_value();
    case Category::kOther:
      miss->cause_class = "other";
      return true;
    case Category::kNone:
      break;
  }
  miss->cause_class = "other";
  return false;
}

// Whether an unprefixed message starts a JAX record (and so ends an open explanation).
bool starts_jax_record(std::string_view msg) {
  static constexpr std::string_view kStarts[] = {"TRACING CACHE MISS",
                                                 "Finished ",
                                                 "Compiling ",
                                                 "Persistent compilation cache",
                                                 "PERSISTENT COMPILATION CACHE",
                                                 "Not writing ",
                                                 "Writing ",
                                                 "Cache miss for key",
                                                 "Cache hit for key"};
  for (std::string_view s : kStarts)
    if (msg.starts_with(s)) return true;
  return false;
}

// An explanation's own wording (every era, docs/jax_log.md), for a line that follows other output:
// only such a line goes on with the explanation; any other indented line belongs to that output.
bool explanation_wording(std::string_view line) {
  std::string_view t = ltrim(line);
  static constexpr std::string_view kStarts[] = {"for ",
                                                 "never seen",
                                                 "all previously seen",
                                                 "closest seen",
                                                 "* ",
                                                 "different",
                                                 "tracing context",
                                                 "explanation unavailable",
                                                 "cache miss explanation",
                                                 "where weak_type",
                                                 "weak_type=",
                                                 "See https://",
                                                 "but ",
                                                 "so "};
  for (std::string_view s : kStarts)
    if (t.starts_with(s)) return true;
  if (contains(t, " defined at ")) return true;
  // A type-signature line `x: f32[4]` / `args[0]: i32[]`.
  size_t colon = t.find(": ");
  return colon != std::string_view::npos && colon > 0 && colon < 40 &&
         t.find('[', colon) != std::string_view::npos && t.find(' ') == colon + 1;
}

// An unprefixed line that continues an explanation. Explanations indent their lines, except
// the 0.4.24 weak-type hint and the 0.6 `explanation unavailable!` line; a paste that lost the
// indentation keeps the explanation's own wording (docs/jax_log.md).
bool continues_explanation(std::string_view line) {
  if (is_blank(line)) return false;
  if (line[0] == ' ' || line[0] == '\t') {
    std::string_view t = ltrim(line);
    return !t.starts_with("File \"") && !t.starts_with("Traceback ");
  }
  return explanation_wording(line) && !starts_jax_record(line);
}

// An unindented line that goes on with a sentence the explanation's last line left open (`maybe
// the function is` / `being re-defined repeatedly, ...`): a paste that lost the indentation
// keeps the sentence.
bool continues_sentence(const std::vector<std::string>& body, std::string_view line) {
  if (body.empty() || line.empty() || !(line[0] >= 'a' && line[0] <= 'z')) return false;
  if (read_step_line(line)) return false;  // the user's own progress line
  std::string_view last = rtrim(body.back());
  return !last.empty() && ((last.back() >= 'a' && last.back() <= 'z') || last.back() == ',');
}

// Lines of other output an explanation may be interleaved with (another thread's print, a blank
// line) before it is taken as ended: at most this many in a row.
constexpr int kMaxInterleavedJaxLines = 2;

class JaxLogImporter : public Importer {
 public:
  explicit JaxLogImporter(EventSink& sink) : sink_(sink) {}

  void on_line(std::string_view line, int64_t line_no) override {
    if (open_ && open_->body.size() < kMaxExplanationLines &&
        ((continues_explanation(line) && (interleaved_ == 0 || explanation_wording(line))) ||
         (interleaved_ == 0 && continues_sentence(open_->body, line)))) {
      open_->body.emplace_back(line);
      open_last_line_ = line_no;
      interleaved_ = 0;
      return;
    }
    if (open_ && interleaved_ < kMaxInterleavedJaxLines && interleaved(line)) {
      ++interleaved_;
      other_output(line, split_line(line).message, line_no, /*jax_logger=*/false);
      return;
    }
    interleaved_ = 0;
    if (is_blank(line)) {
      close();
      sink_.note(line_no, reason::kBlank, line);
      return;
    }
    Body b = split_line(line);
    if (b.pytest_only) {
      close();
      sink_.note(line_no, reason::kPytestNoise, line);
      return;
    }
    std::string_view msg = b.message;
    bool searched = false;
    if (size_t at = find_message(msg); at != 0 && at != std::string_view::npos) {
      msg = msg.substr(at);
      searched = true;
    }
    // Records of other loggers between explanation lines are interleaved output; anything
    // unprefixed ends the explanation.
    if (!b.prefixed && !searched) close();

    if (msg.starts_with("TRACING CACHE MISS at ")) {
      close();
      open_explanation(msg, line, line_no);
      return;
    }
    Parse r = parse_compile(msg, line_no, sink_);
    if (r == Parse::kNotMine) r = parse_persistent_cache(msg, line_no, sink_);
    if (r == Parse::kParsed) return;
    if (r == Parse::kBad) {
      sink_.note(
          line_no,
          contains(msg, "ersistent") ? reason::kBadPersistentCacheLine : reason::kBadJaxCompileLine,
          line);
      return;
    }
    if (msg.starts_with("Cache miss for key: ") || msg.starts_with("Cache hit for key: ")) {
      // lru_cache.py repeats what the compiler.py hit/miss line says.
      sink_.note(line_no, reason::kLruCacheDetail, line);
      return;
    }
    // absl is the logger of the user's own training loop in JAX programs (CLU's metric writer,
    // `logging.info("step %d", ...)`); JAX's own records through it were claimed above.
    other_output(line, msg, line_no, b.logger.starts_with("jax"));
  }

  // Every member is a value (ingest/importer.h).
  std::unique_ptr<Importer> clone() const override {
    return std::make_unique<JaxLogImporter>(*this);
  }

  void finish() override { close(); }

 private:
  // A line that is no JAX record: the user's `step N` line, or output counted and skipped.
  void other_output(std::string_view line, std::string_view msg, int64_t line_no, bool jax_logger) {
    if (is_blank(line)) return sink_.note(line_no, reason::kBlank, line);
    if (!jax_logger) {
      if (auto progress = read_step_line(msg))  // the user's own `step N` line
        return emit_progress(sink_, line_no, std::move(*progress), line);
    }
    sink_.note(line_no, jax_logger ? reason::kOtherJaxMessage : reason::kOtherOutput, line);
  }

  // A line of other output inside an open explanation: blank, or unprefixed text that starts no
  // JAX record (the explanation goes on if its indented lines follow).
  static bool interleaved(std::string_view line) {
    if (is_blank(line)) return true;
    if (line[0] == ' ' || line[0] == '\t') return false;
    Body b = split_line(line);
    return !b.prefixed && !b.pytest_only && !starts_jax_record(b.message) &&
           find_message(b.message) == std::string_view::npos;
  }

  void open_explanation(std::string_view msg, std::string_view line, int64_t line_no) {
    std::string_view callsite = rtrim(msg.substr(22));
    // A header quoted in a JSON or Python string (a structured log) ends in its closing quote.
    while (!callsite.empty() &&
           (callsite.back() == '"' || callsite.back() == '\'' || callsite.back() == ','))
      callsite.remove_suffix(1);
    if (callsite.ends_with(" because:")) {
      callsite.remove_suffix(9);
    } else if (callsite.ends_with(":")) {
      callsite.remove_suffix(1);
    } else if (!is_blank(callsite)) {
      // A header a terminal or an excerpt cut: still a miss; its call site is read when the cut
      // left it whole, else unknown.
      sink_.note(line_no, reason::kCutCacheMissHeader, line);
      if (!starts_with_file_line(callsite)) callsite = {};
    } else {
      sink_.note(line_no, reason::kBadCacheMissHeader, line);
      return;
    }
    // jax 0.6-0.8: `TRACING CACHE MISS at <callsite> costing <t> ms because:`.
    if (size_t costing = callsite.rfind(" costing "); costing != std::string_view::npos)
      callsite = callsite.substr(0, costing);
    open_ = Explanation{};
    open_->line = line_no;
    open_->callsite = callsite_location(callsite);
    open_last_line_ = line_no;
  }

  // Emits the open explanation. One that names no cause was cut off (end of file or snippet).
  void close() {
    if (!open_) return;
    JaxCacheMiss miss;
    bool complete = build_cache_miss(*open_, &miss);
    if (!complete)
      sink_.note(open_last_line_, reason::kTruncatedBlock,
                 open_->body.empty() ? std::string_view() : std::string_view(open_->body.back()));
    sink_.emit(std::move(miss));
    open_.reset();
  }

  EventSink& sink_;
  std::optional<Explanation> open_;
  int64_t open_last_line_ = 0;
  int interleaved_ = 0;  // lines of other output since the open explanation's last line
};

// The score of a head with a JAX marker (the only one it gives).
constexpr int kJaxScore = 85;

// Texts only JAX's logs print; "Compiling " only in the lines the sniffer checks further.
constexpr std::string_view kJaxMarkers[] = {
    "Finished tracing + transforming",  "TRACING CACHE MISS", "Finished XLA compilation",
    "Persistent compilation cache hit", "jax._src.",
};
constexpr std::string_view kJaxCompiling = "Compiling ";

int sniff_jax_log(std::string_view head) {
  for (std::string_view marker : kJaxMarkers)
    if (contains(head, marker)) return kJaxScore;
  for (size_t at = head.find(kJaxCompiling); at != std::string_view::npos;
       at = head.find(kJaxCompiling, at + kJaxCompiling.size())) {
    size_t eol = head.find('\n', at);
    std::string_view line = head.substr(at, eol == std::string_view::npos ? eol : eol - at);
    // 2019-2021: `Compiling f for args (ShapedArray(...), ...)` (docs/jax_log.md).
    if (contains(line, " with global shapes") ||
        (contains(line, " for args (") && contains(line, "ShapedArray(")))
      return kJaxScore;
  }
  return 0;
}

}  // namespace

ImporterInfo jax_log_importer_info() {
  std::vector<std::string_view> console_markers(std::begin(kJaxMarkers), std::end(kJaxMarkers));
  console_markers.push_back(kJaxCompiling);
  return {"jax_log",
          "JAX logs: jax_log_compiles, jax_explain_cache_misses and persistent compilation "
          "cache lines of every era",
          sniff_jax_log,
          [](EventSink& sink) -> std::unique_ptr<Importer> {
            return std::make_unique<JaxLogImporter>(sink);
          },
          kJaxScore,
          std::move(console_markers)};
}

}  // namespace rcf::ingest
