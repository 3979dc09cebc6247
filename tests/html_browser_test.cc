// The HTML report in a real browser: headless Chromium (Debian package `chromium`) loads a report
// of real fixtures, and the test checks from the DOM it dumps that every chart drew
// (body[data-charts-ready] = number of charts), that the inline script raised no error
// (body[data-chart-errors] absent, no console message), that the linked cursor moved on every
// chart (#cursor=2), and that a hostile lane name ran no code. The report and a screenshot are
// kept under the build directory (test-artifacts/) for people to look at.
//
// Skipped, with a message naming the package, when Chromium is not installed (CI installs it via
// scripts/install_deps.sh). RCF_CHROMIUM overrides the browser path.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include "pipeline/ingest_pipeline.h"
#include "report/html_report.h"
#include "report/report_model.h"
#include "store/store.h"
#include "tests/support/temp_files.h"
#include "tests/support/test_paths.h"

namespace rcf {
namespace html_browser_test {

namespace fs = std::filesystem;
using testing::read_file;
using testing::TempDir;

const std::string kFixtures = RCF_FIXTURES_DIR;
// A lane name that runs code if any part of the report fails to escape it: the image cannot load,
// so its onerror would mark the body.
const std::string kHostileLane =
    "xla</script><img src=x onerror=\"document.body.setAttribute('data-pwned','1')\">";

std::string chromium_path() {
  if (const char* env = std::getenv("RCF_CHROMIUM")) return env;
  return "/usr/bin/chromium";
}

std::string quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

// The build directory's artifact folder (next to the rcf binary the tests use).
std::string artifact_dir() {
  fs::path dir = fs::path(RCF_BINARY).parent_path() / "test-artifacts";
  fs::create_directories(dir);
  return dir.string();
}

// Value of attribute `name` on the <body> start tag of `dom`, or nullopt.
std::optional<std::string> body_attribute(const std::string& dom, const std::string& name) {
  size_t body = dom.find("<body");
  if (body == std::string::npos) return std::nullopt;
  std::string tag = dom.substr(body, dom.find('>', body) - body);
  size_t at = tag.find(" " + name + "=\"");
  if (at == std::string::npos) return std::nullopt;
  size_t start = at + name.size() + 3;
  return tag.substr(start, tag.find('"', start) - start);
}

int run(const std::string& command) {
  int status = std::system(command.c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

class HtmlBrowser : public ::testing::Test {
 protected:
  void SetUp() override {
    if (access(chromium_path().c_str(), X_OK) != 0)
      GTEST_SKIP() << "Chromium is not installed at " << chromium_path()
                   << ": install the Debian package `chromium` (scripts/install_deps.sh does) to "
                      "run the browser test";
  }

  // Chromium with a throwaway profile; `args` are the mode flags, `url` the page.
  int chromium(const std::string& args, const std::string& url, const std::string& out,
               const std::string& err) {
    std::string cmd = "timeout 120 " + quote(chromium_path()) +
                      " --headless --no-sandbox --disable-gpu --no-first-run "
                      "--disable-extensions --user-data-dir=" +
                      quote(tmp_.file("profile")) + " " + args + " " + quote(url) + " >" +
                      quote(out) + " 2>" + quote(err);
    return run(cmd);
  }

  TempDir tmp_;
};

struct Lane {
  std::string lane, run;
  std::vector<std::string> paths;
};

// Ingests `lanes` into a fresh database under `dir` and returns the report's HTML and how many
// charts it holds.
std::pair<std::string, int> report_of(const TempDir& dir, const std::vector<Lane>& lanes) {
  const std::string db = dir.file("rcf.db");
  for (const auto& l : lanes) {
    pipeline::IngestRequest req;
    req.db_path = db;
    req.lane = l.lane;
    req.run = l.run;
    req.paths = l.paths;
    pipeline::run_ingest(req);
  }
  auto store = store::open_store(db, store::OpenMode::kRead);
  auto model = report::build_report(*store, "");
  int charts = 0;
  for (const auto& l : model.lanes)
    for (const auto& r : l.runs) charts += r.chart.has_curve;
  return {report::render_report_html(model), charts};
}

std::vector<std::string> console_lines(const std::string& log) {
  std::vector<std::string> out;
  for (size_t pos = 0, end; (end = log.find('\n', pos)) != std::string::npos; pos = end + 1)
    if (log.compare(pos, end - pos, "") != 0 &&
        log.substr(pos, end - pos).find(":CONSOLE") != std::string::npos)
      out.push_back(log.substr(pos, end - pos));
  return out;
}

TEST_F(HtmlBrowser, ChartsDrawCursorLinksAndNothingFails) {
  // A real report: torch_xla lanes with curves (one still growing), two cold/warm pairs, a Dynamo
  // lane without steps.
  const std::string counter = kFixtures + "/scenarios/constant_counter/";
  auto [html, charts] =
      report_of(tmp_, {{"moe-constant-counter",
                        "run1",
                        {counter + "pt_xla_debug.log", counter + "metrics.txt",
                         counter + "save_tensors.hlo.0", counter + "steps.csv"}},
                       {"xla-bundle", "run1", {kFixtures + "/xla_bundle"}},
                       {"moe4b-restart", "cold", {kFixtures + "/restart/proven/cold"}},
                       {"moe4b-restart", "warm", {kFixtures + "/restart/proven/warm"}},
                       {"moe4b-restart-unread", "cold", {kFixtures + "/restart/unread/cold"}},
                       {"moe4b-restart-unread", "warm", {kFixtures + "/restart/unread/warm"}},
                       {"shape-storm", "trace", {kFixtures + "/torch_trace/multi_rank_logs"}}});
  // The Dynamo lane has no steps and the proven warm run compiled nothing: no chart for them.
  ASSERT_EQ(charts, 5);

  const std::string artifacts = artifact_dir();
  const std::string page = artifacts + "/report.html";
  testing::write_file(page, html);
  const std::string url = "file://" + page + "#cursor=2";

  // The DOM after the inline script ran, and the browser's console log.
  const std::string dom_file = tmp_.file("dom.html"), log_file = tmp_.file("chromium.log");
  ASSERT_EQ(chromium("--enable-logging=stderr --v=0 --dump-dom", url, dom_file, log_file), 0)
      << read_file(log_file);
  const std::string dom = read_file(dom_file);
  const std::string log = read_file(log_file);
  ASSERT_NE(dom.find("<body"), std::string::npos) << log;

  EXPECT_FALSE(body_attribute(dom, "data-chart-errors"))
      << "script error: " << *body_attribute(dom, "data-chart-errors");
  EXPECT_EQ(body_attribute(dom, "data-charts-total"), std::to_string(charts));
  EXPECT_EQ(body_attribute(dom, "data-charts-ready"), std::to_string(charts))
      << "every chart's step line must have a non-empty box";
  // The cursor from the URL moved on every chart, each reading its own run at step 2.
  EXPECT_EQ(body_attribute(dom, "data-cursor-step"), "2");
  size_t visible = 0;
  for (size_t pos = dom.find("class=\"cursor\""); pos != std::string::npos;
       pos = dom.find("class=\"cursor\"", pos + 1))
    visible += dom.substr(pos, dom.find('>', pos) - pos).find("visibility=\"visible\"") !=
               std::string::npos;
  EXPECT_EQ(visible, static_cast<size_t>(charts));
  EXPECT_NE(dom.find("step 2: 3 programs cached"), std::string::npos)
      << "the xla_bundle run has 3 programs from step 2";
  EXPECT_NE(dom.find("recompiles: 1 key_subset, 1 sync_fragment"), std::string::npos)
      << "its two recompiles of step 2";

  // Console messages (errors included) are logged as INFO:CONSOLE lines; the report logs none.
  for (const auto& line : console_lines(log)) ADD_FAILURE() << "console: " << line;

  // The screenshot people look at (README: docs/report.png).
  const std::string shot = artifacts + "/report.png";
  fs::remove(shot);
  ASSERT_EQ(chromium("--hide-scrollbars --window-size=1400,2000 --screenshot=" + quote(shot), url,
                     tmp_.file("shot.out"), tmp_.file("shot.err")),
            0)
      << read_file(tmp_.file("shot.err"));
  ASSERT_TRUE(fs::exists(shot)) << read_file(tmp_.file("shot.err"));
  const std::string png = read_file(shot);
  EXPECT_EQ(png.substr(0, 8), std::string("\x89PNG\r\n\x1a\n", 8));
  EXPECT_GT(png.size(), 20000u) << "a blank page compresses to a few KB";
  std::cout << "[ artifact ] " << page << "\n[ artifact ] " << shot << "\n";
}

// Log text and names that try to run code: the page still works and nothing ran.
TEST_F(HtmlBrowser, HostileTextRunsNoCode) {
  const std::string log = tmp_.file("x<img src=x onerror=alert(1)>.log");
  const std::string prefix =
      "V0606 12:51:18.544000 1 torch/_dynamo/guards.py:2610] [0/1] "
      "[__recompiles] ";
  testing::write_file(
      log, prefix + "Recompiling function forward in /w/</script><script>alert(1)</script>.py:1\n" +
               prefix + "    triggered by the following guard failure(s):\n" + prefix +
               "    - tensor 'x' dtype mismatch. expected <img src=x onerror=\"document.body."
               "setAttribute('data-pwned','2')\">, actual Float\n");
  auto [html, charts] = report_of(tmp_, {{kHostileLane, "run1", {kFixtures + "/xla_bundle"}},
                                         {kHostileLane + "-dynamo", "<b>r</b>", {log}}});
  ASSERT_EQ(charts, 1);
  const std::string page = tmp_.file("hostile.html");
  testing::write_file(page, html);
  const std::string dom_file = tmp_.file("dom.html"), log_file = tmp_.file("chromium.log");
  ASSERT_EQ(chromium("--enable-logging=stderr --v=0 --dump-dom", "file://" + page + "#cursor=1",
                     dom_file, log_file),
            0)
      << read_file(log_file);
  const std::string dom = read_file(dom_file);
  EXPECT_FALSE(body_attribute(dom, "data-pwned")) << "log-derived text ran as code";
  EXPECT_FALSE(body_attribute(dom, "data-chart-errors"))
      << *body_attribute(dom, "data-chart-errors");
  EXPECT_EQ(body_attribute(dom, "data-charts-ready"), "1");
  EXPECT_EQ(body_attribute(dom, "data-cursor-step"), "1");
  for (const auto& line : console_lines(read_file(log_file))) ADD_FAILURE() << "console: " << line;
  // The hostile strings are on the page as text.
  EXPECT_NE(dom.find("onerror=\"document.body.setAttribute('data-pwned','1')\""),
            std::string::npos);
}

}  // namespace html_browser_test
}  // namespace rcf
