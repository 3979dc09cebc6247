// The reason catalogue (docs/reasons.md) against the code. Every `line_note` reason the ingest
// code can emit must have a row there, and every row must still name a reason the code has: the
// sources under ingest/ and pipeline/ are scanned at test time (the reason literals of note,
// skip, reject, warn and user_text calls, of tallies written as reasons[{fate, reason}], and the
// `return "..."` of functions named *_reason),
// and every real fixture is ingested to check the fates the catalogue gives.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "ingest/ingest_driver.h"
#include "tests/support/temp_files.h"
#include "tests/support/test_paths.h"

namespace reason_catalogue_test {

namespace fs = std::filesystem;
using rcf::ingest::DriverOptions;
using rcf::ingest::Event;
using rcf::ingest::EventSink;
using rcf::ingest::LineFate;
using rcf::ingest::SourceStats;

const fs::path kSourceDir = fs::path(RCF_FIXTURES_DIR).parent_path();

// Whole file (tests/support/temp_files.h); the pages and sources read here exist.
std::string read_file(const fs::path& path) {
  return rcf::testing::read_file(path.string());
}

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

// The source with comments removed and character literals blanked, so that quotes and
// parentheses inside them do not confuse the scan. String literals are kept.
std::string code_only(std::string_view s) {
  std::string out;
  for (size_t i = 0; i < s.size();) {
    if (s.substr(i, 2) == "R\"" && (i == 0 || !is_word_char(s[i - 1]))) {
      // A raw string (an embedded script): left out whole, it holds no reason.
      size_t open = s.find('(', i);
      std::string close = ")" + std::string(s.substr(i + 2, open - i - 2)) + "\"";
      size_t end = open == std::string_view::npos ? s.npos : s.find(close, open);
      i = end == std::string_view::npos ? s.size() : end + close.size();
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

// Reason-shaped string literals at the top level of an argument list (a literal passed to a
// nested call, such as contains(msg, "ersistent"), is not a reason).
void top_level_reasons(std::string_view args, std::set<std::string>* out) {
  int depth = 0;
  for (size_t i = 0; i < args.size(); ++i) {
    char c = args[i];
    if (c == '(' || c == '[' || c == '{') ++depth;
    if (c == ')' || c == ']' || c == '}') --depth;
    if (c != '"') continue;
    size_t end = skip_quoted(args, i, '"');
    std::string_view text = args.substr(i + 1, end - i - 2);
    if (depth == 0 && is_reason_name(text)) out->insert(std::string(text));
    i = end - 1;
  }
}

// Every reason literal of one source file.
void scan_source(std::string_view code, std::set<std::string>* out) {
  // A tally written directly: stats.reasons[{"skipped", "unrecognized_format"}].
  for (size_t at = code.find("reasons[{"); at != std::string_view::npos;
       at = code.find("reasons[{", at + 1)) {
    std::set<std::string> literals;
    top_level_reasons(bracketed(code, at + 8, '{', '}').first, &literals);
    for (const std::string& name : literals)
      if (name != "skipped" && name != "rejected" && name != "warning" && name != "framed")
        out->insert(name);
  }
  static const std::vector<std::string_view> kCalls = {"note", "skip", "reject", "warn",
                                                       "user_text"};
  for (size_t i = 0; i < code.size(); ++i) {
    if (i > 0 && is_word_char(code[i - 1])) continue;
    size_t word_end = i;
    while (word_end < code.size() && is_word_char(code[word_end])) ++word_end;
    if (word_end == i) continue;
    std::string_view word = code.substr(i, word_end - i);
    size_t paren = word_end;
    while (paren < code.size() && code[paren] == ' ') ++paren;
    if (paren >= code.size() || code[paren] != '(') {
      i = word_end - 1;
      continue;
    }
    auto [args, after] = bracketed(code, paren, '(', ')');
    bool is_call = false;
    for (std::string_view call : kCalls) is_call |= word == call;
    if (is_call) top_level_reasons(args, out);
    // A function that names a reason: std::string_view rejection_reason(...) { return "..."; }
    size_t body = after;
    while (body < code.size() && (code[body] == ' ' || code.substr(body, 5) == "const"))
      body += code[body] == ' ' ? 1 : 5;
    if (word.ends_with("_reason") && body < code.size() && code[body] == '{') {
      std::string_view text = bracketed(code, body, '{', '}').first;
      for (size_t r = text.find("return \""); r != std::string_view::npos;
           r = text.find("return \"", r + 1)) {
        size_t open = r + 7;
        size_t end = skip_quoted(text, open, '"');
        std::string_view name = text.substr(open + 1, end - open - 2);
        if (is_reason_name(name)) out->insert(std::string(name));
      }
    }
    i = word_end - 1;
  }
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

std::set<std::string> reasons_in_code() {
  std::set<std::string> out;
  for (const fs::path& file : code_files()) scan_source(code_only(read_file(file)), &out);
  return out;
}

// One catalogue row: the reason (a name, or a family `prefix_*`) and its fates.
struct Row {
  std::string reason;
  std::set<std::string> fates;
};

std::vector<Row> catalogue() {
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
    Row row{line.substr(3, end - 3), {}};
    std::istringstream fates(line.substr(fates_start, fates_end - fates_start));
    for (std::string fate; std::getline(fates, fate, ',');) {
      fate.erase(0, fate.find_first_not_of(' '));
      fate.erase(fate.find_last_not_of(' ') + 1);
      row.fates.insert(fate);
    }
    rows.push_back(std::move(row));
  }
  return rows;
}

// The row that documents `reason`, or null.
const Row* row_of(const std::vector<Row>& rows, const std::string& reason) {
  for (const Row& row : rows) {
    if (row.reason == reason) return &row;
    if (row.reason.ends_with("_*") &&
        reason.starts_with(row.reason.substr(0, row.reason.size() - 1)))
      return &row;
  }
  return nullptr;
}

TEST(ReasonCatalogue, TheScanFindsTheReasonsItIsBuiltFor) {
  std::set<std::string> code = reasons_in_code();
  // A literal in a note call, one behind a helper (pt_xla_debug's reject), one in a ternary, one
  // returned by a *_reason function; and not the substring a nested call searches for.
  for (const char* known : {"bad_json", "bad_frame_count", "json_too_deep", "bad_instruction",
                            "explain_without_breaks", "unprefixed_text", "unrecognized_format"})
    EXPECT_TRUE(code.contains(known)) << known;
  EXPECT_FALSE(code.contains("ersistent"));
  EXPECT_GT(code.size(), 60u);
}

TEST(ReasonCatalogue, EveryReasonInTheCodeIsDocumented) {
  std::vector<Row> rows = catalogue();
  ASSERT_GT(rows.size(), 60u);
  for (const std::string& reason : reasons_in_code())
    EXPECT_NE(row_of(rows, reason), nullptr)
        << "reason '" << reason << "' is emitted by the code but has no row in docs/reasons.md";
}

TEST(ReasonCatalogue, EveryDocumentedReasonIsStillInTheCode) {
  std::string all_code;
  for (const fs::path& file : code_files()) all_code += code_only(read_file(file));
  std::set<std::string> code = reasons_in_code();
  for (const Row& row : catalogue()) {
    if (row.reason.ends_with("_*")) {
      // A family built at run time (line framing's wrapper_<tokens>): its stem is a literal.
      std::string stem = row.reason.substr(0, row.reason.size() - 2);
      EXPECT_NE(all_code.find("\"" + stem + "\""), std::string::npos) << row.reason;
    } else {
      EXPECT_TRUE(code.contains(row.reason))
          << "docs/reasons.md documents '" << row.reason << "', which no code emits any more";
    }
    for (const std::string& fate : row.fates)
      EXPECT_TRUE(fate == "skipped" || fate == "rejected" || fate == "warning" || fate == "framed")
          << row.reason << ": fate '" << fate << "'";
  }
}

class DiscardingSink : public EventSink {
 public:
  void emit(Event&&) override {}
  void note(int64_t, LineFate, std::string_view, std::string_view) override {}
};

// Every reason the real fixtures produce is documented with the fate it was noted under.
TEST(ReasonCatalogue, TheFixturesNoteOnlyDocumentedReasonsWithTheirFates) {
  std::vector<Row> rows = catalogue();
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
      const Row* row = row_of(rows, reason);
      ASSERT_NE(row, nullptr) << reason << " (" << fate << ") at " << path << ":"
                              << tally.first_line << " has no row in docs/reasons.md";
      EXPECT_TRUE(row->fates.contains(fate))
          << reason << " is noted as " << fate << " at " << path << ":" << tally.first_line
          << " but docs/reasons.md does not give that fate";
    }
  }
  // The fixtures exercise a good part of the catalogue, framing included.
  EXPECT_TRUE(seen.contains("blank"));
  EXPECT_TRUE(seen.contains("payload_md5_mismatch"));
  EXPECT_GT(seen.size(), 20u);
}

}  // namespace reason_catalogue_test
