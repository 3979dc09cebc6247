// Importer "xla_metrics" (see ingest/importer.h). Format reference: docs/xla_metrics.md.
#pragma once

#include "ingest/importer.h"

namespace rcf::ingest {
ImporterInfo xla_metrics_importer_info();  // name "xla_metrics"
}
