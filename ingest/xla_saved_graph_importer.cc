// PLACEHOLDER: replaced by the real importer.
#include "ingest/xla_saved_graph_importer.h"

namespace rcf::ingest {
namespace {
class Stub : public Importer {
 public:
  void on_line(std::string_view, int64_t) override {}
  void finish() override {}
};
}  // namespace
ImporterInfo xla_saved_graph_importer_info() {
  return {"xla_saved_graph", "placeholder", [](std::string_view) { return 0; },
          [](EventSink&) -> std::unique_ptr<Importer> { return std::make_unique<Stub>(); }};
}
}  // namespace rcf::ingest
