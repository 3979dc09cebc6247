#include "analysis/guard_reason.h"

#include <re2/re2.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <string>
#include <string_view>
#include <vector>

#include "ingest/reading/text_util.h"

namespace rcf::analysis {
namespace {

using std::string_view;
constexpr size_t npos = string_view::npos;

// What to enable when the text alone cannot decide (docs/causes.md: `unknown` names the artifact).
constexpr string_view kEnableMore =
    "enable TORCH_LOGS=recompiles_verbose for every failing guard, or TORCH_TRACE to diff the "
    "guard sets of the cache entries";

using ingest::ltrim;
using ingest::rtrim;
using ingest::trim;

// Removes `- ` and then a compile id `!?\d+(/\d+)*(_\d+)?:` followed by a space or the end (the
// space is missing when an empty reason was right-trimmed: `- 0/0:`).
string_view strip_entry_prefix(string_view s) {
  s = ltrim(s);
  if (s == "-") return {};
  if (s.starts_with("- ")) s = ltrim(s.substr(2));
  size_t i = 0;
  auto digits = [&] {
    size_t start = i;
    while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) ++i;
    return i > start;
  };
  if (i < s.size() && s[i] == '!') ++i;
  if (!digits()) return s;
  while (i < s.size() && s[i] == '/') {
    ++i;
    if (!digits()) return s;
  }
  if (i < s.size() && s[i] == '_') {
    ++i;
    if (!digits()) return s;
  }
  if (i < s.size() && s[i] == ':' && (i + 1 == s.size() || s[i + 1] == ' '))
    return s.substr(std::min(i + 2, s.size()));
  return s;
}

// First position of `needle` outside Python string literals. Code parts can hold `#`, `==`, `; `
// inside literals (`L['text'] == 'a == b'`). *balanced is false when a literal never closes, i.e.
// the text was not Python code after all.
size_t find_outside_quotes(string_view s, string_view needle, bool* balanced = nullptr) {
  char quote = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (quote) {
      if (c == '\\')
        ++i;
      else if (c == quote)
        quote = 0;
      continue;
    }
    if (c == '\'' || c == '"') {
      quote = c;
      continue;
    }
    if (s.compare(i, needle.size(), needle) == 0) return i;
  }
  if (balanced) *balanced = quote == 0;
  return npos;
}

// Start of the `  # <frame>` source comment (docs/causes.md, Guard texts), or npos.
size_t find_comment(string_view s) {
  bool balanced = true;
  size_t pos = find_outside_quotes(s, "  # ", &balanced);
  if (pos == npos && !balanced) pos = s.find("  # ");
  return pos;
}

// recompiles_verbose joins an entry's failing code parts with `; `. Splits outside literals; inside
// a source comment quotes are not tracked (user code may hold a lone apostrophe) and the next `; `
// ends the comment.
std::vector<string_view> split_verbose(string_view s) {
  std::vector<string_view> parts;
  char quote = 0;
  bool comment = false;
  size_t start = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (quote) {
      if (c == '\\')
        ++i;
      else if (c == quote)
        quote = 0;
      continue;
    }
    if (!comment && (c == '\'' || c == '"')) {
      quote = c;
    } else if (!comment && s.compare(i, 4, "  # ") == 0) {
      comment = true;
      i += 3;
    } else if (c == ';' && i + 1 < s.size() && s[i + 1] == ' ') {
      if (!trim(s.substr(start, i - start)).empty()) parts.push_back(s.substr(start, i - start));
      start = i + 2;
      comment = false;
      ++i;
    }
  }
  if (!trim(s.substr(start)).empty() || parts.empty()) parts.push_back(s.substr(start));
  return parts;
}

// Parses `fname(a, b, ...)rest`, splitting arguments at top-level commas. False when `s` does not
// start with `fname(` or the parentheses never close.
bool parse_call(string_view s, string_view fname, std::vector<string_view>* args,
                string_view* rest) {
  if (!s.starts_with(fname) || s.size() <= fname.size() || s[fname.size()] != '(') return false;
  args->clear();
  size_t arg_start = fname.size() + 1;
  int depth = 0;
  char quote = 0;
  for (size_t i = arg_start; i < s.size(); ++i) {
    char c = s[i];
    if (quote) {
      if (c == '\\')
        ++i;
      else if (c == quote)
        quote = 0;
      continue;
    }
    switch (c) {
      case '\'':
      case '"':
        quote = c;
        break;
      case '(':
      case '[':
      case '{':
        ++depth;
        break;
      case ']':
      case '}':
        --depth;
        break;
      case ')':
        if (depth == 0) {
          args->push_back(trim(s.substr(arg_start, i - arg_start)));
          *rest = s.substr(i + 1);
          return true;
        }
        --depth;
        break;
      case ',':
        if (depth == 0) {
          args->push_back(trim(s.substr(arg_start, i - arg_start)));
          arg_start = i + 1;
        }
        break;
      default:
        break;
    }
  }
  return false;
}

// ` == N` (a SEQUENCE_LENGTH / DICT_VERSION / TUPLE_ITERATOR_LEN tail) -> N.
bool parse_equals_int(string_view rest, std::string* value) {
  static const RE2 kEqInt(R"(\s*==\s*(-?\d+)\s*)");
  return RE2::FullMatch(rest, kEqInt, value);
}

// Dimension index from digits RE2 already matched; -1 when it does not fit an int (bad input
// must not throw).
int parse_dim(const std::string& digits) {
  int value = -1;
  auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
  return ec == std::errc() && ptr == digits.data() + digits.size() ? value : -1;
}

void set_reason(GuardReason* r, string_view cause, string_view confidence, std::string subject,
                std::string detail) {
  r->cause = cause;
  r->confidence = confidence;
  r->subject = std::move(subject);
  r->detail = std::move(detail);
}

std::string quoted_subject(string_view s) {
  return "'" + std::string(s) + "'";
}

// Size, stride and rank mismatches: cause `shape`.
bool classify_tensor_shape(string_view g, GuardReason* r) {
  static const RE2 kSizeStride(
      R"(tensor '(.+)' (size|strides?) mismatch at index (\d+)\. expected (-?\d+), actual (-?\d+)(.*))");
  static const RE2 kSizeStrideLoose(R"(tensor '(.+)' (size|strides?) mismatch at index (\d+).*)");
  static const RE2 kRank(R"(tensor '(.+)' rank mismatch\. expected (\d+), actual (\d+).*)");
  std::string name, what, dim, expected, actual, rest;
  if (RE2::FullMatch(g, kSizeStride, &name, &what, &dim, &expected, &actual, &rest)) {
    std::string subject = strip_local_scope(name);
    bool stride = what != "size";
    std::string detail = "tensor " + quoted_subject(subject) +
                         (stride ? " stride at dim " : " dim ") + dim + ": " + expected + " -> " +
                         actual;
    if (rest.find("Guard failed on a parameter") != std::string::npos)
      detail +=
          " (a parameter was resized; parameter shapes stay static unless "
          "torch._dynamo.config.force_parameter_static_shapes = False)";
    set_reason(r, "shape", "high", std::move(subject), std::move(detail));
    r->dim = parse_dim(dim);
    r->expected = expected;
    r->actual = actual;
    return true;
  }
  if (RE2::FullMatch(g, kSizeStrideLoose, &name, &what, &dim)) {
    // Values we cannot read (e.g. symbolic): still a shape change at a known dim.
    std::string subject = strip_local_scope(name);
    set_reason(r, "shape", "medium", subject,
               "tensor " + quoted_subject(subject) + (what == "size" ? " size" : " stride") +
                   " changed at dim " + dim);
    r->dim = parse_dim(dim);
    return true;
  }
  if (RE2::FullMatch(g, kRank, &name, &expected, &actual)) {
    std::string subject = strip_local_scope(name);
    set_reason(r, "shape", "high", subject,
               "tensor " + quoted_subject(subject) + " rank: " + expected + " -> " + actual);
    r->expected = expected;
    r->actual = actual;
    return true;
  }
  return false;
}

// Dtype, requires_grad, device, dispatch keys and properties not known yet: cause `dtype` or
// `tensor_meta`.
bool classify_tensor_meta(string_view g, GuardReason* r) {
  static const RE2 kDtype(R"(tensor '(.+)' dtype mismatch\. expected (\w+), actual (\w+).*)");
  static const RE2 kRequiresGrad(
      R"(tensor '(.+)' requires_grad mismatch\. expected requires_grad=([01]).*)");
  static const RE2 kDevice(
      R"(tensor '(.+)' Tensor device index mismatch\. Expected device index to be (-?\d+), actual (-?\d+).*)");
  static const RE2 kDeviceLoose(R"(tensor '(.+)' Tensor device index mismatch.*)");
  static const RE2 kDispatch(
      R"(tensor '(.+)' dispatch key set mismatch\. expected (.*?), actual (.*))");
  static const RE2 kDispatchLoose(R"(tensor '(.+)' dispatch key set mismatch.*)");
  static const RE2 kOther(R"(tensor '(.+)' (.*mismatch.*))");

  std::string name, what, expected, actual;
  if (RE2::FullMatch(g, kDtype, &name, &expected, &actual)) {
    std::string subject = strip_local_scope(name);
    set_reason(r, "dtype", "high", subject,
               "tensor " + quoted_subject(subject) + " dtype: " + expected + " -> " + actual);
    r->expected = expected;
    r->actual = actual;
    return true;
  }
  if (RE2::FullMatch(g, kRequiresGrad, &name, &expected)) {
    // The text names only the expectation; a failed boolean check implies the other value.
    std::string subject = strip_local_scope(name);
    r->expected = expected == "1" ? "True" : "False";
    r->actual = expected == "1" ? "False" : "True";
    set_reason(r, "tensor_meta", "high", subject,
               "tensor " + quoted_subject(subject) + " requires_grad: " + r->expected + " -> " +
                   r->actual);
    return true;
  }
  if (RE2::FullMatch(g, kDevice, &name, &expected, &actual)) {
    std::string subject = strip_local_scope(name);
    set_reason(
        r, "tensor_meta", "high", subject,
        "tensor " + quoted_subject(subject) + " device index: " + expected + " -> " + actual);
    r->expected = expected;
    r->actual = actual;
    return true;
  }
  if (RE2::FullMatch(g, kDeviceLoose, &name)) {
    std::string subject = strip_local_scope(name);
    set_reason(r, "tensor_meta", "high", subject,
               "tensor " + quoted_subject(subject) + " moved to another device");
    return true;
  }
  // Dispatch keys are partly thread-local state: the tensor is unchanged when a mode flipped.
  constexpr string_view kDispatchNote =
      " (the keys can come from a global mode such as inference_mode, a TorchDispatchMode or a "
      "functorch transform rather than from the tensor itself)";
  if (RE2::FullMatch(g, kDispatch, &name, &expected, &actual)) {
    std::string subject = strip_local_scope(name);
    set_reason(r, "tensor_meta", "medium", subject,
               "tensor " + quoted_subject(subject) + " dispatch key set: " + expected + " -> " +
                   actual + std::string(kDispatchNote));
    r->expected = expected;
    r->actual = actual;
    return true;
  }
  if (RE2::FullMatch(g, kDispatchLoose, &name)) {
    std::string subject = strip_local_scope(name);
    set_reason(r, "tensor_meta", "medium", subject,
               "tensor " + quoted_subject(subject) + " dispatch key set changed" +
                   std::string(kDispatchNote));
    return true;
  }
  if (RE2::FullMatch(g, kOther, &name, &what)) {
    // A tensor property this classifier does not know yet (a newer guards.cpp check).
    std::string subject = strip_local_scope(name);
    set_reason(r, "tensor_meta", "low", subject, "tensor " + quoted_subject(subject) + ": " + what);
    return true;
  }
  return false;
}

// docs/causes.md rows 1–6: TENSOR_MATCH texts from guards.cpp. The name may itself contain
// quotes in older eras (`tensor 'L['tgt']' dtype mismatch`), so it is captured greedily up to the
// keyword.
bool classify_tensor(string_view g, GuardReason* r) {
  if (!g.starts_with("tensor '")) return false;
  return classify_tensor_shape(g, r) || classify_tensor_meta(g, r);
}

// docs/causes.md row 7 (TENSOR_MATCH on a value that is no longer a tensor). guards.cpp prints a
// stray quote: `expected type of 'x' to be a tensor type, ' but found int`; match the prefix only.
bool classify_tensor_type(string_view g, GuardReason* r) {
  static const RE2 kTensorType(R"(expected type of '(.+)' to be a tensor type(.*))");
  static const RE2 kFound(R"(but found (.+))");
  std::string name, rest, found;
  // Literal prefilters (here and below) skip a regex that cannot match.
  if (!g.starts_with("expected type of '") || !RE2::FullMatch(g, kTensorType, &name, &rest))
    return false;
  std::string subject = strip_local_scope(name);
  r->expected = "tensor";
  std::string detail = quoted_subject(subject) + " is no longer a tensor";
  if (RE2::PartialMatch(rest, kFound, &found)) {
    r->actual = std::string(trim(found));
    detail += " (found " + r->actual + ")";
  }
  set_reason(r, "type", "high", subject, detail);
  return true;
}

std::string join_items(string_view items) {
  std::string out;
  size_t i = 0;
  while (i < items.size()) {
    size_t start = items.find_first_not_of(' ', i);
    if (start == npos) break;
    size_t end = items.find(' ', start);
    if (end == npos) end = items.size();
    if (!out.empty()) out += ", ";
    out += items.substr(start, end - start);
    i = end;
  }
  return out;
}

// docs/causes.md row 8: every era's global-state guard.
bool classify_global_state(string_view g, GuardReason* r) {
  if (g.starts_with("GLOBAL_STATE changed:")) {
    // Items each end with a space: `grad_mode autocast `.
    std::string items = join_items(g.substr(std::string_view("GLOBAL_STATE changed:").size()));
    if (items.empty()) {
      set_reason(r, "global_state", "high", "global_state",
                 "global state changed (items not listed)");
      return true;
    }
    std::string detail = "global state changed: " + items;
    if (items.find("grad_mode") != npos)
      detail += " (grad_mode typically flips between training and torch.no_grad() evaluation)";
    set_reason(r, "global_state", "high", items, detail);
    return true;
  }
  if (g.find("___check_global_state()") != npos) {
    set_reason(
        r, "global_state", "high", "global_state",
        "global state changed (grad mode, inference mode, autocast, deterministic algorithms, "
        "torch_function, ...); this PyTorch prints only ___check_global_state(), newer ones name "
        "the items (GLOBAL_STATE changed: ...)");
    return true;
  }
  static const RE2 kGradEnabled(R"((not )?___is_grad_enabled\(\))");
  std::string negated;
  if (g.ends_with("___is_grad_enabled()") && RE2::FullMatch(g, kGradEnabled, &negated)) {
    // The guard held at compile time and fails now, so grad mode is the opposite.
    bool was_enabled = negated.empty();
    r->expected = was_enabled ? "True" : "False";
    r->actual = was_enabled ? "False" : "True";
    set_reason(r, "global_state", "high", "grad_mode",
               std::string("global state changed: grad_mode ") +
                   (was_enabled ? "enabled -> disabled" : "disabled -> enabled"));
    return true;
  }
  struct Known {
    string_view needle;
    string_view subject;
    string_view detail;
  };
  static constexpr Known kKnown[] = {
      {"___are_deterministic_algorithms_enabled()", "deterministic_algorithms",
       "global state changed: deterministic_algorithms (torch.use_deterministic_algorithms)"},
      {"___is_torch_function_enabled()", "torch_function",
       "global state changed: torch_function (torch function enabled/disabled)"},
      {"___check_torch_function_mode_stack()", "torch_function_mode_stack",
       "global state changed: the torch function mode stack"},
      {"___get_torch_function_mode_stack_at(", "torch_function_mode_stack",
       "global state changed: a TorchFunctionMode on the mode stack (its state or identity)"},
      {"utils_device.CURRENT_DEVICE", "default_device",
       "global state changed: default device (torch.set_default_device or a torch.device "
       "context)"},
      {"compare_functorch_state", "functorch_state",
       "global state changed: functorch transform state (vmap/grad level)"},
      {"forward_ad._current_level", "forward_ad_level",
       "global state changed: forward-mode AD level (forward_ad.dual_level)"},
  };
  for (const Known& k : kKnown) {
    if (g.find(k.needle) != npos) {
      set_reason(r, "global_state", "high", std::string(k.subject), std::string(k.detail));
      return true;
    }
  }
  return false;
}

// docs/causes.md row 9: TYPE_MATCH. Newest:
// `___check_type_id(<ref>, <id>), type=<class 'pkg.Cls'>`.
bool classify_type_id(string_view g, GuardReason* r) {
  std::vector<string_view> args;
  string_view rest;
  if (!parse_call(g, "___check_type_id", &args, &rest)) {
    if (!g.starts_with("___check_type_id(")) return false;
    set_reason(r, "type", "medium", "", "the type of a guarded value changed");
    return true;
  }
  std::string subject = strip_local_scope(args[0]);
  static const RE2 kType(R"(\s*,\s*type=(.+))");
  std::string type;
  if (RE2::FullMatch(rest, kType, &type)) {
    r->expected = std::string(trim(type));
  } else if (args.size() > 1) {
    r->expected = "type id " + std::string(args[1]);
  }
  set_reason(r, "type", "medium", subject,
             "type of " + quoted_subject(subject) + " changed" +
                 (r->expected.empty() ? std::string() : " (compiled for " + r->expected + ")"));
  return true;
}

// ID_MATCH: `___check_obj_id(x, id[, type=...])`.
bool classify_obj_id(string_view g, GuardReason* r) {
  std::vector<string_view> args;
  string_view rest;
  if (!parse_call(g, "___check_obj_id", &args, &rest)) return false;
  std::string subject = strip_local_scope(args[0]);
  static const RE2 kType(R"(\s*,\s*type=(.+))");
  std::string type;
  if (RE2::FullMatch(rest, kType, &type)) type = std::string(trim(type));
  // Newest logs print the guarded value: None and bools are ID_MATCHed singletons, so the
  // failure is an optional input appearing / a Python bool flipping, not a swapped object.
  if (type == "None" || type == "<class 'NoneType'>") {
    r->expected = "None";
    r->actual = "not None";
    set_reason(r, "key_subset", "medium", subject,
               quoted_subject(subject) +
                   " was None when compiled and is now given (optional input "
                   "present/absent)");
    return true;
  }
  if (type == "True" || type == "False") {
    r->expected = type;
    set_reason(
        r, "constant", "medium", subject,
        subject + " is " + type + " no longer holds (constant " + type + " baked into the graph)");
    return true;
  }
  r->expected = args.size() > 1 ? "id " + std::string(args[1]) : std::string();
  std::string detail = quoted_subject(subject) + " is a different object than when compiled";
  if (!type.empty())
    detail += " (compiled for " + type + ")";
  else if (!r->expected.empty())
    detail += " (" + r->expected + ")";
  set_reason(r, "object_identity", "medium", subject, detail);
  return true;
}

// A guarded object freed since compile: 2022's finalized weakref, 2.x's deallocated cache line.
bool classify_released(string_view g, GuardReason* r) {
  // 2022: a weakly referenced guarded object was garbage-collected (a module instance replaced).
  static const RE2 kFinalized(
      R"(Object \d+ of type (<class '[^']*'>) is weakref'd by this code, but has been finalized.*)");
  std::string type;
  if (g.starts_with("Object ") && RE2::FullMatch(g, kFinalized, &type)) {
    set_reason(r, "object_identity", "medium", type,
               "a guarded object of type " + type +
                   " was freed (finalized) since compile: a new instance was passed in its place");
    return true;
  }
  // 2.x: `Cache line invalidated because L['___stack0'] got deallocated`: an object the entry
  // holds a weak reference to (an ID-matched module, function or bound method; `___stack0` is a
  // value on the stack of a resume function) was freed, so the entry can never match again.
  static const RE2 kDeallocated(R"(Cache line invalidated because (.+) got deallocated\.?)");
  std::string freed;
  if (g.starts_with("Cache line invalidated") && RE2::FullMatch(g, kDeallocated, &freed)) {
    std::string subject = strip_local_scope(trim(freed));
    bool on_stack = subject.starts_with("___stack");
    set_reason(r, "object_identity", "medium", subject,
               quoted_subject(subject) +
                   " was freed since compile, so its cache entry was dropped" +
                   (on_stack ? std::string(": a value on the resume function's stack (a bound "
                                           "method such as list.append, or a temporary object) "
                                           "is a new object at every call")
                             : std::string(": a new instance is passed in its place at every "
                                           "call")));
    return true;
  }
  return false;
}

// docs/causes.md rows 10–11: ID_MATCH, NN_MODULE, DICT_VERSION, 2022 guarded-code validity.
bool classify_identity(string_view g, GuardReason* r) {
  if (classify_obj_id(g, r)) return true;
  std::vector<string_view> args;
  string_view rest;
  if (g.starts_with("___check_obj_id(")) {
    set_reason(r, "object_identity", "medium", "", "a guarded object was replaced by another one");
    return true;
  }
  // The argument list may be cut (`debug_msg="versions(mod=1, ....`): the module is its first.
  static const RE2 kNnModule(R"((__nn_module_guard_\d+)\(([^,)]*).*)");
  std::string fname, arg;
  if (g.starts_with("__nn_module_guard_") && RE2::FullMatch(g, kNnModule, &fname, &arg)) {
    std::string subject = strip_local_scope(trim(arg));
    set_reason(
        r, "object_identity", "medium", subject,
        "nn.Module " + quoted_subject(subject) +
            " changed since compile (train()/eval() switch, a mutated attribute or a different "
            "instance)");
    return true;
  }
  if (parse_call(g, "___dict_version", &args, &rest) && !args.empty()) {
    std::string subject = strip_local_scope(args[0]);
    std::string version;
    if (parse_equals_int(rest, &version)) r->expected = version;
    set_reason(
        r, "object_identity", "medium", subject,
        "dict " + quoted_subject(subject) + " was mutated since compile (dict version changed)");
    return true;
  }
  return classify_released(g, r);
}

// 2022 `___guarded_code.valid` alone: the compiled code was invalidated (a guarded object was
// mutated or freed), and the text does not say which object.
bool classify_guarded_code_valid(string_view g, GuardReason* r) {
  if (!g.starts_with("___guarded_code.valid")) return false;
  set_reason(
      r, "unknown", "low", "",
      "the compiled code was invalidated (___guarded_code.valid: a guarded object was mutated or "
      "freed) and this 2022 text does not say which; rerun on a PyTorch that names the failing "
      "guard (2023+) with TORCH_LOGS=recompiles");
  return true;
}

// `isinstance(L['x'], bool)` (a LAMBDA_GUARD, printed in GuardDebugInfo).
bool classify_is_instance(string_view g, GuardReason* r) {
  std::vector<string_view> args;
  string_view rest;
  if (!parse_call(g, "isinstance", &args, &rest) || args.size() != 2) return false;
  std::string subject = strip_local_scope(args[0]);
  r->expected = std::string(trim(args[1]));
  set_reason(r, "type", "medium", subject,
             "type of " + quoted_subject(subject) + " changed (compiled for isinstance " +
                 r->expected + ")");
  return true;
}

// Evaluating a guard raised because an attribute or key it reads is gone (`AttributeError: 'A'
// object has no attribute 'a'`, `KeyError: 'b'`): what was there at compile time vanished.
bool classify_vanished_member(string_view g, GuardReason* r) {
  static const RE2 kAttribute(R"(.*AttributeError:? .*has no attribute '([^']+)'.*)");
  static const RE2 kKey(R"(.*KeyError:? ?(?:on )?(.+))");
  std::string member;
  if (g.find("AttributeError") != npos && RE2::FullMatch(g, kAttribute, &member)) {
    set_reason(
        r, "key_subset", "medium", member,
        "attribute '" + member +
            "' that a guard reads no longer exists (evaluating the guard raised AttributeError)");
    return true;
  }
  if (g.find("KeyError") != npos && RE2::FullMatch(g, kKey, &member)) {
    member = std::string(trim(member));
    set_reason(r, "key_subset", "medium", member,
               "key " + member +
                   " that a guard reads is no longer present (evaluating the guard raised "
                   "KeyError)");
    return true;
  }
  return false;
}

// Opaque lambda names (docs/causes.md row 16): the guard exists but its text says nothing about
// what changed.
bool classify_opaque(string_view g, GuardReason* r) {
  if (g.find("___check_metadata_") != npos) {
    set_reason(r, "unknown", "low", "",
               "tensor-subclass metadata guard failed (opaque ___check_metadata_ lambda); " +
                   std::string(kEnableMore));
    return true;
  }
  if (g.find("__dtensor_spec_") != npos) {
    set_reason(
        r, "unknown", "low", "",
        "DTensor spec guard failed (placements or mesh changed; opaque __dtensor_spec_ lambda); " +
            std::string(kEnableMore));
    return true;
  }
  return false;
}

// Membership guards (`___dict_contains`, `hasattr`, `set.__contains__`, negated or not): a key,
// attribute or item appeared or went missing.
bool classify_membership(string_view g, GuardReason* r) {
  std::vector<string_view> args;
  string_view rest;
  bool negated = g.starts_with("not ");
  string_view call = negated ? ltrim(g.substr(4)) : g;
  // Membership guards: which call, which argument is the container, how to name the member.
  struct Membership {
    const char* call;
    size_t container_arg;
    const char* noun;
    const char* appeared;
    const char* missing;
  };
  static constexpr Membership kMemberships[] = {
      {"___dict_contains", 1, "key ", " appeared in ", " is missing from "},
      {"hasattr", 0, "attribute ", " appeared on ", " is missing from "},
      {"set.__contains__", 0, "item ", " appeared in set ", " is missing from set "},
  };
  for (const Membership& m : kMemberships) {
    if (!parse_call(call, m.call, &args, &rest) || args.size() != 2 || !trim(rest).empty())
      continue;
    std::string subject = strip_local_scope(args[m.container_arg]);
    r->expected = negated ? "absent" : "present";
    r->actual = negated ? "present" : "absent";
    set_reason(r, "key_subset", "medium", subject,
               m.noun + std::string(args[1 - m.container_arg]) +
                   (negated ? m.appeared : m.missing) + quoted_subject(subject));
    return true;
  }
  return false;
}

// docs/causes.md row 12: which keys / how many items / whether an optional value is there.
bool classify_key_subset(string_view g, GuardReason* r) {
  std::vector<string_view> args;
  string_view rest;
  std::string value;
  auto norm = [g] { return strip_local_scope(g); };

  if (classify_membership(g, r)) return true;
  bool negated = g.starts_with("not ");
  if (!negated && parse_call(g, "len", &args, &rest) && args.size() == 1 &&
      parse_equals_int(rest, &value)) {
    r->expected = value;
    set_reason(r, "key_subset", "medium", strip_local_scope(args[0]),
               norm() + ": container length changed");
    return true;
  }
  if (!negated && parse_call(g, "___tuple_iterator_len", &args, &rest) && args.size() == 1 &&
      parse_equals_int(rest, &value)) {
    r->expected = value;
    set_reason(r, "key_subset", "medium", strip_local_scope(args[0]),
               norm() + ": iterator length changed");
    return true;
  }
  // An empty container is guarded as `not x` (SEQUENCE_LENGTH 0): `not td._tensordict`.
  static const RE2 kNotRef(R"(not (\S+))");
  std::string ref;
  if (negated && RE2::FullMatch(g, kNotRef, &ref)) {
    r->expected = "0";
    set_reason(r, "key_subset", "medium", strip_local_scope(ref),
               norm() + ": container was empty when compiled and now has items");
    return true;
  }
  // DICT_KEYS_MATCH of every era.
  static const RE2 kKeys(
      R"((?:list\(dict\.keys\((.+)\)\)|set\((.+)\.keys\(\)\)|str\((.+)\.keys\(\)\)|list\((.+)\.keys\(\)\)|___dict_param_key_ids\((.+)\)|___dict_const_keys\((.+)\)) == (.+))");
  std::string k1, k2, k3, k4, k5, k6, keys;
  // Every alternative of kKeys ends its call with `keys(`, `key_ids(` or `keys())`.
  bool may_be_keys =
      g.find(" == ") != npos && (g.find("keys(") != npos || g.find("key_ids(") != npos);
  if (may_be_keys && RE2::FullMatch(g, kKeys, &k1, &k2, &k3, &k4, &k5, &k6, &keys)) {
    std::string subject = strip_local_scope(k1 + k2 + k3 + k4 + k5 + k6);
    r->expected = keys;
    set_reason(r, "key_subset", "medium", subject,
               "keys of " + quoted_subject(subject) + " changed (compiled for " + keys + ")");
    return true;
  }
  static const RE2 kIsNone(R"((.+) is (not )?None)");
  std::string is_not;
  if (g.ends_with(" None") && RE2::FullMatch(g, kIsNone, &ref, &is_not)) {
    std::string subject = strip_local_scope(trim(ref));
    bool was_none = is_not.empty();
    r->expected = was_none ? "None" : "not None";
    r->actual = was_none ? "not None" : "None";
    set_reason(r, "key_subset", "medium", subject,
               quoted_subject(subject) +
                   (was_none ? " was None when compiled and is now given"
                             : " was given when compiled "
                               "and is now None") +
                   " (optional input present/absent)");
    return true;
  }
  return false;
}

// docs/causes.md row 13: symbolic shape-env guards (sympy-printed) and mark_dynamic.
bool classify_shape_env(string_view g, string_view comment, GuardReason* r) {
  static const RE2 kShapeEnv(
      R"(size\(\)\[\d+\]|stride\(\)\[\d+\]|storage_offset\(\)|\bNe\(|\bEq\(|_dynamo_dynamic_indices|unknown var s\d+|\d+ <= .+ <= \d+)");
  static const RE2 kUnknownVar(R"(unknown var (s\d+))");
  std::string unknown_var;
  bool in_comment = comment.find("unknown var s") != npos &&
                    RE2::PartialMatch(comment, kUnknownVar, &unknown_var);
  // Every alternative of kShapeEnv contains one of these literals.
  auto may_match = [g] {
    for (string_view literal : {"size()[", "stride()[", "storage_offset()", "Ne(", "Eq(",
                                "_dynamo_dynamic_indices", "unknown var s", " <= "})
      if (g.find(literal) != npos) return true;
    return false;
  };
  if (!in_comment && !(may_match() && RE2::PartialMatch(g, kShapeEnv))) return false;

  std::string norm = strip_local_scope(g);
  static const RE2 kDynIdx(R"(hasattr\((.+?), '_dynamo_dynamic_indices'\))");
  static const RE2 kSizeRef(R"(([A-Za-z_][\w.\[\]'"]*)\.(?:size|stride)\(\)\[(\d+)\])");
  static const RE2 kOffsetRef(R"(([A-Za-z_][\w.\[\]'"]*)\.storage_offset\(\))");
  static const RE2 kSpecialized(R"(\S+\.size\(\)\[\d+\] == (-?\d+))");
  std::string ref, dim;
  if (RE2::PartialMatch(norm, kDynIdx, &ref)) {
    set_reason(
        r, "shape", "medium", ref,
        "mark_dynamic state of " + quoted_subject(ref) + " changed: " + norm + " no longer holds");
    return true;
  }
  std::string where;
  if (RE2::PartialMatch(norm, kSizeRef, &ref, &dim)) {
    r->dim = parse_dim(dim);
    where = " on " + quoted_subject(ref) + " dim " + dim;
    std::string value;
    if (RE2::FullMatch(norm, kSpecialized, &value)) r->expected = value;
  } else if (RE2::PartialMatch(norm, kOffsetRef, &ref)) {
    where = " on " + quoted_subject(ref) + " storage offset";
  }
  std::string detail = "dynamic-shape guard" + where + " failed: " + norm;
  if (!unknown_var.empty() || RE2::PartialMatch(g, kUnknownVar, &unknown_var))
    detail += " (Dynamo lost the source of symbol " + unknown_var + ")";
  set_reason(r, "shape", "medium", ref, detail);
  return true;
}

// docs/causes.md row 14: EQUALS_MATCH / CONSTANT_MATCH / BOOL_MATCH, and the NaN form of a float
// constant.
bool classify_constant(string_view g, GuardReason* r) {
  size_t eq = find_outside_quotes(g, " == ");
  if (eq != npos && eq > 0) {
    std::string subject = strip_local_scope(trim(g.substr(0, eq)));
    std::string value(trim(g.substr(eq + 4)));
    if (!value.empty()) {
      r->expected = value;
      std::string detail = subject + " == " + value + " no longer holds (constant " + value +
                           " baked into the graph";
      // 2023 NN_MODULE guards: `L['self'].training == True`.
      if (subject.ends_with(".training")) detail += "; module train()/eval() mode flipped";
      set_reason(r, "constant", "medium", subject, detail + ")");
      return true;
    }
  }
  static const RE2 kNan(R"(.*__math_isnan\((.+?)\).*)");
  std::string ref;
  if (RE2::FullMatch(g, kNan, &ref)) {
    std::string subject = strip_local_scope(ref);
    r->expected = "nan";
    set_reason(
        r, "constant", "medium", subject,
        subject + " was NaN when compiled and no longer is (constant nan baked into the graph)");
    return true;
  }
  return false;
}

// docs/causes.md row 15.
bool classify_backend(string_view g, GuardReason* r) {
  if (!g.starts_with("BACKEND_MATCH failure") && g.find("___check_current_backend") == npos)
    return false;
  set_reason(
      r, "backend", "high", "backend",
      "torch.compile was given a different backend callable than the cached entry's; reuse one "
      "backend object (or wrap it in functools.partial)");
  return true;
}

// docs/causes.md row 16: everything else, each with what would decide it.
void classify_unknown(string_view g, GuardReason* r) {
  std::string more(kEnableMore);
  if (g.empty()) {
    set_reason(
        r, "unknown", "low", "",
        "empty reason: the failing guard printed no text (seen for dispatch key set mismatches "
        "under a dispatch mode); " +
            more);
    return;
  }
  if (g.starts_with("Unexpected recompilation")) {
    set_reason(r, "unknown", "low", "",
               "Dynamo could not reproduce the guard failure when computing the reason; enable "
               "TORCH_TRACE to diff the guard sets of the cache entries");
    return;
  }
  if (g.starts_with("Unable to find recompilation reasons")) {
    set_reason(r, "unknown", "low", "", "no recompilation reason was recorded; " + more);
    return;
  }
  static const RE2 kDuplicate(R"(Duplicate tensors? found.*?! ?(.+?) ?should not alias.*)");
  std::string name;
  if (g.find("Duplicate tensor") != npos) {
    std::string subject = RE2::FullMatch(g, kDuplicate, &name) ? strip_local_scope(name) : "";
    set_reason(
        r, "unknown", "low", subject,
        "tensor aliasing changed" +
            (subject.empty() ? std::string()
                             : ": " + quoted_subject(subject) + " now aliases another input") +
            "; " + more);
    return;
  }

  // Python exception text from evaluating a guard while building the reason (`name 'Trunc' is
  // not defined`): the real failing guard is hidden behind it.
  static const RE2 kPythonError(
      R"(name '.+' is not defined|has no attribute|object is not|unsupported operand|[A-Z]\w*Error\b)");
  if (RE2::PartialMatch(g, kPythonError)) {
    set_reason(r, "unknown", "low", "",
               "evaluating a guard raised a Python error (" + std::string(g) +
                   ") so the failing guard is hidden; " + more);
    return;
  }
  set_reason(r, "unknown", "low", "", "unrecognised guard text: " + std::string(g) + "; " + more);
}

// 2022 `___check_tensors(input)`: one guard for every tensor property. A changed size is by far
// the commonest failure, but the text cannot rule out the others: shape, at low confidence.
bool classify_check_tensors(string_view g, GuardReason* r) {
  if (!g.starts_with("___check_tensors(")) return false;
  set_reason(
      r, "shape", "low", "",
      "2022 tensor guard ___check_tensors failed: most often a changed size, but this version does "
      "not say whether shape, stride, dtype, device or requires_grad changed; rerun on a PyTorch "
      "that prints per-tensor reasons (2023+) with TORCH_LOGS=recompiles");
  return true;
}

void classify_guard(string_view g, string_view comment, GuardReason* r) {
  if (classify_tensor(g, r)) return;
  if (classify_check_tensors(g, r)) return;
  if (classify_guarded_code_valid(g, r)) return;
  if (classify_is_instance(g, r)) return;
  if (classify_vanished_member(g, r)) return;
  if (classify_tensor_type(g, r)) return;
  if (classify_global_state(g, r)) return;
  if (classify_type_id(g, r)) return;
  if (classify_identity(g, r)) return;
  if (classify_opaque(g, r)) return;
  // mark_dynamic is spelt `hasattr(x, '_dynamo_dynamic_indices') == False`: a shape guard, not the
  // key presence that row 12's `hasattr(` would make of it.
  if (g.find("_dynamo_dynamic_indices") == npos && classify_key_subset(g, r)) return;
  if (classify_shape_env(g, comment, r)) return;
  if (classify_constant(g, r)) return;
  if (classify_backend(g, r)) return;
  classify_unknown(g, r);
}

}  // namespace

std::string strip_local_scope(std::string_view text) {
  std::string out(text);
  if (out.find("L[") == std::string::npos) return out;
  static const RE2 kLocal(R"(L\[\s*['"](.*?)['"]\s*\])");
  RE2::GlobalReplace(&out, kLocal, R"(\1)");
  return out;
}

GuardReason classify_guard_reason(std::string_view reason) {
  GuardReason r;
  // Only the first line: the newest era may append `User stack trace:` frames.
  string_view text = ltrim(reason);
  text = text.substr(0, text.find_first_of("\r\n"));
  text = rtrim(strip_entry_prefix(text));

  // TENSOR_MATCH texts come alone and carry no comment; their names may hold unbalanced quotes.
  bool tensor_text = text.starts_with("tensor '") || text.starts_with("expected type of '") ||
                     text.starts_with("Duplicate tensor");
  std::vector<string_view> parts =
      tensor_text ? std::vector<string_view>{text} : split_verbose(text);
  // `___guarded_code.valid` next to real guards (2022 lists join an entry's failures) says less
  // than they do: let the first real guard decide.
  while (parts.size() > 1 && trim(parts.front()).starts_with("___guarded_code.valid"))
    parts.erase(parts.begin());
  string_view part = rtrim(parts.front());
  r.more_failures = static_cast<int>(parts.size()) - 1;

  string_view comment;
  string_view hint;
  if (!tensor_text) {
    size_t c = find_comment(part);
    if (c != npos) {
      comment = trim(part.substr(c + 4));
      part = rtrim(part.substr(0, c));
    }
    // Newest: ` (HINT: ...)` closes the code part (or, defensively, the comment).
    for (string_view* s : {&part, &comment}) {
      size_t h = find_outside_quotes(*s, " (HINT: ");
      if (h == npos) continue;
      hint = trim(s->substr(h + 8));
      if (hint.ends_with(')')) hint.remove_suffix(1);
      *s = rtrim(s->substr(0, h));
      break;
    }
  }
  r.guard = std::string(part);
  // The shape env's `(unknown var s1, please file a bug)` note is not a source location.
  if (comment.find("unknown var s") == npos) r.user_code = std::string(comment);

  classify_guard(part, comment, &r);
  if (!hint.empty()) r.detail += "; Dynamo hint: " + std::string(hint);
  if (r.more_failures > 0)
    r.detail += " (+" + std::to_string(r.more_failures) + " more failing guard" +
                (r.more_failures > 1 ? "s" : "") + " in this entry)";
  return r;
}

}  // namespace rcf::analysis
