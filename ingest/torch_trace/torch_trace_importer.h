// TORCH_TRACE structured logs (docs/torch_trace.md): glog prefix + JSON envelope +
// TAB-indented payload lines with an MD5.
#pragma once

#include "ingest/importer.h"

namespace rcf::ingest {
ImporterInfo torch_trace_importer_info();  // name "torch_trace"
}
