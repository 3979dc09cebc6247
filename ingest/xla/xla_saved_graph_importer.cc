// XLA_SAVE_TENSORS_FILE importer (docs/xla_saved_graph.md): one SavedGraph per
// `[ScheduleSyncTensorsGraph]` / `[dynamo]` block, plus the HloModule events of blocks saved
// with XLA_SAVE_TENSORS_FMT=hlo.
//
// A block is written in two calls (graph info, then `Graph Hash:` + `## END_GRAPH`), so a crash
// can leave a block without its trailer: the next block title, a header line of a new block or
// the end of the input ends it, and it is kept as truncated. Blocks only come from torch_xla, so
// other text outside a block is another program's output; it is skipped, not rejected.
#include "ingest/xla/xla_saved_graph_importer.h"

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "ingest/reading/text_util.h"
#include "ingest/xla/hlo_text_parser.h"

namespace rcf::ingest {
namespace {

// Python stacks are bounded by the recursion limit; this only keeps hostile input in bounds.
constexpr size_t kMaxSavedGraphFrames = 10000;
constexpr size_t kMaxExcerpt = 200;

bool is_hex(std::string_view s) {
  if (s.empty() || s.size() > 32) return false;
  for (char c : s) {
    bool hex = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
    if (!hex) return false;
  }
  return true;
}

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out)
    if (c >= 'A' && c <= 'F') c = static_cast<char>(c - 'A' + 'a');
  return out;
}

// `[ScheduleSyncTensorsGraph]`, `[dynamo]`: the name passed to SaveTensorsGraphInfo. Other
// bracketed identifiers ending in "Graph" are accepted too (older builds used other names);
// `[MetricsData; step=N]` and log prefixes are not identifiers.
std::optional<std::string_view> block_title(std::string_view t) {
  if (t.size() < 3 || t.front() != '[' || t.back() != ']') return std::nullopt;
  std::string_view name = t.substr(1, t.size() - 2);
  for (char c : name) {
    bool ident =
        (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
    if (!ident) return std::nullopt;
  }
  if (name == "dynamo" || name.ends_with("Graph")) return name;
  return std::nullopt;
}

// Lines that belong to the header of a block (before `## BEGIN_GRAPH`).
enum class HeaderLine { kNone, kGraphName, kGraphInfo, kOldHashes, kRootHashes, kBeginGraph };

HeaderLine header_line(std::string_view t) {
  if (t.empty()) return HeaderLine::kNone;
  switch (t[0]) {
    case 'G':
      if (t.starts_with("Graph Name:")) return HeaderLine::kGraphName;
      break;
    case 'T':
      if (t == "TensorsGraphInfo:") return HeaderLine::kGraphInfo;
      break;
    case 'H':
      if (t.starts_with("Hashes: (") || t == "Hashes:") return HeaderLine::kOldHashes;
      break;
    case 'R':
      if (t.starts_with("Root Hashes:")) return HeaderLine::kRootHashes;
      break;
    case '#':
      if (t == "## BEGIN_GRAPH") return HeaderLine::kBeginGraph;
      break;
  }
  return HeaderLine::kNone;
}

// `(<hex>, <hex>, ...)` after the `Hashes:` / `Root Hashes:` label; nullopt when malformed.
std::optional<std::vector<std::string>> parse_hash_list(std::string_view rest) {
  rest = trim(rest);
  if (rest.size() < 2 || rest.front() != '(' || rest.back() != ')') return std::nullopt;
  rest = rest.substr(1, rest.size() - 2);
  std::vector<std::string> hashes;
  while (!trim(rest).empty()) {
    size_t comma = rest.find(',');
    std::string_view item = trim(rest.substr(0, comma));
    if (!is_hex(item)) return std::nullopt;
    hashes.push_back(lower(item));
    if (comma == std::string_view::npos) break;
    rest = rest.substr(comma + 1);
  }
  return hashes;
}

// `<function> (<file>:<line>)`, as printed (indented) by GetTensorsGraphInfo and grab_graphs.py.
std::optional<StackFrame> parse_frame_text(std::string_view t) {
  if (t.empty() || t.back() != ')') return std::nullopt;
  size_t open = t.find(" (");
  if (open == std::string_view::npos || open == 0) return std::nullopt;
  std::string_view location = t.substr(open + 2, t.size() - open - 3);
  StackFrame frame;
  std::string_view file;
  if (!split_file_line(location, &file, &frame.line) || file.empty()) return std::nullopt;
  frame.function = std::string(t.substr(0, open));
  frame.file = std::string(file);
  return frame;
}

std::optional<StackFrame> parse_frame(std::string_view line) {
  if (line.empty() || (line[0] != ' ' && line[0] != '\t')) return std::nullopt;
  return parse_frame_text(trim(line));
}

// `  %12 = f32[2]{0} aten::add(%10, %11), ...`: one IR node of the text format.
bool is_ir_node(std::string_view line) {
  if (line.empty() || (line[0] != ' ' && line[0] != '\t')) return false;
  std::string_view t = ltrim(line);
  if (t.size() < 2 || t[0] != '%') return false;
  size_t i = 1;
  while (i < t.size() && t[i] >= '0' && t[i] <= '9') ++i;
  return i > 1 && t.substr(i).starts_with(" = ");
}

// Format of a graph body from its first line; "" when it is none of the four.
std::string_view detect_format(std::string_view line, std::string_view t) {
  if (t == "IR {" || is_ir_node(line)) return "text";
  if (t.starts_with("HloModule ")) return "hlo";
  if (t.starts_with("digraph")) return "dot";
  if (t.starts_with("module") || t.starts_with("#loc") || t.starts_with("func.func"))
    return "stablehlo";
  return "";
}

// grab_graphs.py summary lines: `Parsed <N> graph(s)`, `<K> frame group(s)`.
bool is_grab_graphs_count(std::string_view t) {
  if (t.starts_with("Parsed ") && t.ends_with(" graph(s)"))
    return all_digits(t.substr(7, t.size() - 7 - 9));
  if (t.ends_with(" frame group(s)")) return all_digits(t.substr(0, t.size() - 15));
  return false;
}

// `<digits><rest>`: the number, and `t` advanced past it.
std::optional<int64_t> take_count(std::string_view& t) {
  size_t n = 0;
  while (n < t.size() && t[n] >= '0' && t[n] <= '9') ++n;
  if (n == 0 || n > 12) return std::nullopt;
  auto value = parse_int64(t.substr(0, n));
  t.remove_prefix(n);
  return value;
}

// `graph(s)`, `graphs` or `graph` and the space after it.
bool take_graph_word(std::string_view& t) {
  for (std::string_view word : {"graph(s) ", "graphs ", "graph "})
    if (t.starts_with(word)) {
      t.remove_prefix(word.size());
      return true;
    }
  return false;
}

// A frame group's header, `Frame has <N> graph(s) (<M> unique):` (grab_graphs.py prints the
// frame lines after it); the frame may follow on the same line when a paste joined them, and
// the `(<M> unique):` part may have been wrapped onto the next line (`rest_cut`).
struct GrabHeader {
  int64_t graphs = 0, unique = 0;
  std::string_view same_line_frame;  // "" when the frames follow on their own lines
  bool unique_cut = false;           // the line ends after the graph count
};

// The `(<M> unique):` part and what follows it.
bool take_unique(std::string_view t, GrabHeader* h) {
  if (!t.starts_with("(")) return false;
  t.remove_prefix(1);
  auto unique = take_count(t);
  if (!unique || !t.starts_with(" unique):")) return false;
  h->unique = *unique;
  h->same_line_frame = trim(t.substr(9));
  return true;
}

std::optional<GrabHeader> grab_graphs_header(std::string_view t) {
  if (!t.starts_with("Frame has ")) return std::nullopt;
  t.remove_prefix(10);
  GrabHeader h;
  auto graphs = take_count(t);
  if (!graphs || !t.starts_with(" ")) return std::nullopt;
  t.remove_prefix(1);
  h.graphs = *graphs;
  if (t == "graph(s)" || t == "graphs" || t == "graph") {
    h.unique_cut = true;
    return h;
  }
  if (!take_graph_word(t) || !take_unique(t, &h)) return std::nullopt;
  return h;
}

struct Block {
  SavedGraph graph;
  std::string excerpt;       // first line, for the truncated_block warning
  bool headless = false;     // its title line is missing (input starts mid-block)
  bool title_only = true;    // nothing but the title so far (`[dynamo]` may precede another)
  bool name_seen = false;    // `Graph Name:`
  bool frames_seen = false;  // `TensorsGraphInfo:`
  bool frames_open = false;  // frame lines follow
  bool old_hashes = false;   // `Hashes:`
  bool root_hashes = false;  // `Root Hashes:`
  bool in_graph = false;     // after `## BEGIN_GRAPH`
  bool body_closed = false;  // graph body ended (closing brace or `Graph Hash:`)
  std::unique_ptr<HloTextParser> hlo;
};

class XlaSavedGraphImporter : public Importer {
 public:
  explicit XlaSavedGraphImporter(EventSink& sink) : sink_(sink) {}

  void on_line(std::string_view line, int64_t line_no) override {
    std::string_view t = trim(line);
    if (in_sharding_) {
      // Output-sharding lists (hlo format) sit between or after blocks; a new block ends one
      // that was cut off.
      if (t == "#OUTPUT_SHARDING_END") {
        in_sharding_ = false;
        return;
      }
      if (!block_title(t)) {
        if (t.empty()) sink_.note(line_no, reason::kBlank, line);
        return;
      }
      in_sharding_ = false;
    }
    if (t == "#OUTPUT_SHARDING_BEGIN") {
      in_sharding_ = true;
      return;
    }
    if (auto title = block_title(t)) {
      on_title(*title, line, line_no);
      return;
    }
    if (block_ && on_block_line(line, t, line_no)) return;
    on_outside_line(line, t, line_no);
  }

  void finish() override {
    if (block_) close_block(/*complete=*/false);
    if (grab_) close_grab();
  }

 private:
  void on_title(std::string_view name, std::string_view line, int64_t line_no) {
    if (grab_) close_grab();
    // A `[dynamo]` re-append may carry the block's own title after it: one block.
    if (block_ && block_->title_only && block_->graph.dynamo && !block_->headless) {
      block_->title_only = false;
      return;
    }
    if (block_) close_block(/*complete=*/false);
    open_block(line, line_no, /*headless=*/false);
    block_->graph.dynamo = name == "dynamo";
  }

  void open_block(std::string_view line, int64_t line_no, bool headless) {
    block_ = std::make_unique<Block>();
    block_->graph.line = line_no;
    block_->excerpt = std::string(line.substr(0, kMaxExcerpt));
    block_->headless = headless;
    block_->title_only = !headless;
  }

  // Returns false when the line does not belong to the open block: the block has been closed
  // (cut off) and the caller handles the line as outside any block.
  bool on_block_line(std::string_view line, std::string_view t, int64_t line_no) {
    Block& b = *block_;
    b.title_only = false;
    if (t.starts_with("Graph Hash:")) {
      on_graph_hash(t, line, line_no);
      return true;
    }
    if (t == "## END_GRAPH") {
      close_block(/*complete=*/true);
      return true;
    }
    if (!b.in_graph) return on_header_line(line, t, line_no);
    if (t.empty()) {
      sink_.note(line_no, reason::kBlank, line);
      return true;
    }
    // After the body only the trailer may follow; anything else means the trailer was lost.
    // StableHLO debug output lists its `#loc` definitions after the module.
    if (b.body_closed && b.graph.format == "stablehlo" && t.starts_with("#loc")) return true;
    if (b.body_closed || header_line(t) != HeaderLine::kNone) {
      close_block(/*complete=*/false);
      return false;
    }
    if (b.graph.format.empty()) {
      std::string_view format = detect_format(line, t);
      if (format.empty()) {
        sink_.note(line_no, reason::kUnknownGraphFormat, line);
        return true;
      }
      b.graph.format = std::string(format);
      if (format == "hlo") b.hlo = std::make_unique<HloTextParser>();
    }
    on_body_line(b, line, t, line_no);
    return true;
  }

  bool on_header_line(std::string_view line, std::string_view t, int64_t line_no) {
    Block& b = *block_;
    if (t.empty()) {
      b.frames_open = false;
      sink_.note(line_no, reason::kBlank, line);
      return true;
    }
    bool hashes_seen = b.old_hashes || b.root_hashes;
    switch (header_line(t)) {
      case HeaderLine::kGraphName:
        // Header lines come in a fixed order; one out of order starts the next block.
        if (b.name_seen || b.frames_seen || hashes_seen) break;
        b.name_seen = true;
        b.frames_open = false;
        b.graph.graph_name = std::string(trim(t.substr(11)));
        return true;
      case HeaderLine::kGraphInfo:
        if (b.frames_seen || hashes_seen) break;
        b.frames_seen = b.frames_open = true;
        return true;
      case HeaderLine::kOldHashes:
      case HeaderLine::kRootHashes: {
        if (hashes_seen) break;
        bool old = header_line(t) == HeaderLine::kOldHashes;
        (old ? b.old_hashes : b.root_hashes) = true;
        b.frames_open = false;
        auto hashes = parse_hash_list(t.substr(t.find(':') + 1));
        if (!hashes) {
          sink_.note(line_no, reason::kBadHashes, line);
          return true;
        }
        b.graph.root_hashes = std::move(*hashes);
        return true;
      }
      case HeaderLine::kBeginGraph:
        b.in_graph = true;
        b.frames_open = false;
        return true;
      case HeaderLine::kNone:
        if (b.frames_open && (line[0] == ' ' || line[0] == '\t')) {
          on_frame_line(b, line, line_no);
          return true;
        }
        break;
    }
    close_block(/*complete=*/false);
    return false;
  }

  void on_frame_line(Block& b, std::string_view line, int64_t line_no) {
    auto frame = parse_frame(line);
    if (!frame) {
      sink_.note(line_no, reason::kBadFrame, line);
    } else if (b.graph.frames.size() >= kMaxSavedGraphFrames) {
      sink_.note(line_no, reason::kTooManyFrames, line);
    } else {
      b.graph.frames.push_back(std::move(*frame));
    }
  }

  void on_graph_hash(std::string_view t, std::string_view line, int64_t line_no) {
    Block& b = *block_;
    b.body_closed = true;
    std::string_view hex = trim(t.substr(11));
    if (!is_hex(hex) || !b.graph.graph_hash.empty()) {
      sink_.note(line_no, reason::kBadGraphHash, line);
      return;
    }
    b.graph.graph_hash = lower(hex);
  }

  void on_body_line(Block& b, std::string_view line, std::string_view t, int64_t line_no) {
    const std::string& format = b.graph.format;
    if (format == "hlo") {
      if (!b.hlo->feed(line, line_no)) sink_.note(line_no, reason::kBadHloLine, line);
      return;
    }
    // text, dot and stablehlo bodies end with a closing brace in column 0.
    if (rtrim(line) == "}") {
      b.body_closed = true;
      return;
    }
    if (format != "text") return;
    if (is_ir_node(line)) {
      ++b.graph.ir_node_count;
    } else if (t != "IR {") {
      sink_.note(line_no, reason::kBadIrLine, line);
    }
  }

  void on_outside_line(std::string_view line, std::string_view t, int64_t line_no) {
    if (grab_ && on_grab_line(line, t, line_no)) return;
    if (t.empty()) {
      sink_.note(line_no, reason::kBlank, line);
      return;
    }
    if (header_line(t) != HeaderLine::kNone) {
      // The input starts (or resumes) in the middle of a block whose title is missing.
      open_block(line, line_no, /*headless=*/true);
      on_block_line(line, t, line_no);
      return;
    }
    if (t == "## END_GRAPH" || t.starts_with("Graph Hash:")) {
      sink_.note(line_no, reason::kGraphTrailerWithoutBlock, line);
      return;
    }
    if (is_grab_graphs_count(t)) {
      sink_.note(line_no, reason::kGrabGraphsSummary, line);
      return;
    }
    if (auto header = grab_graphs_header(t)) {
      open_grab(*header, line_no);
      return;
    }
    sink_.note(line_no, reason::kOtherOutput, line);
  }

  // grab_graphs.py frame groups (docs/xla_saved_graph.md) -----------------------------------

  void open_grab(const GrabHeader& h, int64_t line_no) {
    grab_ = GrabGraphsFrame{};
    grab_->line = line_no;
    grab_->graphs = h.graphs;
    grab_->unique = h.unique;
    grab_unique_cut_ = h.unique_cut;
    grab_partial_.clear();
    if (!h.same_line_frame.empty()) add_grab_frame(h.same_line_frame);
  }

  void add_grab_frame(std::string_view text) {
    auto frame = parse_frame_text(text);
    if (frame && grab_->frames.size() < kMaxSavedGraphFrames)
      grab_->frames.push_back(std::move(*frame));
  }

  // A line after a frame group's header: the wrapped rest of the header, a frame line (or the
  // two halves of a wrapped one); false when the group has ended and the line is not its own.
  bool on_grab_line(std::string_view line, std::string_view t, int64_t line_no) {
    GrabHeader rest;
    if (grab_unique_cut_ && take_unique(t, &rest)) {
      grab_unique_cut_ = false;
      grab_->unique = rest.unique;
      if (!rest.same_line_frame.empty()) add_grab_frame(rest.same_line_frame);
      return true;
    }
    if (!grab_partial_.empty()) {
      std::string joined = grab_partial_ + std::string(t);
      grab_partial_.clear();
      if (parse_frame_text(joined)) {
        add_grab_frame(joined);
        return true;
      }
    }
    // The script prints the frames as saved, indented; a paste may have lost the indentation.
    if (!grab_unique_cut_ && !t.empty()) {
      if (parse_frame_text(t)) {
        add_grab_frame(t);
        return true;
      }
      // `  forward (/content/wave_` + `encoder.py:43)`: a frame cut by a hard wrap.
      if (t.find(" (") != std::string_view::npos && t.find(')') == std::string_view::npos) {
        grab_partial_ = std::string(t);
        return true;
      }
    }
    close_grab();
    return false;
  }

  // Emits the open frame group. A header whose `(<M> unique):` never came says no count.
  void close_grab() {
    GrabGraphsFrame g = std::move(*grab_);
    grab_.reset();
    if (grab_unique_cut_ || g.unique < 1 || g.unique > g.graphs) {
      grab_unique_cut_ = false;
      sink_.note(g.line, reason::kGrabGraphsSummary, "");
      return;
    }
    g.frames_cut = g.frames.empty();
    sink_.emit(std::move(g));
  }

  void close_block(bool complete) {
    std::unique_ptr<Block> b = std::move(block_);
    SavedGraph& g = b->graph;
    g.truncated = !complete || b->headless;
    if (g.truncated) sink_.note(g.line, reason::kTruncatedBlock, b->excerpt);
    if (b->old_hashes) {
      g.header_kind = "old";
    } else if (b->root_hashes || !g.graph_hash.empty()) {
      g.header_kind = "new";
    }
    std::vector<HloModule> modules;
    if (b->hlo) {
      b->hlo->finish();
      modules = b->hlo->take_modules();
    }
    std::string graph_hash = g.graph_hash;
    sink_.emit(std::move(g));
    for (HloModule& m : modules) {
      m.graph_hash = graph_hash;
      sink_.emit(std::move(m));
    }
  }

  EventSink& sink_;
  std::unique_ptr<Block> block_;
  bool in_sharding_ = false;  // between #OUTPUT_SHARDING_BEGIN and #OUTPUT_SHARDING_END
  // The grab_graphs.py frame group being read: its header's `(<M> unique):` still to come, the
  // first half of a wrapped frame line.
  std::optional<GrabGraphsFrame> grab_;
  bool grab_unique_cut_ = false;
  std::string grab_partial_;
};

// The score of a head with a saved-graph header (the highest it gives).
constexpr int kHeaderScore = 95;

int sniff_saved_graph(std::string_view head) {
  for (std::string_view marker :
       {"## BEGIN_GRAPH", "[ScheduleSyncTensorsGraph]", "TensorsGraphInfo:"})
    // Above hlo_text (90): an XLA_SAVE_TENSORS_FMT=hlo file also holds HloModule lines.
    if (find_in_head(head, marker) != std::string_view::npos) return kHeaderScore;
  // The summary scripts/grab_graphs.py prints over such a file (docs/xla_formats.md).
  if (find_in_head(head, " graph(s)") != std::string_view::npos &&
      (find_in_head(head, "Frame has ") != std::string_view::npos ||
       find_in_head(head, "Parsed ") != std::string_view::npos))
    return 60;
  if (find_in_head(head, "Frame has ") != std::string_view::npos &&
      find_in_head(head, " unique):") != std::string_view::npos)
    return 60;
  return 0;
}

}  // namespace

ImporterInfo xla_saved_graph_importer_info() {
  return {"xla_saved_graph",
          "XLA_SAVE_TENSORS_FILE graph dumps (text, hlo, dot, stablehlo; old and new headers)",
          sniff_saved_graph,
          [](EventSink& sink) -> std::unique_ptr<Importer> {
            return std::make_unique<XlaSavedGraphImporter>(sink);
          },
          kHeaderScore};
}

}  // namespace rcf::ingest
