// The compile lifecycle of a TORCH_TRACE log. Format: docs/torch_trace.md.
#include "ingest/torch_trace/torch_trace_compiles.h"

#include <algorithm>
#include <cmath>
#include <tuple>

#include "ingest/dynamo/compilation_metrics_counts.h"
#include "ingest/dynamo/compile_time_checks.h"
#include "ingest/dynamo/inductor_cudagraph_skip.h"
#include "ingest/torch_trace/json_skim.h"
#include "ingest/torch_trace/torch_trace_payloads.h"

namespace rcf::ingest::torch_trace {

// {"str": ["<path>", <id>]}
void CompileTracker::handle_string(const Record& r) {
  const json& entry = metadata(r);
  if (!entry.is_array() || entry.size() < 2 || !entry[0].is_string()) return;
  std::optional<int64_t> id = as_int(&entry[1]);
  if (id) strings_[*id] = entry[0].get<std::string>();
}

std::string CompileTracker::resolve_filename(const json* filename) const {
  if (!filename) return {};
  if (filename->is_string()) return filename->get<std::string>();
  if (std::optional<int64_t> id = as_int(filename)) {
    auto it = strings_.find(*id);
    return it != strings_.end() ? it->second : std::to_string(*id);  // unknown id stays a number
  }
  return {};
}

std::vector<StackFrame> CompileTracker::stack_from_json(const json* stack) const {
  std::vector<StackFrame> frames;
  if (!stack || !stack->is_array()) return frames;
  frames.reserve(stack->size());
  for (const json& item : *stack) {
    if (!item.is_object()) continue;
    StackFrame frame;
    frame.file = resolve_filename(member(item, "filename"));
    frame.line = int_member(item, "line").value_or(0);
    frame.function = string_member(item, "name");
    frame.code = string_member(item, "loc");
    frames.push_back(std::move(frame));
  }
  return frames;
}

void CompileTracker::handle_dynamo_start(const Record& r) {
  const EnvelopeIds& ids = r.ids;
  if (ids.id.known()) {
    // torch._dynamo.reset() restarts compile ids: a first attempt of an (F, C) already started
    // in this epoch opens a new epoch.
    CompileKey seen{ids.rank, 0, ids.id.compiled_autograd, ids.id.frame, ids.id.compile};
    if (ids.id.attempt == 0 && !started_in_epoch_.insert(seen).second) {
      ++epoch_;
      started_in_epoch_.clear();
      started_in_epoch_.insert(seen);
    }
  }
  StartedCompile started;
  started.line = r.line;
  started.ref = ref_for(ids);
  started.user_stack = stack_from_json(member(metadata(r), "stack"));
  if (!started.user_stack.empty() && !is_torch_internal_file(started.user_stack.back().file)) {
    // Newer PyTorch ends the stack with the compiled function itself.
    started.compiled_function = started.user_stack.back().function;
    started.compiled_file = started.user_stack.back().file;
    started.compiled_line = started.user_stack.back().line;
  }
  while (!started.user_stack.empty() && is_torch_internal_file(started.user_stack.back().file))
    started.user_stack.pop_back();
  if (!ids.id.known()) return;  // cannot be matched with its metrics
  started_.try_emplace(key_of(started.ref), std::move(started));
}

void CompileTracker::handle_metrics(const Record& r, const char* kind) {
  DynamoCompile compile;
  compile.line = r.line;
  compile.kind = kind;
  compile.ref = ref_for(r.ids);
  compile.pid = r.pid;
  const MetricsFields f = read_metrics(r, compile);
  settle_metrics(r, f, compile);
  const CompileKey key = key_of(compile.ref);
  attach_started(key, compile);
  emit_metrics_side_events(r, key, f, compile);
  sink_.emit(std::move(compile));
}

// Reads the record into `compile` (and emits the stack versions it names) in one pass over the
// (large) metrics object; values we do not use are only skimmed.
CompileTracker::MetricsFields CompileTracker::read_metrics(const Record& r,
                                                           DynamoCompile& compile) {
  MetricsFields f;
  json_skim::for_each_member(r.meta, [&](std::string_view key, std::string_view value) {
    if (key == "compile_id") {
      f.compile_id_field = skim_string(value);
    } else if (key == "co_name") {
      compile.co_name = skim_string(value);
    } else if (key == "co_filename") {
      compile.co_filename = skim_string(value);
    } else if (key == "co_firstlineno") {
      compile.co_firstlineno = json_skim::to_int(value).value_or(-1);
    } else if (key == "start_time_us") {
      compile.start_time_us = json_skim::to_int(value);
    } else if (key == "start_time") {
      f.start_time_s = json_skim::to_double(value);
    } else if (key == "duration_us") {
      f.duration_us = json_skim::to_double(value);
    } else if (key == "entire_frame_compile_time_s") {
      f.frame_compile_time_s = json_skim::to_double(value);
    } else if (key == "dynamo_cumulative_compile_time_us") {
      f.dynamo_cumulative_us = json_skim::to_double(value);
    } else if (auto count = compilation_metrics_count(key)) {
      compile.*count = json_skim::to_int(value);
    } else if (key == "has_guarded_code") {
      compile.has_guarded_code = json_skim::to_bool(value);
    } else if (key == "fail_type") {
      compile.fail_type = skim_string(value);
    } else if (key == "fail_reason") {
      compile.fail_reason = skim_string(value);
    } else if (key == "recompile_reason") {
      compile.recompile_reason = skim_string(value);
    } else if (key == "cudagraph_skip_reason") {
      f.cudagraph_skip_reason = skim_string(value);
    } else if (key == "restart_reasons") {
      json_skim::for_each_element(value, [&](std::string_view item) {
        if (std::optional<std::string> reason = json_skim::to_string(item))
          compile.restart_reasons.push_back(std::move(*reason));
      });
    } else if (key == "dynamo_config") {
      read_dynamo_config(value, &compile);
    } else if (key == "python_version") {
      // "3.12.11 | packaged by Anaconda, Inc. | (main, ...)": the version is the first word.
      std::string text = skim_string(value);
      emit_version(r.line, "python", text.substr(0, text.find(' ')));
    } else if (key == "cuda_version") {
      emit_version(r.line, "cuda", skim_string(value));
    } else if (key == "triton_version") {
      emit_version(r.line, "triton", skim_string(value));
    }
  });
  return f;
}

// Start time, wall time and compile id from the fields each PyTorch version writes.
void CompileTracker::settle_metrics(const Record& r, const MetricsFields& f,
                                    DynamoCompile& compile) {
  if (!compile.start_time_us && f.start_time_s && std::fabs(*f.start_time_s) < 9.0e12)
    compile.start_time_us = int64_t(std::llround(*f.start_time_s * 1e6));
  settle_duration(f, compile);
  drop_implausible_times(compile, sink_, r.line, r.excerpt);
  // The record is logged as the compile ends: its local glog clock against that epoch time
  // tells the writer's zone, which zone-less times of the same machine need (progress lines).
  if (r.clock && compile.start_time_us && compile.duration_ms)
    compile.clock_offset_s = clock_offset_s(
        *r.clock, static_cast<double>(*compile.start_time_us) / 1e6 + *compile.duration_ms / 1e3);
  settle_compile_id(r, f, compile);
}

// Wall time of the compile: duration_us (newest), else the legacy seconds, else the µs counter
// that some versions write alone (entire_frame_compile_time_s = it / 1e6).
void CompileTracker::settle_duration(const MetricsFields& f, DynamoCompile& compile) {
  if (f.duration_us) {
    compile.duration_ms = *f.duration_us / 1000.0;
  } else if (f.frame_compile_time_s) {
    compile.duration_ms = *f.frame_compile_time_s * 1000.0;
  } else if (f.dynamo_cumulative_us) {
    compile.duration_ms = *f.dynamo_cumulative_us / 1000.0;
  }
}

// The compile id: the envelope's, checked against the record's own field.
void CompileTracker::settle_compile_id(const Record& r, const MetricsFields& f,
                                       DynamoCompile& compile) {
  // The envelope id wins over the `compile_id` field: every other record of the compile is
  // keyed by its envelope, and hand-edited corpus files disagree (multi_rank_runtime).
  if (std::optional<CompileId> parsed = CompileId::parse(f.compile_id_field)) {
    if (!compile.ref.id.known()) {
      compile.ref.id = *parsed;
    } else if (!(*parsed == compile.ref.id)) {
      sink_.note(
          r.line, reason::kCompileIdMismatch,
          "compile_id " + f.compile_id_field + " in an envelope of " + compile.ref.id.text());
    }
  }
}

// A forward compile takes the user stack of its dynamo_start and, when it failed without a
// reason, the error of its dynamo_error artifact.
void CompileTracker::attach_started(const CompileKey& key, DynamoCompile& compile) {
  if (compile.kind == "forward") {
    if (auto it = started_.find(key); it != started_.end()) {
      compile.user_stack = std::move(it->second.user_stack);
      started_.erase(it);
    }
    if (compile.fail_reason.empty() && !compile.fail_type.empty()) {
      if (auto it = dynamo_errors_.find(key); it != dynamo_errors_.end())
        compile.fail_reason = it->second;
    }
  }
  dynamo_errors_.erase(key);
}

// What a metrics record says besides the compile: why CUDA graphs were skipped, the first
// recompile reason (for a compile no recompile_reasons artifact listed) and the restart reasons
// as graph breaks.
void CompileTracker::emit_metrics_side_events(const Record& r, const CompileKey& key,
                                              const MetricsFields& f,
                                              const DynamoCompile& compile) {
  const bool is_forward = compile.kind == "forward";
  // Why Inductor did not use CUDA graphs for this compile (docs/cudagraph_skips.md).
  if (std::optional<CudagraphSkip> skip = parse_cudagraph_skip_text(f.cudagraph_skip_reason)) {
    skip->line = r.line;
    skip->ref = compile.ref;
    skip->origin = "trace_compilation_metrics";
    sink_.emit(std::move(*skip));
  }

  // Reasons: the recompile_reasons artifact lists them all; the metrics field only the first,
  // so it is used only for compiles that had no artifact.
  if (is_forward && !compile.recompile_reason.empty() && !reasons_seen_.count(key)) {
    GuardFailure failure;
    failure.line = r.line;
    failure.ref = compile.ref;
    failure.entry_index = 0;
    std::tie(failure.old_compile_id, failure.reason) = split_reason(compile.recompile_reason);
    failure.origin = "trace_recompile_reason";
    sink_.emit(std::move(failure));
  }
  if (compile.kind != "runtime") {
    for (const std::string& restart : compile.restart_reasons) {
      GraphBreak graph_break;
      graph_break.line = r.line;
      graph_break.ref = compile.ref;
      graph_break.pid = r.pid;
      std::string_view text = restart;
      if (text.size() >= 2 && text.front() == '\'' && text.back() == '\'')
        text = text.substr(1, text.size() - 2);
      parse_graph_break_text(text, &graph_break);
      graph_break.origin = "trace_restart";
      sink_.emit(std::move(graph_break));
    }
  }
}

// The header of an fx_graph_runnable repro script: `# torch version: 2.6.0a0+giteece9ec`,
// `# torch cuda version: 12.2` (None on CPU builds), `# torch git version: <sha>`.
void CompileTracker::read_torch_version(std::string_view content, int64_t line_no) {
  static constexpr std::pair<std::string_view, const char*> kHeaders[] = {
      {"# torch version: ", "torch"},
      {"# torch cuda version: ", "cuda"},
      {"# torch git version: ", "torch_git"},
  };
  for (const auto& [prefix, key] : kHeaders)
    if (content.starts_with(prefix))
      return emit_version(line_no, key, std::string(rtrim(content.substr(prefix.size()))));
}

// Each distinct version once per source; empty and None values say nothing.
void CompileTracker::emit_version(int64_t line_no, const char* key, std::string value) {
  if (value.empty() || value == "None" || value.size() > 200) return;
  if (!versions_seen_.insert({key, value}).second) return;
  sink_.emit(StackVersion{line_no, key, std::move(value)});
}

// Compiles that started but never reported compilation_metrics (process killed, file cut).
void CompileTracker::flush_incomplete_compiles() {
  std::vector<StartedCompile*> open;
  for (auto& [key, started] : started_) open.push_back(&started);
  std::sort(open.begin(), open.end(),
            [](const StartedCompile* a, const StartedCompile* b) { return a->line < b->line; });
  for (StartedCompile* started : open) {
    DynamoCompile compile;
    compile.line = started->line;
    compile.ref = started->ref;
    compile.kind = "forward";
    compile.co_name = started->compiled_function;
    compile.co_filename = started->compiled_file;
    compile.co_firstlineno = started->compiled_line;
    compile.fail_type = "incomplete";
    if (auto it = dynamo_errors_.find(key_of(started->ref)); it != dynamo_errors_.end())
      compile.fail_reason = it->second;
    compile.user_stack = std::move(started->user_stack);
    sink_.note(started->line, reason::kTruncatedCompile,
               "dynamo_start of " + started->ref.id.text() + " without compilation_metrics");
    sink_.emit(std::move(compile));
  }
  started_.clear();
}

}  // namespace rcf::ingest::torch_trace
