// Importer "xla_saved_graph" (see ingest/importer.h). Format reference: docs/xla_saved_graph.md.
#pragma once

#include "ingest/importer.h"

namespace rcf::ingest {
ImporterInfo xla_saved_graph_importer_info();  // name "xla_saved_graph"
}
