// The same log, reached through another wrapper, gives the same answers (docs/line_framing.md).
// Users paste what their run printed: quoted in a reply, commented in a doc, re-indented, behind a
// launcher's tag or an app logger's timestamp, with CRLF endings, progress bars or test-runner
// dots glued in front, unrelated output in between, or gzip-compressed. None of that changes what
// happened in the run, so for every real text log of fixtures/dynamo and fixtures/xla each
// wrapped copy must give the same recompile causes, compile count and recompile-limit hits as the
// file itself. Logs that only a runtime writes (TORCH_TRACE, HLO modules) are copied, not pasted:
// they get the byte-level variants only.
#include <gtest/gtest.h>
#include <re2/re2.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "pipeline/ingest_pipeline.h"
#include "store/store.h"
#include "tests/support/db_dump.h"
#include "tests/support/ingested_store.h"
#include "tests/support/temp_files.h"
#include "tests/support/test_paths.h"
#include "util/error.h"

namespace rcf {
namespace wrapper_invariance_test {

using testing::column;
using testing::scalar;
using testing::TempDir;

std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> lines;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string::npos) end = text.size();
    std::string line = text.substr(pos, end - pos);
    if (!line.empty() && line.back() == '\r') line.pop_back();
    lines.push_back(line);
    pos = end + 1;
  }
  return lines;
}

std::string join(const std::vector<std::string>& lines, const char* newline = "\n") {
  std::string out;
  for (const auto& l : lines) out += l + newline;
  return out;
}

using Rewrap = std::function<std::string(const std::vector<std::string>&)>;

Rewrap prefix_every_line(std::string prefix) {
  return [prefix](const std::vector<std::string>& lines) {
    std::vector<std::string> out;
    for (const auto& l : lines) out.push_back(prefix + l);
    return join(out);
  };
}

// A Python app logger's `[date time.ms] ` in front of every line, the seconds counting up.
std::string app_logger_timestamps(const std::vector<std::string>& lines) {
  std::vector<std::string> out;
  char stamp[40];
  for (size_t i = 0; i < lines.size(); ++i) {
    snprintf(stamp, sizeof stamp, "[2025-03-04 05:06:%02zu.%03zu] ", i % 60, (i * 7) % 1000);
    out.push_back(stamp + lines[i]);
  }
  return join(out);
}

// A tqdm bar redrawn with '\r' before every fifth line, as a raw terminal capture holds it.
std::string progress_bar_redraws(const std::vector<std::string>& lines) {
  std::vector<std::string> out;
  for (size_t i = 0; i < lines.size(); ++i) {
    if (i % 5 != 0) {
      out.push_back(lines[i]);
      continue;
    }
    size_t k = i % 20;
    char bar[96];
    snprintf(bar, sizeof bar, "\r%3zu%%|%s%s| %zu/20 [00:%02zu<00:%02zu,  1.23it/s]", k * 5,
             std::string(k / 2, '#').c_str(), std::string(10 - k / 2, ' ').c_str(), k, k, 20 - k);
    out.push_back(std::string(bar) + "\r" + lines[i]);
  }
  return join(out);
}

// pytest's progress dots glued in front of every fourth non-empty line.
std::string test_runner_dots(const std::vector<std::string>& lines) {
  std::vector<std::string> out;
  for (size_t i = 0; i < lines.size(); ++i)
    out.push_back(i % 4 == 0 && !lines[i].empty() ? std::string(1 + i % 3, '.') + lines[i]
                                                  : lines[i]);
  return join(out);
}

// Unrelated training output after every third line.
std::string unrelated_output_between(const std::vector<std::string>& lines) {
  static const char* kNoise[] = {"loss 2.3184 lr 3.0e-05", "Epoch 1/3", "  warnings.warn(",
                                 "tensor([2., 2., 2., 2.])", ""};
  std::vector<std::string> out;
  for (size_t i = 0; i < lines.size(); ++i) {
    out.push_back(lines[i]);
    if (i % 3 == 2) out.push_back(kNoise[i % 5]);
  }
  return join(out);
}

// Byte offsets of the characters (UTF-8 code points) of `line`, and its size at the end: widths
// are what a terminal or an editor counts.
std::vector<size_t> character_starts(const std::string& line) {
  std::vector<size_t> starts;
  for (size_t i = 0; i < line.size(); ++i)
    if ((static_cast<unsigned char>(line[i]) & 0xC0) != 0x80) starts.push_back(i);
  starts.push_back(line.size());
  return starts;
}

// A terminal copy: each line cut into pieces of exactly `width` characters.
Rewrap cut_at_width(size_t width) {
  return [width](const std::vector<std::string>& lines) {
    std::vector<std::string> out;
    for (const auto& line : lines) {
      std::vector<size_t> at = character_starts(line);
      size_t chars = at.size() - 1, from = 0;
      for (; chars - from > width; from += width)
        out.push_back(line.substr(at[from], at[from + width] - at[from]));
      out.push_back(line.substr(at[from]));
    }
    return join(out);
  };
}

// A document or a mail: a line longer than `width` characters breaks at its last space before
// the width, and what follows goes on two spaces deep.
Rewrap break_at_spaces(size_t width) {
  return [width](const std::vector<std::string>& lines) {
    std::vector<std::string> out;
    for (std::string line : lines) {
      size_t indent = line.find_first_not_of(' ');
      indent = indent == std::string::npos ? line.size() : indent;
      while (true) {
        std::vector<size_t> at = character_starts(line);
        if (at.size() - 1 <= width) break;
        size_t space = std::string::npos;
        for (size_t c = width; c-- > indent + 1;)
          if (line[at[c]] == ' ') {
            space = at[c];
            break;
          }
        if (space == std::string::npos) break;
        out.push_back(line.substr(0, space));
        line = "  " + line.substr(space + 1);
        indent = 2;
      }
      out.push_back(line);
    }
    return join(out);
  };
}

// Where a line's own log prefix ends: a glog prefix through its `file:line] `, or a 2023 Python
// logging prefix through `logger: [LEVEL] `; 0 when the line has neither.
size_t own_prefix_length(const std::string& line) {
  static const RE2 glog(R"([IWEVD]\d{4} [0-9:.]+ +\d+ [^\]]*?[^/\\\]]+:\d+\] )");
  static const RE2 python_logging(R"(\[\d{4}-\d\d-\d\d [0-9:,.]+\] [\w.]+: \[[A-Z]+\] )");
  for (const RE2* form : {&glog, &python_logging}) {
    re2::StringPiece rest(line);
    if (RE2::Consume(&rest, *form)) return line.size() - rest.size();
  }
  return 0;
}

// Each line's log prefix (and only the prefix) rewritten by `rewrite(line, prefix_length)`.
Rewrap per_line(std::function<std::vector<std::string>(const std::string&, size_t)> rewrite) {
  return [rewrite](const std::vector<std::string>& lines) {
    std::vector<std::string> out;
    for (const auto& line : lines)
      for (auto& piece : rewrite(line, own_prefix_length(line))) out.push_back(std::move(piece));
    return join(out);
  };
}

// A log viewer that puts the record's prefix on a line of its own, the message below it.
std::vector<std::string> prefix_on_own_line(const std::string& line, size_t prefix) {
  if (prefix == 0) return {line};
  std::string head = line.substr(0, prefix);
  while (!head.empty() && head.back() == ' ') head.pop_back();
  return {head, line.substr(prefix)};
}

// A custom format that keeps only the level and the file name of a glog prefix:
// `W convert_frame.py:1676] message`.
std::vector<std::string> level_and_file_only(const std::string& line, size_t prefix) {
  static const RE2 glog(R"(^([IWEVD])\d{4} [0-9:.]+ +\d+ [^\]]*?([^/\\\]]+:\d+)\] )");
  std::string level, location;
  if (!RE2::PartialMatch(line, glog, &level, &location)) return {line};
  return {level + " " + location + "] " + line.substr(prefix)};
}

// The messages alone: a format without fields, or a paste that dropped them.
std::vector<std::string> message_only(const std::string& line, size_t prefix) {
  return {line.substr(prefix)};
}

// The prefix in a colour, reset after it, as a colouring log handler prints it.
std::vector<std::string> coloured_prefix(const std::string& line, size_t prefix) {
  if (prefix == 0) return {line};
  return {"\x1b[33m" + line.substr(0, prefix) + "\x1b[0m" + line.substr(prefix)};
}

// Every line's indentation removed (a paste into a form that trims lines).
std::string without_indentation(const std::vector<std::string>& lines) {
  std::vector<std::string> out;
  for (const auto& l : lines) {
    size_t first = l.find_first_not_of(" \t");
    out.push_back(first == std::string::npos ? "" : l.substr(first));
  }
  return join(out);
}

// A blank line after every line.
std::string double_spacing(const std::vector<std::string>& lines) {
  std::vector<std::string> out;
  for (const auto& l : lines) {
    out.push_back(l);
    out.push_back("");
  }
  return join(out);
}

// A Markdown reply: quoted, with the lines that state a reason or an entry in bold.
std::string markdown_reply_in_bold(const std::vector<std::string>& lines) {
  std::vector<std::string> out;
  for (const auto& l : lines) {
    size_t first = l.find_first_not_of(" \t\r\n");
    size_t last = l.find_last_not_of(" \t\r\n");
    std::string text = first == std::string::npos ? "" : l.substr(first, last - first + 1);
    bool stated = text.find("reason") != std::string::npos ||
                  text.find("guard failure") != std::string::npos || text.starts_with("- ");
    out.push_back("> " + (text.empty() || !stated ? l : l.substr(0, first) + "**" + text + "**"));
  }
  return join(out);
}

struct Variant {
  const char* name;
  Rewrap rewrap;
  bool gzip = false;
  bool byte_level = false;  // also applies to logs only a runtime writes
};

const std::vector<Variant>& variants() {
  static const std::vector<Variant> all = {
      {"reply_quote", prefix_every_line("> ")},
      {"comment_marker", prefix_every_line("# ")},
      {"indent2", prefix_every_line("  ")},
      {"indent4", prefix_every_line("    ")},
      {"ray_worker", prefix_every_line("(RayWorker pid=48211) ")},
      {"torchrun_tag", prefix_every_line("[default0]:")},
      {"app_timestamp", app_logger_timestamps},
      {"progress_redraws", progress_bar_redraws},
      {"test_dots", test_runner_dots},
      // A JAX cache-miss explanation (indented lines after an unprefixed header) goes on across
      // a line or two of other output (tests/jax_log_importer_test.cc).
      {"unrelated_output", unrelated_output_between},
      // Container and cluster launchers.
      {"container_runtime", prefix_every_line("2025-03-04T05:06:07.123456789Z stderr F ")},
      {"compose_service", prefix_every_line("trainer-1  | ")},
      {"srun_label", prefix_every_line("3: ")},
      {"coloured_prefix", per_line(coloured_prefix)},
      // Re-flowed by a terminal, a document, a log viewer or a trimmed format
      // (docs/line_framing.md, "Re-flowed lines").
      {"hard_wrap_100", cut_at_width(100)},
      {"word_wrap_80", break_at_spaces(80)},
      {"prefix_own_line", per_line(prefix_on_own_line)},
      {"level_and_file", per_line(level_and_file_only)},
      {"message_only", per_line(message_only)},
      {"no_indentation", without_indentation},
      {"double_spaced", double_spacing},
      {"markdown_bold", markdown_reply_in_bold},
      {"crlf", [](const std::vector<std::string>& l) { return join(l, "\r\n"); }, false, true},
      {"gzip", [](const std::vector<std::string>& l) { return join(l); }, true, true},
  };
  return all;
}

// What a log says: recompile causes (sorted), compiles, limit hits; or why it did not ingest.
std::string ingest_answers(const std::string& path, const std::string& db_path) {
  try {
    testing::ingest_logs(db_path, {path});
  } catch (const Error& e) {
    std::string message = e.what();
    for (size_t at = message.find(path); at != std::string::npos; at = message.find(path))
      message.replace(at, path.size(), "FILE");
    return "error: " + message;
  }
  auto db = testing::read_store(db_path);
  std::string causes;
  for (const auto& c : column(*db, "SELECT cause FROM recompiles ORDER BY cause"))
    causes += c + ",";
  return "recompiles [" + causes + "] compiles " + scalar(*db, "SELECT count(*) FROM compiles") +
         " limit hits " + scalar(*db, "SELECT count(*) FROM recompile_limit_hits");
}

bool written_by_a_runtime(const std::string& text) {
  std::string head = text.substr(0, 65536);
  return head.find("HloModule ") != std::string::npos || head.find("] {\"") != std::string::npos;
}

std::vector<std::string> text_logs() {
  std::vector<std::string> files;
  for (const char* dir : {"dynamo", "xla", "torch_trace"}) {
    for (const auto& entry :
         std::filesystem::directory_iterator(std::string(RCF_FIXTURES_DIR) + "/" + dir)) {
      if (!entry.is_regular_file() || entry.path().filename() == "README.md") continue;
      files.push_back(entry.path().string());
    }
  }
  // The consoles of the real runs (Dynamo text logs, JAX logs, progress lines).
  for (const auto& entry :
       std::filesystem::recursive_directory_iterator(std::string(RCF_FIXTURES_DIR) + "/real_runs"))
    if (entry.is_regular_file() && entry.path().extension() == ".log" &&
        std::filesystem::file_size(entry.path()) > 0 && entry.path().filename() != "run.log")
      files.push_back(entry.path().string());
  // A gzip-compressed fixture is a copy, never a paste. Only its magic is read: every test
  // process lists the fixtures when it registers the tests.
  std::erase_if(files, [](const std::string& path) {
    char magic[2] = {};
    std::ifstream(path, std::ios::binary).read(magic, 2);
    return magic[0] == '\x1f' && magic[1] == '\x8b';
  });
  std::sort(files.begin(), files.end());
  return files;
}

// (variant, fixture) pairs that may give other answers, each named here rather than hidden. A
// pair that starts to agree fails the test too, so the list can only shrink.
const std::set<std::pair<std::string, std::string>>& open_gaps() {
  // Re-flows that remove what alone decides an answer (the pid that separates two processes,
  // say) may turn it into `unknown`; each such pair is named here, with why. None is open: every
  // variant of every fixture gives the file's own answers.
  static const std::set<std::pair<std::string, std::string>> gaps = {};
  return gaps;
}

// The fixture's path under fixtures/ (the consoles of real runs share their file names).
std::string fixture_name(const std::string& path) {
  return std::filesystem::path(path).lexically_relative(RCF_FIXTURES_DIR).generic_string();
}

// One test per fixture, not per variant: the file's own answers are computed once, in the test
// that compares every variant with them, whichever process or shard runs it.
class WrapperInvariance : public ::testing::TestWithParam<std::string> {};

TEST_P(WrapperInvariance, EveryVariantGivesTheFilesOwnAnswers) {
  const std::string& path = GetParam();
  const std::string name = fixture_name(path);
  const std::string text = testing::read_file(path);
  const bool runtime_log = written_by_a_runtime(text);
  const std::vector<std::string> lines = split_lines(text);
  TempDir dir;
  const std::string original = ingest_answers(path, dir.file("original.db"));
  int compared = 0;
  std::string differences;
  for (const Variant& v : variants()) {
    if (runtime_log && !v.byte_level) continue;
    std::string body = v.rewrap(lines);
    std::string wrapped_path = dir.file(std::filesystem::path(path).filename().string() + "." +
                                        v.name + (v.gzip ? ".gz" : ""));
    testing::write_file(wrapped_path, v.gzip ? testing::gzip_compress(body) : body);
    std::string wrapped = ingest_answers(wrapped_path, dir.file(std::string(v.name) + ".db"));
    ++compared;
    bool gap = open_gaps().count({v.name, name}) > 0;
    if (wrapped != original && !gap)
      differences +=
          "\n  " + std::string(v.name) + ": " + wrapped + "\n    but the file itself: " + original;
    if (wrapped == original && gap)
      differences += "\n  " + std::string(v.name) + " agrees now: drop its gap";
  }
  EXPECT_GT(compared, 0);
  EXPECT_EQ(differences, "") << name;
}

// A gtest name for a fixture: its path under fixtures/ with every other character an '_'.
std::string test_name(const ::testing::TestParamInfo<std::string>& info) {
  std::string name = fixture_name(info.param);
  for (char& c : name)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return name;
}

INSTANTIATE_TEST_SUITE_P(Fixtures, WrapperInvariance, ::testing::ValuesIn(text_logs()), test_name);

// The suite covers enough logs, and every open gap names a variant and a fixture it runs.
TEST(WrapperInvarianceCoverage, ManyLogsAndEveryGapNamesAPairThatRuns) {
  std::set<std::string> names;
  for (const std::string& path : text_logs()) names.insert(fixture_name(path));
  EXPECT_GT(names.size(), 20u);
  std::set<std::string> variant_names;
  for (const Variant& v : variants()) variant_names.insert(v.name);
  for (const auto& [variant, fixture] : open_gaps()) {
    EXPECT_TRUE(variant_names.count(variant)) << "no variant " << variant;
    EXPECT_TRUE(names.count(fixture)) << "no fixture " << fixture;
  }
}

}  // namespace wrapper_invariance_test
}  // namespace rcf
