// Importer "step_timing" (see ingest/importer.h). Format reference: docs/step_timing.md.
#pragma once

#include "ingest/importer.h"

namespace rcf::ingest {
ImporterInfo step_timing_importer_info();  // name "step_timing"
}
