#include "ingest/xla/hlo_instruction_encoding.h"

#include <charconv>

namespace rcf::ingest {
namespace {

constexpr size_t kFixedFields = 9;  // fields before the attributes
constexpr size_t kAttributeFields = 4;

// Runs without a character to escape are appended whole (a byte at a time, encoding was 10 % of
// a dump's ingest).
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
void append_shown(std::string& out, std::string_view shown, std::string_view canonical) {
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

void HloInstructionEncoder::begin(int32_t ordinal, std::string_view name, std::string_view opcode,
                                  std::string_view shape, std::string_view shown_shape) {
  append_int(out_, ordinal);
  out_.push_back('\t');
  append_field(out_, name);
  out_.push_back('\t');
  append_field(out_, opcode);
  out_.push_back('\t');
  append_field(out_, shape);
  append_shown(out_, shown_shape, shape);
  out_.push_back('\t');
  attributes_.clear();
  op_name_.clear();
  source_file_.clear();
  source_line_ = -1;
  first_operand_ = true;
}

void HloInstructionEncoder::operand(int32_t ordinal) {
  if (!first_operand_) out_.push_back(',');
  first_operand_ = false;
  append_int(out_, ordinal);
}

void HloInstructionEncoder::attribute(std::string_view key, bool calls, std::string_view canonical,
                                      std::string_view shown) {
  attributes_.push_back('\t');
  append_field(attributes_, key);
  attributes_ += calls ? "\t1\t" : "\t0\t";
  append_field(attributes_, canonical);
  append_shown(attributes_, shown, canonical);
}

void HloInstructionEncoder::metadata(std::string_view op_name, std::string_view source_file,
                                     int64_t source_line) {
  op_name_.assign(op_name);
  source_file_.assign(source_file);
  source_line_ = source_line;
}

void HloInstructionEncoder::end() {
  out_.push_back('\t');
  append_field(out_, op_name_);
  out_.push_back('\t');
  append_field(out_, source_file_);
  out_.push_back('\t');
  append_int(out_, source_line_);
  out_ += attributes_;
  out_.push_back('\n');
}

std::string HloInstructionEncoder::take() {
  std::string text = std::move(out_);
  out_.clear();
  return text;
}

std::string encode_hlo_instructions(const std::vector<HloInstructionText>& instructions) {
  HloInstructionEncoder encoder;
  for (const HloInstructionText& t : instructions) {
    encoder.begin(t.ordinal, t.name, t.opcode, t.shape, t.shown_shape);
    for (int32_t operand : t.operands) encoder.operand(operand);
    for (const auto& a : t.attributes) encoder.attribute(a.key, a.calls, a.canonical, a.shown);
    encoder.metadata(t.op_name, t.source_file, t.source_line);
    encoder.end();
  }
  return encoder.take();
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

}  // namespace rcf::ingest
