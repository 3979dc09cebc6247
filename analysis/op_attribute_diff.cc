#include "analysis/op_attribute_diff.h"

#include <fmt/format.h>

#include <map>
#include <memory>
#include <unordered_set>
#include <utility>

#include "store/hlo_instruction_text.h"

namespace rcf::analysis {
namespace {

using ingest::HloInstructionText;

constexpr size_t kMaxOrigins = 4;     // origins named in a detail before "(+N more)"
constexpr size_t kMaxShownText = 80;  // characters of one attribute value or shape

std::string clipped(const std::string& text) {
  if (text.size() <= kMaxShownText) return text;
  return text.substr(0, kMaxShownText - 3) + "...";
}

// "slice.5 (slice): slice={[0:128]} -> {[0:136]}, shape f32[8,128] -> f32[8,136] (aten::slice;
// train.py:42)": the attributes that differ, the shape when it differs, and where it comes from.
std::string describe(const HloInstructionText& a, const HloInstructionText& b, bool shape_differs) {
  std::string out = fmt::format("{} ({}):", b.name, b.opcode);
  std::string sep = " ";
  for (size_t k = 0; k < b.attributes.size(); ++k) {
    const auto& after = b.attributes[k];
    const HloInstructionText::Attribute* before = nullptr;
    for (const auto& x : a.attributes)
      if (x.key == after.key) before = &x;
    if (before && before->canonical == after.canonical) continue;
    out +=
        fmt::format("{}{}={} -> {}", sep, after.key,
                    before ? clipped(before->shown) : std::string("(none)"), clipped(after.shown));
    sep = ", ";
  }
  for (const auto& x : a.attributes) {
    bool kept = false;
    for (const auto& y : b.attributes) kept |= x.key == y.key;
    if (!kept) {
      out += fmt::format("{}{}={} -> (none)", sep, x.key, clipped(x.shown));
      sep = ", ";
    }
  }
  if (shape_differs)
    out += fmt::format("{}shape {} -> {}", sep, clipped(a.shown_shape), clipped(b.shown_shape));
  std::vector<std::string> context;
  const HloInstructionText& located = b.source_file.empty() ? a : b;
  if (!located.op_name.empty()) context.push_back(located.op_name);
  if (!located.source_file.empty())
    context.push_back(located.source_line >= 0
                          ? fmt::format("{}:{}", located.source_file, located.source_line)
                          : located.source_file);
  if (!context.empty()) out += fmt::format(" ({})", fmt::join(context, "; "));
  return out;
}

bool attributes_differ(const HloInstructionText& a, const HloInstructionText& b) {
  if (a.attributes.size() != b.attributes.size()) return true;
  for (size_t k = 0; k < a.attributes.size(); ++k)
    if (a.attributes[k].key != b.attributes[k].key ||
        a.attributes[k].canonical != b.attributes[k].canonical)
      return true;
  return false;
}

bool calls_computation(const HloInstructionText& t) {
  for (const auto& x : t.attributes)
    if (x.calls) return true;
  return false;
}

}  // namespace

std::optional<OpAttributeChanges> describe_op_attribute_changes(
    const std::vector<HloInstructionText>& before, const std::vector<HloInstructionText>& after) {
  if (before.size() != after.size()) return std::nullopt;
  std::unordered_set<int32_t> reshaped;  // ordinals whose shape differs
  std::vector<std::string> origins;
  std::string subject;
  size_t changed = 0;
  for (size_t i = 0; i < after.size(); ++i) {
    const HloInstructionText& a = before[i];
    const HloInstructionText& b = after[i];
    if (a.opcode != b.opcode || a.ordinal != b.ordinal) return std::nullopt;
    const bool shape = a.shape != b.shape;
    const bool attrs = attributes_differ(a, b);
    if (!shape && !attrs) continue;
    ++changed;
    if (shape) reshaped.insert(b.ordinal);
    bool from_operand = false;
    for (int32_t o : b.operands) from_operand |= reshaped.count(o) > 0;
    // A called computation's parameter takes its shape from the caller's operand; a call takes
    // its shape from the computation it calls, where the origin is found.
    const bool follows =
        !attrs && (from_operand || b.opcode == "parameter" || calls_computation(b));
    if (follows) continue;
    if (subject.empty()) subject = b.opcode + (attrs ? " attributes" : " shape");
    origins.push_back(describe(a, b, shape));
  }
  if (changed == 0) return std::nullopt;
  OpAttributeChanges out;
  out.subject = subject.empty() ? "op attributes" : subject;
  out.detail = fmt::format("same inputs and ops; {} instruction{} differ in op attributes or shape",
                           changed, changed == 1 ? "" : "s");
  if (!origins.empty()) {
    out.detail += fmt::format(", {} at the origin: ", origins.size());
    for (size_t k = 0; k < origins.size() && k < kMaxOrigins; ++k)
      out.detail += (k ? "; " : "") + origins[k];
    if (origins.size() > kMaxOrigins)
      out.detail += fmt::format(" (+{} more)", origins.size() - kMaxOrigins);
    if (changed > origins.size())
      out.detail +=
          fmt::format("; the other {} follow from their operands", changed - origins.size());
  }
  return out;
}

OpAttributeDescriber store_op_attribute_describer(store::Database& db, int max_reads) {
  struct State {
    store::Database* db;
    int reads_left;
    std::map<int64_t, std::shared_ptr<const std::vector<HloInstructionText>>> cache;
  };
  auto state = std::make_shared<State>(State{&db, max_reads, {}});
  return [state](int64_t before_module, int64_t after_module,
                 std::string* error) -> std::optional<OpAttributeChanges> {
    auto read = [&](int64_t module) -> std::shared_ptr<const std::vector<HloInstructionText>> {
      if (auto it = state->cache.find(module); it != state->cache.end()) return it->second;
      if (state->reads_left <= 0) {
        *error = "not compared: the limit of HLO modules compared per run was reached";
        return nullptr;
      }
      --state->reads_left;
      auto instructions = store::read_hlo_instructions(*state->db, module, error);
      if (!instructions) return nullptr;
      // The pairs compared are consecutive programs of one site: a few modules suffice.
      if (state->cache.size() >= 4) state->cache.erase(state->cache.begin());
      auto shared =
          std::make_shared<const std::vector<HloInstructionText>>(std::move(*instructions));
      state->cache[module] = shared;
      return shared;
    };
    auto a = read(before_module);
    if (!a) return std::nullopt;
    auto b = read(after_module);
    if (!b) return std::nullopt;
    auto changes = describe_op_attribute_changes(*a, *b);
    if (!changes) *error = "the two modules' stored instructions do not pair up one by one";
    return changes;
  };
}

}  // namespace rcf::analysis
