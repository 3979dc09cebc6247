// Importer "hlo_text" (see ingest/importer.h). Format reference: docs/hlo_text.md.
#pragma once

#include "ingest/importer.h"

namespace rcf::ingest {
ImporterInfo hlo_text_importer_info();  // name "hlo_text"
}
