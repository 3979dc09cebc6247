// Safe output (issue 7): a TORCH_TRACE log whose frame names, file names and guard text carry
// markup meant to run in a browser, written under a file name that does the same, goes through
// the real CLI (ingest, then report as HTML, Markdown and JSON): every log-derived string stays
// text, Markdown table cells keep their columns, and the file paths a report prints are never
// opened (a path naming an existing file does not bring its content into the report).
// ReportHostileInput.EveryLogStringIsEscaped does the same for a Dynamo text log through the
// report model.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "ingest/reading/md5.h"
#include "tests/support/rcf_process.h"
#include "tests/support/temp_files.h"

namespace rcf {
namespace safe_output_test {

using nlohmann::json;
using testing::RcfRun;
using testing::read_file;
using testing::TempDir;
using testing::write_file;

const std::string kScript = "<script>alert(1)</script>";
const std::string kImg = "\"><img src=x onerror=alert(1)>";

// JSON string literal of `s` (the log's own encoding of the text).
std::string js(const std::string& s) {
  return json(s).dump();
}

// One TORCH_TRACE envelope line, with its payload lines when `payload` is not empty.
std::string envelope(int line_no, const std::string& body, const std::string& payload = "") {
  std::string line = "V0721 16:11:55." + std::to_string(100000 + line_no) +
                     " 98102 torch/_dynamo/guards.py:3564] {" + body;
  if (payload.empty()) return line + "}\n";
  line += ", \"has_payload\": \"" + ingest::Md5::to_hex(ingest::Md5::digest(payload)) + "\"}\n";
  size_t pos = 0;
  while (pos <= payload.size()) {
    size_t nl = payload.find('\n', pos);
    if (nl == std::string::npos) nl = payload.size();
    line += "\t" + payload.substr(pos, nl - pos) + "\n";
    pos = nl + 1;
  }
  return line;
}

// A trace of one frame compiled `compiles` times, each recompile rejected on a shape guard whose
// text carries `guard_markup`; the function is `function`, defined in `file`.
std::string hostile_trace(const std::string& function, const std::string& file,
                          const std::string& guard_markup, int compiles) {
  std::string log;
  int n = 0;
  log += envelope(++n, "\"str\": [" + js(file) + ", 1]");
  for (int c = 0; c < compiles; ++c) {
    const std::string ids =
        "\"frame_id\": 0, \"frame_compile_id\": " + std::to_string(c) + ", \"attempt\": 0";
    std::string reason;
    if (c > 0) {
      reason = "0/" + std::to_string(c - 1) + ": tensor 'x' size mismatch at index 0. expected " +
               std::to_string(c + 1) + ", actual " + std::to_string(c + 2) + " " + guard_markup;
      log += envelope(
          ++n, "\"artifact\": {\"name\": \"recompile_reasons\", \"encoding\": \"json\"}, " + ids,
          "[\n" + js(reason) + "\n]");
    }
    log += envelope(++n, "\"dynamo_start\": {\"stack\": [{\"line\": 6, \"name\": " + js(function) +
                             ", \"filename\": 1}]}, " + ids);
    log += envelope(++n, "\"compilation_metrics\": {\"compile_id\": \"0/" + std::to_string(c) +
                             "\", \"co_name\": " + js(function) + ", \"co_filename\": " + js(file) +
                             ", \"co_firstlineno\": 6, \"cache_size\": " + std::to_string(c) +
                             ", \"accumulated_cache_size\": " + std::to_string(c) +
                             ", \"entire_frame_compile_time_s\": 0.25, \"fail_type\": null, "
                             "\"fail_reason\": null, \"recompile_reason\": " +
                             (reason.empty() ? "null" : js(reason)) + "}, " + ids);
  }
  return log;
}

size_t count_of(const std::string& text, const std::string& needle) {
  size_t n = 0;
  for (size_t p = text.find(needle); p != std::string::npos; p = text.find(needle, p + 1)) ++n;
  return n;
}

class SafeOutput : public ::testing::Test {
 protected:
  void SetUp() override {
    // A file the log names as its source file: its content must never reach a report.
    secret_ = tmp_.file("secret_source.py");
    write_file(secret_, "SECRET-CONTENT-7f3a9c\n");
    log_name_ = "trace" + kImg + ".log";
    write_file(tmp_.file(log_name_),
               hostile_trace("fwd" + kScript + "|pipe", secret_ + kImg, kScript + " | " + kImg, 4));
    RcfRun r = rcf({"ingest", "--db", "rcf.db", "--lane", "lane" + kScript, log_name_});
    ASSERT_EQ(r.rc, 0) << r.out << r.err;
    ASSERT_NE(r.out.find(" 0 rejected lines"), std::string::npos) << r.out;
  }
  RcfRun rcf(const std::vector<std::string>& args) {
    testing::RcfOptions options;
    options.cwd = tmp_.path();
    return testing::run_rcf(args, options);
  }
  std::string report(const std::string& format) {
    RcfRun r = rcf({"report", "--format", format});
    EXPECT_EQ(r.rc, 0) << r.err;
    EXPECT_EQ(r.out.find("SECRET-CONTENT"), std::string::npos) << format << " read " << secret_;
    return r.out;
  }

  TempDir tmp_;
  std::string secret_;
  std::string log_name_;
};

TEST_F(SafeOutput, HtmlEscapesEveryLogString) {
  const std::string html = report("html");
  // The markup really reached the report, as text.
  EXPECT_NE(html.find("fwd&lt;script&gt;alert(1)&lt;/script&gt;"), std::string::npos);
  EXPECT_NE(html.find("&quot;&gt;&lt;img src=x onerror=alert(1)&gt;"), std::string::npos);
  EXPECT_NE(html.find("secret_source.py&quot;&gt;&lt;img"), std::string::npos) << "file name";
  EXPECT_NE(html.find("lane&lt;script&gt;"), std::string::npos) << "lane name";
  // And never as markup: no element from the log, only the two script elements rcf writes.
  EXPECT_EQ(html.find("<script>alert"), std::string::npos);
  EXPECT_EQ(html.find("<img"), std::string::npos);
  EXPECT_EQ(html.find("onerror=alert(1)>"), std::string::npos);
  EXPECT_EQ(count_of(html, "<script"), 2u);
  EXPECT_EQ(count_of(html, "</script>"), 2u);
  // Nor can the text close an attribute: no raw quote followed by '>' from the log.
  EXPECT_EQ(html.find("\"><img"), std::string::npos);
}

TEST_F(SafeOutput, MarkdownEscapesMarkupAndPipesInTableCells) {
  const std::string md = report("md");
  // Outside code spans (which render literally) no raw markup from the log.
  std::string prose;
  bool in_code = false;
  for (char c : md) {
    if (c == '`') in_code = !in_code;
    if (!in_code && c != '`') prose += c;
  }
  EXPECT_EQ(prose.find("<script"), std::string::npos) << prose;
  EXPECT_EQ(prose.find("<img"), std::string::npos) << prose;
  // Every table row has as many cells as its header: the '|' from the log is escaped.
  int header_cells = -1;
  int rows = 0;
  bool pipe_seen = false;
  for (size_t pos = 0, end; (end = md.find('\n', pos)) != std::string::npos; pos = end + 1) {
    const std::string line = md.substr(pos, end - pos);
    if (line.rfind("|", 0) != 0) {
      header_cells = -1;
      continue;
    }
    // Cells are separated by unescaped '|'.
    int cells = 0;
    for (size_t i = 0; i < line.size(); ++i)
      if (line[i] == '|' && (i == 0 || line[i - 1] != '\\')) ++cells;
    if (header_cells < 0) {
      header_cells = cells;
      continue;
    }
    ++rows;
    EXPECT_EQ(cells, header_cells) << line;
    if (line.find("\\|") != std::string::npos) pipe_seen = true;
  }
  EXPECT_GT(rows, 0);
  EXPECT_TRUE(pipe_seen) << "the log's '|' appears escaped in some table cell\n" << md;
}

TEST_F(SafeOutput, JsonKeepsTheTextExactly) {
  json j = json::parse(report("json"));
  const std::string text = j.dump();
  // In JSON the strings are data: kept exactly (the consumer escapes for its own output).
  EXPECT_NE(text.find("fwd<script>alert(1)</script>|pipe"), std::string::npos);
  EXPECT_NE(text.find(secret_ + "\\\"><img src=x onerror=alert(1)>"), std::string::npos);
  EXPECT_EQ(j["lanes"][0]["lane"], "lane" + kScript);
  RcfRun r = rcf({"explain", "--json"});
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_EQ(json::parse(r.out)["runs"][0]["recompiles"], 3);
  EXPECT_EQ(r.out.find("SECRET-CONTENT"), std::string::npos);
}

// The report prints file paths from the log and of the ingested files; it must not open them.
// The path named by the log exists and holds a marker: no output carries the marker, also when
// the ingested log itself is replaced afterwards by a link to the secret.
TEST_F(SafeOutput, PathsInReportsAreNeverOpened) {
  std::remove(tmp_.file(log_name_).c_str());
  ASSERT_EQ(symlink(secret_.c_str(), tmp_.file(log_name_).c_str()), 0);
  for (const char* format : {"html", "md", "json"}) report(format);
  for (const std::vector<std::string>& args : {std::vector<std::string>{"explain"},
                                               {"explain", "--json"},
                                               {"gate", "--max-programs", "1"}}) {
    RcfRun r = rcf(args);
    EXPECT_EQ(r.signal, 0);
    EXPECT_EQ(r.out.find("SECRET-CONTENT"), std::string::npos) << args[0];
    EXPECT_EQ(r.err.find("SECRET-CONTENT"), std::string::npos) << args[0];
  }
}

}  // namespace safe_output_test
}  // namespace rcf
