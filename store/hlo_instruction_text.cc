#include "store/hlo_instruction_text.h"

#include <fmt/format.h>

#include <charconv>

namespace rcf::store {
namespace {

using ingest::HloInstructionText;

constexpr size_t kFixedFields = 9;  // fields before the attributes
constexpr size_t kAttributeFields = 4;

// Runs without a character to escape are appended whole: this encodes every instruction of
// every HLO module on the writer thread (a byte at a time it was 10 % of a dump's ingest).
void append_field(std::string& out, std::string_view text) {
  size_t from = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c != '\\' && c != '\t' && c != '\n' && c != '\r') continue;
    out.append(text.data() + from, i - from);
    out += c == '\\' ? "\\\\" : c == '\t' ? "\\t" : c == '\n' ? "\\n" : "\\r";
    from = i + 1;
  }
  out.append(text.data() + from, text.size() - from);
}

// `shown` when it differs from `canonical`, else nothing (the decoder restores it).
void append_shown(std::string& out, const std::string& shown, const std::string& canonical) {
  out.push_back('\t');
  if (shown != canonical) append_field(out, shown);
}

// Splits one line into its unescaped fields; false on a dangling or unknown escape.
bool split_fields(std::string_view line, std::vector<std::string>& fields) {
  fields.assign(1, std::string());
  for (size_t i = 0; i < line.size(); ++i) {
    char c = line[i];
    if (c == '\t') {
      fields.emplace_back();
      continue;
    }
    if (c != '\\') {
      fields.back().push_back(c);
      continue;
    }
    if (++i == line.size()) return false;
    switch (line[i]) {
      case '\\':
        fields.back().push_back('\\');
        break;
      case 't':
        fields.back().push_back('\t');
        break;
      case 'n':
        fields.back().push_back('\n');
        break;
      case 'r':
        fields.back().push_back('\r');
        break;
      default:
        return false;
    }
  }
  return true;
}

template <typename Int>
bool parse_int(std::string_view s, Int* out) {
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), *out);
  return ec == std::errc() && end == s.data() + s.size();
}

bool parse_operands(std::string_view s, std::vector<int32_t>& out) {
  while (!s.empty()) {
    size_t comma = s.find(',');
    int32_t ordinal = 0;
    if (!parse_int(s.substr(0, comma), &ordinal)) return false;
    out.push_back(ordinal);
    s = comma == std::string_view::npos ? std::string_view() : s.substr(comma + 1);
  }
  return true;
}

std::optional<HloInstructionText> decode_line(std::string_view line, std::vector<std::string>& f) {
  if (!split_fields(line, f) || f.size() < kFixedFields ||
      (f.size() - kFixedFields) % kAttributeFields != 0)
    return std::nullopt;
  HloInstructionText t;
  if (!parse_int(f[0], &t.ordinal) || !parse_operands(f[5], t.operands) ||
      !parse_int(f[8], &t.source_line))
    return std::nullopt;
  t.name = std::move(f[1]);
  t.opcode = std::move(f[2]);
  t.shape = std::move(f[3]);
  t.shown_shape = f[4].empty() ? t.shape : std::move(f[4]);
  t.op_name = std::move(f[6]);
  t.source_file = std::move(f[7]);
  for (size_t k = kFixedFields; k < f.size(); k += kAttributeFields) {
    HloInstructionText::Attribute a;
    a.key = std::move(f[k]);
    a.calls = f[k + 1] == "1";
    a.canonical = std::move(f[k + 2]);
    a.shown = f[k + 3].empty() ? a.canonical : std::move(f[k + 3]);
    t.attributes.push_back(std::move(a));
  }
  return t;
}

}  // namespace

std::string encode_hlo_instructions(const std::vector<HloInstructionText>& instructions) {
  std::string out;
  for (const HloInstructionText& t : instructions) {
    out += std::to_string(t.ordinal);
    out.push_back('\t');
    append_field(out, t.name);
    out.push_back('\t');
    append_field(out, t.opcode);
    out.push_back('\t');
    append_field(out, t.shape);
    append_shown(out, t.shown_shape, t.shape);
    out.push_back('\t');
    for (size_t k = 0; k < t.operands.size(); ++k) {
      if (k) out.push_back(',');
      out += std::to_string(t.operands[k]);
    }
    out.push_back('\t');
    append_field(out, t.op_name);
    out.push_back('\t');
    append_field(out, t.source_file);
    out.push_back('\t');
    out += std::to_string(t.source_line);
    for (const auto& a : t.attributes) {
      out.push_back('\t');
      append_field(out, a.key);
      out += a.calls ? "\t1\t" : "\t0\t";
      append_field(out, a.canonical);
      append_shown(out, a.shown, a.canonical);
    }
    out.push_back('\n');
  }
  return out;
}

std::optional<std::vector<HloInstructionText>> decode_hlo_instructions(std::string_view text) {
  std::vector<HloInstructionText> out;
  std::vector<std::string> fields;
  while (!text.empty()) {
    size_t nl = text.find('\n');
    if (nl == std::string_view::npos) return std::nullopt;  // every line ends with '\n'
    auto t = decode_line(text.substr(0, nl), fields);
    if (!t) return std::nullopt;
    out.push_back(std::move(*t));
    text.remove_prefix(nl + 1);
  }
  return out;
}

std::optional<std::vector<HloInstructionText>> read_hlo_instructions(Database& db,
                                                                     int64_t hlo_module_id,
                                                                     std::string* error) {
  auto st = db.prepare("SELECT instructions FROM hlo_instruction_text WHERE hlo_module_id = ?");
  st.bind(1, hlo_module_id);
  if (!st.step()) {
    *error = fmt::format("HLO module {} has no instructions in the store", hlo_module_id);
    return std::nullopt;
  }
  auto instructions = decode_hlo_instructions(st.text(0));
  if (!instructions)
    *error = fmt::format("the stored instructions of HLO module {} do not decode", hlo_module_id);
  return instructions;
}

}  // namespace rcf::store
