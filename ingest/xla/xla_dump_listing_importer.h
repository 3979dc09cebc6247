// Importer "xla_dump_listing" (see ingest/importer.h). Format reference: docs/xla_formats.md.
#pragma once

#include "ingest/importer.h"

namespace rcf::ingest {
ImporterInfo xla_dump_listing_importer_info();  // name "xla_dump_listing"
}
