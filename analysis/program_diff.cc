#include "analysis/program_diff.h"

#include <algorithm>
#include <map>
#include <string_view>
#include <utility>

namespace rcf::analysis {
namespace {

constexpr size_t kMaxDetail = 400;  // characters in a detail sentence
constexpr size_t kMaxItems = 8;     // listed changes before "(+N more)"
constexpr size_t kMaxValue = 40;    // characters of one constant value
constexpr size_t kMaxShape = 80;    // characters of one parameter shape

std::string dims_text(const std::vector<int64_t>& dims) {
  std::string out;
  for (size_t i = 0; i < dims.size(); ++i) {
    if (i) out += ',';
    out += dims[i] < 0 ? "?" : std::to_string(dims[i]);  // -1: unbounded dynamic dimension
  }
  return out;
}

// Removes `{...}` groups (layouts, tiling) from a shape as printed: "(f32[2]{0}, s32[])" ->
// "(f32[2], s32[])". Layouts never decide a recompile cause.
std::string strip_layouts(std::string_view s) {
  std::string out;
  int depth = 0;
  for (char c : s) {
    if (c == '{') {
      ++depth;
    } else if (c == '}') {
      if (depth) --depth;
    } else if (depth == 0) {
      out += c;
    }
  }
  return out;
}

bool is_array(const ProgramParameter& p) {
  return !p.dtype.empty() && p.dtype != "tuple" && !p.shape_text.starts_with('(');
}

// What a parameter is for comparison: dtype and dims ("f32[8,128]", "s64[]"); tuples and shapes
// the parser could not split are compared by their printed text without layouts.
std::string param_key(const ProgramParameter& p) {
  if (!is_array(p)) return strip_layouts(p.shape_text);
  return p.dtype + "[" + dims_text(p.dims) + "]";
}

std::string clipped(const std::string& text, size_t limit) {
  if (text.size() <= limit) return text;
  return text.substr(0, limit - 3) + "...";
}

std::string value_text(const ProgramConstant& c) {
  return clipped(c.value_text, kMaxValue);
}

// A parameter as shown in a detail (a long tuple would crowd out everything else).
std::string shown(const ProgramParameter& p) {
  return clipped(param_key(p), kMaxShape);
}

// Joins `items` with `sep` after `prefix`, keeping the whole under kMaxDetail characters and at
// most kMaxItems items; the rest is counted as " (+N more)". The first item is always kept.
std::string join_capped(std::string prefix, const std::vector<std::string>& items,
                        std::string_view sep) {
  constexpr size_t kMoreReserve = 16;  // room for " (+NNN more)"
  size_t kept = 0;
  for (const std::string& item : items) {
    size_t extra = (kept ? sep.size() : 0) + item.size();
    if (kept && (kept == kMaxItems || prefix.size() + extra + kMoreReserve > kMaxDetail)) break;
    if (kept) prefix += sep;
    prefix += item;
    ++kept;
  }
  if (kept < items.size()) prefix += " (+" + std::to_string(items.size() - kept) + " more)";
  return prefix;
}

ProgramDiff make(std::string cause, std::string confidence, std::string subject, std::string detail,
                 std::string evidence) {
  ProgramDiff d;
  d.cause = std::move(cause);
  d.confidence = std::move(confidence);
  d.subject = std::move(subject);
  d.detail = std::move(detail);
  d.evidence = std::move(evidence);
  return d;
}

// The multiset difference of two parameter lists: parameters of `current` whose (dtype, dims)
// occurs more often than in `previous` are added, and the other way round removed. Within one
// shape the k-th occurrences are matched in order, so a parameter inserted in the middle is
// reported at its own position and the parameters after it (whose numbers shift) are not.
struct MultisetDiff {
  std::vector<const ProgramParameter*> added, removed;  // in current / previous order
};

MultisetDiff multiset_diff(const std::vector<ProgramParameter>& previous,
                           const std::vector<ProgramParameter>& current) {
  std::map<std::string, int64_t> prev_count, cur_count;
  for (const auto& p : previous) ++prev_count[param_key(p)];
  for (const auto& p : current) ++cur_count[param_key(p)];
  MultisetDiff out;
  std::map<std::string, int64_t> seen;
  for (const auto& p : current) {
    std::string key = param_key(p);
    if (++seen[key] > prev_count[key]) out.added.push_back(&p);
  }
  seen.clear();
  for (const auto& p : previous) {
    std::string key = param_key(p);
    if (++seen[key] > cur_count[key]) out.removed.push_back(&p);
  }
  return out;
}

ProgramDiff key_subset_from(const ProgramView& previous, const ProgramView& current,
                            const MultisetDiff& diff) {
  std::vector<std::string> items;
  for (const auto* p : diff.added)
    items.push_back("+param " + std::to_string(p->number) + " " + shown(*p));
  for (const auto* p : diff.removed)
    items.push_back("-param " + std::to_string(p->number) + " " + shown(*p));
  const ProgramParameter* first = !diff.added.empty() ? diff.added.front() : diff.removed.front();
  std::string prefix = "graph inputs changed (" + std::to_string(previous.parameters.size()) +
                       " -> " + std::to_string(current.parameters.size()) + " parameters): ";
  // The subject names the shape, not the number: an optional input that comes and goes keeps its
  // shape while its number shifts, and both directions should aggregate together.
  return make("key_subset", "high", "input " + shown(*first),
              join_capped(std::move(prefix), items, "; "), "HLO parameters");
}

// One position whose parameter differs between two programs of the same parameter count.
struct ParamChange {
  const ProgramParameter* before;
  const ProgramParameter* after;
  bool dtype, shape;
};

// The same shapes in another order.
ProgramDiff reordered_inputs(const std::vector<ParamChange>& changes, size_t parameters) {
  std::vector<std::string> items;
  for (const ParamChange& c : changes)
    items.push_back("param " + std::to_string(c.after->number) + ": " + shown(*c.before) + " -> " +
                    shown(*c.after));
  return make("key_subset", "medium", "input order",
              join_capped("graph inputs reordered (same " + std::to_string(parameters) +
                              " parameter shapes, other positions): ",
                          items, "; "),
              "HLO parameters");
}

// The changes read in place: dtype changes first, else shape changes (rank or dims); the subject
// is the first of them.
ProgramDiff in_place_diff(const std::vector<ParamChange>& changes) {
  ProgramDiff out;
  std::vector<std::string> items;
  const bool any_dtype =
      std::any_of(changes.begin(), changes.end(), [](const ParamChange& c) { return c.dtype; });
  for (const ParamChange& c : changes) {
    const std::string param = "param " + std::to_string(c.after->number);
    const bool subject_unset = out.subject.empty();
    if (c.dtype) {
      items.push_back(param + ": " + shown(*c.before) + " -> " + shown(*c.after));
      if (subject_unset) out.subject = param;
    } else if (c.before->dims.size() != c.after->dims.size()) {
      items.push_back(param + ": rank " + std::to_string(c.before->dims.size()) + " -> " +
                      std::to_string(c.after->dims.size()) + " (" + shown(*c.before) + " -> " +
                      shown(*c.after) + ")");
      if (subject_unset && !any_dtype) {
        out.subject = param;
        out.shape_param = c.after->number;
      }
    } else {
      for (size_t d = 0; d < c.after->dims.size(); ++d) {
        const int64_t a = c.before->dims[d], b = c.after->dims[d];
        if (a == b) continue;
        items.push_back(param + " dim " + std::to_string(d) + ": " +
                        (a < 0 ? "?" : std::to_string(a)) + " -> " +
                        (b < 0 ? "?" : std::to_string(b)));
        if (out.subject.empty() && !any_dtype) {
          out.subject = items.back().substr(0, items.back().find(':'));
          out.shape_param = c.after->number;
          out.shape_dim = static_cast<int64_t>(d);
          out.old_dim_value = a;
          out.new_dim_value = b;
        }
      }
    }
  }
  out.cause = any_dtype ? "dtype" : "shape";
  out.confidence = "high";
  out.detail = join_capped("", items, "; ");
  out.evidence = "HLO parameters";
  return out;
}

// Same parameter count, position by position. Each differing position is a dtype change (same
// dims), a shape change (same dtype, other dims or rank) or a replacement (both differ).
ProgramDiff diff_same_count(const ProgramView& previous, const ProgramView& current,
                            bool* signature_equal) {
  const auto& prev = previous.parameters;
  const auto& cur = current.parameters;
  std::vector<ParamChange> changes;
  bool replaced = false;
  for (size_t i = 0; i < prev.size(); ++i) {
    if (param_key(prev[i]) == param_key(cur[i])) continue;
    ParamChange c{&prev[i], &cur[i], false, false};
    if (is_array(prev[i]) && is_array(cur[i])) {
      c.dtype = prev[i].dtype != cur[i].dtype;
      c.shape = prev[i].dims != cur[i].dims;
    }
    if (c.dtype == c.shape) replaced = true;  // both changed, or a tuple / unparsed shape
    changes.push_back(c);
  }
  *signature_equal = changes.empty();
  if (changes.empty()) return {};

  // Rule: the in-place reading wins unless a parameter changed both dtype and dims, or the
  // multiset difference explains the change with fewer edits (one removal + one addition each)
  // than there are changed positions -- a parameter dropped here and another added there shifts
  // every parameter between them, which reads as many shape changes position by position.
  MultisetDiff diff = multiset_diff(prev, cur);
  const size_t edits = diff.added.size() + diff.removed.size();
  if (replaced || edits < changes.size())
    return edits > 0 ? key_subset_from(previous, current, diff)
                     : reordered_inputs(changes, cur.size());
  return in_place_diff(changes);
}

std::string histogram_delta(const std::map<std::string, int64_t>& before,
                            const std::map<std::string, int64_t>& after) {
  std::map<std::string, int64_t> delta;  // sorted by opcode
  for (const auto& [op, n] : after) delta[op] += n;
  for (const auto& [op, n] : before) delta[op] -= n;
  std::vector<std::string> items;
  for (const auto& [op, n] : delta)
    if (n) items.push_back((n > 0 ? "+" : "") + std::to_string(n) + " " + op);
  if (items.empty()) return "";
  return join_capped("", items, ", ");
}

std::string describe_constant(const ProgramConstant& before, const ProgramConstant& after) {
  std::string name = !after.name.empty()    ? after.name
                     : !before.name.empty() ? before.name
                                            : "constant #" + std::to_string(after.ordinal);
  std::string shape = strip_layouts(after.shape_text);
  std::string out = name + (shape.empty() ? "" : " " + shape) + ": " + value_text(before) + " -> " +
                    value_text(after);
  // Where the value comes from, from the newer program (falling back to the older one).
  auto pick = [&](const std::string& a, const std::string& b) { return a.empty() ? b : a; };
  std::vector<std::string> context;
  std::string user = pick(after.user_op, before.user_op);
  if (!user.empty()) context.push_back("used by " + user);
  const ProgramConstant& located = after.source_file.empty() ? before : after;
  if (!located.source_file.empty())
    context.push_back(located.source_file + (located.source_line >= 0
                                                 ? ":" + std::to_string(located.source_line)
                                                 : std::string()));
  std::string op = pick(after.op_name, before.op_name);
  if (!op.empty()) context.push_back(op);
  if (!context.empty()) {
    out += " (";
    for (size_t i = 0; i < context.size(); ++i) out += (i ? "; " : "") + context[i];
    out += ")";
  }
  return out;
}

constexpr std::string_view kInvisibleConstants =
    "same signature and structure, different constant values; the values are not visible "
    "(large constants are printed as {...})";

ProgramDiff diff_constants(const ProgramView& previous, const ProgramView& current) {
  if (previous.constants.size() != current.constants.size()) {
    return make("constant", "medium", "constants",
                std::string(kInvisibleConstants) + "; constant count " +
                    std::to_string(previous.constants.size()) + " -> " +
                    std::to_string(current.constants.size()),
                "HLO fingerprints and constants");
  }
  std::vector<std::string> items;
  std::string subject;
  size_t hidden = 0;
  for (size_t i = 0; i < current.constants.size(); ++i) {
    const ProgramConstant& a = previous.constants[i];
    const ProgramConstant& b = current.constants[i];
    if (a.elided || b.elided) {
      ++hidden;
      continue;
    }
    bool same_value = a.value_id >= 0 && b.value_id >= 0 ? a.value_id == b.value_id
                                                         : a.value_text == b.value_text;
    if (same_value && a.shape_text == b.shape_text) continue;
    items.push_back(describe_constant(a, b));
    if (subject.empty()) subject = !b.name.empty() ? b.name : a.name;
  }
  if (items.empty()) {
    return make("constant", "medium",
                hidden == 0   ? "constants"
                : hidden == 1 ? "elided constant"
                              : "elided constants",
                std::string(kInvisibleConstants), "HLO fingerprints and constants");
  }
  if (subject.empty()) subject = "constants";
  return make("constant", "high", std::move(subject), join_capped("", items, "; "),
              "HLO constants");
}

constexpr std::string_view kAttributesOnly =
    "same inputs and the same ops wired the same way; only op attributes or the shapes they give "
    "differ (a Python number baked into the graph as a slice bound, a pad, reshape or iota size)";

ProgramDiff diff_with_hlo(const ProgramView& previous, const ProgramView& current) {
  const auto& prev = previous.parameters;
  const auto& cur = current.parameters;
  if (prev.size() != cur.size())
    return key_subset_from(previous, current, multiset_diff(prev, cur));
  bool signature_equal = false;
  ProgramDiff by_params = diff_same_count(previous, current, &signature_equal);
  if (!signature_equal) return by_params;

  // Fingerprints are compared only when both are known; a missing one falls back to the
  // histogram (structure) and to the constants themselves (values).
  const bool structure_known =
      !previous.structure_fingerprint.empty() && !current.structure_fingerprint.empty();
  const bool structure_differs =
      structure_known ? previous.structure_fingerprint != current.structure_fingerprint
                      : previous.op_histogram != current.op_histogram;
  const bool skeleton_equal = !previous.skeleton_fingerprint.empty() &&
                              previous.skeleton_fingerprint == current.skeleton_fingerprint;
  if (structure_differs && structure_known && skeleton_equal) {
    ProgramDiff d = make("constant", "medium", "op attributes", std::string(kAttributesOnly),
                         "HLO skeleton and structure fingerprints");
    d.op_attributes_only = true;
    return d;
  }
  if (structure_differs) {
    std::string delta = histogram_delta(previous.op_histogram, current.op_histogram);
    return make("graph_structure", structure_known ? "high" : "medium", "ops",
                delta.empty()
                    ? "same inputs, ops differ (same op counts; order or operands changed)"
                    : "same inputs, different ops: " + delta,
                "HLO structure fingerprints and op histograms");
  }

  const bool full_known = !previous.full_fingerprint.empty() && !current.full_fingerprint.empty();
  if (!full_known || previous.full_fingerprint != current.full_fingerprint) {
    ProgramDiff d = diff_constants(previous, current);
    // Without fingerprints a constant change is only claimed when it is visible.
    if (full_known || d.confidence == "high") return d;
  }
  std::string fingerprint = full_known ? " (HLO fingerprint " + current.full_fingerprint + ")" : "";
  return make("unknown", "low", "same program",
              "the same program was compiled again: same inputs, ops and constants" + fingerprint +
                  "; the cache missed for a reason outside the program (cache eviction, "
                  "another device or different compile options)",
              full_known ? "HLO fingerprints" : "HLO parameters, op histograms and constants");
}

// The input count of a program without HLO is PT_XLA_DEBUG's; with HLO and no debug block, its
// entry parameter count.
std::optional<int64_t> input_count_of(const ProgramView& p) {
  if (p.input_count) return p.input_count;
  if (p.has_hlo) return static_cast<int64_t>(p.parameters.size());
  return std::nullopt;
}

std::string count_change(std::string_view what, std::optional<int64_t> a,
                         std::optional<int64_t> b) {
  return std::string(what) + ": " + std::to_string(*a) + " -> " + std::to_string(*b);
}

ProgramDiff diff_without_hlo(const ProgramView& previous, const ProgramView& current) {
  const auto in_a = input_count_of(previous), in_b = input_count_of(current);
  const auto out_a = previous.output_count, out_b = current.output_count;
  const bool outputs_changed = out_a && out_b && *out_a != *out_b;
  if (in_a && in_b && *in_a != *in_b) {
    std::string detail =
        "number of graph inputs changed: " + std::to_string(*in_a) + " -> " + std::to_string(*in_b);
    if (outputs_changed) detail += "; " + count_change("graph outputs", out_a, out_b);
    return make("key_subset", "medium", "graph inputs", std::move(detail),
                "PT_XLA_DEBUG graph input counts");
  }
  std::string missing = !previous.has_hlo && !current.has_hlo ? "either program"
                        : !previous.has_hlo                   ? "the previous program"
                                                              : "this program";
  std::string detail = "no HLO captured for " + missing;
  if (in_a && in_b) detail += "; graph inputs unchanged (" + std::to_string(*in_b) + ")";
  if (outputs_changed) detail += "; " + count_change("graph outputs changed", out_a, out_b);
  detail +=
      "; capture HLO to decide: XLA_SAVE_TENSORS_FILE=FILE with XLA_SAVE_TENSORS_FMT=hlo, or "
      "XLA_FLAGS=--xla_dump_to=DIR";
  return make("unknown", "low", "no HLO", std::move(detail),
              in_a && in_b ? "PT_XLA_DEBUG graph input counts" : "none");
}

}  // namespace

std::string input_signature(const ProgramView& p) {
  if (!p.has_hlo) return "";
  std::string out;
  for (const auto& param : p.parameters) {
    if (!out.empty()) out += ' ';
    out += param_key(param);
  }
  return out;
}

ProgramDiff diff_programs(const ProgramView& previous, const ProgramView& current) {
  if (previous.has_hlo && current.has_hlo) return diff_with_hlo(previous, current);
  return diff_without_hlo(previous, current);
}

int64_t choose_previous(const std::vector<const ProgramView*>& earlier,
                        const ProgramView& current) {
  PreviousProgramIndex index;
  for (const ProgramView* p : earlier) index.add(*p);
  return index.choose(current);
}

int64_t PreviousProgramIndex::find(const std::map<std::string, int64_t>& m, const std::string& k) {
  auto it = m.find(k);
  return it == m.end() ? -1 : it->second;
}

void PreviousProgramIndex::add(const ProgramView& p) {
  int64_t i = count_++;
  std::string count = p.input_count ? std::to_string(*p.input_count) : "";
  if (p.has_hlo) {
    std::string sig = input_signature(p);
    note(by_signature_, sig, i);
    if (!p.structure_fingerprint.empty()) {
      note(by_signature_structure_, sig + '\n' + p.structure_fingerprint, i);
      note(by_structure_, p.structure_fingerprint, i);
    }
    if (!count.empty()) note(by_count_hlo_, count, i);
  } else if (!count.empty()) {
    note(by_count_no_hlo_, count, i);
  }
}

// Mirrors same_signature / same_structure: two programs with HLO compare signatures, any other
// pair compares input counts; structures compare only between programs with HLO.
int64_t PreviousProgramIndex::choose(const ProgramView& current) const {
  if (count_ == 0) return -1;
  std::string count = current.input_count ? std::to_string(*current.input_count) : "";
  if (current.has_hlo) {
    std::string sig = input_signature(current);
    if (!current.structure_fingerprint.empty()) {
      int64_t both = find(by_signature_structure_, sig + '\n' + current.structure_fingerprint);
      if (both >= 0) return both;
    }
    int64_t same_sig = find(by_signature_, sig);
    if (!count.empty()) same_sig = std::max(same_sig, find(by_count_no_hlo_, count));
    if (same_sig >= 0) return same_sig;
    if (!current.structure_fingerprint.empty()) {
      int64_t same_structure = find(by_structure_, current.structure_fingerprint);
      if (same_structure >= 0) return same_structure;
    }
  } else if (!count.empty()) {
    int64_t same_count = std::max(find(by_count_hlo_, count), find(by_count_no_hlo_, count));
    if (same_count >= 0) return same_count;
  }
  return count_ - 1;
}

}  // namespace rcf::analysis
