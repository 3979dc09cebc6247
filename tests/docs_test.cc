// The documentation a clone carries is whole: every relative link in README.md and docs/*.md
// resolves, every docs/ page a source comment cites exists, every public view of
// sql/schema.sql has a row in docs/schema.md, and every registered format one in
// docs/formats.md. (The reason catalogue is checked by reason_catalogue_test.cc.)
#include <gtest/gtest.h>

#include <cctype>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "ingest/importer.h"
#include "tests/support/temp_files.h"
#include "tests/support/test_paths.h"

namespace docs_test {

namespace fs = std::filesystem;

const fs::path kSourceDir = fs::path(RCF_FIXTURES_DIR).parent_path();

// Whole file (tests/support/temp_files.h); the pages and sources read here exist.
std::string read_file(const fs::path& path) {
  return rcf::testing::read_file(path.string());
}

std::vector<fs::path> markdown_pages() {
  std::vector<fs::path> pages = {kSourceDir / "README.md"};
  for (const auto& entry : fs::directory_iterator(kSourceDir / "docs"))
    if (entry.path().extension() == ".md") pages.push_back(entry.path());
  return pages;
}

// Targets of the inline links `[text](target)` of a Markdown text, code spans and fenced blocks
// left out (they show link syntax, they are not links).
std::vector<std::string> link_targets(std::string_view text) {
  std::vector<std::string> out;
  bool fenced = false;
  std::istringstream lines{std::string(text)};
  for (std::string line; std::getline(lines, line);) {
    if (line.starts_with("```")) fenced = !fenced;
    if (fenced) continue;
    bool code = false;
    for (size_t i = 0; i + 1 < line.size(); ++i) {
      if (line[i] == '`') code = !code;
      if (code || line[i] != ']' || line[i + 1] != '(') continue;
      size_t end = line.find(')', i + 2);
      if (end == std::string::npos) break;
      out.push_back(line.substr(i + 2, end - i - 2));
      i = end;
    }
  }
  return out;
}

bool is_external(const std::string& target) {
  return target.starts_with("http://") || target.starts_with("https://") ||
         target.starts_with("mailto:") || target.starts_with("#");
}

TEST(Docs, LinkScanFindsLinksOutsideCodeOnly) {
  std::vector<std::string> links = link_targets(
      "see [a](guide/a.md#x) and `[b](b.md)`\n```\n[c](c.md)\n```\n![i](img/i.png) "
      "[w](https://x)\n");
  EXPECT_EQ(links, (std::vector<std::string>{"guide/a.md#x", "img/i.png", "https://x"}));
}

TEST(Docs, EveryRelativeLinkResolves) {
  size_t checked = 0;
  for (const fs::path& page : markdown_pages()) {
    for (std::string target : link_targets(read_file(page))) {
      if (is_external(target)) continue;
      target = target.substr(0, target.find('#'));
      EXPECT_TRUE(fs::exists(page.parent_path() / target))
          << page.lexically_relative(kSourceDir) << " links to " << target
          << ", which does not exist";
      ++checked;
    }
  }
  EXPECT_GT(checked, 20u);
}

// `docs/<name>.md` as named in any text (comments, prose, plain mentions).
std::set<std::string> cited_pages(std::string_view text) {
  std::set<std::string> out;
  for (size_t at = text.find("docs/"); at != std::string_view::npos;
       at = text.find("docs/", at + 1)) {
    if (at > 0 && (std::isalnum(static_cast<unsigned char>(text[at - 1])) || text[at - 1] == '_'))
      continue;
    size_t end = at + 5;
    while (end < text.size() &&
           (std::islower(static_cast<unsigned char>(text[end])) ||
            std::isdigit(static_cast<unsigned char>(text[end])) || text[end] == '_'))
      ++end;
    if (text.substr(end, 3) == ".md") out.insert(std::string(text.substr(at, end + 3 - at)));
  }
  return out;
}

TEST(Docs, EveryCitedDocsPageExists) {
  std::vector<fs::path> files = markdown_pages();
  for (const char* dir : {"analysis", "ingest", "store", "report", "pipeline", "cli", "util", "sql",
                          "tests", "bench", "scripts", "fuzz"}) {
    if (!fs::exists(kSourceDir / dir)) continue;
    for (const auto& entry : fs::recursive_directory_iterator(kSourceDir / dir))
      if (entry.is_regular_file()) files.push_back(entry.path());
  }
  size_t cited = 0;
  for (const fs::path& file : files) {
    for (const std::string& page : cited_pages(read_file(file))) {
      EXPECT_TRUE(fs::exists(kSourceDir / page))
          << file.lexically_relative(kSourceDir) << " cites " << page << ", which does not exist";
      ++cited;
    }
  }
  EXPECT_GT(cited, 20u);
}

TEST(Docs, EveryPublicViewIsInTheSchemaPage) {
  const std::string schema = read_file(kSourceDir / "sql" / "schema.sql");
  const std::string page = read_file(kSourceDir / "docs" / "schema.md");
  size_t views = 0;
  for (size_t at = schema.find("CREATE VIEW "); at != std::string::npos;
       at = schema.find("CREATE VIEW ", at + 1)) {
    size_t start = at + 12;
    std::string view = schema.substr(start, schema.find(' ', start) - start);
    EXPECT_NE(page.find("| `" + view + "` |"), std::string::npos)
        << "view " << view << " has no row in docs/schema.md";
    ++views;
  }
  EXPECT_GE(views, 10u);
}

TEST(Docs, EveryFormatHasARowInTheFormatsPage) {
  const std::string page = read_file(kSourceDir / "docs" / "formats.md");
  for (const rcf::ingest::ImporterInfo& info : rcf::ingest::importer_registry())
    EXPECT_NE(page.find("| `" + info.name + "` |"), std::string::npos)
        << "format " << info.name << " has no row in docs/formats.md";
}

}  // namespace docs_test
