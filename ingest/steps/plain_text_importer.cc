#include "ingest/steps/plain_text_importer.h"

#include "ingest/steps/compile_line.h"
#include "ingest/steps/step_line.h"

namespace rcf::ingest {
namespace {

// A training console of its own: at least three of its head's non-blank lines are progress
// lines (`step 12 | loss 3.1`), and a quarter of them, so that the same console with its
// warnings wrapped by a terminal or a document is still one (docs/plain_text.md). Scored low,
// so that any real format wins.
constexpr int kConsoleScore = 5;
constexpr int kHeadLines = 200;

int sniff_progress_console(std::string_view head) {
  int lines = 0, progress = 0;
  for (size_t pos = 0; pos < head.size() && lines < kHeadLines;) {
    size_t end = head.find('\n', pos);
    if (end == std::string_view::npos) end = head.size();
    std::string_view line = head.substr(pos, end - pos);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    pos = end + 1;
    if (line.find_first_not_of(" \t") == std::string_view::npos) continue;
    ++lines;
    progress += read_step_line(line).has_value();
  }
  return progress >= 3 && 4 * progress >= lines ? kConsoleScore : 0;
}

class PlainTextImporter : public Importer {
 public:
  explicit PlainTextImporter(EventSink& sink) : sink_(sink) {}
  void on_line(std::string_view line, int64_t line_no) override {
    if (line.empty()) return sink_.note(line_no, reason::kBlank, line);
    if (auto progress = read_step_line(line)) {  // a training-progress line: a step marker
      return emit_progress(sink_, line_no, std::move(*progress), line);
    }
    // A warning or log record a compile printed: where in the console a compile happened.
    if (auto compile = read_compile_line(line))
      return sink_.emit(compile_line_marker(line_no, *compile));
    sink_.note(line_no, reason::kPlainText, line);
  }
  // Every member is a value (ingest/importer.h).
  std::unique_ptr<Importer> clone() const override {
    return std::make_unique<PlainTextImporter>(*this);
  }

  void finish() override {}

 private:
  EventSink& sink_;
};

}  // namespace

ImporterInfo plain_text_importer_info() {
  return {"plain_text",
          "any text: progress lines are step markers, other lines are counted (also with "
          "--step-pattern)",
          sniff_progress_console,
          [](EventSink& sink) -> std::unique_ptr<Importer> {
            return std::make_unique<PlainTextImporter>(sink);
          },
          kConsoleScore};
}

}  // namespace rcf::ingest
