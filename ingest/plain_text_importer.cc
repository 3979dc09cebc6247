#include "ingest/plain_text_importer.h"

namespace rcf::ingest {
namespace {

class PlainTextImporter : public Importer {
 public:
  explicit PlainTextImporter(EventSink& sink) : sink_(sink) {}
  void on_line(std::string_view line, int64_t line_no) override {
    sink_.note(line_no, LineFate::kSkipped, line.empty() ? "blank" : "plain_text", line);
  }
  void finish() override {}

 private:
  EventSink& sink_;
};

}  // namespace

ImporterInfo plain_text_importer_info() {
  return {"plain_text", "any text; lines are only counted (use with --step-pattern)",
          [](std::string_view) { return 0; },
          [](EventSink& sink) -> std::unique_ptr<Importer> {
            return std::make_unique<PlainTextImporter>(sink);
          }};
}

}  // namespace rcf::ingest
