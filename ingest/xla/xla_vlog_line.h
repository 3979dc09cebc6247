// One line of torch_xla's VLOG output about graphs (TF_CPP_VMODULE=tensor=5 before 2023,
// xla_graph_executor=5 after), split into its prefix fields and its message (docs/xla_formats.md).
//
//   2021-01-27 17:00:59.245051: I   23980 torch_xla/csrc/tensor.cpp:1153] <message>   (2020-)
//   2019-11-23 19:24:05.629247: I torch_xla/csrc/tensor.cpp:1112] <message>          (2019)
//   I0127 17:00:59.245051   23980 tensor.cpp:1153] <message>                         (glog)
//   I   23980 torch_xla/csrc/tensor.cpp:1153] <message>          (a timestamp cut off in front)
//
// The source path may be relative or absolute. Only lines whose prefix ends in `<file>:<line>] `
// are VLOG lines; the rest is other output.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace rcf::ingest {

struct VlogLine {
  std::string_view message;       // text after `] `
  std::optional<double> clock_s;  // seconds since 1970 (date + time) or since midnight (glog)
  int64_t thread = -1;            // thread id when printed
};

// What a VLOG message says about a graph.
enum class VlogKind : uint8_t {
  kNone,               // another VLOG message
  kCompileStart,       // Compiling IR graph hash <h> on device <d> ...
  kCompileDone,        // Compiling IR graph hash <h> on device <d> done!
  kExecuteStart,       // Executing IR graph hash <h> on device <d> ...
  kExecuteDone,        // Executing IR graph hash <h> on device <d> done!
  kTensorsGraph,       // Tensors graph hash <h> on device <d>
  kParameterSequence,  // Parameter sequence graph hash <h>
  kCacheHit,           // Graph hash: <h>
  kGetTensor,          // Trying to get the value of <n> tensor(s)
  kGraphSize,          // SyncTensorsGraphSize=<n> / TensorsGraphSize=<n>
  kDeviceBarrier,      // Waiting on device barrier for device <d> ... / done!
  kBadHash,            // a graph message whose hash or count does not parse
};

struct VlogMessage {
  VlogKind kind = VlogKind::kNone;
  std::string_view hash;    // hex or decimal digits, as printed
  std::string_view device;  // "TPU:0"
  int64_t count = 0;        // kGetTensor, kGraphSize
};

// Splits a VLOG line; false when `line` has no VLOG prefix.
bool split_vlog_line(std::string_view line, VlogLine* out);

// Classifies a VLOG message (the text after `] `). Dispatches on its first byte.
VlogMessage classify_vlog_message(std::string_view message);

// True when `hash` is a graph hash as torch_xla prints it: 1-32 lowercase hex digits, or a
// decimal number of up to 39 digits (the 2019 form).
bool is_graph_hash(std::string_view hash);

}  // namespace rcf::ingest
