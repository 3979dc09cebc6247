// Dynamo text logs of every era (TORCH_LOGS=recompiles,recompiles_verbose,graph_breaks,guards;
// docs/dynamo_text.md).
#pragma once

#include "ingest/importer.h"

namespace rcf::ingest {
ImporterInfo dynamo_text_importer_info();  // name "dynamo_text"
}
