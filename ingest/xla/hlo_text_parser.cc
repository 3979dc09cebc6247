// Streaming HLO text parser (docs/hlo_text.md). One pass, one line at a time, no
// regex: every line is scanned by hand with a bracket-depth scanner that skips string literals
// and `/*...*/` comments and stops at a `//` comment.
//
// Fingerprints. Each computation header, instruction and closing brace becomes a canonical record
// (whitespace, comments and metadata dropped; every instruction and computation name replaced by
// its ordinal of first appearance in the module; operand shapes of the long style dropped, so
// both printing styles of one module agree). The record is hashed with 64-bit FNV-1a and the
// record hashes are chained in order. The structure chain leaves out constant literals; the full
// chain adds them after the record they belong to.
//
// Lifetimes: every string_view here points into the line being fed and dies with feed(); what a
// module keeps (names, shapes, metadata) is copied, instruction names into NameTable's arena.
#include "ingest/xla/hlo_text_parser.h"

#include <algorithm>
#include <charconv>
#include <cstring>
#include <string>
#include <unordered_map>
#include <utility>

#include "ingest/reading/text_util.h"
#include "ingest/xla/hlo_instruction_encoding.h"
#include "util/text_table.h"

namespace rcf::ingest {
namespace {

constexpr uint64_t kFnvOffset = 0xcbf29ce484222325ull;
constexpr uint64_t kFnvPrime = 0x100000001b3ull;

uint64_t fnv1a(std::string_view s, uint64_t h = kFnvOffset) {
  for (unsigned char c : s) {
    h ^= c;
    h *= kFnvPrime;
  }
  return h;
}

// Chains the 8 bytes of `value` into `state` (FNV-1a), so record order matters.
uint64_t chain(uint64_t state, uint64_t value) {
  for (int k = 0; k < 8; ++k) {
    state ^= (value >> (8 * k)) & 0xff;
    state *= kFnvPrime;
  }
  return state;
}

std::string hex64(uint64_t v) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out(16, '0');
  for (int k = 15; k >= 0; --k, v >>= 4) out[k] = kDigits[v & 0xf];
  return out;
}

// Character classes, one table lookup per byte on the hot path.
enum : uint8_t {
  kNameChar = 1,
  kNameStart = 2,
  kOpcodeChar = 4,
  kLower = 8,
  kDigit = 16,
  kGroupSpecial = 32,  // bytes skip_group must look at: brackets, '"', '/'
};
struct CharTable {
  uint8_t bits[256] = {};
  constexpr CharTable() {
    for (int c = 0; c < 256; ++c) {
      bool lower = c >= 'a' && c <= 'z';
      bool upper = c >= 'A' && c <= 'Z';
      bool digit = c >= '0' && c <= '9';
      uint8_t b = 0;
      if (lower || upper || digit || c == '_' || c == '.' || c == '-') b |= kNameChar;
      if (lower || upper || c == '_') b |= kNameStart;
      if (lower || digit || c == '-') b |= kOpcodeChar;
      if (lower) b |= kLower;
      if (digit) b |= kDigit;
      for (char special : {'(', ')', '[', ']', '{', '}', '"', '/'})
        if (c == special) b |= kGroupSpecial;
      bits[c] = b;
    }
  }
};
constexpr CharTable kChars;
inline bool has(char c, uint8_t bit) {
  return kChars.bits[static_cast<unsigned char>(c)] & bit;
}
inline bool is_hlo_blank(char c) {
  return c == ' ' || c == '\t' || c == '\r';
}

// Skips blanks and `/*...*/` comments; a `//` comment runs to the end of the line.
size_t skip_ws(std::string_view s, size_t i) {
  const size_t n = s.size();
  while (i < n) {
    char c = s[i];
    if (is_hlo_blank(c)) {
      ++i;
    } else if (c == '/' && i + 1 < n && s[i + 1] == '*') {
      size_t end = s.find("*/", i + 2);
      i = end == kNpos ? n : end + 2;
    } else if (c == '/' && i + 1 < n && s[i + 1] == '/') {
      return n;
    } else {
      break;
    }
  }
  return i;
}

// s[i] is '"'; returns the position after the closing quote (`\` escapes honoured).
size_t skip_string(std::string_view s, size_t i) {
  const size_t n = s.size();
  const char* data = s.data();
  for (size_t from = i + 1; from < n;) {
    const void* quote = std::memchr(data + from, '"', n - from);
    if (!quote) return n;
    size_t q = static_cast<const char*>(quote) - data;
    size_t backslashes = 0;
    while (q - backslashes > i + 1 && data[q - backslashes - 1] == '\\') ++backslashes;
    if (backslashes % 2 == 0) return q + 1;
    from = q + 1;
  }
  return n;
}

// s[i] is one of `([{`; returns the position after its matching closer, kNpos if the line ends
// first. Strings and block comments inside are skipped.
size_t skip_group(std::string_view s, size_t i) {
  const size_t n = s.size();
  int depth = 0;
  while (i < n) {
    if (!has(s[i], kGroupSpecial)) {
      ++i;
      continue;
    }
    switch (s[i]) {
      case '(':
      case '[':
      case '{':
        ++depth;
        ++i;
        break;
      case ')':
      case ']':
      case '}':
        ++i;
        if (--depth == 0) return i;
        break;
      case '"':
        i = skip_string(s, i);
        break;
      case '/':
        if (i + 1 < n && s[i + 1] == '*') {
          size_t end = s.find("*/", i + 2);
          i = end == kNpos ? n : end + 2;
        } else {
          ++i;
        }
        break;
      default:
        ++i;
    }
  }
  return kNpos;
}

// Calls f(piece) for each top-level comma-separated piece of `s` (pieces are untrimmed).
template <typename F>
void split_top_level(std::string_view s, F&& f) {
  const size_t n = s.size();
  size_t start = 0;
  size_t i = 0;
  while (i < n) {
    char c = s[i];
    if (c == '(' || c == '[' || c == '{') {
      size_t end = skip_group(s, i);
      i = end == kNpos ? n : end;
    } else if (c == '"') {
      i = skip_string(s, i);
    } else if (c == '/' && i + 1 < n && s[i + 1] == '*') {
      size_t end = s.find("*/", i + 2);
      i = end == kNpos ? n : end + 2;
    } else if (c == ',') {
      f(s.substr(start, i - start));
      start = ++i;
    } else {
      ++i;
    }
  }
  if (start < n || n == 0 || s[n - 1] == ',') f(s.substr(start));
}

// Calls f(key, value) for each `, key=value` attribute from s[i]; values are right-trimmed and
// may hold comments. Stops at the end of the line, a `//` comment or anything malformed.
template <typename F>
void for_each_attribute(std::string_view s, size_t i, F&& f) {
  const size_t n = s.size();
  while (true) {
    i = skip_ws(s, i);
    if (i >= n || s[i] != ',') return;
    i = skip_ws(s, i + 1);
    size_t key_begin = i;
    while (i < n && has(s[i], kNameChar)) ++i;
    std::string_view key = s.substr(key_begin, i - key_begin);
    i = skip_ws(s, i);
    if (key.empty() || i >= n || s[i] != '=') return;
    i = skip_ws(s, i + 1);
    size_t value_begin = i;
    while (i < n && s[i] != ',') {
      char c = s[i];
      if (c == '(' || c == '[' || c == '{') {
        size_t end = skip_group(s, i);
        i = end == kNpos ? n : end;
      } else if (c == '"') {
        i = skip_string(s, i);
      } else if (c == '/' && i + 1 < n && s[i + 1] == '/') {
        break;
      } else {
        ++i;
      }
    }
    f(key, rtrim(s.substr(value_begin, i - value_begin)));
  }
}

// End of the shape starting at s[i]: `(tuple)`, `b(shape)` or `dtype[dims]{layout}`; kNpos when
// s[i] starts no shape.
size_t scan_shape(std::string_view s, size_t i) {
  const size_t n = s.size();
  if (i >= n) return kNpos;
  if (s[i] == '(') return skip_group(s, i);
  if (!has(s[i], kLower)) return kNpos;
  size_t j = i;
  while (j < n && has(s[j], kLower | kDigit)) ++j;
  if (j < n && s[j] == '(' && j - i == 1 && s[i] == 'b') return skip_group(s, j);
  if (j >= n || s[j] != '[') return kNpos;
  j = skip_group(s, j);
  if (j == kNpos) return kNpos;
  if (j < n && s[j] == '{') j = skip_group(s, j);
  return j;
}

// Whether `s` holds a `/*` (memchr for the slash: a substring search per field was a twentieth
// of an HLO dump's ingest).
bool has_comment(std::string_view s) {
  for (size_t i = 0; i < s.size(); ++i) {
    const void* slash = std::memchr(s.data() + i, '/', s.size() - i);
    if (!slash) return false;
    i = static_cast<size_t>(static_cast<const char*>(slash) - s.data());
    if (i + 1 < s.size() && s[i + 1] == '*') return true;
  }
  return false;
}

// `s` trimmed, comments removed: a view into `s` when it has none, else into `scratch`.
std::string_view strip_comments(std::string_view s, std::string& scratch) {
  s = trim(s);
  if (!has_comment(s)) return s;
  scratch.clear();
  size_t i = 0;
  while (i < s.size()) {
    if (s[i] == '"') {
      size_t end = skip_string(s, i);
      scratch.append(s.substr(i, end - i));
      i = end;
    } else if (s[i] == '/' && i + 1 < s.size() && s[i + 1] == '*') {
      size_t end = s.find("*/", i + 2);
      i = end == kNpos ? s.size() : end + 2;
    } else {
      scratch.push_back(s[i++]);
    }
  }
  return trim(scratch);
}

// A copy of `s` without block comments, trimmed.
std::string strip_comments(std::string_view s) {
  std::string scratch;
  return std::string(strip_comments(s, scratch));
}

// Appends `v` without blanks and comments (string literals verbatim) to `out`.
void append_canon(std::string& out, std::string_view v) {
  const size_t n = v.size();
  size_t i = 0;
  while (i < n) {
    size_t run = i;
    while (run < n && !is_hlo_blank(v[run]) && v[run] != '"' && v[run] != '/') ++run;
    out.append(v.data() + i, run - i);
    i = run;
    if (i >= n) break;
    char c = v[i];
    if (is_hlo_blank(c)) {
      ++i;
    } else if (c == '"') {
      size_t end = skip_string(v, i);
      out.append(v.data() + i, end - i);
      i = end;
    } else if (i + 1 < n && v[i + 1] == '*') {
      size_t end = v.find("*/", i + 2);
      i = end == kNpos ? n : end + 2;
    } else if (i + 1 < n && v[i + 1] == '/') {
      break;
    } else {
      out.push_back(c);
      ++i;
    }
  }
}

// Fills dtype/dims/layout/shape_text of `p` from a shape as printed.
void set_shape(HloParameter& p, std::string_view shape) {
  p.shape_text = strip_comments(shape);
  std::string_view s = p.shape_text;
  p.dims.clear();
  p.layout.clear();
  if (s.empty()) {
    p.dtype.clear();
    return;
  }
  if (s[0] == '(') {
    p.dtype = "tuple";
    return;
  }
  size_t bracket = s.find('[');
  if (bracket == kNpos) {
    p.dtype = std::string(s);
    return;
  }
  p.dtype = std::string(s.substr(0, bracket));
  size_t close = s.find(']', bracket);
  if (close == kNpos) return;
  std::string_view dims = s.substr(bracket + 1, close - bracket - 1);
  if (!trim(dims).empty()) {
    split_top_level(dims, [&](std::string_view d) {
      d = trim(d);
      if (d.starts_with("<=")) d = trim(d.substr(2));
      if (d == "?") {
        p.dims.push_back(-1);  // unbounded dynamic dimension
      } else if (auto v = parse_int64(d)) {
        p.dims.push_back(*v);
      } else {
        p.dims.push_back(-1);
      }
    });
  }
  std::string_view rest = s.substr(close + 1);
  if (rest.starts_with("{")) p.layout = std::string(rest);
}

// Instruction/computation names numbered by first appearance (util::TextTable: no allocation
// per instruction once grown), with the constant each names while its first user is unknown.
class NameTable {
 public:
  struct Entry {
    uint32_t ordinal;
    int32_t& constant;  // index into HloModule::constants, -1 if none; valid until the next get()
  };
  Entry get(std::string_view name) {
    uint32_t ordinal = names_.ordinal(name);
    if (ordinal > constants_.size()) constants_.resize(ordinal, -1);
    return {ordinal, constants_[ordinal - 1]};
  }
  void clear() {
    names_.clear();
    constants_.clear();
  }

 private:
  util::TextTable names_;
  std::vector<int32_t> constants_;  // by ordinal - 1
};

struct StringHash {
  using is_transparent = void;
  size_t operator()(std::string_view s) const { return fnv1a(s); }
};

// Attributes whose values name computations or instructions: renamed like operands.
bool names_references(std::string_view key) {
  static constexpr std::string_view kKeys[] = {"calls",
                                               "to_apply",
                                               "condition",
                                               "body",
                                               "select",
                                               "scatter",
                                               "branch_computations",
                                               "true_computation",
                                               "false_computation",
                                               "called_computations",
                                               "control-predecessors",
                                               "async_computation"};
  for (std::string_view k : kKeys)
    if (key == k) return true;
  return false;
}

bool is_name(std::string_view s) {
  if (s.empty() || !has(s[0], kNameStart)) return false;
  for (char c : s)
    if (!has(c, kNameChar)) return false;
  return true;
}

// Unescapes a metadata string value (s includes the quotes).
// Assigns `s` to `out`, its quotes removed and escapes undone.
void unquote(std::string_view s, std::string& out) {
  if (s.size() >= 2 && s.front() == '"' && s.back() == '"') s = s.substr(1, s.size() - 2);
  if (s.find('\\') == kNpos) {  // the common case: copied whole
    out.assign(s);
    return;
  }
  out.clear();
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\\' && i + 1 < s.size()) ++i;
    out.push_back(s[i]);
  }
}

// metadata={op_type="..." op_name="..." source_file="..." source_line=N ...} into `c`. op_name
// is preferred; op_type fills it when the producer printed no op_name.
void parse_metadata(std::string_view v, HloConstant& c) {
  if (!v.starts_with("{")) return;
  v = v.substr(1);
  if (v.ends_with("}")) v.remove_suffix(1);
  std::string op_type;
  size_t i = 0;
  const size_t n = v.size();
  while (true) {
    i = skip_ws(v, i);
    if (i >= n) break;
    size_t key_begin = i;
    while (i < n && v[i] != '=' && !is_hlo_blank(v[i])) ++i;
    std::string_view key = v.substr(key_begin, i - key_begin);
    if (i >= n || v[i] != '=') break;
    ++i;
    size_t value_begin = i;
    if (i < n && v[i] == '"') {
      i = skip_string(v, i);
    } else if (i < n && v[i] == '{') {
      size_t end = skip_group(v, i);
      i = end == kNpos ? n : end;
    } else {
      while (i < n && !is_hlo_blank(v[i])) ++i;
    }
    std::string_view value = v.substr(value_begin, i - value_begin);
    if (key == "op_name") {
      unquote(value, c.op_name);
    } else if (key == "op_type") {
      unquote(value, op_type);
    } else if (key == "source_file") {
      unquote(value, c.source_file);
    } else if (key == "source_line") {
      if (auto line = parse_int64(value)) c.source_line = *line;
    }
  }
  if (c.op_name.empty()) c.op_name = std::move(op_type);
}

}  // namespace

struct HloTextParser::State {
  std::vector<HloModule> done;

  // The open module.
  bool in_module = false;
  bool headless = false;  // opened by an instruction or computation line: its start is missing
  bool in_stack_frames = false;
  bool missing_header = false;  // instructions seen outside any computation header
  HloModule module;
  std::vector<std::string> layout_params;  // parameter shapes of entry_computation_layout
  bool comp_open = false;
  bool comp_entry = false;
  bool seen_entry_keyword = false;
  int64_t comps_closed = 0;
  std::vector<HloParameter> comp_params;   // of the open computation
  std::vector<HloParameter> entry_params;  // of the ENTRY computation (or the last one closed)
  bool have_entry_params = false;
  NameTable names;
  std::unordered_map<std::string, int64_t, StringHash, std::equal_to<>> ops;
  uint64_t structure_hash = kFnvOffset;
  uint64_t full_hash = kFnvOffset;
  uint64_t skeleton_hash = kFnvOffset;
  // Scratch of parse_instruction: canon ranges left out of the skeleton, and the skeleton.
  std::vector<std::pair<size_t, size_t>> cut;
  std::string skeleton;
  std::string canon;              // scratch: canonical record of the current line
  std::string literal;            // scratch: canonical constant literal
  HloInstructionEncoder encoder;  // the open module's instructions (HloModule::instruction_text)
  std::string stripped;           // scratch: a field without its comments
  HloConstant metadata;           // scratch: the current instruction's metadata

  void open_module(int64_t line_no, bool is_headless) {
    complete_module();
    in_module = true;
    headless = is_headless;
    module.line = line_no;
  }

  // The canonical record of the current line joins the structure and full hashes; `skeleton` is
  // its part without instruction shapes and attribute values (the whole record by default).
  void add_record() {
    uint64_t h = fnv1a(canon);
    structure_hash = chain(structure_hash, h);
    full_hash = chain(full_hash, h);
    skeleton_hash = chain(skeleton_hash, h);
  }
  void add_record(std::string_view skeleton_part) {
    uint64_t h = fnv1a(canon);
    structure_hash = chain(structure_hash, h);
    full_hash = chain(full_hash, h);
    skeleton_hash = chain(skeleton_hash, fnv1a(skeleton_part));
  }

  void append_ordinal(std::string_view name) {
    canon.push_back('#');
    append_int(canon, names.get(name).ordinal);
  }

  // Appends `v` with every name replaced by its ordinal (attributes that reference computations).
  void append_renamed(std::string_view v) {
    const size_t n = v.size();
    size_t i = 0;
    while (i < n) {
      char c = v[i];
      if (c == '%' || has(c, kNameStart)) {
        size_t begin = c == '%' ? i + 1 : i;
        size_t end = begin;
        while (end < n && has(v[end], kNameChar)) ++end;
        if (end > begin) {
          append_ordinal(v.substr(begin, end - begin));
        } else {
          canon.push_back(c);
        }
        i = std::max(end, i + 1);
      } else if (c == '"') {
        size_t end = skip_string(v, i);
        canon.append(v.substr(i, end - i));
        i = end;
      } else {
        if (!is_hlo_blank(c)) canon.push_back(c);
        ++i;
      }
    }
  }

  void close_computation() {
    if (comp_entry) {
      entry_params = std::move(comp_params);
      have_entry_params = true;
    } else if (!seen_entry_keyword) {
      // Without an ENTRY keyword the last computation is the entry.
      entry_params = std::move(comp_params);
      have_entry_params = true;
    }
    comp_params.clear();
    comp_open = false;
    comp_entry = false;
    ++comps_closed;
  }

  void complete_module() {
    if (!in_module) return;
    bool truncated = headless || missing_header || comp_open || comps_closed == 0;
    if (comp_open) close_computation();
    std::vector<HloParameter>& params = module.parameters;
    if (have_entry_params) params = std::move(entry_params);
    std::stable_sort(
        params.begin(), params.end(),
        [](const HloParameter& a, const HloParameter& b) { return a.number < b.number; });
    // Numbers that the (possibly cut) entry computation did not show come from the header layout.
    std::vector<HloParameter> merged;
    size_t next = 0;
    for (size_t k = 0; k < layout_params.size(); ++k) {
      while (next < params.size() && params[next].number < static_cast<int64_t>(k))
        merged.push_back(std::move(params[next++]));
      if (next < params.size() && params[next].number == static_cast<int64_t>(k)) continue;
      HloParameter p;
      p.number = static_cast<int64_t>(k);
      set_shape(p, layout_params[k]);
      merged.push_back(std::move(p));
    }
    while (next < params.size()) merged.push_back(std::move(params[next++]));
    params = std::move(merged);

    module.truncated = truncated;
    module.structure_fingerprint = hex64(structure_hash);
    module.full_fingerprint = hex64(full_hash);
    module.skeleton_fingerprint = hex64(skeleton_hash);
    for (auto& [op, count] : ops) module.op_histogram.emplace(op, count);
    module.instruction_text = encoder.take();
    done.push_back(std::move(module));

    module = HloModule();
    in_module = false;
    headless = false;
    missing_header = false;
    in_stack_frames = false;
    layout_params.clear();
    comp_open = comp_entry = seen_entry_keyword = false;
    comps_closed = 0;
    comp_params.clear();
    entry_params.clear();
    have_entry_params = false;
    names.clear();
    ops.clear();
    structure_hash = full_hash = skeleton_hash = kFnvOffset;
  }

  // `HloModule <name>, attr=..., ...`; s starts at "HloModule".
  void parse_module_header(std::string_view s, int64_t line_no) {
    open_module(line_no, /*is_headless=*/false);
    size_t i = skip_ws(s, 9);
    size_t name_begin = i;
    while (i < s.size() && s[i] != ',' && !is_hlo_blank(s[i])) ++i;
    module.module_name = std::string(s.substr(name_begin, i - name_begin));
    canon.assign("M");
    for_each_attribute(s, i, [&](std::string_view key, std::string_view value) {
      canon.append(key);
      canon.push_back('=');
      append_canon(canon, value);
      canon.push_back(',');
      if (key != "entry_computation_layout") return;
      module.entry_layout = std::string(value);
      // {(<P0>, <P1>, ...)-><R>}
      if (!value.starts_with("{")) return;
      size_t p = skip_ws(value, 1);
      if (p >= value.size() || value[p] != '(') return;
      size_t end = skip_group(value, p);
      if (end == kNpos) return;
      std::string_view list = value.substr(p + 1, end - p - 2);
      if (trim(list).empty()) return;
      split_top_level(
          list, [&](std::string_view piece) { layout_params.push_back(strip_comments(piece)); });
    });
    add_record("M");  // the layout repeats the parameter and result shapes
  }

  // The parts of an instruction line, views into it.
  struct InstructionLine {
    bool root = false;
    std::string_view name, shape, opcode, args;
    size_t args_end = 0;  // just past the operand list's `)`
  };

  // `[ROOT] [%]name = shape opcode(operands), attributes`. False (nothing changed) when the line
  // is no instruction. The HLO dump ingest's hot loop, measured when it was split into the
  // phases below: callgrind counted 470.9 M instructions in it against 475.5 M whole (30
  // generated modules), and xla_ingest_bench's HLO dump time stayed within its noise.
  bool parse_instruction(std::string_view s, int64_t line_no) {
    InstructionLine line;
    if (!scan_instruction(s, line)) return false;
    enter_instruction(line.opcode, line_no);
    start_record(line);
    const bool is_constant = line.opcode == "constant";
    HloConstant* constant = nullptr;
    if (is_constant)
      constant = add_constant(line);
    else if (line.opcode == "parameter")
      add_parameter(line);
    else if (!trim(line.args).empty())
      add_operands(line);
    canon.push_back(')');
    add_attributes(s, line.args_end, constant);
    encoder.end();
    add_skeleton_record();
    if (is_constant) full_hash = chain(full_hash, fnv1a(literal));
    return true;
  }

  // Phase 1: the line's parts, or false when it is no instruction. Reads nothing but `s`.
  static bool scan_instruction(std::string_view s, InstructionLine& line) {
    const size_t n = s.size();
    size_t i = skip_ws(s, 0);
    if (s.compare(i, 5, "ROOT ") == 0) {
      line.root = true;
      i = skip_ws(s, i + 5);
    }
    if (i < n && s[i] == '%') ++i;
    if (i >= n || !has(s[i], kNameStart)) return false;
    size_t name_begin = i;
    while (i < n && has(s[i], kNameChar)) ++i;
    line.name = s.substr(name_begin, i - name_begin);
    i = skip_ws(s, i);
    if (i >= n || s[i] != '=') return false;
    i = skip_ws(s, i + 1);
    size_t shape_begin = i;
    size_t shape_end = scan_shape(s, i);
    if (shape_end == kNpos) return false;
    line.shape = s.substr(shape_begin, shape_end - shape_begin);
    i = skip_ws(s, shape_end);
    size_t op_begin = i;
    while (i < n && has(s[i], kOpcodeChar)) ++i;
    if (i == op_begin || !has(s[op_begin], kLower) || i >= n || s[i] != '(') return false;
    line.opcode = s.substr(op_begin, i - op_begin);
    line.args_end = skip_group(s, i);
    if (line.args_end == kNpos) return false;
    line.args = s.substr(i + 1, line.args_end - i - 2);
    return true;
  }

  // Phase 2: the module and computation the instruction belongs to, and the module's counts.
  void enter_instruction(std::string_view opcode, int64_t line_no) {
    if (!in_module) open_module(line_no, /*is_headless=*/true);
    if (!comp_open) {
      // An instruction outside any computation header (a fragment): an implicit computation,
      // and the module is incomplete.
      missing_header = true;
      comp_open = true;
      comp_entry = false;
      in_stack_frames = false;
    }
    ++module.instruction_count;
    if (auto it = ops.find(opcode); it != ops.end()) {
      ++it->second;
    } else {
      ops.emplace(std::string(opcode), 1);
    }
  }

  // Phase 3: the instruction's encoded line begun, and its canonical text up to the operand
  // list's `(`.
  void start_record(const InstructionLine& line) {
    canon.assign(line.root ? "R" : "I");
    append_ordinal(line.name);
    canon.push_back(' ');
    const size_t shape_from = canon.size();
    append_canon(canon, line.shape);
    const size_t shape_to = canon.size();
    cut.assign(1, {shape_from, shape_to});
    canon.push_back(' ');
    encoder.begin(names.get(line.name).ordinal, line.name, line.opcode,
                  std::string_view(canon).substr(shape_from, shape_to - shape_from),
                  strip_comments(line.shape, stripped));
    canon.append(line.opcode);
    canon.push_back('(');
  }

  // Phase 4, a constant: its literal goes to `literal` (the full fingerprint), not the canon.
  HloConstant* add_constant(const InstructionLine& line) {
    literal.clear();
    append_canon(literal, line.args);
    HloConstant* constant = &module.constants.emplace_back();
    constant->name = std::string(line.name);
    constant->shape_text = strip_comments(line.shape);
    constant->value_text = strip_comments(line.args);
    constant->elided = constant->value_text == "{...}";
    names.get(line.name).constant = static_cast<int32_t>(module.constants.size() - 1);
    return constant;
  }

  // Phase 4, a parameter: a later one of the same number in the computation replaces it.
  void add_parameter(const InstructionLine& line) {
    append_canon(canon, line.args);
    HloParameter p;
    if (auto number = parse_int64(trim(line.args))) p.number = *number;
    p.name = std::string(line.name);
    set_shape(p, line.shape);
    for (HloParameter& q : comp_params) {
      if (q.number == p.number) {
        q = std::move(p);
        return;
      }
    }
    comp_params.push_back(std::move(p));
  }

  // Phase 4, any other op: operands that name instructions become their ordinals.
  void add_operands(const InstructionLine& line) {
    split_top_level(line.args, [&](std::string_view operand) {
      std::string_view word = last_word(operand);
      if (!word.empty() && word[0] == '%') word.remove_prefix(1);
      if (is_name(word)) {
        NameTable::Entry e = names.get(word);
        canon.push_back('#');
        append_int(canon, e.ordinal);
        encoder.operand(e.ordinal);
        if (e.constant >= 0) {
          module.constants[e.constant].user_op = std::string(line.opcode);
          e.constant = -1;
        }
      } else {
        append_canon(canon, word);
      }
      canon.push_back(',');
    });
  }

  // Phase 5: the attributes after the operand list (from `args_end`); metadata is kept in the
  // encoded line (and on the constant), out of the canon.
  void add_attributes(std::string_view s, size_t args_end, HloConstant* constant) {
    for_each_attribute(s, args_end, [&](std::string_view key, std::string_view value) {
      if (key == "metadata") {
        if (constant) parse_metadata(value, *constant);
        metadata.op_name.clear();
        metadata.source_file.clear();
        metadata.source_line = -1;
        parse_metadata(value, metadata);
        encoder.metadata(metadata.op_name, metadata.source_file, metadata.source_line);
        return;
      }
      canon.push_back(',');
      canon.append(key);
      canon.push_back('=');
      const size_t value_from = canon.size();
      if (names_references(key)) {
        append_renamed(value);
      } else {
        append_canon(canon, value);
        cut.push_back({value_from, canon.size()});
      }
      encoder.attribute(key, names_references(key), std::string_view(canon).substr(value_from),
                        strip_comments(value, stripped));
    });
  }

  // Phase 6: the canon without its `cut` ranges (shapes and attribute values) is the skeleton.
  void add_skeleton_record() {
    skeleton.clear();
    size_t kept_from = 0;
    for (const auto& [from, to] : cut) {
      skeleton.append(canon, kept_from, from - kept_from);
      kept_from = to;
    }
    skeleton.append(canon, kept_from);
    add_record(skeleton);
  }

  // The last blank-separated word of an operand (`f32[] %x` -> `%x`), comments skipped.
  static std::string_view last_word(std::string_view s) {
    const size_t n = s.size();
    size_t word_begin = 0;
    size_t word_end = 0;
    bool in_word = false;
    size_t i = 0;
    while (i < n) {
      char c = s[i];
      if (is_hlo_blank(c)) {
        in_word = false;
        ++i;
        continue;
      }
      if (c == '/' && i + 1 < n && s[i + 1] == '*') {
        size_t end = s.find("*/", i + 2);
        i = end == kNpos ? n : end + 2;
        in_word = false;
        continue;
      }
      if (!in_word) {
        word_begin = i;
        in_word = true;
      }
      if (c == '(' || c == '[' || c == '{') {
        size_t end = skip_group(s, i);
        i = end == kNpos ? n : end;
      } else if (c == '"') {
        i = skip_string(s, i);
      } else {
        ++i;
      }
      word_end = i;
    }
    return s.substr(word_begin, word_end - word_begin);
  }

  // `[ENTRY] [%]name [(params) -> shape] {`. False when the line is none.
  bool parse_computation_header(std::string_view s, int64_t line_no) {
    const size_t n = s.size();
    size_t i = skip_ws(s, 0);
    bool entry = false;
    if (s.compare(i, 6, "ENTRY ") == 0) {
      entry = true;
      i = skip_ws(s, i + 6);
    }
    bool percent = i < n && s[i] == '%';
    if (percent) ++i;
    if (i >= n || !has(s[i], kNameStart)) return false;
    size_t name_begin = i;
    while (i < n && has(s[i], kNameChar)) ++i;
    std::string_view name = s.substr(name_begin, i - name_begin);
    i = skip_ws(s, i);
    std::string_view params;
    bool has_params = false;
    if (i < n && s[i] == '(') {
      size_t end = skip_group(s, i);
      if (end == kNpos) return false;
      params = s.substr(i + 1, end - i - 2);
      has_params = true;
      i = skip_ws(s, end);
      if (s.compare(i, 2, "->") != 0) return false;
      i = skip_ws(s, i + 2);
      size_t shape_end = scan_shape(s, i);
      if (shape_end == kNpos) return false;
      i = skip_ws(s, shape_end);
    }
    if (i >= n || s[i] != '{') return false;
    if (skip_ws(s, i + 1) != n) return false;
    // Outside a module only an unmistakable header starts a (headless) module.
    if (!in_module && !(entry || percent || has_params)) return false;

    if (!in_module) open_module(line_no, /*is_headless=*/true);
    if (comp_open) close_computation();  // previous computation lost its closing brace
    in_stack_frames = false;
    comp_open = true;
    comp_entry = entry;
    if (entry) seen_entry_keyword = true;
    comp_params.clear();
    if (has_params && !trim(params).empty()) {
      // Long style `(p0.8: f32[], p1.11: f32[])`: numbered by position; parameter(N) lines
      // override these entries with their own name and shape.
      int64_t number = 0;
      split_top_level(params, [&](std::string_view piece) {
        piece = trim(piece);
        HloParameter p;
        p.number = number++;
        size_t colon = piece.find(':');
        if (colon != kNpos) {
          std::string_view pname = trim(piece.substr(0, colon));
          if (pname.starts_with("%")) pname.remove_prefix(1);
          p.name = std::string(pname);
          set_shape(p, piece.substr(colon + 1));
        } else {
          set_shape(p, piece);
        }
        comp_params.push_back(std::move(p));
      });
    }
    canon.assign(entry ? "E" : "C");
    append_ordinal(name);
    add_record();
    return true;
  }

  // `}` [, execution_thread="..."] [// comment]
  bool parse_computation_end(std::string_view s, size_t i) {
    if (!in_module || !comp_open) return false;
    i = skip_ws(s, i + 1);
    canon.assign("}");
    if (i < s.size()) {
      if (s[i] != ',') return false;
      for_each_attribute(s, i, [&](std::string_view key, std::string_view value) {
        canon.append(key);
        canon.push_back('=');
        append_canon(canon, value);
      });
    }
    close_computation();
    add_record();
    return true;
  }

  bool feed(std::string_view line, int64_t line_no) {
    size_t i = skip_ws(line, 0);
    if (i >= line.size()) {
      // Blank, or only a comment: a comment inside a module is HLO; blank lines are the caller's.
      return in_module && ltrim(line).starts_with("/");
    }
    std::string_view s = line.substr(i);
    switch (s[0]) {
      case 'H':
        if (s.starts_with("HloModule") && (s.size() == 9 || is_hlo_blank(s[9]))) {
          parse_module_header(s, line_no);
          return true;
        }
        break;
      case '}':
        return parse_computation_end(line, i);
      case 'F':
      case 'S':
        if (in_module && (s == "FileNames" || s == "FunctionNames" || s == "FileLocations" ||
                          s == "StackFrames")) {
          in_stack_frames = true;
          return true;
        }
        break;
      default:
        if (in_stack_frames && has(s[0], kDigit)) return true;
        break;
    }
    if (parse_instruction(line, line_no)) return true;
    return parse_computation_header(line, line_no);
  }
};

HloTextParser::HloTextParser() : state_(new State) {}
HloTextParser::~HloTextParser() {
  delete state_;
}

bool HloTextParser::feed(std::string_view line, int64_t line_no) {
  return state_->feed(line, line_no);
}

std::vector<HloModule> HloTextParser::take_modules() {
  return std::exchange(state_->done, {});
}

void HloTextParser::finish() {
  state_->complete_module();
}

}  // namespace rcf::ingest
