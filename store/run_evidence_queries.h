// What a run's evidence is made of, for analysis/run_evidence.h to word: its sources counted by
// format, and whether its Dynamo text logs recorded any recompile (dynamo_compile_raw, which no
// view holds, with the guard failures and limit hits).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "store/database.h"

namespace rcf::store {

struct SourceFormatCount {
  std::string format;  // a format name, or empty, unrecognized, unreadable
  int64_t sources = 0;
};

// The run's sources counted by format, by format name.
std::vector<SourceFormatCount> source_counts_by_format(Database& db, int64_t run_id);

struct DynamoRecordPresence {
  bool dynamo_text = false;       // a source read as a Dynamo text log
  bool recompile_record = false;  // a later compile id, a recompile header, a guard failure or a
                                  // limit hit: a frame shown compiled again
};

DynamoRecordPresence dynamo_record_presence(Database& db, int64_t run_id);

}  // namespace rcf::store
