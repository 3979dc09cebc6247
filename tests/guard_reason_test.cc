// Tests for the Dynamo guard-failure reason classifier (analysis/guard_reason.h).
// Every reason form of docs/dynamo_text.md and docs/causes.md and every distinct reason string of
// the real logs of fixtures/dynamo/*.txt and of the TORCH_TRACE `recompile_reasons` artifacts in
// tlparse's test logs (fixtures/torch_trace/ and more), copied exactly (trailing padding kept).
#include "analysis/guard_reason.h"

#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <vector>

namespace rcf::analysis {
namespace guard_reason_test {

struct Case {
  const char* source;  // corpus file or format-doc section the text comes from
  std::string_view reason;
  std::string_view cause;
  std::string_view confidence;
  std::string_view subject;
  int dim;
  std::string_view expected;
  std::string_view actual;
  const char* detail = nullptr;  // exact sentence, checked when set
};

// Test names and failure messages show the reason text instead of the struct's bytes.
void PrintTo(const Case& c, std::ostream* os) {
  *os << c.reason;
}

// clang-format off
const std::vector<Case> kCases = {
    // ---- causes.md rows 1-7 tensor reasons (TENSOR_MATCH, guards.cpp) ----
    {"causes.md rows 1-7 / recompiles_pytorch_issue148179_shape_multi_entry.txt",
     "tensor 'L['x']' size mismatch at index 1. expected 1024, actual 128",
     "shape", "high", "x", 1, "1024", "128", "tensor 'x' dim 1: 1024 -> 128"},
    {"causes.md rows 1-7 size, stripped name", "tensor 'x' size mismatch at index 0. expected 15, actual 16",
     "shape", "high", "x", 0, "15", "16", "tensor 'x' dim 0: 15 -> 16"},
    {"causes.md rows 1-7 2022 wording (cache_size_limit_torchdynamo_issue1673_stride_2022fmt.txt)",
     "tensor 'x' strides mismatch at index 0. expected 562500, actual 2447991",
     "shape", "high", "x", 0, "562500", "2447991", "tensor 'x' stride at dim 0: 562500 -> 2447991"},
    {"causes.md rows 1-7 stride", "tensor 'L['x']' stride mismatch at index 2. expected 1, actual 4",
     "shape", "high", "x", 2, "1", "4", "tensor 'x' stride at dim 2: 1 -> 4"},
    {"causes.md rows 1-7 parameter suffix",
     "tensor 'X[0]' size mismatch at index 1. expected 640, actual 8. Guard failed on a parameter, consider using torch._dynamo.config.force_parameter_static_shapes = False to allow dynamism on parameters.",
     "shape", "high", "X[0]", 1, "640", "8",
     "tensor 'X[0]' dim 1: 640 -> 8 (a parameter was resized; parameter shapes stay static unless torch._dynamo.config.force_parameter_static_shapes = False)"},
    {"causes.md rows 1-7 unspecialized int (PR #110928)",
     "tensor '__as_tensor(L['i'])' size mismatch at index 0. expected 1, actual 2",
     "shape", "high", "__as_tensor(i)", 0, "1", "2"},
    {"causes.md rows 1-7 symbolic values", "tensor 'L['x']' size mismatch at index 0. expected s0, actual 7",
     "shape", "medium", "x", 0, "", "", "tensor 'x' size changed at dim 0"},
    {"causes.md rows 1-7 rank", "tensor 'L['x']' rank mismatch. expected 2, actual 3",
     "shape", "high", "x", -1, "2", "3", "tensor 'x' rank: 2 -> 3"},
    {"causes.md rows 1-7 dtype", "tensor 'L['tgt']' dtype mismatch. expected Half, actual Float",
     "dtype", "high", "tgt", -1, "Half", "Float", "tensor 'tgt' dtype: Half -> Float"},
    {"causes.md rows 1-7 dtype BFloat16", "tensor 'hidden' dtype mismatch. expected BFloat16, actual Float",
     "dtype", "high", "hidden", -1, "BFloat16", "Float"},
    {"causes.md rows 1-7 requires_grad", "tensor 'x' requires_grad mismatch. expected requires_grad=1",
     "tensor_meta", "high", "x", -1, "True", "False", "tensor 'x' requires_grad: True -> False"},
    {"causes.md rows 1-7 requires_grad=0", "tensor 'L['x']' requires_grad mismatch. expected requires_grad=0",
     "tensor_meta", "high", "x", -1, "False", "True"},
    {"causes.md rows 1-7 device index",
     "tensor 'L['x']' Tensor device index mismatch. Expected device index to be 0, actual 1",
     "tensor_meta", "high", "x", -1, "0", "1", "tensor 'x' device index: 0 -> 1"},
    {"causes.md rows 1-7 dispatch key set",
     "tensor 'L['x']' dispatch key set mismatch. expected DispatchKeySet(CPU, BackendSelect, ADInplaceOrView, AutogradCPU), actual DispatchKeySet(CPU, BackendSelect)",
     "tensor_meta", "medium", "x", -1,
     "DispatchKeySet(CPU, BackendSelect, ADInplaceOrView, AutogradCPU)",
     "DispatchKeySet(CPU, BackendSelect)",
     "tensor 'x' dispatch key set: DispatchKeySet(CPU, BackendSelect, ADInplaceOrView, AutogradCPU) -> DispatchKeySet(CPU, BackendSelect) (the keys can come from a global mode such as inference_mode, a TorchDispatchMode or a functorch transform rather than from the tensor itself)"},
    {"causes.md rows 1-7 unknown tensor property", "tensor 'x' layout mismatch. expected Strided, actual Sparse",
     "tensor_meta", "low", "x", -1, "", ""},
    {"causes.md rows 1-7 not a tensor any more", "expected type of 'L['x']' to be a tensor type, ' but found int",
     "type", "high", "x", -1, "tensor", "int", "'x' is no longer a tensor (found int)"},
    {"causes.md rows 1-7 not a tensor, NULL", "expected type of 'x' to be a tensor type, but found NULL",
     "type", "high", "x", -1, "tensor", "NULL"},

    // ---- causes.md row 8 global state ----
    {"causes.md row 8", "GLOBAL_STATE changed: grad_mode autocast ",
     "global_state", "high", "grad_mode, autocast", -1, "", "",
     "global state changed: grad_mode, autocast (grad_mode typically flips between training and torch.no_grad() evaluation)"},
    {"causes.md row 8 PR #172636 items", "GLOBAL_STATE changed: autocast(cuda)_enabled autocast(cuda)_dtype ",
     "global_state", "high", "autocast(cuda)_enabled, autocast(cuda)_dtype", -1, "", "",
     "global state changed: autocast(cuda)_enabled, autocast(cuda)_dtype"},
    {"causes.md row 8 deterministic", "GLOBAL_STATE changed: deterministic_algorithms ",
     "global_state", "high", "deterministic_algorithms", -1, "", ""},
    {"causes.md row 8 no items", "GLOBAL_STATE changed: ", "global_state", "high", "global_state", -1, "", ""},
    {"recompiles_pytorch_issue123784_global_state_2024fmt.txt", "- ___check_global_state()",
     "global_state", "high", "global_state", -1, "", ""},
    {"causes.md row 8 2022-23", "___is_grad_enabled()", "global_state", "high", "grad_mode", -1, "True", "False",
     "global state changed: grad_mode enabled -> disabled"},
    {"causes.md row 8 2022-23", "not ___is_grad_enabled()", "global_state", "high", "grad_mode", -1, "False", "True"},
    {"causes.md row 8 2022-23", "___are_deterministic_algorithms_enabled()",
     "global_state", "high", "deterministic_algorithms", -1, "", ""},
    {"causes.md row 8 2022-23", "___is_torch_function_enabled()", "global_state", "high", "torch_function", -1, "", ""},
    {"causes.md row 8", "___check_torch_function_mode_stack()",
     "global_state", "high", "torch_function_mode_stack", -1, "", ""},
    {"causes.md row 8", "utils_device.CURRENT_DEVICE == None", "global_state", "high", "default_device", -1, "", ""},
    {"causes.md guard texts FUNCTORCH", "torch._functorch.pyfunctorch.compare_functorch_state([('Vmap', 1, 2)])",
     "global_state", "high", "functorch_state", -1, "", ""},
    {"causes.md guard texts DUAL_LEVEL", "torch.autograd.forward_ad._current_level == -1",
     "global_state", "high", "forward_ad_level", -1, "", ""},

    // ---- causes.md guard texts TYPE_MATCH / ID_MATCH / NN_MODULE / DICT_VERSION ----
    {"causes.md guard texts TYPE_MATCH", "___check_type_id(L['self']._modules['mixer'], 94871234567808)",
     "type", "medium", "self._modules['mixer']", -1, "type id 94871234567808", "",
     "type of 'self._modules['mixer']' changed (compiled for type id 94871234567808)"},
    {"causes.md guard texts TYPE_MATCH newest",
     "___check_type_id(L['w'], 94871234567808), type=<class 'torch.nn.parameter.Parameter'> (HINT: type Parameter)",
     "type", "medium", "w", -1, "<class 'torch.nn.parameter.Parameter'>", "",
     "type of 'w' changed (compiled for <class 'torch.nn.parameter.Parameter'>); Dynamo hint: type Parameter"},
    {"causes.md row 10 None", "___check_obj_id(L['values'], 7696800), type=None",
     "key_subset", "medium", "values", -1, "None", "not None",
     "'values' was None when compiled and is now given (optional input present/absent)"},
    {"causes.md row 10 True", "___check_obj_id(L['flag'], 7696064), type=True",
     "constant", "medium", "flag", -1, "True", "",
     "flag is True no longer holds (constant True baked into the graph)"},
    {"causes.md row 10 False", "___check_obj_id(flag, 7696032), type=False",
     "constant", "medium", "flag", -1, "False", ""},
    {"causes.md row 10 None + HINT",
     "___check_obj_id(L['mask'], 7696800), type=None (HINT: mask was None when compiled)",
     "key_subset", "medium", "mask", -1, "None", "not None"},
    {"causes.md guard texts ID_MATCH newest function",
     "___check_obj_id(L['fn'], 140439264606080), type=<function fn at 0x7fbb2c3d4e50>",
     "object_identity", "medium", "fn", -1, "id 140439264606080", "",
     "'fn' is a different object than when compiled (compiled for <function fn at 0x7fbb2c3d4e50>)"},
    {"causes.md guard texts ID_MATCH old None (issue #108950)", "___check_obj_id(L['values'], 7696800)",
     "object_identity", "medium", "values", -1, "id 7696800", ""},
    {"dynamo_text.md recompile blocks 2022 list item", "___check_obj_id(self, 1404...)",
     "object_identity", "medium", "self", -1, "id 1404...", ""},
    {"causes.md guard texts NN_MODULE", "__nn_module_guard_1(L['self']._modules['encoder'])",
     "object_identity", "medium", "self._modules['encoder']", -1, "", ""},
    {"causes.md guard texts DICT_VERSION", "___dict_version(G['CFG']) == 12345",
     "object_identity", "medium", "G['CFG']", -1, "12345", "",
     "dict 'G['CFG']' was mutated since compile (dict version changed)"},
    // Alone it does not say which guarded object was mutated or freed (corpus pr494: unknown).
    {"cache_size_limit_torchdynamo_pr494_2022_old_and_new_wording.txt", "___guarded_code.valid",
     "unknown", "low", "", -1, "", ""},
    // Next to a real guard of the same entry, the real guard decides.
    {"2022 reasons list, nested entry", "___guarded_code.valid; L['n'] == 3", "constant", "medium",
     "n", -1, "3", ""},
    {"cache_size_limit_torchdynamo_pr496_2022_weakref_finalized.txt",
     "Object 140487837021376 of type <class '__main__.TestMod'> is weakref'd by this code, but has "
     "been finalized",
     "object_identity", "medium", "<class '__main__.TestMod'>", -1, "", ""},
    {"fail_on_recompile_pytorch_pr156433_guard_debug_info_type.txt", "isinstance(L['x'], bool)",
     "type", "medium", "x", -1, "bool", ""},
    {"guard_eval_error_pytorch_issue111522_attributeerror_2023.txt",
     "AttributeError: 'A' object has no attribute 'a'", "key_subset", "medium", "a", -1, "", ""},
    {"guard raised KeyError", "KeyError: 'labels'", "key_subset", "medium", "'labels'", -1, "", ""},
    {"guard_sanity_pytorch_issue172088_indented_same_frame_mode_count.txt",
     "___get_torch_function_mode_stack_at(0).count == 5", "global_state", "high",
     "torch_function_mode_stack", -1, "", ""},

    // ---- causes.md guard texts key-subset family ----
    {"causes.md guard texts DICT_CONTAINS", "___dict_contains('labels', L['batch'])",
     "key_subset", "medium", "batch", -1, "present", "absent",
     "key 'labels' is missing from 'batch'"},
    {"causes.md guard texts DICT_CONTAINS attribute", "not ___dict_contains('attr', L['self'].__dict__)",
     "key_subset", "medium", "self.__dict__", -1, "absent", "present",
     "key 'attr' appeared in 'self.__dict__'"},
    {"causes.md guard texts DICT_KEYS_MATCH", "list(dict.keys(L['batch'])) == ['input_ids', 'labels']",
     "key_subset", "medium", "batch", -1, "['input_ids', 'labels']", "",
     "keys of 'batch' changed (compiled for ['input_ids', 'labels'])"},
    {"causes.md guard texts DICT_KEYS_MATCH 2023", "set(L['d'].keys()) == {'a', 'b'}",
     "key_subset", "medium", "d", -1, "{'a', 'b'}", ""},
    {"causes.md guard texts OrderedDict 2023", "str(L['od'].keys()) == \"odict_keys(['a', 'b'])\"",
     "key_subset", "medium", "od", -1, "\"odict_keys(['a', 'b'])\"", ""},
    {"causes.md guard texts mappingproxy", "list(L['mp'].keys()) == ['a']", "key_subset", "medium", "mp", -1, "['a']", ""},
    {"causes.md guard texts 2023", "___dict_param_key_ids(L['self'].params) == [140000000000001]",
     "key_subset", "medium", "self.params", -1, "[140000000000001]", ""},
    {"causes.md guard texts 2023", "___dict_const_keys(L['cfg']) == {'a'}", "key_subset", "medium", "cfg", -1, "{'a'}", ""},
    {"causes.md guard texts HASATTR", "hasattr(L['self'], 'cache')", "key_subset", "medium", "self", -1, "present", "absent",
     "attribute 'cache' is missing from 'self'"},
    {"causes.md guard texts HASATTR negated", "not hasattr(L['self'], 'cache')",
     "key_subset", "medium", "self", -1, "absent", "present"},
    {"causes.md guard texts NONE_MATCH", "L['mask'] is None", "key_subset", "medium", "mask", -1, "None", "not None",
     "'mask' was None when compiled and is now given (optional input present/absent)"},
    {"causes.md guard texts NOT_NONE", "L['mask'] is not None", "key_subset", "medium", "mask", -1, "not None", "None",
     "'mask' was given when compiled and is now None (optional input present/absent)"},
    {"causes.md guard texts SET_CONTAINS", "set.__contains__(G['ALLOWED'], 'relu')",
     "key_subset", "medium", "G['ALLOWED']", -1, "present", "absent"},
    {"causes.md guard texts TUPLE_ITERATOR_LEN", "___tuple_iterator_len(L['it']) == 3",
     "key_subset", "medium", "it", -1, "3", "", "___tuple_iterator_len(it) == 3: iterator length changed"},
    {"causes.md guard texts SEQUENCE_LENGTH", "len(L['int_dict']) == 1", "key_subset", "medium", "int_dict", -1, "1", "",
     "len(int_dict) == 1: container length changed"},

    // ---- causes.md guard texts shape env (symbolic) ----
    {"causes.md guard texts shape env range", "2 <= L['x'].size()[0] <= 10", "shape", "medium", "x", 0, "", "",
     "dynamic-shape guard on 'x' dim 0 failed: 2 <= x.size()[0] <= 10"},
    {"causes.md guard texts shape env Ne", "Ne(L['x'].size()[1], 1)", "shape", "medium", "x", 1, "", ""},
    {"causes.md row 13 Eq", "Eq(L['a'].size()[0], L['b'].size()[0])", "shape", "medium", "a", 0, "", ""},
    {"causes.md row 13 specialization", "L['x'].size()[0] == 5", "shape", "medium", "x", 0, "5", ""},
    {"causes.md row 13 stride", "L['x'].stride()[0] == 1", "shape", "medium", "x", 0, "", ""},
    {"causes.md row 13 storage offset", "L['x'].storage_offset() == 0", "shape", "medium", "x", -1, "", ""},
    {"causes.md guard texts mark_dynamic", "hasattr(L['x'], '_dynamo_dynamic_indices') == False",
     "shape", "medium", "x", -1, "", "",
     "mark_dynamic state of 'x' changed: hasattr(x, '_dynamo_dynamic_indices') == False no longer holds"},

    // ---- causes.md guard texts constants ----
    {"causes.md guard texts EQUALS_MATCH", "L['n'] == 3", "constant", "medium", "n", -1, "3", "",
     "n == 3 no longer holds (constant 3 baked into the graph)"},
    {"causes.md row 14", "L['packed_indices']['max_seqlen_in_batch_kv'] == 31868",
     "constant", "medium", "packed_indices['max_seqlen_in_batch_kv']", -1, "31868", ""},
    {"causes.md guard texts string containing ==", "L['text'] == 'some string with == inside'",
     "constant", "medium", "text", -1, "'some string with == inside'", "",
     "text == 'some string with == inside' no longer holds (constant 'some string with == inside' baked into the graph)"},
    {"causes.md guard texts # inside a literal", "L['text'] == 'a  # not a comment'",
     "constant", "medium", "text", -1, "'a  # not a comment'", ""},
    {"causes.md guard texts BOOL_MATCH", "L['flag'] == True", "constant", "medium", "flag", -1, "True", "",
     "flag == True no longer holds (constant True baked into the graph)"},
    {"causes.md guard texts NN_MODULE 2023", "L['self'].training == True", "constant", "medium", "self.training", -1, "True", "",
     "self.training == True no longer holds (constant True baked into the graph; module train()/eval() mode flipped)"},
    {"causes.md guard texts 2023 device", "str(L['device']) == 'cuda:0'", "constant", "medium", "str(device)", -1, "'cuda:0'", ""},
    {"causes.md guard texts NaN", "(type(L['x']) is float and __math_isnan(L['x']))", "constant", "medium", "x", -1, "nan", ""},
    {"causes.md guard texts DISPATCH_KEY_SET_MATCH", "L['ks'].raw_repr() == DispatchKeySet(CPU).raw_repr()",
     "constant", "medium", "ks.raw_repr()", -1, "DispatchKeySet(CPU).raw_repr()", ""},

    // ---- dynamo_text.md recompile blocks / causes.md rows 15–16 ----
    {"dynamo_text.md recompile blocks BACKEND_MATCH",
     "BACKEND_MATCH failure: torch.compile detected different backend callables. If this is unexpected, wrap your backend in functools.partial (or reuse the same cached backend) to avoid creating a new backend function each time. More details: https://github.com/pytorch/pytorch/issues/168373",
     "backend", "high", "backend", -1, "", ""},
    {"causes.md row 15", "___check_current_backend(140000000000000)", "backend", "high", "backend", -1, "", ""},
    {"causes.md row 16 empty", "", "unknown", "low", "", -1, "", "",
     "empty reason: the failing guard printed no text (seen for dispatch key set mismatches under a dispatch mode); enable TORCH_LOGS=recompiles_verbose for every failing guard, or TORCH_TRACE to diff the guard sets of the cache entries"},
    {"dynamo_text.md recompile blocks",
     "Unexpected recompilation: runtime guards failed even though they passed during recompilation-reason analysis. Please open an issue with a minimal repro: https://github.com/pytorch/pytorch",
     "unknown", "low", "", -1, "", ""},
    {"dynamo_text.md recompile blocks", "Unable to find recompilation reasons", "unknown", "low", "", -1, "", "",
     "no recompilation reason was recorded; enable TORCH_LOGS=recompiles_verbose for every failing guard, or TORCH_TRACE to diff the guard sets of the cache entries"},
    {"causes.md rows 1-7 aliasing",
     "Duplicate tensor found where not expected! L['y']should not alias to anything, but is aliased",
     "unknown", "low", "y", -1, "", ""},
    {"causes.md guard texts subclass", "___check_metadata_140062263790704_c0(L['x'])", "unknown", "low", "", -1, "", ""},
    {"causes.md guard texts DTensor", "__dtensor_spec_3(L['w'])", "unknown", "low", "", -1, "", ""},
    // One guard for every tensor property: most often a size, but the text cannot say (low).
    {"cache_size_limit_torchdynamo_pr281_2022_gt_quoted_check_tensors.txt", "___check_tensors(input)",
     "shape", "low", "", -1, "", ""},
    {"causes.md row 16 python error", "'NoneType' object has no attribute 'size'", "unknown", "low", "", -1, "", ""},
    {"causes.md row 16 anything else", "some future guard text", "unknown", "low", "", -1, "", ""},

    // ---- causes.md guard texts preprocessing: prefixes, ids, verbose joins, stack traces ----
    {"causes.md guard texts prefix", "0/0: L['n'] == 3", "constant", "medium", "n", -1, "3", ""},
    {"causes.md guard texts prefix", "- 5/2: tensor 'L['x']' size mismatch at index 1. expected 1024, actual 128",
     "shape", "high", "x", 1, "1024", "128"},
    {"causes.md guard texts prefix indented", "    - 3/35: tensor 'hidden_states' size mismatch at index 0. expected 1, actual 22",
     "shape", "high", "hidden_states", 0, "1", "22"},
    {"dynamo_text.md compile ids attempt suffix", "- 1/1_1: tensor 'L['tgt']' dtype mismatch. expected Half, actual Float",
     "dtype", "high", "tgt", -1, "Half", "Float"},
    {"dynamo_text.md compile ids compiled autograd", "!0/1/2: L['n'] == 3", "constant", "medium", "n", -1, "3", ""},
    {"causes.md guard texts empty after id", "0/0: ", "unknown", "low", "", -1, "", ""},
    {"causes.md guard texts empty, trimmed", "0/0:", "unknown", "low", "", -1, "", ""},
    {"dynamo_text.md recompile blocks verbose join", "0/3: L['x'] == 1; L['y'] == 2; len(L['d']) == 3",
     "constant", "medium", "x", -1, "1", "",
     "x == 1 no longer holds (constant 1 baked into the graph) (+2 more failing guards in this entry)"},
    {"dynamo_text.md recompile blocks verbose join, `; ` in a literal", "L['s'] == 'x; y'; L['n'] == 3",
     "constant", "medium", "s", -1, "'x; y'", "",
     "s == 'x; y' no longer holds (constant 'x; y' baked into the graph) (+1 more failing guard in this entry)"},
    {"dynamo_text.md recompile blocks verbose join with comments",
     "L['x'] == 1                                                     # y = f(x); z = 1  # a.py:3 in f; L['y'] == 2                                                     # b.py:4 in g",
     "constant", "medium", "x", -1, "1", ""},
    {"dynamo_text.md recompile blocks user stack trace", "0/0: L['n'] == 3\n- User stack trace:\n-   File \"a.py\", line 3, in f",
     "constant", "medium", "n", -1, "3", ""},

    // ---- corpus: fixtures/dynamo ----
    // cache_size_limit_pytorch_issue128090_other.txt
    {"cache_size_limit_pytorch_issue128090_other.txt", "name 'Trunc' is not defined", "unknown", "low", "", -1, "", "",
     "evaluating a guard raised a Python error (name 'Trunc' is not defined) so the failing guard is hidden; enable TORCH_LOGS=recompiles_verbose for every failing guard, or TORCH_TRACE to diff the guard sets of the cache entries"},
    // cache_size_limit_torchdynamo_issue1673_stride_2022fmt.txt (item of the `reasons:` list)
    {"cache_size_limit_torchdynamo_issue1673_stride_2022fmt.txt",
     "tensor 'x' strides mismatch at index 0. expected 562500, actual 2447991",
     "shape", "high", "x", 0, "562500", "2447991"},
    // recompile_limit_dion_issue23_shape_param.txt (`last reason:`)
    {"recompile_limit_dion_issue23_shape_param.txt",
     "2/7: tensor 'X[0]' size mismatch at index 1. expected 640, actual 8. Guard failed on a parameter, consider using torch._dynamo.config.force_parameter_static_shapes = False to allow dynamism on parameters.",
     "shape", "high", "X[0]", 1, "640", "8"},
    // recompile_limit_thunder_issue2682_constant_int.txt (`last reason:`)
    {"recompile_limit_thunder_issue2682_constant_int.txt",
     "0/7: y == 7                                                   # return x + y  # pt/pytorch/lightning-thunder/test_thunder_recompile.py:5 in foo",
     "constant", "medium", "y", -1, "7", "", "y == 7 no longer holds (constant 7 baked into the graph)"},
    // recompiles_diffusers_pr11970_obj_id.txt
    {"recompiles_diffusers_pr11970_obj_id.txt", "- 1/36: ___check_obj_id(self._modules['attn'].processor, 140462015041104)",
     "object_identity", "medium", "self._modules['attn'].processor", -1, "id 140462015041104", "",
     "'self._modules['attn'].processor' is a different object than when compiled (id 140462015041104)"},
    {"recompiles_diffusers_pr11970_obj_id.txt", "- 1/35: ___check_obj_id(self._modules['attn'].processor, 140462015040240)",
     "object_identity", "medium", "self._modules['attn'].processor", -1, "id 140462015040240", ""},
    {"recompiles_diffusers_pr11970_obj_id.txt", "- 1/34: ___check_obj_id(self._modules['attn'].processor, 140462015039376)",
     "object_identity", "medium", "self._modules['attn'].processor", -1, "id 140462015039376", ""},
    {"recompiles_diffusers_pr11970_obj_id.txt", "- 1/33: ___check_obj_id(self._modules['attn'].processor, 140462015038512)",
     "object_identity", "medium", "self._modules['attn'].processor", -1, "id 140462015038512", ""},
    {"recompiles_diffusers_pr11970_obj_id.txt", "- 1/32: ___check_obj_id(self._modules['attn'].processor, 140462015037648)",
     "object_identity", "medium", "self._modules['attn'].processor", -1, "id 140462015037648", ""},
    {"recompiles_diffusers_pr11970_obj_id.txt", "- 1/31: ___check_obj_id(self._modules['attn'].processor, 140466393496880)",
     "object_identity", "medium", "self._modules['attn'].processor", -1, "id 140466393496880", ""},
    // recompiles_pytorch_issue100455_2023_tuple_fmt_string_const.txt (text after `guard failure: `)
    {"recompiles_pytorch_issue100455_2023_tuple_fmt_string_const.txt",
     "L['text'] == 'This is a note about Frank Sinatra who was in Saint Genis Pouilly during summer of 75. He was not r'",
     "constant", "medium", "text", -1,
     "'This is a note about Frank Sinatra who was in Saint Genis Pouilly during summer of 75. He was not r'", ""},
    // recompiles_pytorch_issue123784_global_state_2024fmt.txt
    {"recompiles_pytorch_issue123784_global_state_2024fmt.txt", "- ___check_global_state()",
     "global_state", "high", "global_state", -1, "", ""},
    // recompiles_pytorch_issue128134_dtype.txt
    {"recompiles_pytorch_issue128134_dtype.txt", "- tensor 'L['tgt']' dtype mismatch. expected Half, actual Float",
     "dtype", "high", "tgt", -1, "Half", "Float"},
    // recompiles_pytorch_issue143670_dict_len.txt
    {"recompiles_pytorch_issue143670_dict_len.txt", "- 0/0: len(L['int_dict']) == 1",
     "key_subset", "medium", "int_dict", -1, "1", "", "len(int_dict) == 1: container length changed"},
    // recompiles_pytorch_issue148179_shape_multi_entry.txt
    {"recompiles_pytorch_issue148179_shape_multi_entry.txt",
     "- 5/2: tensor 'L['x']' size mismatch at index 1. expected 1024, actual 128", "shape", "high", "x", 1, "1024", "128"},
    {"recompiles_pytorch_issue148179_shape_multi_entry.txt",
     "- 5/1: tensor 'L['x']' size mismatch at index 1. expected 512, actual 128", "shape", "high", "x", 1, "512", "128"},
    {"recompiles_pytorch_issue148179_shape_multi_entry.txt",
     "- 5/0: tensor 'L['x']' size mismatch at index 1. expected 256, actual 128", "shape", "high", "x", 1, "256", "128"},
    // recompiles_pytorch_issue161119_shape_rank0_vllm.txt
    {"recompiles_pytorch_issue161119_shape_rank0_vllm.txt",
     "- 3/35: tensor 'hidden_states' size mismatch at index 0. expected 1, actual 22",
     "shape", "high", "hidden_states", 0, "1", "22", "tensor 'hidden_states' dim 0: 1 -> 22"},
    {"recompiles_pytorch_issue161119_shape_rank0_vllm.txt",
     "- 3/34: tensor 'hidden_states' size mismatch at index 0. expected 2, actual 22", "shape", "high", "hidden_states", 0, "2", "22"},
    {"recompiles_pytorch_issue161119_shape_rank0_vllm.txt",
     "- 3/33: tensor 'hidden_states' size mismatch at index 0. expected 4, actual 22", "shape", "high", "hidden_states", 0, "4", "22"},
    {"recompiles_pytorch_issue161119_shape_rank0_vllm.txt",
     "- 3/32: tensor 'hidden_states' size mismatch at index 0. expected 8, actual 22", "shape", "high", "hidden_states", 0, "8", "22"},
    {"recompiles_pytorch_issue161119_shape_rank0_vllm.txt",
     "- 3/31: tensor 'hidden_states' size mismatch at index 0. expected 16, actual 22", "shape", "high", "hidden_states", 0, "16", "22"},
    // recompiles_pytorch_pr164992_empty_reason_dispatchkey.txt
    {"recompiles_pytorch_pr164992_empty_reason_dispatchkey.txt", "- 0/0: ", "unknown", "low", "", -1, "", ""},
    {"recompiles_pytorch_pr164992_empty_reason_dispatchkey.txt", "- 0/0:", "unknown", "low", "", -1, "", ""},
    {"recompiles_pytorch_pr164992_empty_reason_dispatchkey.txt", "- 0/1: ", "unknown", "low", "", -1, "", ""},
    // recompiles_sglang_issue7230_rank_shapeenv.txt
    {"recompiles_sglang_issue7230_rank_shapeenv.txt",
     "- 1/0: topk_index._base.size()[0] == topk_index.size()[0]  # (unknown var s1, please file a bug)",
     "shape", "medium", "topk_index._base", 0, "", "",
     "dynamic-shape guard on 'topk_index._base' dim 0 failed: topk_index._base.size()[0] == topk_index.size()[0] (Dynamo lost the source of symbol s1)"},
    // recompiles_tensordict_issue1606_dict_keys.txt
    {"recompiles_tensordict_issue1606_dict_keys.txt",
     "- 0/2: len(td._tensordict) == 2                                 # self._tensordict[key] = value  # tensordict/_td.py:2486 in _set_str",
     "key_subset", "medium", "td._tensordict", -1, "2", "", "len(td._tensordict) == 2: container length changed"},
    {"recompiles_tensordict_issue1606_dict_keys.txt",
     "- 0/1: len(td._tensordict) == 1                                 # self._tensordict[key] = value  # tensordict/_td.py:2486 in _set_str",
     "key_subset", "medium", "td._tensordict", -1, "1", ""},
    {"recompiles_tensordict_issue1606_dict_keys.txt",
     "- 0/0: not td._tensordict                                       # self._tensordict[key] = value  # tensordict/_td.py:2486 in _set_str",
     "key_subset", "medium", "td._tensordict", -1, "0", "",
     "not td._tensordict: container was empty when compiled and now has items"},
    {"recompiles_tensordict_issue1606_dict_keys.txt",
     "- 0/5: len(td._tensordict) == 5                                 # self._tensordict[key] = value  # tensordict/_td.py:2486 in _set_str",
     "key_subset", "medium", "td._tensordict", -1, "5", ""},
    // recompiles_verbose_pytorch_issue128071_type_id_const.txt
    {"recompiles_verbose_pytorch_issue128071_type_id_const.txt",
     "- 16/7: L['self']._modules['mixer']._modules['conv'].layer_idx == (8, 'conv')",
     "constant", "medium", "self._modules['mixer']._modules['conv'].layer_idx", -1, "(8, 'conv')", ""},
    {"recompiles_verbose_pytorch_issue128071_type_id_const.txt",
     "- 16/2: ___check_type_id(L['self']._modules['mixer'], 157671424)    ",
     "type", "medium", "self._modules['mixer']", -1, "type id 157671424", ""},
    {"recompiles_verbose_pytorch_issue128071_type_id_const.txt",
     "- 16/6: ___check_type_id(L['self']._modules['mixer'], 157226352)    ",
     "type", "medium", "self._modules['mixer']", -1, "type id 157226352", ""},
    // recompiles_verbose_pytorch_issue149406_constant_float.txt
    {"recompiles_verbose_pytorch_issue149406_constant_float.txt", "- 6/0: L['y'] == 1.5                                               ",
     "constant", "medium", "y", -1, "1.5", "", "y == 1.5 no longer holds (constant 1.5 baked into the graph)"},
    // recompiles_pytorch_issue114293_constant_int_2023fmt.txt
    {"recompiles_pytorch_issue114293_constant_int_2023fmt.txt",
     "- L['end'] == 10                                                # for i in range(start+1, end):  # <ipython-input-6-4764417fa0ae>:9 in accumulate",
     "constant", "medium", "end", -1, "10", "", "end == 10 no longer holds (constant 10 baked into the graph)"},
    {"recompiles_pytorch_issue114293_constant_int_2023fmt.txt",
     "- L['start'] == 1                                               # result = X0[start]  # <ipython-input-6-4764417fa0ae>:8 in accumulate",
     "constant", "medium", "start", -1, "1", ""},
    // recompiles_pytorch_issue114293_turn2_ambient_guard_comment.txt
    {"recompiles_pytorch_issue114293_turn2_ambient_guard_comment.txt",
     "- L['start'] == 3                                               # _dynamo/output_graph.py:366 in init_ambient_guards", "constant", "medium", "start", -1, "3", ""},
    {"recompiles_pytorch_issue114293_turn2_ambient_guard_comment.txt",
     "- L['start'] == 4                                               # _dynamo/output_graph.py:366 in init_ambient_guards", "constant", "medium", "start", -1, "4", ""},
    {"recompiles_pytorch_issue114293_turn2_ambient_guard_comment.txt",
     "- L['start'] == 5                                               # _dynamo/output_graph.py:366 in init_ambient_guards", "constant", "medium", "start", -1, "5", ""},
    {"recompiles_pytorch_issue114293_turn2_ambient_guard_comment.txt",
     "- L['start'] == 6                                               # _dynamo/output_graph.py:366 in init_ambient_guards", "constant", "medium", "start", -1, "6", ""},
    // recompiles_pytorch_pr110325_shape_2023fmt.txt
    {"recompiles_pytorch_pr110325_shape_2023fmt.txt", "- tensor 'L['x']' size mismatch at index 0. expected 24, actual 25",
     "shape", "high", "x", 0, "24", "25"},
    {"recompiles_pytorch_pr110325_shape_2023fmt.txt", "- tensor 'L['x']' size mismatch at index 0. expected 24, actual 26",
     "shape", "high", "x", 0, "24", "26"},
    {"recompiles_pytorch_pr110325_shape_2023fmt.txt", "- tensor 'L['x']' size mismatch at index 0. expected 25, actual 26",
     "shape", "high", "x", 0, "25", "26"},
    {"recompiles_pytorch_pr110325_shape_2023fmt.txt", "- tensor 'L['x']' size mismatch at index 0. expected 25, actual 27",
     "shape", "high", "x", 0, "25", "27"},
    {"recompiles_pytorch_pr110325_shape_2023fmt.txt", "- tensor 'L['x']' size mismatch at index 0. expected 26, actual 27",
     "shape", "high", "x", 0, "26", "27"},
    // compile_profiler_pytorch_issue110803_nn_module_guard.txt (Recompile Reasons column)
    {"compile_profiler_pytorch_issue110803_nn_module_guard.txt", "__nn_module_guard_0(L['self'])",
     "object_identity", "medium", "self", -1, "", "",
     "nn.Module 'self' changed since compile (train()/eval() switch, a mutated attribute or a different instance)"},

    // ---- corpus: tlparse's test logs, `recompile_reasons` / `recompile_reason` ----
    // collectives_parity/dedicated_log_torch_trace_rank_0.log
    {"torch_trace/collectives_parity/dedicated_log_torch_trace_rank_0.log",
     "0/0: ___check_obj_id(fn, 140439264606080)                   ",
     "object_identity", "medium", "fn", -1, "id 140439264606080", ""},
    // multi_rank_runtime/dedicated_log_torch_trace_rank_1.log
    {"torch_trace/multi_rank_runtime/dedicated_log_torch_trace_rank_1.log",
     "0/0: ___check_obj_id(fn, 139645370122560)                   ",
     "object_identity", "medium", "fn", -1, "id 139645370122560", ""},
    // multi_rank_runtime/dedicated_log_torch_trace_rank_5.log
    {"torch_trace/multi_rank_runtime/dedicated_log_torch_trace_rank_5.log",
     "0/0: ___check_obj_id(fn, 140251457884928)                   ",
     "object_identity", "medium", "fn", -1, "id 140251457884928", ""},
    // graph_exec_order_tests/dedicated_log_torch_trace_rank_0_a74od7a1.log
    {"torch_trace/graph_exec_order_tests/dedicated_log_torch_trace_rank_0_a74od7a1.log",
     "0/0: ___check_obj_id(fn, 139870659812992)                   ",
     "object_identity", "medium", "fn", -1, "id 139870659812992", ""},
    // graph_exec_order_tests/dedicated_log_torch_trace_rank_1_fglwclht.log
    {"torch_trace/graph_exec_order_tests/dedicated_log_torch_trace_rank_1_fglwclht.log",
     "0/0: ___check_obj_id(fn, 139696444471168)                   ",
     "object_identity", "medium", "fn", -1, "id 139696444471168", ""},
    // multi_rank_logs/dedicated_log_torch_trace_rank_{1,3}.log (one per older cache entry)
    {"torch_trace/multi_rank_logs/dedicated_log_torch_trace_rank_1.log",
     "0/0: tensor 'x' size mismatch at index 0. expected 2, actual 3", "shape", "high", "x", 0, "2", "3"},
    {"torch_trace/multi_rank_logs/dedicated_log_torch_trace_rank_1.log",
     "0/1: tensor 'x' size mismatch at index 0. expected 3, actual 4", "shape", "high", "x", 0, "3", "4"},
    {"torch_trace/multi_rank_logs/dedicated_log_torch_trace_rank_1.log",
     "0/0: tensor 'x' size mismatch at index 0. expected 2, actual 4", "shape", "high", "x", 0, "2", "4"},
    {"torch_trace/multi_rank_logs/dedicated_log_torch_trace_rank_3.log",
     "0/13: tensor 'x' size mismatch at index 0. expected 15, actual 16", "shape", "high", "x", 0, "15", "16"},
    {"torch_trace/multi_rank_logs/dedicated_log_torch_trace_rank_3.log",
     "0/7: tensor 'x' size mismatch at index 0. expected 9, actual 16", "shape", "high", "x", 0, "9", "16"},
};
// clang-format on

class GuardReasonTable : public ::testing::TestWithParam<Case> {};

TEST_P(GuardReasonTable, Classifies) {
  const Case& c = GetParam();
  SCOPED_TRACE(std::string(c.source) + ": " + std::string(c.reason));
  GuardReason r = classify_guard_reason(c.reason);
  EXPECT_EQ(r.cause, c.cause);
  EXPECT_EQ(r.confidence, c.confidence);
  EXPECT_EQ(r.subject, c.subject);
  EXPECT_EQ(r.dim, c.dim);
  EXPECT_EQ(r.expected, c.expected);
  EXPECT_EQ(r.actual, c.actual);
  EXPECT_FALSE(r.detail.empty());
  if (c.detail != nullptr) {
    EXPECT_EQ(r.detail, c.detail);
  }
  // Cleaning never leaves padding or an entry prefix behind.
  EXPECT_EQ(r.guard.find_last_not_of(' ') + 1, r.guard.size());
  EXPECT_FALSE(r.guard.starts_with("- "));
}

INSTANTIATE_TEST_SUITE_P(GuardReason, GuardReasonTable, ::testing::ValuesIn(kCases));

TEST(GuardReasonTest, CleanedGuardDropsPrefixCommentAndPadding) {
  GuardReason r = classify_guard_reason(
      "0/7: y == 7                                                   # return x + y  # "
      "pt/pytorch/lightning-thunder/test_thunder_recompile.py:5 "
      "in foo");
  EXPECT_EQ(r.guard, "y == 7");
  EXPECT_EQ(r.user_code,
            "return x + y  # pt/pytorch/lightning-thunder/test_thunder_recompile.py:5 in foo");

  r = classify_guard_reason("- 16/2: ___check_type_id(L['self']._modules['mixer'], 157671424)    ");
  EXPECT_EQ(r.guard, "___check_type_id(L['self']._modules['mixer'], 157671424)");
  EXPECT_EQ(r.user_code, "");

  r = classify_guard_reason("0/0: ___check_obj_id(fn, 140439264606080)                   ");
  EXPECT_EQ(r.guard, "___check_obj_id(fn, 140439264606080)");
}

TEST(GuardReasonTest, CommentPointingIntoDynamoIsKeptAsIs) {
  // recompiles_pytorch_issue114293_turn2_ambient_guard_comment.txt: no user line, only a frame.
  GuardReason r = classify_guard_reason(
      "- L['start'] == 6                                               # "
      "_dynamo/output_graph.py:366 in init_ambient_guards");
  EXPECT_EQ(r.guard, "L['start'] == 6");
  EXPECT_EQ(r.user_code, "_dynamo/output_graph.py:366 in init_ambient_guards");
}

TEST(GuardReasonTest, ShapeEnvUnknownVarNoteIsNotUserCode) {
  // recompiles_sglang_issue7230_rank_shapeenv.txt
  GuardReason r = classify_guard_reason(
      "- 1/0: topk_index._base.size()[0] == topk_index.size()[0]  # (unknown var s1, please file a "
      "bug)");
  EXPECT_EQ(r.guard, "topk_index._base.size()[0] == topk_index.size()[0]");
  EXPECT_EQ(r.user_code, "");
}

TEST(GuardReasonTest, HashInsideLiteralIsNotAComment) {
  GuardReason r = classify_guard_reason(
      "L['text'] == 'a  # b'                              # f(text)  # m.py:1 in g");
  EXPECT_EQ(r.guard, "L['text'] == 'a  # b'");
  EXPECT_EQ(r.expected, "'a  # b'");
  EXPECT_EQ(r.user_code, "f(text)  # m.py:1 in g");
}

TEST(GuardReasonTest, HintIsStrippedFromGuard) {
  GuardReason r = classify_guard_reason(
      "3/1: ___check_type_id(L['w'], 94871234567808), type=<class 'torch.nn.parameter.Parameter'> "
      "(HINT: type Parameter)");
  EXPECT_EQ(
      r.guard,
      "___check_type_id(L['w'], 94871234567808), type=<class 'torch.nn.parameter.Parameter'>");
  EXPECT_EQ(r.cause, "type");
}

TEST(GuardReasonTest, TensorTextIsNeverCommentStripped) {
  GuardReason r = classify_guard_reason(
      "- 5/2: tensor 'L['x']' size mismatch at index 1. expected 1024, actual 128");
  EXPECT_EQ(r.guard, "tensor 'L['x']' size mismatch at index 1. expected 1024, actual 128");
  EXPECT_EQ(r.user_code, "");
}

TEST(GuardReasonTest, VerboseJoinClassifiesFirstAndCountsOthers) {
  GuardReason r = classify_guard_reason("0/3: L['x'] == 1; L['y'] == 2; len(L['d']) == 3");
  EXPECT_EQ(r.guard, "L['x'] == 1");
  EXPECT_EQ(r.more_failures, 2);

  r = classify_guard_reason(
      "L['x'] == 1                                                     # y = f(x); z = 1  # a.py:3 "
      "in f; L['y'] == 2                                                     # b.py:4 in g");
  EXPECT_EQ(r.guard, "L['x'] == 1");
  EXPECT_EQ(r.user_code, "y = f(x)");  // a `; ` in user code ends the comment: accepted ambiguity
  EXPECT_GE(r.more_failures, 1);

  r = classify_guard_reason("- 6/0: L['y'] == 1.5                                               ");
  EXPECT_EQ(r.more_failures, 0);
}

TEST(GuardReasonTest, OnlyTheFirstLineIsClassified) {
  GuardReason r = classify_guard_reason(
      "0/0: ___check_obj_id(L['m'], 7696800), type=None\n- User stack trace:\n-   File \"a.py\", "
      "line 3");
  EXPECT_EQ(r.cause, "key_subset");
  EXPECT_EQ(r.guard, "___check_obj_id(L['m'], 7696800), type=None");
}

TEST(GuardReasonTest, UnknownAlwaysSaysWhatToEnable) {
  for (std::string_view reason :
       {"", "- 0/0: ", "Unable to find recompilation reasons", "name 'Trunc' is not defined",
        "___check_metadata_1_c0(L['x'])", "__dtensor_spec_0(L['w'])", "gibberish"}) {
    GuardReason r = classify_guard_reason(reason);
    EXPECT_EQ(r.cause, "unknown") << reason;
    EXPECT_EQ(r.confidence, "low") << reason;
    EXPECT_NE(r.detail.find("TORCH_"), std::string::npos) << reason;
  }
}

TEST(GuardReasonTest, PrefixThatIsNotACompileIdIsKept) {
  // A shape-env range starts with digits but has no `:` after them.
  EXPECT_EQ(classify_guard_reason("2 <= L['x'].size()[0] <= 10").guard,
            "2 <= L['x'].size()[0] <= 10");
  // A float constant on the left is not an id either.
  EXPECT_EQ(classify_guard_reason("1.5 == L['y']").guard, "1.5 == L['y']");
  EXPECT_EQ(classify_guard_reason("-").cause, "unknown");
}

TEST(GuardReasonTest, BadInputNeverThrows) {
  GuardReason r = classify_guard_reason(
      "tensor 'x' size mismatch at index 99999999999999999999. expected 1, actual 2");
  EXPECT_EQ(r.cause, "shape");
  EXPECT_EQ(r.dim, -1);
  r = classify_guard_reason(std::string_view("\xff\xfe\0tensor '", 11));
  EXPECT_EQ(r.cause, "unknown");
  r = classify_guard_reason("___check_obj_id(L['x'], (((");
  EXPECT_EQ(r.cause, "object_identity");
  r = classify_guard_reason(std::string(1 << 20, '\''));
  EXPECT_EQ(r.cause, "unknown");
}

TEST(GuardReasonStripLocalScope, Substitutes) {
  EXPECT_EQ(strip_local_scope("L['x']"), "x");
  EXPECT_EQ(strip_local_scope("L[\"x\"]"), "x");
  EXPECT_EQ(strip_local_scope("L[ 'x' ]"), "x");
  EXPECT_EQ(strip_local_scope("L['self']._modules['attn'].processor"),
            "self._modules['attn'].processor");
  EXPECT_EQ(strip_local_scope("tensor 'L['x']' size mismatch at index 1"),
            "tensor 'x' size mismatch at index 1");
  EXPECT_EQ(strip_local_scope("Eq(L['a'].size()[0], L['b'].size()[0])"),
            "Eq(a.size()[0], b.size()[0])");
  EXPECT_EQ(strip_local_scope("L['packed']['max_seqlen'] == 3"), "packed['max_seqlen'] == 3");
}

TEST(GuardReasonStripLocalScope, LeavesOtherTextAlone) {
  EXPECT_EQ(strip_local_scope(""), "");
  EXPECT_EQ(strip_local_scope("self._modules['attn']"), "self._modules['attn']");
  EXPECT_EQ(strip_local_scope("G['CFG'].x"), "G['CFG'].x");
  EXPECT_EQ(strip_local_scope("G['L']"), "G['L']");
  EXPECT_EQ(strip_local_scope("x"), "x");
}

TEST(GuardReasonStripLocalScope, ErasAggregateToTheSameSubject) {
  // 2024 (`L['x']`) and mid-2025 (stripped) texts of the same guard give the same subject.
  EXPECT_EQ(
      classify_guard_reason("0/0: tensor 'L['x']' size mismatch at index 0. expected 2, actual 3")
          .subject,
      classify_guard_reason("0/0: tensor 'x' size mismatch at index 0. expected 2, actual 3")
          .subject);
  EXPECT_EQ(
      classify_guard_reason("___check_obj_id(L['self']._modules['attn'].processor, 1)").subject,
      classify_guard_reason("___check_obj_id(self._modules['attn'].processor, 1)").subject);
}

}  // namespace guard_reason_test
}  // namespace rcf::analysis
