// "plain_text": any text, every line counted as skipped. Chosen only explicitly (--format
// plain_text) or for a file no importer recognises when --step-pattern is given, so that a
// training log's step lines can be read through the pattern alone.
#pragma once

#include "ingest/importer.h"

namespace rcf::ingest {
ImporterInfo plain_text_importer_info();  // name "plain_text"
}
