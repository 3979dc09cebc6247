// Issue 25 item 4: hostile log text never reaches a terminal or a CI log raw. A TORCH_TRACE log
// whose function and file names carry terminal escape sequences (`\e]0;...\a`, `\e[2J`), NUL,
// BEL, invalid UTF-8, a bidirectional override, Markdown links and newlines followed by GitHub
// workflow commands (`::error ...`, `::stop-commands::`) goes through the real CLI: explain, gate
// (text, annotations and the job summary), diff, restart, Markdown on stdout and ingest warnings.
// Every output is valid UTF-8 with no control character other than newline (and tab), a field
// never starts a line, and Markdown keeps no link, image or HTML from the log. The sanitiser
// itself (util/safe_text.h) is unit-tested at the end.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <string>
#include <vector>

#include "ingest/reading/md5.h"
#include "tests/support/rcf_process.h"
#include "tests/support/temp_files.h"
#include "util/safe_text.h"

namespace rcf {
namespace hostile_output_test {

using testing::RcfRun;
using testing::read_file;
using testing::TempDir;
using testing::write_file;

// Hostile pieces: a title-setting OSC, a screen clear, NUL and BEL, invalid UTF-8, an RTL
// override, a C1 CSI, a forged workflow command on a line of its own, and Markdown / HTML links.
const std::string kOsc = "\x1b]0;pwned\x07";
const std::string kClear = "\x1b[2J";
const std::string kForged = "\n::error file=evil.py,line=1::forged\n::stop-commands::tok\n";
const std::string kLinks = "[click](http://evil.example/x) <img src=x> www.evil.example";
const std::string kFunction = "fwd" + kOsc + kClear + std::string("\0\x07", 2) + "\xff\xfe" +
                              "\xe2\x80\xae" + "\xc2\x9b" + "31m" + kLinks;
const std::string kFile = "/work/model" + kForged + "x" + kClear + ".py";

// A JSON string literal that keeps bytes >= 0x80 as they are (so invalid UTF-8 reaches rcf raw)
// and escapes quotes, backslashes and control characters.
std::string js(const std::string& s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", c);
      out += buf;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out + "\"";
}

std::string envelope(int n, const std::string& body, const std::string& payload = "") {
  std::string line = "V0721 16:11:55." + std::to_string(100000 + n) +
                     " 98102 torch/_dynamo/guards.py:3564] {" + body;
  if (payload.empty()) return line + "}\n";
  return line + ", \"has_payload\": \"" + ingest::Md5::to_hex(ingest::Md5::digest(payload)) +
         "\"}\n\t" + payload + "\n";
}

// One frame compiled `compiles` times, each recompile rejected on a shape guard whose reason
// carries the hostile pieces too.
std::string hostile_trace(int compiles) {
  std::string log;
  int n = 0;
  log += envelope(++n, "\"str\": [" + js(kFile) + ", 1]");
  for (int c = 0; c < compiles; ++c) {
    const std::string ids =
        "\"frame_id\": 0, \"frame_compile_id\": " + std::to_string(c) + ", \"attempt\": 0";
    std::string reason;
    if (c > 0) {
      reason = "0/" + std::to_string(c - 1) + ": tensor 'x' size mismatch at index 0. expected " +
               std::to_string(c + 1) + ", actual " + std::to_string(c + 2) + kForged + kOsc +
               kLinks;
      log += envelope(
          ++n, "\"artifact\": {\"name\": \"recompile_reasons\", \"encoding\": \"json\"}, " + ids,
          "[" + js(reason) + "]");
    }
    log += envelope(++n, "\"dynamo_start\": {\"stack\": [{\"line\": 6, \"name\": " + js(kFunction) +
                             ", \"filename\": 1}]}, " + ids);
    log +=
        envelope(++n, "\"compilation_metrics\": {\"compile_id\": \"0/" + std::to_string(c) +
                          "\", \"co_name\": " + js(kFunction) + ", \"co_filename\": " + js(kFile) +
                          ", \"co_firstlineno\": 6, \"cache_size\": " + std::to_string(c) +
                          ", \"accumulated_cache_size\": " + std::to_string(c) +
                          ", \"entire_frame_compile_time_s\": 0.25, \"fail_type\": null, "
                          "\"fail_reason\": null, \"recompile_reason\": " +
                          (reason.empty() ? "null" : js(reason)) + "}, " + ids);
  }
  return log;
}

// Valid UTF-8, and no control character other than LF and tab: nothing a terminal executes.
void expect_terminal_safe(const std::string& out, const std::string& what) {
  EXPECT_EQ(util::valid_utf8(out), out) << what << ": invalid UTF-8";
  for (size_t i = 0; i < out.size(); ++i) {
    unsigned char c = static_cast<unsigned char>(out[i]);
    bool control = (c < 0x20 && c != '\n' && c != '\t') || c == 0x7f;
    ASSERT_FALSE(control) << what << ": control byte " << int(c) << " at " << i << " in:\n" << out;
  }
  EXPECT_EQ(out.find("\xe2\x80\xae"), std::string::npos) << what << ": bidi override";
  EXPECT_EQ(out.find("\xc2\x9b"), std::string::npos) << what << ": C1 CSI";
}

// No line of `out` was forged by a log field: the only workflow commands are the annotations
// rcf writes itself (`::error file=...,title=rcf gate ...::...`).
void expect_no_forged_lines(const std::string& out, const std::string& what) {
  size_t pos = 0;
  while (pos < out.size()) {
    size_t nl = out.find('\n', pos);
    std::string line = out.substr(pos, nl == std::string::npos ? std::string::npos : nl - pos);
    size_t start = line.find_first_not_of(" \t");
    if (start != std::string::npos && line.compare(start, 2, "::") == 0) {
      EXPECT_EQ(start, 0u) << what << ": " << line;
      EXPECT_EQ(line.rfind("::error ", 0), 0u) << what << ": " << line;
      EXPECT_NE(line.find("title=rcf gate "), std::string::npos) << what << ": " << line;
    }
    if (nl == std::string::npos) break;
    pos = nl + 1;
  }
}

// `md` without the contents of its code spans (a run of N backticks up to the next run of exactly
// N): nothing inside a code span renders as a link or HTML.
std::string outside_code_spans(const std::string& md) {
  std::string out;
  size_t i = 0;
  while (i < md.size()) {
    if (md[i] != '`') {
      out += md[i++];
      continue;
    }
    size_t n = md.find_first_not_of('`', i) - i;
    size_t close = i + n;
    for (;;) {
      close = md.find(std::string(n, '`'), close);
      if (close == std::string::npos || close + n >= md.size() || md[close + n] != '`') break;
      close = md.find_first_not_of('`', close);
    }
    if (close == std::string::npos) return out + md.substr(i);
    out += "`code`";
    i = close + n;
  }
  return out;
}

// Markdown with no link, image, autolink or HTML element from the log: outside code spans, no
// raw URL, `www.`, `<img`, and every bracket escaped.
void expect_inert_markdown(const std::string& md, const std::string& what) {
  const std::string text = outside_code_spans(md);
  EXPECT_EQ(text.find("http://"), std::string::npos) << what << ":\n" << md;
  EXPECT_EQ(text.find("www.evil"), std::string::npos) << what << ":\n" << md;
  EXPECT_EQ(text.find("<img"), std::string::npos) << what << ":\n" << md;
  for (size_t i = text.find("click"); i != std::string::npos; i = text.find("click", i + 1))
    EXPECT_EQ(text.substr(i - 2, 2), "\\[") << what << ":\n" << md;
}

class HostileOutput : public ::testing::Test {
 protected:
  void SetUp() override {
    write_file(tmp_.file("a.log"), hostile_trace(3));
    write_file(tmp_.file("b.log"), hostile_trace(4));
    write_file(tmp_.file("w.log"), hostile_trace(2));
    for (const auto& [lane, run, file] :
         {std::tuple{"a", "cold", "a.log"}, std::tuple{"b", "r1", "b.log"},
          std::tuple{"a", "warm", "w.log"}}) {
      RcfRun r = rcf({"ingest", "--lane", lane, "--run", run, file});
      ASSERT_EQ(r.rc, 0) << r.out << r.err;
      expect_terminal_safe(r.out + r.err, "ingest");
    }
  }
  RcfRun rcf(const std::vector<std::string>& args) {
    testing::RcfOptions options;
    options.cwd = tmp_.path();
    return testing::run_rcf(args, options);
  }
  TempDir tmp_;
};

TEST_F(HostileOutput, ExplainShowsControlCharactersEscaped) {
  RcfRun r = rcf({"explain"});
  ASSERT_EQ(r.rc, 0) << r.err;
  expect_terminal_safe(r.out, "explain");
  expect_no_forged_lines(r.out, "explain");
  // The text is still there, visibly: escapes, U+FFFD for the invalid bytes, \n inside fields.
  EXPECT_NE(r.out.find("fwd\\x1b]0;pwned\\x07\\x1b[2J"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\xef\xbf\xbd\xef\xbf\xbd\\u202e\\u009b31m"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("/work/model\\n::error file=evil.py,line=1::forged\\n"), std::string::npos)
      << r.out;
}

TEST_F(HostileOutput, GateTextAnnotationsAndSummaryCannotForgeWorkflowCommands) {
  const std::string summary = tmp_.file("summary.md");
  setenv("GITHUB_ACTIONS", "true", 1);
  setenv("GITHUB_STEP_SUMMARY", summary.c_str(), 1);
  RcfRun r = rcf({"gate", "--lane", "b", "--max-recompiles-per-site", "0"});
  unsetenv("GITHUB_ACTIONS");
  unsetenv("GITHUB_STEP_SUMMARY");
  EXPECT_EQ(r.rc, 1) << r.out << r.err;
  expect_terminal_safe(r.out + r.err, "gate");
  expect_no_forged_lines(r.out + r.err, "gate");
  EXPECT_EQ(r.out.find("\n::stop-commands::"), std::string::npos) << r.out;
  // The one annotation rcf writes has the log's text percent-encoded, never raw newlines.
  size_t annotation = r.out.find("\n::error ") + 1;
  ASSERT_NE(annotation, 0u) << r.out;
  std::string line = r.out.substr(annotation, r.out.find('\n', annotation) - annotation);
  EXPECT_NE(line.find("file=/work/model%0A%3A%3Aerror file=evil.py%2Cline=1%3A%3Aforged%0A"),
            std::string::npos)
      << line;
  std::string md = read_file(summary);
  expect_terminal_safe(md, "gate summary");
  expect_inert_markdown(md, "gate summary");
}

TEST_F(HostileOutput, DiffRestartAndMarkdownOnStdoutAreSafe) {
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"diff", "a", "b"},
        {"diff", "a", "b", "--format", "md"},
        {"restart", "--lane", "a", "--cold", "cold", "--warm", "warm"},
        {"report", "--format", "md"}}) {
    RcfRun r = rcf(args);
    std::string what = args[0] + " " + args.back();
    EXPECT_LE(r.rc, 1) << what << r.err;
    expect_terminal_safe(r.out + r.err, what);
    expect_no_forged_lines(r.out, what);
    if (args.back() == "md") expect_inert_markdown(r.out, what);
  }
}

TEST_F(HostileOutput, IngestWarningsShowFileNamesEscaped) {
  const std::string dir = tmp_.file("walked");
  ASSERT_EQ(system(("mkdir -p '" + dir + "'").c_str()), 0);
  write_file(dir + "/junk" + kClear + "\n::error::x.log", "not a log at all\n");
  RcfRun r = rcf({"ingest", "--lane", "w", "walked"});
  EXPECT_EQ(r.rc, 0) << r.err;
  expect_terminal_safe(r.out + r.err, "ingest warning");
  expect_no_forged_lines(r.out + r.err, "ingest warning");
  EXPECT_NE(r.out.find("junk\\x1b[2J\\n::error::x.log: not a recognised log format"),
            std::string::npos)
      << r.out;
}

// ---- the sanitiser ----------------------------------------------------------------------------

TEST(SafeText, FieldTextEscapesControlsAndReplacesInvalidUtf8) {
  EXPECT_EQ(util::field_text(std::string("a\x1b[2Jb\0c\x07\n\r\t\x7f", 13)),
            "a\\x1b[2Jb\\x00c\\x07\\n\\r\\t\\x7f");
  EXPECT_EQ(util::field_text("\xff\xc3\xa9\xc0\xaf\xed\xa0\x80"),
            "\xef\xbf\xbd\xc3\xa9\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd");
  EXPECT_EQ(util::field_text("x\xe2\x80\xaey\xc2\x9bz\xe2\x80\xa8"), "x\\u202ey\\u009bz\\u2028");
  EXPECT_EQ(util::terminal_text("a\nb\tc\x1b\r"), "a\nb\tc\\x1b\\r");
}

TEST(SafeText, GithubEscapesFollowTheActionsRules) {
  EXPECT_EQ(util::github_data("50%: a, b\r\nnext\x1b"), "50%25: a, b%0D%0Anext\\x1b");
  EXPECT_EQ(util::github_property("C:\\x,y%\n"), "C%3A\\x%2Cy%25%0A");
}

TEST(SafeText, MarkdownKeepsNoLinksOrHtml) {
  EXPECT_EQ(util::markdown_text("[a](http://e.x) <b> www.e.x\nnext|*"),
            "\\[a\\](http:&#47;&#47;e.x) &lt;b&gt; www&#46;e.x next\\|\\*");
  EXPECT_EQ(util::markdown_text("WWW.E.X https://e"), "WWW&#46;E.X https:&#47;&#47;e");
  EXPECT_EQ(util::markdown_code("a`b|\n\x1b", true), "``a`b\\| \\x1b``");
}

}  // namespace hostile_output_test
}  // namespace rcf
