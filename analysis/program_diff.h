// Why two programs compiled at one site differ: the evidence-level comparison behind every XLA-side
// attribution (torch_xla and JAX). Pure functions over plain records, so they are unit-tested on
// hand-written programs; the loader (analysis/run_analysis.cc) fills the records from hlo_module,
// hlo_parameter and hlo_constant, or from PT_XLA_DEBUG input counts when no HLO was captured.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace rcf::analysis {

struct ProgramParameter {
  int64_t number = 0;
  std::string dtype;          // f32, bf16, s32, pred, tuple, ...
  std::vector<int64_t> dims;  // empty for scalars and tuples
  std::string shape_text;     // as printed, e.g. "f32[8,128]{1,0}"
};

struct ProgramConstant {
  int64_t ordinal = 0;      // position in the module
  std::string name;         // instruction name (e.g. "constant.12"), may be empty
  std::string shape_text;   // e.g. "s64[]"
  std::string value_text;   // as printed; "{...}" when elided; may be only a prefix when
                            // value_id is set (a program of large constants stays small)
  bool elided = false;      // the printer hid the value (constant({...}))
  std::string user_op;      // opcode of its first user, "" if unknown
  std::string op_name;      // metadata op_name / op_type, "" if none
  std::string source_file;  // metadata source_file, "" if none
  int64_t source_line = -1;
  int64_t value_id = -1;  // id of the whole value text (equal ids = equal values), -1 if not
                          // known: then value_text is whole and is compared
};

// What is known about one compiled program. `has_hlo` false = only the PT_XLA_DEBUG block (input
// and output counts) is known; then parameters/constants/histogram are empty.
struct ProgramView {
  std::string program_key;  // graph hash as printed (or JAX function + signature)
  bool has_hlo = false;
  std::optional<int64_t> input_count;        // PT_XLA_DEBUG "Number of Graph Inputs"
  std::optional<int64_t> output_count;       // PT_XLA_DEBUG "Number of Graph Outputs"
  std::vector<ProgramParameter> parameters;  // entry parameters by number (when has_hlo)
  std::vector<ProgramConstant> constants;    // in module order (when has_hlo)
  std::map<std::string, int64_t> op_histogram;
  std::string structure_fingerprint;     // ignores names/ids and constant values
  std::string full_fingerprint;          // ignores only names/ids
  std::string skeleton_fingerprint;      // ignores also instruction shapes and attribute values
  std::optional<int64_t> hlo_module_id;  // the module the view was loaded from (when has_hlo)
};

// The input signature of a program: dtype and dims of every parameter in order, e.g.
// "f32[8,128] s32[] bf16[4]"; "" without HLO (then only input_count is comparable).
std::string input_signature(const ProgramView& p);

struct ProgramDiff {
  std::string cause;       // key_subset, shape, dtype, constant, graph_structure, unknown
  std::string confidence;  // high, medium, low
  std::string subject;     // for aggregation: "param 3 dim 1", "constant.12", "graph inputs", "ops"
  std::string detail;      // the human sentence, see diff_programs
  std::string evidence;    // which artifacts decided it: "HLO parameters", "HLO constants", ...
  // For shape changes: the parameter number and dim index that changed (first one), so callers can
  // gather every value a dim takes at a site. -1 when not a shape change.
  bool op_attributes_only = false;  // rule 4a: the HLO text can say which attributes differ
  int64_t shape_param = -1;
  int64_t shape_dim = -1;
  std::optional<int64_t> old_dim_value, new_dim_value;
};

// Compares `current` with `previous` (both compiled at the same site), strongest evidence first:
//   1. both have HLO and the parameter lists differ in count, or the multiset of parameter shapes
//      differs in a way that is not one parameter changing in place -> key_subset, naming the
//      parameters that appeared / disappeared with their shapes ("+param 7 f32[8,16]; -param 5
//      s32[8]"), confidence high; subject "input <shape>" of the first one (the shape, not the
//      number, so an optional input coming and going aggregates under one subject).
//      Parameters are compared by (dtype, dims), never by layout. Added / removed = the multiset
//      difference, the k-th occurrence of a shape matched with the k-th: an input inserted in the
//      middle is one "+param N", not a shape change of every parameter after it. With equal
//      counts, position i is an in-place change when only its dtype or only its dims changed; the
//      change is key_subset instead when some position changed both, or when the multiset
//      difference needs fewer edits (added + removed) than there are changed positions (one
//      input dropped and another added shifts those between them). Same shapes in another order
//      -> key_subset "graph inputs reordered", medium, subject "input order";
//   2. same parameter count, an element type changed -> dtype ("param 2: f32[8,128] ->
//      bf16[8,128]"; all changed params listed, in-place dim changes too, the first dtype change
//      in subject), high;
//   3. same count and dtypes, a dimension changed -> shape ("param 0 dim 1: 128 -> 256", rank
//      changes say "param 2: rank 2 -> 3 (f32[8,128] -> f32[8,128,4])"), every changed dim listed,
//      high; subject and shape_param/shape_dim/old/new describe the first change (a rank change:
//      subject "param 2", shape_dim -1, no values); unbounded dynamic dims print as "?";
//   4a. same signature, structure fingerprints differ, skeleton fingerprints equal (the same ops
//      wired the same way) -> constant, medium, subject "op attributes": "same inputs and ops; only
//      op attributes or the shapes they give differ (...)"; `op_attributes_only` is set so that
//      the caller can name the instructions from the HLO text (analysis/op_attribute_diff.h);
//   4. same signature, structure fingerprints differ -> graph_structure with the op-histogram delta
//      sorted by opcode ("same inputs, different ops: +1 add, -2 multiply"; "same inputs, ops
//      differ (same op counts; order or operands changed)" when the histograms are equal), high
//      (medium when a structure fingerprint is missing and only the histograms differ);
//   5. same signature and structure, full fingerprints differ -> constant: the constants are
//      paired by ordinal; name each one whose value changed ("constant.12 s64[]: 3 -> 4 (used by
//      multiply; model.py:88; aten::mul)", each part only when known; long values clipped),
//      confidence high, the first one in subject; when the differing constants are elided
//      ("{...}"), no pair differs visibly or the counts differ: "same signature and structure,
//      different constant values; the values are not visible (large constants are printed as
//      {...})", confidence medium, subject "elided constant(s)" / "constants";
//   6. identical fingerprints -> unknown ("the same program was compiled again: ..."), low,
//      subject "same program";
//   Without HLO on either side (a side with HLO but no debug block counts its parameters):
//   7. input counts differ -> key_subset "number of graph inputs changed: 7 -> 9" (outputs too
//      when they changed), medium; subject "graph inputs";
//   8. otherwise unknown, low, with the advice to capture HLO (XLA_SAVE_TENSORS_FILE with
//      XLA_SAVE_TENSORS_FMT=hlo, or XLA_FLAGS=--xla_dump_to=DIR).
// Details never exceed ~400 characters: long lists end with "(+N more)".
ProgramDiff diff_programs(const ProgramView& previous, const ProgramView& current);

// Picks which earlier program at a site `current` should be compared with (its prev_program_key):
// the most recent one with the same input signature and the same structure fingerprint, else the
// most recent with the same input signature, else the most recent with the same structure
// fingerprint, else the most recent one. Signatures are compared with input_signature() when both
// programs have HLO, else by input_count; fingerprints only when both have HLO. `earlier` is in
// compile order; returns an index into it, or -1 when it is empty.
int64_t choose_previous(const std::vector<const ProgramView*>& earlier, const ProgramView& current);

// choose_previous for a growing list, in O(log n) per call: add() each program in compile order
// (at one site), query with choose() before adding the current one. A site that compiled a million
// programs (a Python counter in the graph) must not make attribution quadratic.
class PreviousProgramIndex {
 public:
  // Same result as choose_previous over the programs added so far (indices in add order).
  int64_t choose(const ProgramView& current) const;
  void add(const ProgramView& program);
  int64_t size() const { return count_; }

 private:
  static void note(std::map<std::string, int64_t>& m, const std::string& k, int64_t i) { m[k] = i; }
  static int64_t find(const std::map<std::string, int64_t>& m, const std::string& k);
  int64_t count_ = 0;
  std::map<std::string, int64_t> by_signature_structure_;  // HLO signature + structure
  std::map<std::string, int64_t> by_signature_;            // HLO signature
  std::map<std::string, int64_t> by_count_hlo_;            // input count of programs with HLO
  std::map<std::string, int64_t> by_count_no_hlo_;         // input count of programs without
  std::map<std::string, int64_t> by_structure_;            // structure fingerprint (HLO)
};

}  // namespace rcf::analysis
