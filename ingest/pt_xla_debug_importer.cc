// PLACEHOLDER: replaced by the real importer.
#include "ingest/pt_xla_debug_importer.h"

namespace rcf::ingest {
namespace {
class Stub : public Importer {
 public:
  void on_line(std::string_view, int64_t) override {}
  void finish() override {}
};
}  // namespace
ImporterInfo pt_xla_debug_importer_info() {
  return {"pt_xla_debug", "placeholder", [](std::string_view) { return 0; },
          [](EventSink&) -> std::unique_ptr<Importer> { return std::make_unique<Stub>(); }};
}
}  // namespace rcf::ingest
