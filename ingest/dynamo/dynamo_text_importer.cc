// Dynamo text-log importer: groups physical lines into messages (see
// docs/dynamo_text.md) and hands complete messages to the block parsers.
//
// Grouping. A prefixed line belongs to the open block with the same prefix key (rank, pid, path,
// line, trace id, artifact, timestamp, level, logger). One process writes one record at a time,
// so a line of another record from the same stream (rank + pid) ends that stream's open blocks;
// lines of other ranks and unprefixed user prints do not. Eras whose continuation lines carry no
// prefix (2022, TORCH_LOGS_FORMAT=short, printed tables and exception text) keep one "adjacent"
// block that takes the following unprefixed lines its kind accepts.
#include "ingest/dynamo/dynamo_text_importer.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ingest/dynamo/compilation_metrics_repr.h"
#include "ingest/dynamo/compile_profiler_table.h"
#include "ingest/dynamo/compile_time_checks.h"
#include "ingest/dynamo/compile_times_table.h"
#include "ingest/dynamo/cut_repr.h"
#include "ingest/dynamo/dynamo_epochs.h"
#include "ingest/dynamo/dynamo_explain.h"
#include "ingest/dynamo/dynamo_graph_break.h"
#include "ingest/dynamo/dynamo_guard_dump.h"
#include "ingest/dynamo/dynamo_guard_error.h"
#include "ingest/dynamo/dynamo_guard_fail_hook.h"
#include "ingest/dynamo/dynamo_limit_warning.h"
#include "ingest/dynamo/dynamo_recompile_block.h"
#include "ingest/dynamo/dynamo_text_block.h"
#include "ingest/dynamo/inductor_cudagraph_skip.h"
#include "ingest/dynamo/log_prefix.h"
#include "ingest/dynamo/python_literal.h"
#include "ingest/reading/text_util.h"
#include "ingest/steps/compile_line.h"
#include "ingest/steps/step_line.h"
#include "util/copied_ptr.h"

namespace rcf::ingest {
namespace {

// Bounds that keep memory independent of the input: blocks per key, lines and bytes per block.
constexpr size_t kMaxOpenBlocks = 4096;
constexpr size_t kMaxBlockLines = 200000;
constexpr size_t kMaxBlockBytes = size_t{64} << 20;
// A `FailOnRecompileLimitHit` exception this many lines after a limit warning is the same hit.
constexpr int64_t kHardFailureWindow = 1000;

// How a block's later lines arrive.
enum class Continuation : uint8_t {
  kPrefixed,      // every line repeats the prefix (glog era, 2023 bracket-date form)
  kAdjacent,      // continuation lines are unprefixed and follow the first line directly
  kUndetermined,  // bracket-date header: torch 2.0 printed bare continuations, 2.1+ prefixed
};

struct OpenDynamoBlock {
  DynamoBlock block;
  std::string key;  // LogPrefix::key of its lines
  // The stream (one process: form, rank and pid) that wrote it; printed blocks have none.
  PrefixForm form = PrefixForm::kNone;
  int32_t rank = -1;
  std::string process;
  Continuation continuation = Continuation::kPrefixed;
  size_t bytes = 0;
  int interleaved = 0;          // unrelated lines seen inside it so far (printed records only)
  bool unrelated_last = false;  // the last line read after it was unrelated output
};

// Unrelated lines (a notebook's cell output, a training loop's prints) that may fall inside one
// printed record before it counts as ended.
constexpr int kMaxInterleavedDynamoLines = 4;

// The Dynamo module that logged the line, from the glog path (`.../torch/_dynamo/guards.py` ->
// "guards.py", `torch\\_dynamo\\variables\\tensor.py`) or the logger name
// (`torch._dynamo.guards.__recompiles` -> "guards", `Torchdynamo` -> ""). nullopt when the line
// does not come from Dynamo. The view points into the line.
std::optional<std::string_view> dynamo_module(const LogPrefix& p) {
  std::string_view source = p.path.empty() ? p.logger : p.path;
  // A format trimmed to the file name (`W convert_frame.py:1676]`) no longer shows the package:
  // a Python file name alone may be one of Dynamo's modules.
  if (!p.level.empty() && !p.path.empty() && p.path.ends_with(".py") &&
      p.path.find('/') == std::string_view::npos && p.path.find('\\') == std::string_view::npos)
    return p.path;
  // Last "dynamo" in the source; find() (memchr-based) beats rfind() on the per-line path.
  size_t at = source.find("dynamo");
  if (at == std::string_view::npos) return std::nullopt;
  for (size_t next = source.find("dynamo", at + 6); next != std::string_view::npos;
       next = source.find("dynamo", next + 6))
    at = next;
  bool after_ok = at + 6 == source.size() || source[at + 6] == '/' || source[at + 6] == '\\' ||
                  source[at + 6] == '.';
  bool before_ok =
      (at >= 1 && source[at - 1] == '_') || (at >= 5 && (source.compare(at - 5, 5, "torch") == 0 ||
                                                         source.compare(at - 5, 5, "Torch") == 0));
  if (!after_ok || !before_ok) return std::nullopt;
  std::string_view rest = at + 6 == source.size() ? std::string_view() : source.substr(at + 7);
  if (size_t artifact = rest.find(".__"); artifact != std::string_view::npos)
    rest = rest.substr(0, artifact);
  return rest;
}

// Whether `module` (from dynamo_module) is `name` (dotted, e.g. "variables.tensor").
bool module_is(std::string_view module, std::string_view name) {
  if (module.ends_with(".py")) module.remove_suffix(3);
  if (module.size() != name.size()) return false;
  for (size_t i = 0; i < module.size(); ++i) {
    bool separator = module[i] == '/' || module[i] == '\\' || module[i] == '.';
    if (separator ? name[i] != '.' : module[i] != name[i]) return false;
  }
  return true;
}

bool is_warning_level(const LogPrefix& p) {
  return p.level == "W" || p.level == "WARNING";
}

CompileRef ref_of(const LogPrefix& p) {
  CompileRef ref;
  ref.rank = p.rank;
  if (auto id = CompileId::parse(p.trace_id)) ref.id = *id;
  return ref;
}

Continuation continuation_of(const LogPrefix& p) {
  switch (p.form) {
    case PrefixForm::kGlog:
    case PrefixForm::kTrimmedGlog:
      return Continuation::kPrefixed;
    case PrefixForm::kBracketDate:
      return p.logger.starts_with("torchdynamo") ? Continuation::kAdjacent
                                                 : Continuation::kUndetermined;
    default:
      return Continuation::kAdjacent;
  }
}

// Kind of the record that `message` starts, given the kind of the open block with the same key.
// Dispatches on the first byte: most messages start no record.
std::optional<DynamoBlockKind> header_kind(std::string_view message,
                                           std::optional<DynamoBlockKind> open_kind) {
  if (message.empty()) return std::nullopt;
  switch (message[0]) {
    case 'R':
      if (message.starts_with("Recompiling function") &&
          (message.size() == 20 || message[20] == ' '))
        return DynamoBlockKind::kRecompile;
      break;
    case 't':
      if (is_limit_warning_header(message)) return DynamoBlockKind::kLimitWarning;
      if (message.starts_with("torch._dynamo.exc.Unsupported: "))
        return DynamoBlockKind::kUnsupported;
      break;
    case 'G':
      if (is_item_warning_header(message)) return DynamoBlockKind::kItemWarning;
      if (is_graph_break_header(message)) {
        if (open_kind == DynamoBlockKind::kItemWarning && is_item_warning_frames_marker(message))
          return std::nullopt;
        return DynamoBlockKind::kGraphBreak;
      }
      break;
    case 'T':
      if (is_compile_times_title(message)) return DynamoBlockKind::kCompileTimes;
      break;
    case 's':
    case 'c':  // Inductor perf hints (docs/cudagraph_skips.md)
      if (is_cudagraph_skip_header(message)) return DynamoBlockKind::kCudagraphSkip;
      break;
  }
  return std::nullopt;
}

// Kind of a record whose first lines are missing from the log (fragments start mid-message).
// `module` is the line's dynamo_module().
std::optional<DynamoBlockKind> fragment_kind(const LogPrefix& p,
                                             std::optional<std::string_view> module) {
  if (is_blank(p.message)) return std::nullopt;
  if (p.artifact == "recompiles" || p.artifact == "recompiles_verbose")
    return starts_recompile_fragment(p.message) ? std::optional(DynamoBlockKind::kRecompile)
                                                : std::nullopt;
  if (p.artifact == "graph_breaks") return DynamoBlockKind::kGraphBreak;
  if (!p.artifact.empty()) return std::nullopt;
  // A prefix trimmed to its compile id (`[0/15]    last reason: ...`) names no module, but only
  // Dynamo prints compile ids.
  if (!module && p.path.empty() && p.logger.empty() && !p.trace_id.empty())
    return starts_limit_warning_fragment(p.message) ? std::optional(DynamoBlockKind::kLimitWarning)
                                                    : std::nullopt;
  if (!module) return std::nullopt;
  if (module_is(*module, "variables.tensor") && is_warning_level(p))
    return DynamoBlockKind::kItemWarning;
  if (module_is(*module, "exc")) return DynamoBlockKind::kGraphBreak;
  if (module_is(*module, "convert_frame") && starts_limit_warning_fragment(p.message))
    return DynamoBlockKind::kLimitWarning;
  return std::nullopt;
}

// Kind of a printed (unprefixed) record that starts at `text`.
std::optional<DynamoBlockKind> printed_header_kind(std::string_view text) {
  if (text.starts_with("torch._dynamo.exc.Unsupported: ")) return DynamoBlockKind::kUnsupported;
  // Logging set up without a format (a notebook's `set_logs`) prints the bare message.
  if (text.starts_with('R') && text.starts_with("Recompiling function "))
    return DynamoBlockKind::kRecompile;
  // 2022 torchdynamo printed limit warnings without any logger prefix.
  if (text.starts_with('t') && is_limit_warning_header(text)) return DynamoBlockKind::kLimitWarning;
  if (text.starts_with("torch._dynamo.exc.RecompileError: Recompiling function ") ||
      is_fail_on_recompile_header(text))
    return DynamoBlockKind::kRecompile;
  if (is_compile_times_title(text) || is_compile_times_header_row(text))
    return DynamoBlockKind::kCompileTimes;
  if (is_explain_header(text)) return DynamoBlockKind::kExplain;
  if (is_compile_profiler_header(text)) return DynamoBlockKind::kProfilerTable;
  if (is_cudagraph_skip_header(text)) return DynamoBlockKind::kCudagraphSkip;
  return std::nullopt;
}

// Whether `p` continues `open`, a record whose first line lost the start of its glog prefix
// (`site-packages/torch/...py:964] [11/8] ...` followed by `W0701 ... 65418 site-packages/...`).
// The same holds when the later lines were trimmed further (`W convert_frame.py:964] [11/8]`,
// `[11/8]`): their key from the file name or the compile id on ends the first line's key.
bool continues_trimmed_record(const OpenDynamoBlock& open, const LogPrefix& p) {
  if (open.form != PrefixForm::kTrimmedGlog || open.key.empty() || open.rank != p.rank)
    return false;
  if (p.form == PrefixForm::kGlog) return p.key.ends_with(open.key);
  if (p.form != PrefixForm::kTrimmedGlog || p.trace_id.empty()) return false;
  std::string_view tail = p.key;
  size_t from = p.path.empty() ? tail.find('[' + std::string(p.trace_id) + ']')
                               : static_cast<size_t>(p.path.data() - p.key.data());
  if (from == std::string_view::npos || from > tail.size()) return false;
  tail.remove_prefix(from);
  return tail != open.key && std::string_view(open.key).ends_with(tail);
}

void adopt_prefix(OpenDynamoBlock* open, const LogPrefix& p) {
  open->key = std::string(p.key);
  open->form = p.form;
  open->rank = p.rank;
  open->process = std::string(p.process);
}

// `raise FailOnRecompileLimitHit(` as a traceback frame prints it.
bool raises_fail_on_recompile_limit(std::string_view text) {
  // First-byte gate: this runs on every unprefixed line.
  if (text.empty() || (text[0] != ' ' && text[0] != 'r')) return false;
  text = ltrim(text);
  return text.starts_with("raise ") &&
         text.find("FailOnRecompileLimitHit(") != std::string_view::npos;
}

// Two consecutive limit hits of one frame of one stream hit the same limit: a hit whose header
// (with the limit) was cut from the log takes the limit the other one names.
void share_limit(RecompileLimitHit* earlier, RecompileLimitHit* later) {
  const CompileRef &a = earlier->ref, &b = later->ref;
  if (a.rank != b.rank || a.epoch != b.epoch || a.id.frame < 0 || a.id.frame != b.id.frame ||
      a.id.compiled_autograd != b.id.compiled_autograd)
    return;
  RecompileLimitHit* missing = earlier->limit_type.empty() ? earlier : later;
  const RecompileLimitHit* known = missing == earlier ? later : earlier;
  if (!missing->limit_type.empty() || known->limit_type.empty()) return;
  missing->limit_type = known->limit_type;
  if (missing->limit_value < 0) missing->limit_value = known->limit_value;
}

// A record's first line without the marks a paste put before it, when only that line carries
// them (the framing layer removes marks that a whole source carries, docs/line_framing.md):
// indentation, a quote's `>`, a comment's `#`, a code span's backticks and Markdown emphasis
// (`**`, with its closing `**`). Views into `text`.
std::string_view without_paste_marks(std::string_view text) {
  size_t i = 0;
  bool emphasis = false;
  while (i < text.size()) {
    const char c = text[i];
    if (c == ' ' || c == '\t' || c == '>' || c == '#' || c == '`') {
      ++i;
    } else if (c == '*' && i + 1 < text.size() && text[i + 1] == '*') {
      i += 2;
      emphasis = true;
    } else {
      break;
    }
  }
  text.remove_prefix(i);
  text = rtrim(text);
  while (!text.empty() && text.back() == '`') text.remove_suffix(1);
  if (emphasis && text.ends_with("**")) text.remove_suffix(2);
  return text;
}

// A record on one line: a FailOnRecompileLimitHit exception line or a CompilationMetrics repr.
bool is_one_line_record(std::string_view text) {
  return parse_fail_on_recompile_limit(text).has_value() || has_compilation_metrics(text);
}

// The same records inside a message of Dynamo `module`: a logged exception or a
// CompilationMetrics repr logged by utils.py. Cheaper than is_one_line_record, which scans the
// whole text, on the per-line path.
bool is_logged_one_line_record(std::string_view message, std::string_view module) {
  return message.starts_with("torch._dynamo.exc.FailOnRecompileLimitHit: ") ||
         (module_is(module, "utils") && has_compilation_metrics(message));
}

// Whether a recompile block already holds an entry (a reason line).
bool has_recompile_entry(const DynamoBlock& block) {
  for (size_t i = block.headless ? 0 : 1; i < block.lines.size(); ++i) {
    std::string_view text = trim(block.lines[i].text);
    if (!text.empty() && !text.starts_with("triggered by the following guard failure")) return true;
  }
  return false;
}

bool accepts_unprefixed(const OpenDynamoBlock& open, std::string_view text) {
  switch (open.block.kind) {
    case DynamoBlockKind::kRecompile:
      return continues_recompile_block(text) ||
             (!text.empty() && text[0] == ' ' &&
              is_bulletless_recompile_entry(text, !has_recompile_entry(open.block)));
    case DynamoBlockKind::kLimitWarning:
      return continues_limit_warning(text);
    case DynamoBlockKind::kGraphBreak:
    case DynamoBlockKind::kItemWarning:
    case DynamoBlockKind::kUnsupported:
      return continues_graph_break(open.block.kind, text);
    case DynamoBlockKind::kCompileTimes:
      return continues_compile_times(text);
    case DynamoBlockKind::kExplain:
      return continues_explain(text);
    case DynamoBlockKind::kProfilerTable:
      return continues_compile_profiler(open.block, text);
    case DynamoBlockKind::kCudagraphSkip:
      return continues_cudagraph_skip(text);
  }
  return false;
}

// Whether `text`, which `open` does not take, may be unrelated output printed in the middle of
// it: `open` is a printed recompile or limit record, and `text` starts no record of its own.
bool tolerates_interleaved(const OpenDynamoBlock& open, std::string_view text) {
  if (open.continuation != Continuation::kAdjacent ||
      open.interleaved >= kMaxInterleavedDynamoLines)
    return false;
  if (open.block.kind != DynamoBlockKind::kRecompile &&
      open.block.kind != DynamoBlockKind::kLimitWarning)
    return false;
  return !printed_header_kind(text) && !is_one_line_record(text) &&
         !text.starts_with("('Recompiling function ");
}

// Whether an unprefixed line after a bracket-date header shows that this era prints bare
// continuation lines (torch 2.0). An indented line of unrelated output must not decide it: a
// recompile block's bare continuation is its `triggered by` line or a `- ` reason.
bool decides_bare_continuation(DynamoBlockKind kind, std::string_view text) {
  return kind != DynamoBlockKind::kRecompile || starts_recompile_fragment(text);
}

// The last line of a record that announces its own end.
bool ends_block(DynamoBlockKind kind, std::string_view text) {
  return (kind == DynamoBlockKind::kLimitWarning && is_limit_warning_trailer(text)) ||
         (kind == DynamoBlockKind::kUnsupported && is_verbose_trailer(text)) ||
         (kind == DynamoBlockKind::kCudagraphSkip && is_whole_cudagraph_skip(text));
}

LineReason empty_block_reason(DynamoBlockKind kind) {
  switch (kind) {
    case DynamoBlockKind::kCompileTimes:
      return reason::kEmptyCompileTimes;
    case DynamoBlockKind::kExplain:
      return reason::kExplainWithoutBreaks;
    case DynamoBlockKind::kProfilerTable:
      return reason::kEmptyCompileProfilerTable;
    default:
      return reason::kUnusedDynamoMessage;
  }
}

class DynamoTextImporter : public Importer {
 public:
  explicit DynamoTextImporter(EventSink& sink) : sink_(sink) {}

  void on_line(std::string_view line, int64_t line_no) override {
    if (held_hit_ && line_no - held_hit_line_ > kHardFailureWindow) flush_held_hit();
    if (continue_cut_repr(line, line_no)) return;
    LogPrefix prefix = parse_log_prefix(line);
    // A launcher tag (`[default1]:`, `(pid=N)`) names the worker where the log prefix does not.
    if (prefix.rank < 0) prefix.rank = origin_.rank;
    if (prefix.process.empty()) prefix.process = origin_.pid;
    if (prefix.form == PrefixForm::kNone) {
      on_unprefixed(prefix, line, line_no);
    } else {
      on_prefixed(prefix, line, line_no);
    }
  }

  void set_line_origin(const LineOrigin& origin) override { origin_ = origin; }

  // Member by member; the adjacent block is the copy's own.
  std::unique_ptr<Importer> clone() const override {
    auto copy = std::make_unique<DynamoTextImporter>(*this);
    for (size_t i = 0; i < open_.size(); ++i)
      if (open_[i].get() == adjacent_) copy->adjacent_ = copy->open_[i].get();
    return copy;
  }

  // The May / Oct 2023 one-line tuple record, prefixed or printed.
  void read_guard_fail(std::string_view text, int32_t rank, std::string_view line,
                       int64_t line_no) {
    CompileRef ref;
    ref.rank = rank;
    if (start_cut_repr(CutRepr::Kind::kGuardFail, text, ref, line, line_no)) return;
    if (!guard_fails_.read(text, rank, line_no))
      sink_.note(line_no, reason::kBadGuardFailRepr, line);
  }

  void read_recompile_tuple(std::string_view text, const CompileRef& ref, std::string_view line,
                            int64_t line_no) {
    if (start_cut_repr(CutRepr::Kind::kRecompileTuple, text, ref, line, line_no)) return;
    if (!parse_recompile_tuple(text, ref, line_no, sink_))
      sink_.note(line_no, reason::kBadRecompileTuple, line);
  }

  // A repr that a wrap cut is gathered from the lines after it (ingest/dynamo/cut_repr.h).
  bool start_cut_repr(CutRepr::Kind kind, std::string_view text, const CompileRef& ref,
                      std::string_view line, int64_t line_no) {
    if (!python_value_is_cut(text)) return false;
    cut_.emplace();
    cut_->kind = kind;
    cut_->ref = ref;
    cut_->text = std::string(text);
    cut_->first_line = std::string(line);
    cut_->line_no = line_no;
    return true;
  }

  // Takes `line` into the repr being gathered; false when there is none or `line` cannot go on
  // with it (a prefixed, blank or record line), which reads the repr as it stands first.
  bool continue_cut_repr(std::string_view line, int64_t line_no) {
    if (!cut_) return false;
    if (is_blank(line) || parse_log_prefix(line).form != PrefixForm::kNone ||
        printed_header_kind(without_paste_marks(line))) {
      finish_cut_repr();
      return false;
    }
    cut_->append(line, line_no);
    cut_lines_.emplace_back(line);
    if (!cut_->is_open() || cut_->full()) finish_cut_repr();
    return true;
  }

  // Reads the gathered repr. When it cannot be read, its first line is rejected and the lines
  // after it are read again as lines of their own.
  void finish_cut_repr() {
    if (!cut_) return;
    CutRepr cut = std::move(*cut_);
    cut_.reset();
    std::vector<std::string> lines = std::move(cut_lines_);
    cut_lines_.clear();
    bool read = true;
    switch (cut.kind) {
      case CutRepr::Kind::kRecompileTuple:
        read = parse_recompile_tuple(cut.text, cut.ref, cut.line_no, sink_);
        break;
      case CutRepr::Kind::kGuardFail:
        read = guard_fails_.read(cut.text, cut.ref.rank, cut.line_no);
        break;
      case CutRepr::Kind::kGuardDumpLine:  // a guard line cut short stays one: read as it stands
        guard_dumps_.read(cut.ref, cut.process, cut.text, cut.line_no);
        break;
    }
    if (read) {
      for (size_t i = 0; i < lines.size(); ++i)
        sink_.note(cut.continuation_lines[i], reason::kRejoinedCutRecord, lines[i]);
      return;
    }
    sink_.note(cut.line_no,
               cut.kind == CutRepr::Kind::kRecompileTuple ? reason::kBadRecompileTuple
                                                          : reason::kBadGuardFailRepr,
               cut.first_line);
    for (size_t i = 0; i < lines.size(); ++i) on_line(lines[i], cut.continuation_lines[i]);
  }

  // A recompile header may prove a torch._dynamo.reset() of its stream
  // (ingest/dynamo/dynamo_epochs.h).
  void note_epoch_evidence(const LogPrefix& p, std::string_view message) {
    auto id = CompileId::parse(p.trace_id);
    constexpr std::string_view kHeader = "Recompiling function ";
    if (!id || !message.starts_with(kHeader)) return;
    auto header = parse_recompile_header(message.substr(kHeader.size()));
    if (header)
      epochs_.on_header(p.rank, p.process, *id, header->co_name, header->co_filename, p.artifact);
  }

  CompileRef ref_in_epoch(const LogPrefix& p) const {
    CompileRef ref = ref_of(p);
    ref.epoch = epochs_.current(p.rank, p.process);
    return ref;
  }

  void finish() override {
    finish_cut_repr();
    guard_dumps_.finish();
    // A printed record followed by unrelated output had ended before the end of the file.
    while (!open_.empty()) close(open_.front().get(), !open_.front()->unrelated_last);
    flush_held_hit();
  }

 private:
  void on_prefixed(const LogPrefix& p, std::string_view line, int64_t line_no) {
    if (OpenDynamoBlock* adjacent = adjacent_) {
      adjacent_ = nullptr;
      if (adjacent->continuation == Continuation::kAdjacent) close(adjacent, false);
    }
    // Records of one stream never interleave: another record ends the stream's open blocks.
    OpenDynamoBlock* same = nullptr;
    for (size_t i = 0; i < open_.size();) {
      OpenDynamoBlock* open = open_[i].get();
      if (open->key == p.key) {
        same = open;
      } else if (continues_trimmed_record(*open, p)) {
        // The record's first line was pasted without the start of its prefix.
        adopt_prefix(open, p);
        same = open;
      } else if (open->form == p.form && open->rank == p.rank && open->process == p.process) {
        close(open, false);
        continue;
      }
      ++i;
    }
    const std::optional<std::string_view> module = dynamo_module(p);

    std::string_view message = p.message;
    if (message.starts_with("('Recompiling function ")) {
      if (same) close(same, false);
      read_recompile_tuple(message, ref_in_epoch(p), line, line_no);
      return;
    }
    if (is_guard_fail_repr(message)) {
      if (same) close(same, false);
      return read_guard_fail(message, p.rank, line, line_no);
    }
    if (module && is_logged_one_line_record(message, *module)) {
      if (same) close(same, false);
      on_one_line_record(message, p.rank, line, line_no);
      return;
    }

    if (p.artifact == "guards" && !p.trace_id.empty()) {
      if (same) close(same, false);
      if (auto id = CompileId::parse(p.trace_id); id && id->frame >= 0) {
        const int64_t pid = parse_int64(p.process).value_or(-1);
        if (start_cut_repr(CutRepr::Kind::kGuardDumpLine, message, ref_in_epoch(p), line, line_no))
          cut_->process = pid;
        else
          guard_dumps_.read(ref_in_epoch(p), pid, message, line_no);
        return;
      }
    }
    auto header = header_kind(message, same ? std::optional(same->block.kind) : std::nullopt);
    if (same && !header) {
      if (same->continuation == Continuation::kUndetermined)
        same->continuation = Continuation::kPrefixed;
      append(same, message, line, line_no);
      return;
    }
    if (same) close(same, false);
    if (header) {
      if (*header == DynamoBlockKind::kRecompile) note_epoch_evidence(p, message);
      open_block(*header, /*headless=*/false, p, continuation_of(p), message, line_no);
      return;
    }
    if (auto kind = fragment_kind(p, module)) {
      open_block(*kind, /*headless=*/true, p, continuation_of(p), message, line_no);
      return;
    }
    if (guard_errors_.read(message, p.rank, line, line_no)) return;
    if (module && warned(p))
      if (auto compile = read_compile_line(line))  // where in the console a compile happened
        return sink_.emit(compile_line_marker(line_no, *compile));
    if (module) return sink_.note(line_no, reason::kUnusedDynamoMessage, line);
    user_text(message, line, line_no, reason::kOtherLogger);
  }

  // A warning or error record: few per run, unlike the debug records of TORCH_LOGS=+dynamo.
  static bool warned(const LogPrefix& p) {
    return p.level == "W" || p.level == "E" || p.level == "WARNING" || p.level == "ERROR";
  }

  // A line of the user's own output: a training-progress line becomes a step marker
  // (docs/training_steps.md), anything else is counted under `reason`.
  void user_text(std::string_view text, std::string_view line, int64_t line_no, LineReason why) {
    if (auto progress = read_step_line(text))
      return emit_progress(sink_, line_no, std::move(*progress), line);
    if (auto compile = read_compile_line(text))  // a warning issued from Dynamo / Inductor code
      return sink_.emit(compile_line_marker(line_no, *compile));
    sink_.note(line_no, why, line);
  }

  void on_unprefixed(const LogPrefix& p, std::string_view line, int64_t line_no) {
    std::string_view text = p.message;
    if (OpenDynamoBlock* warning = limit_warning_before(p.rank, line_no);
        warning && names_limit_warning_field(text)) {
      // A paste that kept the header's prefix and dropped the fields': named, they still belong.
      append(warning, text, line, line_no);
      return;
    }
    if (OpenDynamoBlock* adjacent = adjacent_) {
      if (adjacent->block.ref.rank == p.rank && accepts_unprefixed(*adjacent, text) &&
          (adjacent->continuation != Continuation::kUndetermined ||
           decides_bare_continuation(adjacent->block.kind, text))) {
        adjacent->continuation = Continuation::kAdjacent;
        append(adjacent, text, line, line_no);
        return;
      }
      if (tolerates_interleaved(*adjacent, text)) {
        // stdout and stderr interleave: the record may go on after this line.
        ++adjacent->interleaved;
        adjacent->unrelated_last = true;
        user_text(text, line, line_no, is_blank(text) ? reason::kBlank : reason::kUnprefixedText);
        return;
      }
      adjacent_ = nullptr;
      if (adjacent->continuation == Continuation::kAdjacent) close(adjacent, false);
    }
    // A record is recognised by what it says wherever a paste put it (docs/dynamo_text.md).
    const std::string_view bare = without_paste_marks(text);
    if (is_one_line_record(bare)) {
      on_one_line_record(bare, p.rank, line, line_no);
      return;
    }
    if (raises_fail_on_recompile_limit(text)) {
      // A traceback whose exception line was cut still shows the raise statement.
      RecompileLimitHit hard;
      hard.hard_failure = true;
      hard.origin = "text_fail_on_recompile_limit";
      on_hard_failure(std::move(hard), p.rank, line_no);
      return;
    }
    if (bare.starts_with("('Recompiling function ")) {
      CompileRef ref;
      ref.rank = p.rank;
      read_recompile_tuple(bare, ref, line, line_no);
      return;
    }
    if (is_guard_fail_repr(bare)) return read_guard_fail(bare, p.rank, line, line_no);
    if (auto kind = printed_header_kind(bare)) {
      LogPrefix raw;
      raw.rank = p.rank;
      open_block(*kind, /*headless=*/false, raw, Continuation::kAdjacent, bare, line_no);
      return;
    }
    if (is_guard_failure_bullet(bare)) {
      // The reasons of a record whose header was cut before the excerpt, its prefix dropped.
      LogPrefix raw;
      raw.rank = p.rank;
      open_block(DynamoBlockKind::kRecompile, /*headless=*/true, raw, Continuation::kAdjacent, bare,
                 line_no);
      return;
    }
    if (guard_errors_.read(text, p.rank, line, line_no)) return;
    user_text(text, line, line_no, is_blank(text) ? reason::kBlank : reason::kUnprefixedText);
  }

  // The prefixed limit warning of worker `rank` whose last line is the line before `line_no`.
  OpenDynamoBlock* limit_warning_before(int32_t rank, int64_t line_no) const {
    for (const auto& open : open_)
      if (open->block.kind == DynamoBlockKind::kLimitWarning &&
          open->continuation == Continuation::kPrefixed && open->block.ref.rank == rank &&
          open->block.lines.back().line_no == line_no - 1)
        return open.get();
    return nullptr;
  }

  // One-line records that may appear with or without a prefix (see is_one_line_record).
  void on_one_line_record(std::string_view text, int32_t rank, std::string_view line,
                          int64_t line_no) {
    if (auto hard = parse_fail_on_recompile_limit(text)) {
      on_hard_failure(std::move(*hard), rank, line_no);
      return;
    }
    auto parsed = parse_compilation_metrics(text, rank);
    if (!parsed) {
      sink_.note(line_no, reason::kBadCompilationMetrics, line);
      return;
    }
    if (!parsed->complete) sink_.note(line_no, reason::kTruncatedBlock, line);
    drop_implausible_times(parsed->compile, sink_, line_no, line);
    parsed->compile.line = line_no;
    sink_.emit(std::move(parsed->compile));
  }

  // `FailOnRecompileLimitHit` follows the limit warning of the same hit: mark that one instead
  // of counting the hit twice.
  void on_hard_failure(RecompileLimitHit hard, int32_t rank, int64_t line_no) {
    for (size_t i = 0; i < open_.size();) {
      if (open_[i]->block.kind == DynamoBlockKind::kLimitWarning) {
        close(open_[i].get(), false);
        continue;
      }
      ++i;
    }
    if (held_hit_ && line_no - held_hit_line_ <= kHardFailureWindow) {
      held_hit_->hard_failure = true;
      if (held_hit_->limit_type.empty()) held_hit_->limit_type = hard.limit_type;
      flush_held_hit();
      return;
    }
    flush_held_hit();
    hard.line = line_no;
    hard.ref.rank = rank;
    sink_.emit(std::move(hard));
  }

  void open_block(DynamoBlockKind kind, bool headless, const LogPrefix& p,
                  Continuation continuation, std::string_view text, int64_t line_no) {
    if (open_.size() >= kMaxOpenBlocks) close(open_.front().get(), false);
    auto open = std::make_unique<OpenDynamoBlock>();
    open->block.kind = kind;
    open->block.headless = headless;
    open->block.era_2022 =
        p.form == PrefixForm::kTorchdynamoBare || p.logger.starts_with("torchdynamo");
    open->block.ref = ref_in_epoch(p);
    if (p.form == PrefixForm::kGlog)
      if (auto pid = parse_int64(p.process)) open->block.pid = *pid;
    open->block.artifact = std::string(p.artifact);
    open->continuation = continuation;
    // Printed records (kNone) have no key: they only ever continue as the adjacent block.
    open->key = std::string(p.key);
    open->form = p.form;
    open->rank = p.rank;
    open->process = std::string(p.process);
    open->bytes = text.size();
    open->block.lines.push_back({line_no, std::string(text)});
    OpenDynamoBlock* raw = open.get();
    open_.push_back(std::move(open));
    if (continuation != Continuation::kPrefixed) adjacent_ = raw;
    if (ends_block(kind, text)) close(raw, false);
  }

  void append(OpenDynamoBlock* open, std::string_view text, std::string_view line,
              int64_t line_no) {
    if (open->block.lines.size() >= kMaxBlockLines || open->bytes + text.size() > kMaxBlockBytes) {
      sink_.note(line_no, reason::kBlockTooLong, line);
      return;
    }
    open->bytes += text.size();
    open->unrelated_last = false;
    open->block.lines.push_back({line_no, std::string(text)});
    if (ends_block(open->block.kind, text)) close(open, false);
  }

  void close(OpenDynamoBlock* target, bool at_eof) {
    std::unique_ptr<OpenDynamoBlock> open;
    for (size_t i = 0; i < open_.size(); ++i) {
      if (open_[i].get() != target) continue;
      open = std::move(open_[i]);
      open_.erase(open_.begin() + i);
      break;
    }
    if (!open) return;
    if (adjacent_ == target) adjacent_ = nullptr;
    DynamoBlock& block = open->block;
    // Blank lines after an unprefixed record are not part of it.
    std::vector<BlockLine> trailing_blanks;
    if (open->continuation == Continuation::kAdjacent) {
      while (block.lines.size() > 1 && is_blank(block.lines.back().text)) {
        trailing_blanks.push_back(std::move(block.lines.back()));
        block.lines.pop_back();
      }
    }
    if (at_eof) sink_.note(block.lines[0].line_no, reason::kTruncatedBlock, block.lines[0].text);
    BlockOutput out(sink_, block);
    switch (block.kind) {
      case DynamoBlockKind::kRecompile:
        parse_recompile_block(block, out, &emitted_);
        break;
      case DynamoBlockKind::kLimitWarning:
        hold_hit(parse_limit_warning(block, out), block.lines.back().line_no);
        break;
      case DynamoBlockKind::kUnsupported:
        if (is_unsupported_limit_block(block)) {
          hold_hit(parse_unsupported_limit(block, out), block.lines.back().line_no);
          break;
        }
        parse_graph_break_block(block, out);
        break;
      case DynamoBlockKind::kGraphBreak:
      case DynamoBlockKind::kItemWarning:
        parse_graph_break_block(block, out);
        break;
      case DynamoBlockKind::kCompileTimes:
        parse_compile_times_block(block, out);
        break;
      case DynamoBlockKind::kExplain:
        parse_explain_block(block, out);
        break;
      case DynamoBlockKind::kProfilerTable:
        parse_compile_profiler_block(block, out);
        break;
      case DynamoBlockKind::kCudagraphSkip:
        parse_cudagraph_skip_block(block, out);
        break;
    }
    out.finish(empty_block_reason(block.kind));
    for (auto it = trailing_blanks.rbegin(); it != trailing_blanks.rend(); ++it)
      sink_.note(it->line_no, reason::kBlank, it->text);
  }

  void hold_hit(RecompileLimitHit hit, int64_t last_line) {
    if (held_hit_) share_limit(&*held_hit_, &hit);
    flush_held_hit();
    held_hit_ = std::move(hit);
    held_hit_line_ = last_line;
  }

  void flush_held_hit() {
    if (!held_hit_) return;
    sink_.emit(std::move(*held_hit_));
    held_hit_.reset();
  }

  EventSink& sink_;
  LineOrigin origin_;  // launcher identity of the current lines (set_line_origin)
  GuardErrorReader guard_errors_{sink_};
  GuardDumpReader guard_dumps_{sink_};      // TORCH_LOGS=guards dumps
  GuardFailHookReader guard_fails_{sink_};  // GuardFail reprs of a guard_fail_fn hook
  // torch._dynamo.reset()s and processes seen per stream; mutable: looking a stream up
  // registers it (a new process of a rank takes its own epoch).
  mutable DynamoEpochs epochs_;
  std::vector<util::CopiedPtr<OpenDynamoBlock>> open_;  // in order of their first line
  OpenDynamoBlock* adjacent_ =
      nullptr;                  // block that takes the next unprefixed lines; owned by open_
  EmittedCompileRefs emitted_;  // compiles of this source with a record already
  // The last limit warning, emitted once no FailOnRecompileLimitHit can follow it any more.
  std::optional<RecompileLimitHit> held_hit_;
  int64_t held_hit_line_ = 0;
  std::optional<CutRepr> cut_;          // a repr being gathered across lines
  std::vector<std::string> cut_lines_;  // its physical lines after the first
};

// What the glog-prefixed lines of a head say, read in one pass (each line's prefix parsed once).
struct GlogHead {
  // Of its first 64 glog lines, how many carry a JSON message (a TORCH_TRACE log's do).
  int glog_lines = 0, json_lines = 0;
  bool dynamo_path = false;  // some glog line was logged from torch/_dynamo
};

GlogHead read_glog_head(std::string_view head) {
  GlogHead g;
  size_t pos = 0;
  while (pos < head.size()) {
    size_t end = head.find('\n', pos);
    if (end == std::string_view::npos) end = head.size();
    LogPrefix p = parse_log_prefix(head.substr(pos, end - pos));
    pos = end + 1;
    if (p.form != PrefixForm::kGlog) continue;
    if (g.glog_lines < 64) {
      ++g.glog_lines;
      if (p.message.starts_with("{\"")) ++g.json_lines;
    }
    g.dynamo_path =
        g.dynamo_path || contains(p.path, "torch/_dynamo") || contains(p.path, "torch\\_dynamo");
    if (g.glog_lines >= 64 && g.dynamo_path) break;  // nothing more to learn
  }
  return g;
}

// Texts only Dynamo's logs print, of its records: a head with one is a Dynamo log (the highest
// score), and a line of a console read as plain text with one hands the console to this importer
// (docs/plain_text.md).
constexpr std::string_view kDynamoMarkers[] = {
    "[__recompiles",
    "[__graph_breaks",
    "Recompiling function",
    "torch._dynamo hit config.",
    "hit config.cache_size_limit",
    "Graph break",
    "torch._dynamo",
    "torchdynamo",
    "Torchdynamo",
    "TorchDynamo compilation metrics",
    "CompilationMetrics(",
    "Recompile Reasons",
    "Detected recompile when torch.compile stance",
    "ERROR RUNNING GUARDS",
    "Guard failed on the same frame it was created",
    "skipping cudagraphs due to",
    "cudagraph partition due to",
    // The limit warning's trailer lines, all that is left of an excerpt cut after its header.
    "recompilation reasons, use TORCH_LOGS",
    "o diagnose recompilation issues",
    "GuardFail(reason=",
};

bool has_dynamo_marker(std::string_view head) {
  for (std::string_view marker : kDynamoMarkers)
    if (find_in_head(head, marker) != std::string_view::npos) return true;
  return false;
}

// Texts of Dynamo's other outputs: they show no recompile, but they are Dynamo logs and are read
// as such (docs/dynamo_text.md, "Logs with nothing to count"). Weaker than has_dynamo_marker:
// a runtime's own log that quotes them (a torch_xla traceback through Dynamo) stays the runtime's.
bool has_dynamo_output_marker(std::string_view head) {
  static constexpr std::string_view kMarkers[] = {
      "] [__",  // any TORCH_LOGS artifact: guards, bytecode, graph_code, trace_source, ...
      "torch/_dynamo/",
      "torch\\_dynamo\\",
      "Graph Break Count:",
      "Dynamo produced ",  // explain()'s 2022 summary, torchbench's per-model summary
      "Runtimes (s)",      // a compile_times table (2022: without its title)
      "torch.fx.experimental.symbolic_shapes",  // dynamic-shape logs of a Dynamo compile
      "[guard added]",                          // the same, with its logger name dropped
      "TREE_GUARD_MANAGER",
      "___check_type_id(",
      "___check_obj_id(",
      "def __guard_",
      "ORIGINAL BYTECODE",
      "MODIFIED BYTECODE",
  };
  for (std::string_view marker : kMarkers)
    if (find_in_head(head, marker) != std::string_view::npos) return true;
  return false;
}

// The score of a head with a Dynamo marker (the highest it gives).
constexpr int kMarkerScore = 80;

int sniff_dynamo_text(std::string_view head) {
  const GlogHead glog = read_glog_head(head);
  // TORCH_TRACE: the torch_trace importer's.
  if (glog.glog_lines > 0 && glog.json_lines * 2 >= glog.glog_lines) return 0;
  if (has_dynamo_marker(head)) return kMarkerScore;
  return glog.dynamo_path || has_dynamo_output_marker(head) ? 30 : 0;
}

}  // namespace

ImporterInfo dynamo_text_importer_info() {
  return {"dynamo_text",
          "Dynamo text logs (TORCH_LOGS=recompiles,graph_breaks,...; limit warnings, "
          "compile_times, explain) of every era",
          sniff_dynamo_text,
          [](EventSink& sink) -> std::unique_ptr<Importer> {
            return std::make_unique<DynamoTextImporter>(sink);
          },
          kMarkerScore,
          {std::begin(kDynamoMarkers), std::end(kDynamoMarkers)}};
}

}  // namespace rcf::ingest
