// The same log, reached through another wrapper, gives the same answers (docs/line_framing.md).
// Users paste what their run printed: quoted in a reply, commented in a doc, re-indented, behind a
// launcher's tag or an app logger's timestamp, with CRLF endings, progress bars or test-runner
// dots glued in front, unrelated output in between, or gzip-compressed. None of that changes what
// happened in the run, so for every real text log of fixtures/dynamo and fixtures/xla each
// wrapped copy must give the same recompile causes, compile count and recompile-limit hits as the
// file itself. Logs that only a runtime writes (TORCH_TRACE, HLO modules) are copied, not pasted:
// they get the byte-level variants only.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <functional>
#include <map>
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

// The file's own answers, computed once for all variants.
std::string original_answers(const std::string& path, const TempDir& dir) {
  static std::map<std::string, std::string> known;
  auto it = known.find(path);
  if (it != known.end()) return it->second;
  std::string db = dir.file("original" + std::to_string(known.size()) + ".db");
  return known[path] = ingest_answers(path, db);
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
  std::sort(files.begin(), files.end());
  return files;
}

class WrapperInvariance : public ::testing::TestWithParam<Variant> {};

TEST_P(WrapperInvariance, EveryFixtureGivesTheSameAnswers) {
  const Variant& v = GetParam();
  TempDir dir;
  int compared = 0;
  std::string differences;
  for (const std::string& path : text_logs()) {
    std::string text = testing::read_file(path);
    if (text.starts_with("\x1f\x8b") || (written_by_a_runtime(text) && !v.byte_level)) continue;
    std::string original = original_answers(path, dir);
    std::string body = v.rewrap(split_lines(text));
    std::string wrapped_path = dir.file(std::filesystem::path(path).filename().string() + "." +
                                        v.name + (v.gzip ? ".gz" : ""));
    testing::write_file(wrapped_path, v.gzip ? testing::gzip_compress(body) : body);
    std::string wrapped =
        ingest_answers(wrapped_path, dir.file("wrapped" + std::to_string(compared) + ".db"));
    ++compared;
    if (wrapped != original)
      differences += "\n  " + std::filesystem::path(path).filename().string() + ": " + wrapped +
                     "\n    but the file itself: " + original;
  }
  EXPECT_GT(compared, 20);
  EXPECT_EQ(differences, "") << "variant " << v.name;
}

INSTANTIATE_TEST_SUITE_P(Fixtures, WrapperInvariance, ::testing::ValuesIn(variants()),
                         [](const ::testing::TestParamInfo<Variant>& info) {
                           return std::string(info.param.name);
                         });

}  // namespace wrapper_invariance_test
}  // namespace rcf
