// HLO text importer: one `--xla_dump_to` text file (or any text holding HloModule modules) per
// source; see docs/hlo_text.md. Parsing is HloTextParser's; this class only does the line
// accounting and emits one HloModule event per module.
//
// Line fates: lines the parser consumes get no note; blank lines are kSkipped "blank"; other
// lines before the first HLO line are kSkipped "not_hlo"; lines after it that the parser refuses
// are kRejected ("bad_instruction", "bad_computation_header", "unexpected_text"). A module cut
// off before its end adds a kWarning "truncated_module" on its HloModule line.
//
// module_id / stage / file_name come from the source name (set_source_name) when it is an
// --xla_dump_to file name (parse_dump_file_name, ingest/xla/hlo_dump_file_name.h); else they stay
// empty.
#include "ingest/xla/hlo_text_importer.h"

#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "ingest/reading/text_util.h"
#include "ingest/xla/hlo_dump_file_name.h"
#include "ingest/xla/hlo_text_parser.h"

namespace rcf::ingest {
namespace {

class HloTextImporter : public Importer {
 public:
  explicit HloTextImporter(EventSink& sink) : sink_(sink) {}

  void on_line(std::string_view line, int64_t line_no) override {
    if (parser_.feed(line, line_no)) {
      seen_hlo_ = true;
      emit_done();  // a module completes when the next one starts; usually nothing to take
      return;
    }
    std::string_view text = trim(line);
    if (text.empty()) {
      sink_.note(line_no, reason::kBlank, line);
    } else if (!seen_hlo_) {
      sink_.note(line_no, reason::kNotHlo, line);
    } else {
      sink_.note(line_no, rejection_reason(text), line);
    }
  }

  void set_source_name(std::string_view path) override {
    DumpFileName name = parse_dump_file_name(path);
    if (!name.module_id) return;  // not a dump file name ("-", user-named files)
    size_t slash = path.find_last_of("/\\");
    file_name_ = std::string(slash == std::string_view::npos ? path : path.substr(slash + 1));
    dump_name_ = std::move(name);
  }

  void finish() override {
    parser_.finish();
    emit_done();
  }

 private:
  static LineReason rejection_reason(std::string_view text) {
    if (text.find('=') != std::string_view::npos) return reason::kBadInstruction;
    if (text.back() == '{') return reason::kBadComputationHeader;
    return reason::kUnexpectedText;
  }

  void emit_done() {
    for (HloModule& module : parser_.take_modules()) {
      if (module.truncated) {
        std::string excerpt = "HloModule " + module.module_name;
        sink_.note(module.line, reason::kTruncatedModule, excerpt);
      }
      if (dump_name_) {
        module.module_id = dump_name_->module_id;
        module.stage = dump_name_->stage;
        module.file_name = file_name_;
      }
      sink_.emit(std::move(module));
    }
  }

  EventSink& sink_;
  HloTextParser parser_;
  bool seen_hlo_ = false;
  std::optional<DumpFileName> dump_name_;
  std::string file_name_;  // without its directory
};

// 90 when a line of `head` starts (after indentation) with "HloModule "; buffer-assignment dumps
// start with "BufferAssignment:" and are never HLO text.
// `%name = <shape> <opcode>(...)` or `ROOT %name = ...`: an instruction of the long printing style.
// Saved-graph IR lines (`%0 = f32[] aten::mul(...)`) name ops with `::` and are not HLO.
bool looks_like_hlo_instruction(std::string_view line) {
  if (line.starts_with("ROOT ")) line.remove_prefix(5);
  if (!line.starts_with("%")) return false;
  size_t eq = line.find(" = ");
  return eq != std::string_view::npos && line.find('(', eq) != std::string_view::npos &&
         line.find("::") == std::string_view::npos;
}

// The score of a head with an HloModule line (the highest it gives).
constexpr int kModuleScore = 90;

int sniff_hlo_text(std::string_view head) {
  size_t pos = 0;
  int instructions = 0;
  while (pos < head.size()) {
    size_t end = head.find('\n', pos);
    if (end == std::string_view::npos) end = head.size();
    std::string_view line = ltrim(head.substr(pos, end - pos));
    if (line.starts_with("BufferAssignment:")) return 0;
    if (line.starts_with("HloModule ")) return kModuleScore;
    instructions += looks_like_hlo_instruction(line);
    pos = end + 1;
  }
  // A fragment pasted without its HloModule line (docs/xla_formats.md): read as a truncated module.
  return instructions >= 3 ? 50 : 0;
}

}  // namespace

ImporterInfo hlo_text_importer_info() {
  return {"hlo_text",
          "XLA HLO text (--xla_dump_to *.txt modules, long and short-parsable printing styles)",
          sniff_hlo_text,
          [](EventSink& sink) -> std::unique_ptr<Importer> {
            return std::make_unique<HloTextImporter>(sink);
          },
          kModuleScore};
}

}  // namespace rcf::ingest
