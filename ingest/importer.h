// The importer seam: one importer per input format. The ingest driver sniffs the first bytes of a
// source to pick an importer (or takes --format), then feeds it the source line by line.
// Importers only parse and emit events (ingest/events.h); they never touch SQL.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "ingest/events.h"

namespace rcf::ingest {

class Importer {
 public:
  virtual ~Importer() = default;
  // One physical line without its '\n' (a trailing '\r' is already removed). `line` is valid only
  // during the call. `line_no` is 1-based and increases by one per call.
  virtual void on_line(std::string_view line, int64_t line_no) = 0;
  // Called once before the first line with the source's path ("-" for stdin), for formats whose
  // file name carries data (an --xla_dump_to file name holds the module id and stage).
  virtual void set_source_name(std::string_view /*path*/) {}
  // End of input: flush any open block (a block cut off by the end of the file is kept as far as
  // it goes and noted as a kWarning "truncated_block").
  virtual void finish() = 0;
};

struct ImporterInfo {
  std::string name;         // value of --format and of ingest_stats.format
  std::string description;  // one line for `rcf ingest --help`
  // Looks at up to the first 64 KiB of a source (whole lines, possibly fewer) and returns a
  // confidence 0..100 that it is this format; 0 = certainly not.
  int (*sniff)(std::string_view head);
  std::unique_ptr<Importer> (*create)(EventSink& sink);
};

// All registered importers in a fixed order (sniff ties resolve to the earlier one).
const std::vector<ImporterInfo>& importer_registry();
// Importer by --format name; nullptr if unknown.
const ImporterInfo* find_importer(std::string_view name);
// Best importer for `head`; nullptr when no importer scores above 0.
const ImporterInfo* sniff_importer(std::string_view head);

}  // namespace rcf::ingest
