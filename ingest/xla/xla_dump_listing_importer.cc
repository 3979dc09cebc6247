// A listing of an `--xla_dump_to` directory (`ls`, `ls -l` or `find` output pasted into an issue;
// docs/xla_formats.md): one XlaDumpFile per dump file name, so that a report can say which
// modules and stages the dump held. A listing has no module text: it decides no compile.
//
// Line fates: a line whose last word is a dump file name (`module_NNNN.<name>.<stage>`) is parsed;
// blank lines are skipped "blank", `total N` and other lines "not_dump_file_name".
#include "ingest/xla/xla_dump_listing_importer.h"

#include <memory>
#include <string>

#include "ingest/reading/text_util.h"
#include "ingest/xla/hlo_dump_file_name.h"

namespace rcf::ingest {
namespace {

// The last whitespace-separated word of a line (the name in `ls -l` and `find` output).
std::string_view last_word(std::string_view line) {
  line = rtrim(line);
  size_t space = line.find_last_of(" \t");
  return space == std::string_view::npos ? line : line.substr(space + 1);
}

// The file name part of a word (`find` prints paths).
std::string_view base_name(std::string_view word) {
  size_t slash = word.find_last_of("/\\");
  return slash == std::string_view::npos ? word : word.substr(slash + 1);
}

bool is_dump_file_line(std::string_view line, DumpFileName* out) {
  std::string_view name = base_name(last_word(line));
  if (!name.starts_with("module_") && name.find(".module_") == std::string_view::npos) return false;
  *out = parse_dump_file_name(name);
  return out->module_id.has_value();
}

class XlaDumpListingImporter : public Importer {
 public:
  explicit XlaDumpListingImporter(EventSink& sink) : sink_(sink) {}

  void on_line(std::string_view line, int64_t line_no) override {
    if (is_blank(line)) return sink_.note(line_no, reason::kBlank, line);
    DumpFileName name;
    if (!is_dump_file_line(line, &name)) return sink_.note(line_no, reason::kNotDumpFileName, line);
    XlaDumpFile f;
    f.line = line_no;
    f.module_id = name.module_id;
    f.module_name = std::move(name.module_name);
    f.stage = std::move(name.stage);
    f.file_name = std::string(base_name(last_word(line)));
    sink_.emit(std::move(f));
  }

  // Every member is a value (ingest/importer.h).
  std::unique_ptr<Importer> clone() const override {
    return std::make_unique<XlaDumpListingImporter>(*this);
  }

  void finish() override {}

 private:
  EventSink& sink_;
};

// The score of a head that is mostly dump file names (the only one it gives).
constexpr int kListingScore = 70;

// Most non-blank head lines are dump file names (a listing may open with `total N` or a path,
// and a paste may carry other output between its lines).
int sniff_xla_dump_listing(std::string_view head) {
  // The first lines decide; a large file of another format costs no more than them.
  constexpr size_t kLinesLooked = 64;
  size_t lines = 0, names = 0;
  for (size_t pos = 0; pos < head.size() && lines < kLinesLooked;) {
    size_t end = head.find('\n', pos);
    if (end == std::string_view::npos) end = head.size();
    std::string_view line = head.substr(pos, end - pos);
    pos = end + 1;
    if (is_blank(line)) continue;
    ++lines;
    DumpFileName name;
    names += is_dump_file_line(line, &name);
  }
  if (names < 2 || names * 2 <= lines) return 0;
  return kListingScore;
}

}  // namespace

ImporterInfo xla_dump_listing_importer_info() {
  return {"xla_dump_listing",
          "a listing of an --xla_dump_to directory (module_NNNN.<name>.<stage> file names)",
          sniff_xla_dump_listing,
          [](EventSink& sink) -> std::unique_ptr<Importer> {
            return std::make_unique<XlaDumpListingImporter>(sink);
          },
          kListingScore};
}

}  // namespace rcf::ingest
