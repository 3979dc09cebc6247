// One logical message of a Dynamo text log: the physical lines that the importer grouped by
// prefix key (docs/dynamo_text.md), handed to a block parser once complete.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "ingest/events.h"

namespace rcf::ingest {

enum class DynamoBlockKind : uint8_t {
  kRecompile,      // `Recompiling function ...` (+ `triggered by ...`, `- <id>: <reason>`)
  kLimitWarning,   // `torch._dynamo hit config.<limit> (<n>)` and its `function:` / reason lines
  kGraphBreak,     // `Graph break ...` records of every era, headless `[__graph_breaks]` tails
  kItemWarning,    // one-time `Graph break from \`Tensor.item()\`, consider setting:` WARNING
  kUnsupported,    // `torch._dynamo.exc.Unsupported: ...` exception text with `from user code:`
  kCompileTimes,   // `TorchDynamo compilation metrics:` table (tabulate or comma form)
  kExplain,        // printed `torch._dynamo.explain()` summary with `Break Reasons:`
  kProfilerTable,  // CompileProfiler `Function  Recompiles  Recompile Reasons` table
  kCudagraphSkip,  // Inductor `skipping cudagraphs due to ...` (+ `Found from :` stack lines)
};

struct BlockLine {
  int64_t line_no = 0;
  std::string text;  // the message part of the physical line (prefix removed, not trimmed)
};

struct DynamoBlock {
  DynamoBlockKind kind = DynamoBlockKind::kRecompile;
  bool headless = false;  // the log starts mid-message: the header line is not in the input
  bool era_2022 = false;  // torchdynamo-era logger (`Torchdynamo:`, `torchdynamo.<module>`)
  CompileRef ref;         // rank and trace id of the first line (id unknown when not printed)
  std::string artifact;   // "recompiles", "recompiles_verbose", "graph_breaks", or ""
  int64_t pid = -1;       // process id of the glog prefix, -1 when none
  std::vector<BlockLine> lines;
};

// Gives every line of a block exactly one fate while a parser reads it: a line the parser notes
// (rejected / skipped) gets that note; at finish(), the remaining lines belong to the events the
// block produced, or, if it produced none, are noted with the fallback reason.
// Borrows `sink` and `block`; both must outlive it.
class BlockOutput {
 public:
  BlockOutput(EventSink& sink, const DynamoBlock& block)
      : sink_(sink), block_(block), noted_(block.lines.size(), false) {}

  void emit(Event&& event) {
    ++events_;
    sink_.emit(std::move(event));
  }
  // The block's lines belong to an event that the caller emits later (a held limit warning).
  void claim() { ++events_; }
  // Notes line `index` of the block (once; later notes of the same line are ignored).
  void note(size_t index, LineReason reason);
  void finish(LineReason fallback_reason);

 private:
  EventSink& sink_;
  const DynamoBlock& block_;
  std::vector<bool> noted_;
  int events_ = 0;
};

}  // namespace rcf::ingest
