// Importer "pt_xla_debug" (see ingest/importer.h). Format reference: docs/pt_xla_debug.md.
#pragma once

#include "ingest/importer.h"

namespace rcf::ingest {
ImporterInfo pt_xla_debug_importer_info();  // name "pt_xla_debug"
}
