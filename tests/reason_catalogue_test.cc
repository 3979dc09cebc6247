// The line-reason catalogue in code (ingest/line_reasons.h, RCF_LINE_REASONS) against its page
// (docs/reasons.md) and against the code that notes lines:
//  * every catalogue entry has a row of the same name that gives its fate, every row names an
//    entry, and the fates of a row are those of its name's entries;
//  * every entry is still used by the code under ingest/ and pipeline/;
//  * no note, skip, reject, warn or user_text call there is passed a reason as a string literal or
//    a fate of its own (a LineFate constant), no tally is keyed by literals and no function named
//    *_reason returns a literal: reasons come from the catalogue, with the catalogue's fate;
//  * every real fixture is ingested, and each reason noted is an entry under its fate.
#include <gtest/gtest.h>

#include <filesystem>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "ingest/ingest_driver.h"
#include "ingest/line_reasons.h"
#include "tests/support/temp_files.h"
#include "tests/support/test_paths.h"

namespace reason_catalogue_test {

namespace fs = std::filesystem;
using rcf::ingest::DriverOptions;
using rcf::ingest::Event;
using rcf::ingest::EventSink;
using rcf::ingest::LineFate;
using rcf::ingest::LineReason;
using rcf::ingest::SourceStats;

const fs::path kSourceDir = fs::path(RCF_FIXTURES_DIR).parent_path();

// Whole file (tests/support/temp_files.h); the pages and sources read here exist.
std::string read_file(const fs::path& path) {
  return rcf::testing::read_file(path.string());
}

// ---- the source scan ----------------------------------------------------------------------------

// Position after the quoted text that starts at s[i] (`quote` is '"' or '\'').
size_t skip_quoted(std::string_view s, size_t i, char quote) {
  for (size_t j = i + 1; j < s.size(); ++j) {
    if (s[j] == '\\')
      ++j;
    else if (s[j] == quote)
      return j + 1;
  }
  return s.size();
}

bool is_word_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

// Position after the raw string literal that starts at s[i] (`R"delim(...)delim"`).
size_t skip_raw_string(std::string_view s, size_t i) {
  size_t open = s.find('(', i);
  if (open == std::string_view::npos) return s.size();
  std::string close = ")" + std::string(s.substr(i + 2, open - i - 2)) + "\"";
  size_t end = s.find(close, open);
  return end == std::string_view::npos ? s.size() : end + close.size();
}

// The source with comments removed and character literals blanked, so that quotes and
// parentheses inside them do not confuse the scan. String literals are kept; a raw string (an
// embedded script) becomes "", it holds no reason.
std::string code_only(std::string_view s) {
  std::string out;
  for (size_t i = 0; i < s.size();) {
    if (s.substr(i, 2) == "R\"" && (i == 0 || !is_word_char(s[i - 1]))) {
      i = skip_raw_string(s, i);
      out += "\"\"";
    } else if (s[i] == '"') {
      size_t end = skip_quoted(s, i, '"');
      out.append(s.substr(i, end - i));
      i = end;
    } else if (s[i] == '\'') {
      out += "' '";
      i = skip_quoted(s, i, '\'');
    } else if (s.substr(i, 2) == "//") {
      i = s.find('\n', i);
      if (i == std::string_view::npos) i = s.size();
    } else if (s.substr(i, 2) == "/*") {
      i = s.find("*/", i + 2);
      i = i == std::string_view::npos ? s.size() : i + 2;
    } else {
      out += s[i++];
    }
  }
  return out;
}

bool is_reason_name(std::string_view text) {
  if (text.empty() || text[0] < 'a' || text[0] > 'z') return false;
  for (char c : text)
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_')) return false;
  return true;
}

// The text between the bracket at s[open] and its partner, and the position after the partner.
std::pair<std::string_view, size_t> bracketed(std::string_view s, size_t open, char o, char c) {
  int depth = 0;
  for (size_t i = open; i < s.size(); ++i) {
    if (s[i] == '"') {
      i = skip_quoted(s, i, '"') - 1;
    } else if (s[i] == o) {
      ++depth;
    } else if (s[i] == c && --depth == 0) {
      return {s.substr(open + 1, i - open - 1), i + 1};
    }
  }
  return {s.substr(open + 1), s.size()};
}

// What the top level of an argument list passes that should come from the catalogue: reason-
// shaped string literals and LineFate constants (a literal passed to a nested call, such as
// contains(msg, "ersistent"), is no reason).
void top_level_literals(std::string_view args, std::vector<std::string>* out) {
  int depth = 0;
  for (size_t i = 0; i < args.size(); ++i) {
    char c = args[i];
    if (c == '(' || c == '[' || c == '{') ++depth;
    if (c == ')' || c == ']' || c == '}') --depth;
    if (depth == 0 && args.substr(i, 10) == "LineFate::" && (i == 0 || !is_word_char(args[i - 1])))
      out->push_back("LineFate::");
    if (c != '"') continue;
    size_t end = skip_quoted(args, i, '"');
    std::string_view text = args.substr(i + 1, end - i - 2);
    if (depth == 0 && is_reason_name(text)) out->push_back("\"" + std::string(text) + "\"");
    i = end - 1;
  }
}

// The literals a tally written directly is keyed by: stats.reasons[{"skipped", "x"}].
void literal_tally_keys(std::string_view code, std::vector<std::string>* out) {
  for (size_t at = code.find("reasons[{"); at != std::string_view::npos;
       at = code.find("reasons[{", at + 1)) {
    std::vector<std::string> literals;
    top_level_literals(bracketed(code, at + 8, '{', '}').first, &literals);
    for (const std::string& literal : literals) out->push_back("reasons[{..." + literal);
  }
}

// The literals `body`, the body of a function named *_reason, returns.
void returned_literals(std::string_view body, std::vector<std::string>* out) {
  for (size_t r = body.find("return \""); r != std::string_view::npos;
       r = body.find("return \"", r + 1)) {
    size_t open = r + 7;
    std::string_view name = body.substr(open + 1, skip_quoted(body, open, '"') - open - 2);
    if (is_reason_name(name)) out->push_back("return \"" + std::string(name) + "\"");
  }
}

// The body of the function whose parameter list ends at code[after], or "" for a call.
std::string_view function_body(std::string_view code, size_t after) {
  while (after < code.size() && (code[after] == ' ' || code.substr(after, 5) == "const"))
    after += code[after] == ' ' ? 1 : 5;
  if (after >= code.size() || code[after] != '{') return "";
  return bracketed(code, after, '{', '}').first;
}

bool is_note_call(std::string_view word) {
  for (std::string_view call : {"note", "add_note", "skip", "reject", "warn", "user_text"})
    if (word == call) return true;
  return false;
}

// Every reason or fate that `code` (as code_only leaves it) writes as a literal where the
// catalogue should give it, as `<call>(...<literal>`.
std::vector<std::string> literal_reasons(std::string_view code) {
  std::vector<std::string> found;
  literal_tally_keys(code, &found);
  for (size_t i = 0; i < code.size(); ++i) {
    if (!is_word_char(code[i]) || (i > 0 && is_word_char(code[i - 1]))) continue;
    size_t word_end = i;
    while (word_end < code.size() && is_word_char(code[word_end])) ++word_end;
    std::string_view word = code.substr(i, word_end - i);
    size_t paren = code.find_first_not_of(' ', word_end);
    i = word_end - 1;
    if (paren == std::string_view::npos || code[paren] != '(') continue;
    auto [args, after] = bracketed(code, paren, '(', ')');
    std::vector<std::string> literals;
    if (is_note_call(word)) top_level_literals(args, &literals);
    if (word.ends_with("_reason")) returned_literals(function_body(code, after), &literals);
    for (const std::string& literal : literals)
      found.push_back(std::string(word) + "(..." + literal);
  }
  return found;
}

std::vector<fs::path> code_files() {
  std::vector<fs::path> files;
  for (const char* dir : {"ingest", "pipeline"})
    for (const auto& entry : fs::recursive_directory_iterator(kSourceDir / dir)) {
      auto ext = entry.path().extension();
      if (ext == ".cc" || ext == ".h") files.push_back(entry.path());
    }
  return files;
}

// ---- the page -----------------------------------------------------------------------------------

// One row of docs/reasons.md: the reason (a name, or a family `prefix_*`) and its fates.
struct Row {
  std::string reason;
  std::set<std::string> fates;
};

// The fates of a row's `fate` cell ("rejected, warning").
std::set<std::string> fates_of_cell(const std::string& cell) {
  std::set<std::string> fates;
  std::istringstream in(cell);
  for (std::string fate; std::getline(in, fate, ',');) {
    fate.erase(0, fate.find_first_not_of(' '));
    fate.erase(fate.find_last_not_of(' ') + 1);
    fates.insert(fate);
  }
  return fates;
}

std::vector<Row> documented_rows() {
  std::vector<Row> rows;
  std::istringstream in(read_file(kSourceDir / "docs" / "reasons.md"));
  bool reason_table = false;  // inside a table whose header is `| reason | fate | ...`
  for (std::string line; std::getline(in, line);) {
    if (!line.starts_with("|")) reason_table = false;
    if (line.starts_with("| reason | fate |")) reason_table = true;
    if (!reason_table || !line.starts_with("| `")) continue;
    size_t end = line.find('`', 3);
    size_t fates_start = line.find('|', end) + 1;
    size_t fates_end = line.find('|', fates_start);
    rows.push_back({line.substr(3, end - 3),
                    fates_of_cell(line.substr(fates_start, fates_end - fates_start))});
  }
  return rows;
}

const Row* row_named(const std::vector<Row>& rows, std::string_view name) {
  for (const Row& row : rows)
    if (row.reason == name) return &row;
  return nullptr;
}

// ---- the catalogue ------------------------------------------------------------------------------

// The identifiers of the entries, in catalogue order.
std::vector<std::string_view> entry_identifiers() {
#define RCF_LINE_REASON_IDENTIFIER(id, fate, name) #id,
  return {RCF_LINE_REASONS(RCF_LINE_REASON_IDENTIFIER)};
#undef RCF_LINE_REASON_IDENTIFIER
}

// The fates (as stored) of the catalogue's entries named `name`.
std::set<std::string> catalogue_fates(std::string_view name) {
  std::set<std::string> fates;
  for (const LineReason& entry : rcf::ingest::line_reason_table())
    if (entry.name == name) fates.insert(std::string(rcf::ingest::fate_name(entry.fate)));
  return fates;
}

// Whether a noted (fate, reason) is an entry, or a name of a family entry under its fate.
bool is_catalogued(std::string_view fate, std::string_view reason) {
  for (const LineReason& entry : rcf::ingest::line_reason_table()) {
    if (rcf::ingest::fate_name(entry.fate) != fate) continue;
    if (entry.name == reason) return true;
    if (is_reason_family(entry) && reason.starts_with(std::string(family_stem(entry)) + "_"))
      return true;
  }
  return false;
}

TEST(ReasonCatalogue, EveryEntryIsDocumentedWithItsFate) {
  std::vector<Row> rows = documented_rows();
  ASSERT_GT(rcf::ingest::line_reason_table().size(), 100u);
  for (const LineReason& entry : rcf::ingest::line_reason_table()) {
    EXPECT_TRUE(is_reason_name(is_reason_family(entry) ? family_stem(entry) : entry.name))
        << "'" << entry.name << "' is not snake_case";
    const Row* row = row_named(rows, entry.name);
    if (!row) {
      ADD_FAILURE() << "'" << entry.name << "' is in ingest/line_reasons.h but has no row in "
                    << "docs/reasons.md";
      continue;
    }
    EXPECT_TRUE(row->fates.contains(std::string(rcf::ingest::fate_name(entry.fate))))
        << "'" << entry.name << "' is catalogued as " << rcf::ingest::fate_name(entry.fate)
        << " but docs/reasons.md does not give that fate";
  }
}

TEST(ReasonCatalogue, EveryDocumentedReasonIsAnEntryWithTheSameFates) {
  std::vector<Row> rows = documented_rows();
  ASSERT_GT(rows.size(), 100u);
  for (const Row& row : rows) {
    EXPECT_EQ(row.fates, catalogue_fates(row.reason))
        << "docs/reasons.md gives '" << row.reason << "' the fates on the left, its entries in "
        << "ingest/line_reasons.h those on the right (none: it is no entry)";
    for (const std::string& fate : row.fates)
      EXPECT_TRUE(fate == "skipped" || fate == "rejected" || fate == "warning" || fate == "framed")
          << row.reason << ": fate '" << fate << "'";
  }
}

// An entry that no code names any more is stale: take it out, and its row.
TEST(ReasonCatalogue, EveryEntryIsUsedByTheCode) {
  std::string all_code;
  for (const fs::path& file : code_files())
    if (file.filename() != "line_reasons.h") all_code += code_only(read_file(file));
  for (std::string_view id : entry_identifiers()) {
    std::string use = "reason::" + std::string(id);
    bool used = false;
    for (size_t at = all_code.find(use); at != std::string::npos && !used;
         at = all_code.find(use, at + 1))
      used = at + use.size() == all_code.size() || !is_word_char(all_code[at + use.size()]);
    EXPECT_TRUE(used) << "no code under ingest/ or pipeline/ uses " << use;
  }
}

TEST(ReasonCatalogue, TheScanFindsTheLiteralsItIsBuiltFor) {
  std::string code = code_only(
      "sink_.note(line_no, LineFate::kSkipped, \"blank\", line);\n"
      "reject(line_no, \"bad_frame\", rest);\n"
      "stats.reasons[{\"skipped\", \"unrecognized_format\"}] = {lines, 1, \"\"};\n"
      "std::string_view rejection_reason(std::string_view t) const { return \"bad_x\"; }\n"
      "sink_.note(n, contains(msg, \"ersistent\") ? reason::kA : reason::kB, line);\n"
      "sink_.note(post.line, reason::kTruncatedBlock, \"Computation hash\");\n"
      "// note(1, LineFate::kSkipped, \"blank\", x);\n"
      "sink.note(line_no, reason::kWrapperFamily.fate, wrapper_reason, raw);\n");
  EXPECT_EQ(literal_reasons(code),
            (std::vector<std::string>{
                "reasons[{...\"skipped\"", "reasons[{...\"unrecognized_format\"",
                "note(...LineFate::", "note(...\"blank\"", "reject(...\"bad_frame\"",
                "rejection_reason(...return \"bad_x\""}));
}

TEST(ReasonCatalogue, NoNoteIsGivenALiteralReasonOrFate) {
  std::string found;
  size_t files = 0;
  for (const fs::path& file : code_files()) {
    ++files;
    for (const std::string& literal : literal_reasons(code_only(read_file(file))))
      found += "\n  " + file.lexically_relative(kSourceDir).string() + ": " + literal;
  }
  EXPECT_GT(files, 100u);
  EXPECT_EQ(found, "") << "reasons and fates written in place of a catalogue entry "
                       << "(ingest/line_reasons.h: use reason::k...)";
}

class DiscardingSink : public EventSink {
 public:
  void emit(Event&&) override {}
  void note(int64_t, LineFate, std::string_view, std::string_view) override {}
};

// Every reason the real fixtures produce is an entry of the catalogue under the fate noted.
TEST(ReasonCatalogue, TheFixturesNoteOnlyCatalogueReasonsWithTheirFates) {
  std::set<std::string> seen;
  for (const auto& entry : fs::recursive_directory_iterator(RCF_FIXTURES_DIR)) {
    if (!entry.is_regular_file()) continue;
    std::string path = entry.path().string();
    if (path.find("fuzz_regressions") != std::string::npos) continue;
    DiscardingSink sink;
    SourceStats stats;
    rcf::ingest::ingest_source(path, sink, DriverOptions{}, &stats);
    for (const auto& [key, tally] : stats.reasons) {
      const auto& [fate, reason] = key;
      seen.insert(reason);
      EXPECT_TRUE(is_catalogued(fate, reason))
          << reason << " is noted as " << fate << " at " << path << ":" << tally.first_line
          << " but ingest/line_reasons.h has no such entry";
    }
  }
  // The fixtures exercise a good part of the catalogue, framing included.
  EXPECT_TRUE(seen.contains("blank"));
  EXPECT_TRUE(seen.contains("payload_md5_mismatch"));
  EXPECT_GT(seen.size(), 20u);
}

}  // namespace reason_catalogue_test
