// Importer "jax_log" (see ingest/importer.h). Format reference: docs/jax_log.md.
#pragma once

#include "ingest/importer.h"

namespace rcf::ingest {
ImporterInfo jax_log_importer_info();  // name "jax_log"
}
