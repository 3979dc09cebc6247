// PT_XLA_DEBUG importer (docs/pt_xla_debug.md): analysis blocks, Post Compilation
// Analysis, `pt-xla-profiler:` lines and XLA_EMIT_STEPLOG markers.
//
// Blocks are recognised by their line prefix, never by blank lines: other output can sit right
// before a block, or be glued in front of its first line by a tqdm '\r'. torch_xla prints one
// block at a time from one thread, so at most one block (analysis or post compilation) is open;
// a line of another block prefix, or a new `====` header before the closing one, ends it as
// truncated. Profiler lines and step markers come from other streams and never end a block.
//
// Speed: a level-2 log is mostly Execution blocks. The hot path is one memcmp of the prefix, a
// switch on the section and a hand-written frame split. Execution blocks are counted, not emitted
// (ingest/xla/pt_xla_debug_executions.h), and the block being parsed reuses the storage of the
// previous one, so a block that repeats an earlier one allocates nothing.
#include "ingest/xla/pt_xla_debug_importer.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "ingest/reading/text_util.h"
#include "ingest/steps/step_line.h"
#include "ingest/xla/pt_xla_debug_executions.h"
#include "util/plausible.h"

namespace rcf::ingest {
namespace {

constexpr std::string_view kCompilePrefix = "Compilation Analysis: ";
constexpr std::string_view kExecutePrefix = "Execution Analysis: ";
constexpr std::string_view kUnexpectedPrefix = "Unexpected Execution Analysis: ";
constexpr std::string_view kPostPrefix = "Post Compilation Analysis: ";
constexpr std::string_view kProfilerPrefix = "pt-xla-profiler:";
constexpr std::string_view kComputationHash = "Computation hash:";
constexpr std::string_view kSummaryTitle =
    "Unlowered Op usage summary (more of these ops, lower performance)";
// XLA_EMIT_STEPLOG markers (v2.8+ and older).
constexpr std::string_view kStepLogSync = "torch_xla.torch_xla::sync";
constexpr std::string_view kStepLogMarkStep = "torch_xla.core.xla_model::mark_step";

// Bounds that keep memory independent of the input.
constexpr size_t kMaxDebugFrames = 4096;
constexpr size_t kMaxSummaryText = size_t{1} << 20;

enum class DebugBlockKind : uint8_t { kNone, kCompile, kExecute, kUnexpected, kPost };

// Where the next indented line of an analysis block belongs.
enum class DebugSection : uint8_t { kNone, kCause, kGraphInfo, kFrames };

bool starts_with(std::string_view s, std::string_view prefix) {
  return s.size() >= prefix.size() && std::memcmp(s.data(), prefix.data(), prefix.size()) == 0;
}

// A separator line: at least 10 copies of `c` and nothing else (torch_xla prints 80).
bool is_rule(std::string_view s, char c) {
  if (s.empty() || s[0] != c) return false;  // the common case, decided by one byte
  s = rtrim(s);
  if (s.size() < 10) return false;
  for (char x : s)
    if (x != c) return false;
  return true;
}

// The `..........` line that says more frames existed.
bool is_dots(std::string_view s) {
  return s.size() >= 3 && s.find_first_not_of('.') == std::string_view::npos;
}

bool is_lower_hex(std::string_view s) {
  if (s.empty() || s.size() > 32) return false;
  for (char c : s)
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  return true;
}

// Block kind named by the text before "Analysis: " (`head` ends where that word starts).
DebugBlockKind kind_before(std::string_view head) {
  if (head.ends_with("Unexpected Execution ")) return DebugBlockKind::kUnexpected;
  if (head.ends_with("Post Compilation ")) return DebugBlockKind::kPost;
  if (head.ends_with("Execution ")) return DebugBlockKind::kExecute;
  if (head.ends_with("Compilation ")) return DebugBlockKind::kCompile;
  return DebugBlockKind::kNone;
}

const char* kind_name(DebugBlockKind kind) {
  switch (kind) {
    case DebugBlockKind::kCompile:
      return "compile";
    case DebugBlockKind::kExecute:
      return "execute";
    case DebugBlockKind::kUnexpected:
      return "unexpected_execute";
    default:
      return "";
  }
}

// Normalised cause (XlaAnalysisBlock::cause_class). `cause` is trimmed. Both eras are listed
// literally (`mark_step` up to v2.7, `torch_xla.sync` from v2.8) so matching needs no copy.
std::string_view cause_class_of(std::string_view cause) {
  struct Row {
    std::string_view text;
    std::string_view cls;
  };
  static constexpr Row kRows[] = {
      {"user torch_xla.sync", "step_end"},
      {"user mark_step", "step_end"},
      {"torch_xla.sync in parallel loader at step end", "parallel_loader_step_end"},
      {"mark_step in parallel loader at step end", "parallel_loader_step_end"},
      {"torch_xla.sync when exiting a profiler StepTrace region", "profiler_step_end"},
      {"mark_step when exiting a profiler StepTrace region", "profiler_step_end"},
      {"torch_xla.sync when dynamo processing input graphs", "dynamo_input_sync"},
      {"mark_step when dynamo processing input graphs", "dynamo_input_sync"},
      {"torch_xla.compile", "torch_xla_compile"},
      {"torch_xla.compile clear the pending graph prior calling the target function",
       "torch_xla_compile_clear_pending"},
      {"dynamo is compiling a FX graph to HLO", "dynamo_compile"},
      {"dynamo compiles FX graph to HLO", "dynamo_compile"},  // v2.1 development (PR #5723)
      {"dynamo is executing a compiled program", "dynamo_execute"},
      {"most likely user code trying to access tensor value before torch_xla.sync",
       "tensor_value_access"},
      {"most likely user code trying to access tensor value before mark_step",
       "tensor_value_access"},
  };
  for (const Row& row : kRows)
    if (cause == row.text) return row.cls;
  return "unknown";
}

// Execution blocks with these cause classes end a training step (the sync at the step's end).
bool is_step_end_class(std::string_view cause_class) {
  return cause_class == "step_end" || cause_class == "parallel_loader_step_end" ||
         cause_class == "profiler_step_end";
}

// `  <function> (<file>:<line>)` with the indentation already removed. The file is the text after
// the last " (" (functions may contain " ("), the line the digits after its last ':'.
bool parse_frame(std::string_view text, std::string_view* function, std::string_view* file,
                 int64_t* line) {
  if (text.size() < 6 || text.back() != ')') return false;
  size_t open = text.rfind(" (");
  if (open == std::string_view::npos || open == 0) return false;
  std::string_view location = text.substr(open + 2, text.size() - open - 3);
  if (!split_file_line(location, file, line)) return false;
  *function = text.substr(0, open);
  return true;
}

// `<number> GB`, `Unknown  GB` (nullopt, valid) or the v2.4-dev `<number>MB`. False = malformed.
bool parse_size_gb(std::string_view text, std::optional<double>* gb) {
  text = trim(text);
  double scale = 1.0;
  if (text.ends_with("GB")) {
    text.remove_suffix(2);
  } else if (text.ends_with("MB")) {
    text.remove_suffix(2);
    scale = 1.0 / 1024.0;
  } else {
    return false;
  }
  text = trim(text);
  if (text == "Unknown") {
    gb->reset();
    return true;
  }
  auto value = parse_double(text);
  if (!value) return false;
  *gb = *value * scale;
  return true;
}

// torch::lazy::MetricFnTime text (`05m12s340ms123.456us`, `013.884us`) in seconds.
std::optional<double> parse_metric_time(std::string_view text) {
  double seconds = 0;
  size_t i = 0;
  bool any = false;
  while (i < text.size()) {
    size_t start = i;
    while (i < text.size() && ((text[i] >= '0' && text[i] <= '9') || text[i] == '.')) ++i;
    auto value = parse_double(text.substr(start, i - start));
    if (!value) return std::nullopt;
    std::string_view rest = text.substr(i);
    double unit;
    if (rest.starts_with("ms")) {
      unit = 1e-3, i += 2;
    } else if (rest.starts_with("us")) {
      unit = 1e-6, i += 2;
    } else if (rest.starts_with("ns")) {
      unit = 1e-9, i += 2;
    } else if (rest.starts_with("d")) {
      unit = 86400, i += 1;
    } else if (rest.starts_with("h")) {
      unit = 3600, i += 1;
    } else if (rest.starts_with("m")) {
      unit = 60, i += 1;
    } else if (rest.starts_with("s")) {
      unit = 1, i += 1;
    } else {
      return std::nullopt;
    }
    seconds += *value * unit;
    any = true;
  }
  if (!any) return std::nullopt;
  return seconds;
}

// Lines of a Post Compilation block and the field each fills.
struct PostField {
  std::string_view label;
  std::optional<double> XlaPostCompile::*member;
};
constexpr PostField kPostFields[] = {
    {"Graph input size:", &XlaPostCompile::input_gb},
    {"Graph output size:", &XlaPostCompile::output_gb},
    {"Aliased Input size:", &XlaPostCompile::aliased_gb},
    {"Intermediate tensor size:", &XlaPostCompile::intermediate_gb},
    {"Compiled program size:", &XlaPostCompile::program_gb},
};

// Why a Post Compilation size is no evidence, or nullptr: a size below zero or not finite
// (`-1 GB`, `nan GB`), judged as an XLA metrics size is (docs/reasons.md, `implausible_count`).
const LineReason* implausible_size_reason(std::optional<double> gb) {
  if (gb && !(std::isfinite(*gb) && *gb >= 0)) return &reason::kImplausibleCountRejected;
  return nullptr;
}

class PtXlaDebugImporter : public Importer {
 public:
  explicit PtXlaDebugImporter(EventSink& sink) : sink_(sink) {}

  void on_line(std::string_view line, int64_t line_no) override {
    if (line.empty()) return sink_.note(line_no, reason::kBlank, line);
    switch (line[0]) {
      case 'E':
        if (starts_with(line, kExecutePrefix))
          return block_line(DebugBlockKind::kExecute, line.substr(kExecutePrefix.size()), line_no);
        break;
      case 'C':
        if (starts_with(line, kCompilePrefix))
          return block_line(DebugBlockKind::kCompile, line.substr(kCompilePrefix.size()), line_no);
        if (starts_with(line, kComputationHash)) return computation_hash(line, line_no);
        break;
      case 'U':
        if (starts_with(line, kUnexpectedPrefix))
          return block_line(DebugBlockKind::kUnexpected, line.substr(kUnexpectedPrefix.size()),
                            line_no);
        break;
      case 'P':
        if (starts_with(line, kPostPrefix))
          return block_line(DebugBlockKind::kPost, line.substr(kPostPrefix.size()), line_no);
        break;
      case 'p':
        if (starts_with(line, kProfilerPrefix))
          return profiler_line(line.substr(kProfilerPrefix.size()), line, line_no);
        break;
      case '+':
        // An added line of a diff that quotes the log (a PR description).
        if (starts_with(line.substr(1), kProfilerPrefix))
          return profiler_line(line.substr(1 + kProfilerPrefix.size()), line, line_no);
        break;
    }
    other_line(line, line_no);
  }

  // Every member is a value (ingest/importer.h).
  std::unique_ptr<Importer> clone() const override {
    return std::make_unique<PtXlaDebugImporter>(*this);
  }

  void finish() override {
    close_block(/*truncated=*/true);
    flush_pending_hash();
    flush_summary_frame();
    executions_.end_segment(sink_);
  }

 private:
  // ---- line fates -------------------------------------------------------------------------------
  // A line that starts with no known prefix: a step marker, a bare exit summary line, a block or
  // profiler line glued after other output, or other output.
  void other_line(std::string_view line, int64_t line_no) {
    std::string_view text = rtrim(line);
    if (text.empty()) return sink_.note(line_no, reason::kBlank, line);
    if (is_step_marker(text)) {
      // A step boundary: the segment's execution groups are complete.
      executions_.end_segment(sink_);
      ++markers_;
      StepMarker marker;
      marker.line = line_no;
      marker.origin = "steplog";
      sink_.emit(std::move(marker));
      return;
    }
    if (summary_ == Summary::kBare) {
      if (text == kSummaryTitle) return sink_.note(line_no, reason::kSummaryDecoration, line);
      if (summary_line(text, line, line_no)) return;
    } else if (text == kSummaryTitle) {
      // PT_XLA_DEBUG_FILE set: the exit summary is written without the logger prefix.
      flush_summary_frame();
      summary_ = Summary::kBare;
      return sink_.note(line_no, reason::kSummaryDecoration, line);
    }
    if (glued_line(line, line_no)) return;
    if (auto progress = read_step_line(text))  // the user's own `step N` line
      return emit_progress(sink_, line_no, std::move(*progress), line);
    sink_.note(line_no, reason::kOtherOutput, line);
  }

  // XLA_EMIT_STEPLOG marker, alone or glued after a progress bar (`...\rtorch_xla...`).
  static bool is_step_marker(std::string_view text) {
    for (std::string_view marker : {kStepLogSync, kStepLogMarkStep}) {
      if (!text.ends_with(marker)) continue;
      if (text.size() == marker.size()) return true;
      char before = text[text.size() - marker.size() - 1];
      if (before == '\r') return true;  // glued after a progress bar
    }
    return false;
  }

  // A debug line glued after other output on the same physical line. A block line counts when
  // it starts a block (`====`) or continues the open block of its kind. True when handled.
  bool glued_line(std::string_view line, int64_t line_no) {
    size_t at = line.find("Analysis: ");
    if (at != std::string_view::npos) {
      DebugBlockKind kind = kind_before(line.substr(0, at));
      std::string_view rest = line.substr(at + 10);
      if (kind != DebugBlockKind::kNone && (is_rule(rest, '=') || kind == open_kind_)) {
        sink_.note(line_no, reason::kGluedOutput, line);
        block_line(kind, rest, line_no);
        return true;
      }
    }
    size_t profiler = line.find("pt-xla-profiler: ");
    if (profiler != std::string_view::npos) {
      sink_.note(line_no, reason::kGluedOutput, line);
      profiler_line(line.substr(profiler + kProfilerPrefix.size()), line, line_no);
      return true;
    }
    return false;
  }

  // ---- analysis and post compilation blocks ---------------------------------------------------
  void block_line(DebugBlockKind kind, std::string_view rest, int64_t line_no) {
    flush_summary_frame();
    summary_ = Summary::kOff;
    if (kind != DebugBlockKind::kPost) flush_pending_hash();
    if (kind != open_kind_) {
      bool header = is_rule(rest, '=');
      // A fragment whose head is missing opens a block only if the line looks like block content;
      // anything else with the prefix (a user print) is malformed and leaves state alone.
      if (!header && !is_fragment_start(kind, rest))
        return sink_.note(line_no, reason::kUnexpectedBlockLine, rest);
      close_block(/*truncated=*/true);
      open_block(kind, line_no, /*headless=*/!header, rest);
      if (header) return;
    } else if (is_rule(rest, '=')) {
      if (after_dashes_) return close_block(/*truncated=*/false);
      close_block(/*truncated=*/true);
      return open_block(kind, line_no, /*headless=*/false, rest);
    }
    if (kind == DebugBlockKind::kPost) return post_line(rest, line_no);
    analysis_line(rest, line_no);
  }

  void open_block(DebugBlockKind kind, int64_t line_no, bool headless, std::string_view line) {
    open_kind_ = kind;
    open_headless_ = headless;
    after_dashes_ = false;
    section_ = DebugSection::kNone;
    if (headless) sink_.note(line_no, reason::kHeadlessBlock, line);
    if (kind == DebugBlockKind::kPost) {
      post_ = XlaPostCompile{};
      post_.line = line_no;
      if (pending_hash_line_ > 0) {
        post_.line = pending_hash_line_;
        post_.computation_hash = std::move(pending_hash_);
        pending_hash_.clear();
        pending_hash_line_ = 0;
      }
      return;
    }
    reset_block();
    block_.line = line_no;
    block_.kind = kind_name(kind);
    block_.markers_before = markers_;
    block_.step_ends_before = step_ends_;
    // Blocks of one log have about the same frame count (PT_XLA_DEBUG_MAX_FRAME): one allocation.
    block_.frames.reserve(last_frame_count_);
  }

  // Empties block_ but keeps the storage of its strings and frames (frames_used_ counts the
  // frames of the current block; the rest are spare).
  void reset_block() {
    block_.kind.clear();
    block_.cause.clear();
    block_.cause_class.clear();
    block_.graph_name.clear();
    block_.graph_hash.clear();
    block_.inputs.reset();
    block_.outputs.reset();
    block_.frames_cut = false;
    block_.truncated = false;
    frames_used_ = 0;
  }

  // Emits the open block, if any. `truncated`: it did not reach its closing `====`.
  void close_block(bool truncated) {
    if (open_kind_ == DebugBlockKind::kNone) return;
    DebugBlockKind kind = open_kind_;
    open_kind_ = DebugBlockKind::kNone;
    int64_t line = kind == DebugBlockKind::kPost ? post_.line : block_.line;
    if (truncated) sink_.note(line, reason::kTruncatedBlock, kind_name(kind));
    if (kind == DebugBlockKind::kPost) {
      sink_.emit(std::move(post_));
      post_ = XlaPostCompile{};
      return;
    }
    block_.frames.resize(frames_used_);
    block_.truncated = truncated || open_headless_;
    last_frame_count_ = std::min(block_.frames.size(), size_t{64});
    block_.cause_class = cause_class_of(block_.cause);
    if (kind == DebugBlockKind::kCompile) return sink_.emit(std::move(block_));
    bool step_end = kind == DebugBlockKind::kExecute && is_step_end_class(block_.cause_class);
    executions_.add(block_, sink_);
    if (step_end) {
      ++step_ends_;
      executions_.end_segment(sink_);
    }
  }

  void analysis_line(std::string_view rest, int64_t line_no) {
    std::string_view text = rtrim(rest);
    if (after_dashes_) return sink_.note(line_no, reason::kLineAfterBlockEnd, rest);
    if (is_rule(text, '-')) {
      after_dashes_ = true;
      return;
    }
    bool indented = !text.empty() && text[0] == ' ';
    std::string_view content = ltrim(text);
    if (content.empty()) return sink_.note(line_no, reason::kUnexpectedBlockLine, rest);
    if (!indented) {
      // DebugSection headers; `Graph Info: ` and `Python Frame Triggered Execution: ` lose their
      // trailing space when users paste them (rtrim above).
      if (content == "Python Frame Triggered Execution:") {
        section_ = DebugSection::kFrames;
        return;
      }
      if (content == "Graph Info:") {
        section_ = DebugSection::kGraphInfo;
        return;
      }
      if (content == "Compilation Cause" || content == "Execution Cause") {
        section_ = DebugSection::kCause;
        return;
      }
    }
    switch (section_) {
      case DebugSection::kFrames:
        return frame_line(content, rest, line_no);
      case DebugSection::kCause:
        if (!block_.cause.empty()) return sink_.note(line_no, reason::kExtraCauseLine, rest);
        block_.cause.assign(content);
        return;
      case DebugSection::kGraphInfo:
        if (!graph_info_line(content, rest, line_no))
          sink_.note(line_no, reason::kUnexpectedBlockLine, rest);
        return;
      case DebugSection::kNone:
        // Headless fragment (or a block missing its section headers): guess from the content.
        if (graph_info_line(content, rest, line_no)) {
          section_ = DebugSection::kGraphInfo;
          return;
        }
        if (is_frame_content(content)) {
          section_ = DebugSection::kFrames;
          return frame_line(content, rest, line_no);
        }
        return sink_.note(line_no, reason::kUnexpectedBlockLine, rest);
    }
  }

  static bool is_fragment_start(DebugBlockKind kind, std::string_view rest) {
    std::string_view text = rtrim(rest);
    if (is_rule(text, '-')) return true;
    std::string_view content = ltrim(text);
    if (kind == DebugBlockKind::kPost) {
      for (const PostField& field : kPostFields)
        if (starts_with(content, field.label)) return true;
      return false;
    }
    return content == "Python Frame Triggered Execution:" || content == "Graph Info:" ||
           content == "Compilation Cause" || content == "Execution Cause" ||
           starts_with(content, "Graph ") || starts_with(content, "Number of Graph ") ||
           is_frame_content(content);
  }

  static bool is_frame_content(std::string_view content) {
    std::string_view function, file;
    int64_t line = 0;
    return is_dots(content) || parse_frame(content, &function, &file, &line);
  }

  void frame_line(std::string_view content, std::string_view rest, int64_t line_no) {
    if (is_dots(content)) {
      block_.frames_cut = true;
      return;
    }
    std::string_view function, file;
    int64_t line = 0;
    if (!parse_frame(content, &function, &file, &line))
      return sink_.note(line_no, reason::kBadFrame, rest);
    if (frames_used_ >= kMaxDebugFrames) {
      block_.frames_cut = true;
      return;
    }
    if (frames_used_ == block_.frames.size()) block_.frames.emplace_back();
    StackFrame& frame = block_.frames[frames_used_++];
    frame.file.assign(file);
    frame.line = line;
    frame.function.assign(function);
    frame.code.clear();
  }

  // `Graph Name:`, `Graph Hash:`, `Number of Graph Input(s):`, `Number of Graph Output(s):`.
  // False when `content` is none of them; a malformed value is rejected here (and returns true).
  bool graph_info_line(std::string_view content, std::string_view rest, int64_t line_no) {
    if (!starts_with(content, "Graph ") && !starts_with(content, "Number of Graph ")) return false;
    if (starts_with(content, "Graph Hash:")) {
      std::string_view hash = trim(content.substr(11));
      if (!is_lower_hex(hash)) {
        sink_.note(line_no, reason::kBadGraphHash, rest);
        return true;
      }
      block_.graph_hash.assign(hash);
      return true;
    }
    if (starts_with(content, "Graph Name:")) {
      block_.graph_name.assign(trim(content.substr(11)));
      return true;
    }
    struct Count {
      std::string_view label;
      std::optional<int64_t> XlaAnalysisBlock::*member;
    };
    // Released code prints the plural; the PR #5947 pre-release printed `Input:` / `Output:`.
    static constexpr Count kCounts[] = {
        {"Number of Graph Inputs:", &XlaAnalysisBlock::inputs},
        {"Number of Graph Input:", &XlaAnalysisBlock::inputs},
        {"Number of Graph Outputs:", &XlaAnalysisBlock::outputs},
        {"Number of Graph Output:", &XlaAnalysisBlock::outputs},
    };
    std::optional<int64_t>* target = nullptr;
    std::string_view value;
    for (const Count& c : kCounts) {
      if (starts_with(content, c.label)) {
        target = &(block_.*c.member);
        value = trim(content.substr(c.label.size()));
        break;
      }
    }
    if (!target) return false;
    auto count = parse_int64(value);
    if (!count) {
      sink_.note(line_no, reason::kBadCount, rest);
      return true;
    }
    // A count out of range is no evidence (util/plausible.h): its line is rejected.
    if (!util::plausible_id(*count)) {
      sink_.note(line_no, reason::kImplausibleCountRejected, rest);
      return true;
    }
    *target = *count;
    return true;
  }

  void post_line(std::string_view rest, int64_t line_no) {
    std::string_view text = trim(rest);
    if (after_dashes_) return sink_.note(line_no, reason::kLineAfterBlockEnd, rest);
    if (is_rule(text, '-')) {
      after_dashes_ = true;
      return;
    }
    for (const PostField& field : kPostFields) {
      if (!starts_with(text, field.label)) continue;
      std::optional<double> gb;
      if (!parse_size_gb(text.substr(field.label.size()), &gb))
        return sink_.note(line_no, reason::kBadSize, rest);
      if (const LineReason* why = implausible_size_reason(gb))
        return sink_.note(line_no, *why, rest);
      post_.*field.member = gb;
      return;
    }
    sink_.note(line_no, reason::kUnexpectedBlockLine, rest);
  }

  // `Computation hash: <hex>` (v2.7+), printed before its Post Compilation block.
  void computation_hash(std::string_view line, int64_t line_no) {
    std::string_view hash = trim(line.substr(kComputationHash.size()));
    if (!is_lower_hex(hash)) return sink_.note(line_no, reason::kBadComputationHash, line);
    close_block(/*truncated=*/true);
    flush_pending_hash();
    pending_hash_.assign(hash);
    pending_hash_line_ = line_no;
  }

  // A `Computation hash:` line whose Post Compilation block never came.
  void flush_pending_hash() {
    if (pending_hash_line_ == 0) return;
    XlaPostCompile post;
    post.line = pending_hash_line_;
    post.computation_hash = std::move(pending_hash_);
    pending_hash_.clear();
    pending_hash_line_ = 0;
    sink_.note(post.line, reason::kTruncatedBlock, "Computation hash");
    sink_.emit(std::move(post));
  }

  // ---- pt-xla-profiler ------------------------------------------------------------------------
  // `message` is the text after `pt-xla-profiler:`; `line` the whole physical line.
  void profiler_line(std::string_view message, std::string_view line, int64_t line_no) {
    if (!message.empty() && message[0] == ' ') message.remove_prefix(1);
    std::string_view text = rtrim(message);
    if (text == kSummaryTitle) {
      flush_summary_frame();
      summary_ = Summary::kPrefixed;
      return sink_.note(line_no, reason::kSummaryDecoration, line);
    }
    if (summary_ == Summary::kPrefixed && summary_line(text, line, line_no)) return;
    if (is_rule(text, '='))
      return sink_.note(line_no, reason::kSummaryDecoration, line);  // summary opening

    XlaProfilerNote note;
    note.line = line_no;
    if (size_t at = text.find(" too frequent: "); at != std::string_view::npos) {
      if (!too_frequent_note(text, at, line, line_no, &note)) return;
    } else if (size_t slow = text.find(" too slow: longest instance took ");
               slow != std::string_view::npos) {
      if (!too_slow_note(text, slow, line, line_no, &note)) return;
    } else if (starts_with(text, "Op(s) not lowered:")) {
      std::string_view ops = text.substr(18);
      if (size_t please = ops.find("Please open"); please != std::string_view::npos)
        ops = ops.substr(0, please);
      ops = trim(ops);
      while (!ops.empty() && (ops.back() == ',' || ops.back() == ' ')) ops.remove_suffix(1);
      note.kind = "not_lowered";
      note.text.assign(ops);
    } else {
      return sink_.note(line_no, reason::kUnknownProfilerMessage, line);
    }
    sink_.emit(std::move(note));
  }

  // `<metric> too frequent: <count> counts during <steps> steps` with ` too frequent: ` at `at`
  // (`during <steps> steps` is missing from shorter builds and cut excerpts). Fills `*note`;
  // false when the line was rejected.
  bool too_frequent_note(std::string_view text, size_t at, std::string_view line, int64_t line_no,
                         XlaProfilerNote* note) {
    std::string_view rest = text.substr(at + 15);
    size_t counts = rest.find(" counts during ");
    std::optional<int64_t> count, steps;
    if (counts != std::string_view::npos && rest.ends_with(" steps")) {
      count = parse_int64(rest.substr(0, counts));
      steps = parse_int64(rest.substr(counts + 15, rest.size() - counts - 15 - 6));
      if (!steps) count.reset();
    } else if (rest.ends_with(" counts")) {
      count = parse_int64(rest.substr(0, rest.size() - 7));
    }
    if (!count) {
      sink_.note(line_no, reason::kBadProfilerLine, line);
      return false;
    }
    // Out of range (util/plausible.h): the count is the note itself, so the line is rejected; a
    // step count is dropped and warned, the note kept (as from a build that prints none).
    if (!util::plausible_id(*count)) {
      sink_.note(line_no, reason::kImplausibleCountRejected, line);
      return false;
    }
    if (steps && !util::plausible_id(*steps)) {
      sink_.note(line_no, reason::kImplausibleStepWarning, line);
      steps.reset();
    }
    note->kind = "too_frequent";
    note->metric.assign(text.substr(0, at));
    note->count = count;
    note->steps = steps;
    note->text.assign(text);
    return true;
  }

  // `<metric> too slow: longest instance took <time>.` with ` too slow: ...` at `slow`. Fills
  // `*note`; false when the line was rejected.
  bool too_slow_note(std::string_view text, size_t slow, std::string_view line, int64_t line_no,
                     XlaProfilerNote* note) {
    std::string_view rest = text.substr(slow + 33);
    size_t end = rest.find(". ");
    if (end == std::string_view::npos) end = rest.ends_with('.') ? rest.size() - 1 : rest.size();
    note->kind = "too_slow";
    note->metric.assign(text.substr(0, slow));
    note->seconds = parse_metric_time(trim(rest.substr(0, end)));
    if (!note->seconds) {
      sink_.note(line_no, reason::kBadProfilerLine, line);
      return false;
    }
    // A time longer than a year is no evidence (util/plausible.h): the note is kept without it,
    // as a JAX compile is (docs/reasons.md, `implausible_duration`).
    if (!util::plausible_duration_ms(*note->seconds * 1000)) {
      sink_.note(line_no, reason::kImplausibleDurationWarning, line);
      note->seconds.reset();
    }
    note->text.assign(text);
    return true;
  }

  // One line of the exit-time unlowered-op summary (prefix already removed). True when used.
  bool summary_line(std::string_view text, std::string_view line, int64_t line_no) {
    if (is_rule(text, '=')) {  // closing rule
      flush_summary_frame();
      summary_ = Summary::kOff;
      sink_.note(line_no, reason::kSummaryDecoration, line);
      return true;
    }
    if (starts_with(text, "FRAME (count=")) {
      flush_summary_frame();
      frame_note_ = XlaProfilerNote{};
      frame_note_.line = line_no;
      frame_note_.kind = "unlowered_summary_frame";
      std::string_view count = text.substr(13);
      if (count.ends_with("):")) count.remove_suffix(2);
      frame_note_.count = parse_int64(count);
      if (!frame_note_.count) {
        sink_.note(line_no, reason::kBadFrameCount, line);
      } else if (!util::plausible_id(*frame_note_.count)) {
        // Out of range (util/plausible.h): the frame is kept without its count.
        sink_.note(line_no, reason::kImplausibleCountWarning, line);
        frame_note_.count.reset();
      }
      frame_open_ = true;
      return true;
    }
    if (!frame_open_) {
      if (is_rule(text, '-') || starts_with(text, "Note: ") || text.empty()) {
        sink_.note(line_no, reason::kSummaryDecoration, line);
        return true;
      }
      if (summary_ == Summary::kBare) return false;  // other output after a bare summary
      sink_.note(line_no, reason::kUnexpectedSummaryLine, line);
      return true;
    }
    if (!text.empty() && frame_note_.text.size() < kMaxSummaryText) {
      if (!frame_note_.text.empty()) frame_note_.text.push_back('\n');
      frame_note_.text.append(text);
    }
    return true;
  }

  void flush_summary_frame() {
    if (!frame_open_) return;
    frame_open_ = false;
    sink_.emit(std::move(frame_note_));
    frame_note_ = XlaProfilerNote{};
  }

  EventSink& sink_;

  // Open block (at most one). `block_` is used for analysis kinds, `post_` for kPost.
  DebugBlockKind open_kind_ = DebugBlockKind::kNone;
  bool open_headless_ = false;  // its first lines are missing from the log
  bool after_dashes_ = false;   // its `----` line was seen; the next `====` closes it
  DebugSection section_ = DebugSection::kNone;
  size_t last_frame_count_ = 0;  // frames of the previous analysis block
  XlaAnalysisBlock block_;
  size_t frames_used_ = 0;  // frames of block_ that belong to the open block

  // Step boundaries so far (XLA_EMIT_STEPLOG markers, step-end Execution blocks) and the
  // execution groups of the current segment.
  int64_t markers_ = 0;
  int64_t step_ends_ = 0;
  ExecutionTally executions_;
  XlaPostCompile post_;

  // `Computation hash:` waiting for its Post Compilation block (line 0 = none).
  std::string pending_hash_;
  int64_t pending_hash_line_ = 0;

  // Exit-time unlowered-op summary: prefixed by the logger, or bare (PT_XLA_DEBUG_FILE).
  enum class Summary : uint8_t { kOff, kPrefixed, kBare };
  Summary summary_ = Summary::kOff;
  bool frame_open_ = false;
  XlaProfilerNote frame_note_;
};

// The score of a head with a PT_XLA_DEBUG block or profiler line (the only one it gives).
constexpr int kSniffScore = 85;

// Texts only PT_XLA_DEBUG output prints: its blocks' headers and the profiler's lines.
constexpr std::string_view kDebugMarkers[] = {kCompilePrefix, kExecutePrefix, kPostPrefix,
                                              "pt-xla-profiler: "};

int sniff_pt_xla_debug(std::string_view head) {
  for (std::string_view needle : kDebugMarkers)
    if (contains(head, needle)) return kSniffScore;
  return 0;
}

}  // namespace

ImporterInfo pt_xla_debug_importer_info() {
  return {"pt_xla_debug",
          "torch_xla PT_XLA_DEBUG output: Compilation/Execution Analysis blocks, Post Compilation "
          "Analysis, pt-xla-profiler lines, XLA_EMIT_STEPLOG markers",
          &sniff_pt_xla_debug,
          [](EventSink& sink) -> std::unique_ptr<Importer> {
            return std::make_unique<PtXlaDebugImporter>(sink);
          },
          kSniffScore,
          {std::begin(kDebugMarkers), std::end(kDebugMarkers)}};
}

}  // namespace rcf::ingest
