#include "tests/support/collecting_sink.h"
#include "tests/support/test_paths.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <set>
#include <sstream>

namespace rcf::testing {

std::map<std::string, int> CollectingSink::note_counts() const {
  std::map<std::string, int> counts;
  for (const auto& n : notes) {
    const char* fate = n.fate == ingest::LineFate::kSkipped    ? "skipped"
                       : n.fate == ingest::LineFate::kRejected ? "rejected"
                                                               : "warning";
    counts[std::string(fate) + ":" + n.reason]++;
  }
  return counts;
}

CollectingSink run_importer(std::string_view format, std::string_view text) {
  CollectingSink sink;
  const ingest::ImporterInfo* info = ingest::find_importer(format);
  if (!info) {
    std::fprintf(stderr, "unknown importer %.*s\n", int(format.size()), format.data());
    std::abort();
  }
  auto importer = info->create(sink);
  int64_t line_no = 0;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t nl = text.find('\n', pos);
    size_t end = nl == std::string_view::npos ? text.size() : nl;
    std::string_view line = text.substr(pos, end - pos);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    importer->on_line(line, ++line_no);
    pos = end + 1;
  }
  importer->finish();
  return sink;
}

int64_t line_count(std::string_view text) {
  int64_t n = 0;
  for (size_t pos = 0; pos < text.size(); ++n) {
    size_t nl = text.find('\n', pos);
    pos = nl == std::string_view::npos ? text.size() : nl + 1;
  }
  return n;
}

std::vector<int64_t> range(int64_t first, int64_t last) {
  std::vector<int64_t> out;
  for (int64_t i = first; i <= last; ++i) out.push_back(i);
  return out;
}

std::vector<int64_t> warning_lines(const CollectingSink& sink) {
  std::vector<int64_t> out;
  for (const auto& n : sink.notes)
    if (n.fate == ingest::LineFate::kWarning) out.push_back(n.line);
  return out;
}

std::vector<int64_t> parsed_lines(const CollectingSink& sink, int64_t count) {
  std::set<int64_t> noted;
  for (const auto& n : sink.notes) {
    EXPECT_GE(n.line, 1);
    EXPECT_LE(n.line, count);
    if (n.fate == ingest::LineFate::kWarning) continue;
    EXPECT_TRUE(noted.insert(n.line).second) << "line " << n.line << " noted twice";
  }
  std::vector<int64_t> out;
  for (int64_t i = 1; i <= count; ++i)
    if (!noted.count(i)) out.push_back(i);
  return out;
}

std::string read_fixture(const std::string& relative_path) {
  std::string path = std::string(RCF_FIXTURES_DIR) + "/" + relative_path;
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    std::fprintf(stderr, "missing fixture %s\n", path.c_str());
    std::abort();
  }
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

int64_t event_line(const ingest::Event& event) {
  return std::visit(
      [](const auto& e) -> int64_t {
        if constexpr (requires { e.line; })
          return e.line;
        else if constexpr (requires { e.first_line; })
          return e.first_line;
        else
          return -1;
      },
      event);
}

std::vector<std::string> event_keys(const CollectingSink& sink) {
  std::vector<std::string> keys;
  for (const auto& event : sink.events)
    keys.push_back(std::to_string(event.index()) + "@" + std::to_string(event_line(event)));
  return keys;
}

std::string stats_key(const ingest::SourceStats& s) {
  std::string reasons;
  for (const auto& [key, tally] : s.reasons)
    reasons += key.first + ":" + key.second + "=" + std::to_string(tally.count) + ";";
  return s.path + "|" + s.format + "|" + s.content_hash + "|" + std::to_string(s.bytes) + "|" +
         std::to_string(s.lines) + "|" + std::to_string(s.events) + "|" +
         std::to_string(s.rejected) + "|" + s.first_error + "|" + reasons;
}

}  // namespace rcf::testing
