// Importer "xla_vlog" (see ingest/importer.h). Format reference: docs/xla_formats.md.
#pragma once

#include "ingest/importer.h"

namespace rcf::ingest {
ImporterInfo xla_vlog_importer_info();  // name "xla_vlog"
}
