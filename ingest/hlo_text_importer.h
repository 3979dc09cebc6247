// Importer "hlo_text" (see ingest/importer.h). Format reference: ../shared/formats/.
#pragma once

#include "ingest/importer.h"

namespace rcf::ingest {
ImporterInfo hlo_text_importer_info();  // name "hlo_text"
}
