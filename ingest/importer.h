// The importer seam: one importer per input format. The ingest driver sniffs the first bytes of a
// source to pick an importer (or takes --format), then feeds it the source line by line.
// Importers only parse and emit events (ingest/events.h); they never touch SQL.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "ingest/events.h"
#include "ingest/reading/line_frame.h"

namespace rcf::ingest {

class Importer {
 public:
  virtual ~Importer() = default;
  // One physical line without its '\n', as line framing left it: wrapper and glue removed. `line`
  // is valid only during the call. `line_no` is 1-based and increases by one per call.
  virtual void on_line(std::string_view line, int64_t line_no) = 0;
  // Called once before the first line with the source's path ("-" for stdin), for formats whose
  // file name carries data (an --xla_dump_to file name holds the module id and stage).
  virtual void set_source_name(std::string_view /*path*/) {}
  // The worker identity that line framing found in a launcher tag in front of the lines that
  // follow (docs/line_framing.md); called before on_line only when it changes. `origin.pid`
  // stays valid until the next call. Importers use it where a line carries no rank or pid.
  virtual void set_line_origin(const LineOrigin& /*origin*/) {}
  // End of input: flush any open block (a block cut off by the end of the file is kept as far as
  // it goes and noted as a kWarning "truncated_block").
  virtual void finish() = 0;
  // A copy of the importer's state that emits into the same sink, so that a source can be ended
  // on the copy while the original reads on (GrowingSource::preview_end); nullptr when the
  // importer cannot be copied (the caller then reads the source again whole). The copy may refer
  // to what the original owns, and is used only while the original is not.
  virtual std::unique_ptr<Importer> clone() const { return nullptr; }
};

struct ImporterInfo {
  std::string name;         // value of --format and of ingest_stats.format
  std::string description;  // one line for `rcf ingest --help`
  // Looks at up to the first 64 KiB of a source (whole lines, possibly fewer) and returns a
  // confidence 0..100 that it is this format; 0 = certainly not.
  int (*sniff)(std::string_view head);
  std::unique_ptr<Importer> (*create)(EventSink& sink);
  // The highest score `sniff` ever returns: sniff_importer skips a sniffer that could not beat
  // the best score already found (for a dump of small files the sniffers read most bytes).
  int max_score = 100;
  // Not empty: its importer reads a training console's own lines as plain_text does (progress
  // lines are step markers, compile-caused lines are placed), so that a console sniffed as plain
  // text whose first record of this format comes after the sniffing window is handed to it from
  // that record on (console_format_of; docs/plain_text.md). Every text `sniff` gives max_score
  // holds one of these (the sniffer's own markers): a line without any is not looked at further.
  std::vector<std::string_view> console_markers = {};
};

// All registered importers in a fixed order (sniff ties resolve to the earlier one).
const std::vector<ImporterInfo>& importer_registry();
// Importer by --format name; nullptr if unknown.
const ImporterInfo* find_importer(std::string_view name);
// Best importer for `head`: the highest score, ties to the earlier in importer_registry();
// nullptr when no importer scores above 0. Sniffers that cannot beat the best found so far
// (ImporterInfo::max_score) are not run: the answer is that of running them all.
const ImporterInfo* sniff_importer(std::string_view head);
// The format a line of a console read as plain text is a record of: among the formats that read
// consoles (ImporterInfo::console_markers), the one whose sniffer gives `line` alone its highest
// score (the highest such score, ties to the earlier); nullptr for any other line.
const ImporterInfo* console_format_of(std::string_view line);

}  // namespace rcf::ingest
