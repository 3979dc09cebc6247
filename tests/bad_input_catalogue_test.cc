// The bad inputs of docs/bad_input.md: one test per class of bad input, each through the real
// `rcf` binary (RCF_BINARY). Each asserts the outcome that page promises — the bad part counted
// and skipped under a named reason with file:line, or exit 2 with a message naming the file — and
// that the good content of the same file or directory is still ingested.
//
// Covered elsewhere, not repeated here: a corrupt gzip that is not deflate at all, named (exit 2,
// IngestPipelineTest.NamedCorruptGzipIsAnError) and in a directory with decoys
// (IngestPipelineTest.DirectoryWithDecoys); a bad TORCH_TRACE payload JSON
// (IngestPipelineTest.GoldenCorruptedJsonKeepsTheCompile); a non-SQLite file as database
// (IngestPipelineTest.NotAnRcfDatabaseIsRefused); log text that tries to break out of the report
// (ReportHostileInput.EveryLogStringIsEscaped, SafeOutput.*); killed and concurrent ingests
// (IngestAtomicity.*, ConcurrentUse.*).
#include <gtest/gtest.h>
#include <sqlite3.h>
#include <sys/stat.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <vector>

#include "store/database.h"
#include "store/store.h"
#include "tests/support/db_dump.h"
#include "tests/support/rcf_process.h"
#include "tests/support/temp_files.h"
#include "tests/support/test_paths.h"

namespace rcf {
namespace bad_input_catalogue_test {

namespace fs = std::filesystem;
using nlohmann::json;
using testing::query_csv;
using testing::RcfOptions;
using testing::RcfRun;
using testing::read_file;
using testing::replace_all;
using testing::scalar;
using testing::TempDir;
using testing::write_file;

const std::string kFixtures = RCF_FIXTURES_DIR;
// 9257 lines, 7 compiles of `kernel` (0/0..0/6), 6 shape recompiles.
const std::string kRank3Name = "dedicated_log_torch_trace_rank_3.log";
const std::string kRank3 = kFixtures + "/torch_trace/multi_rank_logs/" + kRank3Name;
const std::string kXlaDebug = kFixtures + "/xla_bundle/pt_xla_debug.log";  // 3 compiles
const std::string kSavedGraph = kFixtures + "/xla_bundle/save_tensors.hlo.0";
const std::string kHloDump = kFixtures + "/scenarios/clean_settle/xla_dump";

std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> lines;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t nl = text.find('\n', pos);
    if (nl == std::string::npos) nl = text.size();
    lines.push_back(text.substr(pos, nl - pos));
    pos = nl + 1;
  }
  return lines;
}

std::string join_lines(const std::vector<std::string>& lines) {
  std::string out;
  for (const auto& l : lines) out += l + "\n";
  return out;
}

// Strict UTF-8 (RFC 3629): no overlong forms, no surrogates, nothing past U+10FFFF.
bool valid_utf8(const std::string& s) {
  static constexpr uint32_t kMin[] = {0, 0, 0x80, 0x800, 0x10000};
  for (size_t i = 0; i < s.size();) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    size_t n = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
    if (n == 0 || i + n > s.size()) return false;
    uint32_t cp = n == 1 ? c : c & (0x7f >> n);
    for (size_t k = 1; k < n; ++k) {
      unsigned char next = static_cast<unsigned char>(s[i + k]);
      if ((next & 0xC0) != 0x80) return false;
      cp = (cp << 6) | (next & 0x3f);
    }
    if (n > 1 && (cp < kMin[n] || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))) return false;
    i += n;
  }
  return true;
}

// A 32-digit graph hash numbered `k`.
std::string fmt_hash(int k) {
  std::string digits = std::to_string(k);
  return std::string(32 - digits.size(), '0') + digits;
}

// Lines of random bytes: binary junk, no '\n' inside, never starting like a log line.
std::string binary_junk(uint32_t seed, int lines, int width) {
  std::mt19937 rng(seed);
  std::string out;
  for (int i = 0; i < lines; ++i) {
    out.push_back(static_cast<char>(rng() % 8));  // a control byte first
    for (int k = 1; k < width; ++k) {
      char c = static_cast<char>(rng() & 0xff);
      out.push_back(c == '\n' ? '\0' : c);
    }
    out.push_back('\n');
  }
  return out;
}

class BadInputCatalogue : public ::testing::Test {
 protected:
  RcfRun rcf(const std::vector<std::string>& args, RcfOptions options = {}) {
    if (options.cwd.empty()) options.cwd = tmp_.path();
    return testing::run_rcf(args, options);
  }
  std::string path(const std::string& name) const { return tmp_.file(name); }
  std::unique_ptr<store::Database> open(const std::string& db = "rcf.db") const {
    return store::open_store(path(db), store::OpenMode::kRead);
  }
  // "fate,reason,count,first_line" of the line notes of the sources whose path ends in `file`.
  static std::string notes(store::Database& db, const std::string& file) {
    return query_csv(db,
                     "SELECT fate, reason, count, first_line FROM line_note n JOIN source s "
                     "USING (source_id) WHERE s.path LIKE '%" +
                         file +
                         "' AND reason NOT IN ('blank', 'other_output', 'unknown_event', "
                         "'unprefixed_text') ORDER BY 1, 2");
  }
  std::string mkdir(const std::string& name) const {
    fs::create_directories(path(name));
    return path(name);
  }

  TempDir tmp_;
};

// Bad input never crashes rcf: it exits with 0 (ingested) or 2 (a message on stderr).
void expect_exit(const RcfRun& r, int rc) {
  EXPECT_EQ(r.signal, 0) << "killed by signal " << r.signal << "\n" << r.err;
  EXPECT_EQ(r.rc, rc) << r.out << r.err;
  EXPECT_EQ(r.err.find("internal error"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("terminate called"), std::string::npos) << r.err;
  if (rc == 2) {
    EXPECT_EQ(r.err.rfind("rcf: error: ", 0), 0u) << r.err;
  }
}

// The clean rank-3 log's numbers, the baseline every damaged copy is held to.
void expect_rank3_compiles(store::Database& db, const std::string& lane = "") {
  const std::string where = lane.empty() ? "" : " WHERE lane='" + lane + "'";
  EXPECT_EQ(scalar(db, "SELECT count(*) FROM compiles" + where), "7");
  EXPECT_EQ(scalar(db, "SELECT count(*) FROM recompiles" + where), "6");
  EXPECT_EQ(scalar(db, "SELECT group_concat(DISTINCT cause) FROM recompiles" + where), "shape");
}

// ---------------------------------------------------------------------------------------------

TEST_F(BadInputCatalogue, EmptyFile) {
  const std::string dir = mkdir("logs");
  write_file(dir + "/empty.log", "");
  fs::copy_file(kRank3, dir + "/" + kRank3Name);
  RcfRun r = rcf({"ingest", "--db", "rcf.db", "logs"});
  expect_exit(r, 0);
  EXPECT_EQ(r.out.rfind("ingested 2 files (empty 1, torch_trace 1), 9257 lines, ", 0), 0u) << r.out;
  auto db = open();
  EXPECT_EQ(query_csv(*db,
                      "SELECT source, format, lines, bytes, rejected FROM ingest_stats "
                      "ORDER BY source"),
            "source,format,lines,bytes,rejected\n"
            "logs/dedicated_log_torch_trace_rank_3.log,torch_trace,9257,1434274,0\n"
            "logs/empty.log,empty,0,0,0\n");
  expect_rank3_compiles(*db);

  // Named on the command line: recorded as empty, not an error.
  r = rcf({"ingest", "--db", "named.db", "logs/empty.log", "logs/" + kRank3Name});
  expect_exit(r, 0);
  auto named = open("named.db");
  EXPECT_EQ(scalar(*named,
                   "SELECT group_concat(source || '=' || format, ' ') FROM "
                   "(SELECT * FROM ingest_stats ORDER BY source)"),
            "logs/dedicated_log_torch_trace_rank_3.log=torch_trace logs/empty.log=empty");
  expect_rank3_compiles(*named);
  // An empty stdin too.
  r = rcf({"ingest", "--db", "stdin.db", "-"});
  expect_exit(r, 0);
  EXPECT_EQ(
      r.out.rfind("ingested 1 file (empty 1), 0 lines, 0.0 MB, 0 events, 0 rejected lines", 0), 0u)
      << r.out;
}

// A file of blank lines only (an empty log saved with CRLF line ends, or pasted with a few
// newlines) is as empty as a file of no byte: named, it is no error either.
TEST_F(BadInputCatalogue, BlankLinesOnlyAreEmpty) {
  write_file(path("blank.log"), "\r\n  \n\t\n");
  RcfRun r = rcf({"ingest", "--db", "rcf.db", "blank.log"});
  expect_exit(r, 0);
  EXPECT_EQ(r.out.rfind("ingested 1 file (empty 1), 3 lines, ", 0), 0u) << r.out;
  write_file(path("text.log"), "\r\nnot a log\r\n");
  expect_exit(rcf({"ingest", "--db", "text.db", "text.log"}), 2);  // text is still no format
}

TEST_F(BadInputCatalogue, BinaryJunk) {
  // 50 lines of random bytes between two records of a real log.
  std::vector<std::string> lines = split_lines(read_file(kRank3));
  const std::string junk = binary_junk(7, 50, 120);
  lines.insert(lines.begin() + 1380, junk.substr(0, junk.size() - 1));
  write_file(path(kRank3Name), join_lines(lines));
  RcfRun r = rcf({"ingest", "--db", "rcf.db", kRank3Name});
  expect_exit(r, 0);
  EXPECT_NE(r.out.find(kRank3Name + ": 50 rejected line(s), first: " + kRank3Name +
                       ":1381: no_glog_prefix"),
            std::string::npos)
      << r.out;
  auto db = open();
  // Junk lines holding a '\r' are also counted as framed: what a carriage return overwrote is not
  // read; so are those holding an ESC byte: framing looks for terminal escape sequences there and
  // removes them as display (docs/line_framing.md).
  EXPECT_EQ(notes(*db, kRank3Name),
            "fate,reason,count,first_line\nframed,glued_text,27,1383\n"
            "rejected,no_glog_prefix,50,1381\n");
  // The rejected lines are kept with their line numbers, as valid text.
  EXPECT_EQ(
      scalar(*db, "SELECT count(*) || ' ' || min(line) || '-' || max(line) FROM rejected_line"),
      "50 1381-1430");
  for (const auto& excerpt : testing::column(*db, "SELECT excerpt FROM rejected_line"))
    EXPECT_TRUE(valid_utf8(excerpt)) << excerpt;
  expect_rank3_compiles(*db);

  // A whole file of junk: in a walked directory it is counted and skipped with a warning ...
  const std::string dir = mkdir("logs");
  write_file(dir + "/core.bin", binary_junk(8, 200, 200));
  fs::copy_file(kRank3, dir + "/" + kRank3Name);
  r = rcf({"ingest", "--db", "dir.db", "logs"});
  expect_exit(r, 0);
  EXPECT_NE(r.out.find("warning: logs/core.bin: not a recognised log format; its 200 lines were "
                       "counted, not read"),
            std::string::npos)
      << r.out;
  auto dir_db = open("dir.db");
  EXPECT_EQ(scalar(*dir_db,
                   "SELECT format || ' ' || lines FROM ingest_stats WHERE source LIKE "
                   "'%core.bin'"),
            "unrecognized 200");
  expect_rank3_compiles(*dir_db);
  // ... and named on the command line it is an input error that writes nothing.
  r = rcf({"ingest", "--db", "named.db", "logs/" + kRank3Name, "logs/core.bin"});
  expect_exit(r, 2);
  EXPECT_NE(r.err.find("logs/core.bin: not a recognised log format; name one with --format"),
            std::string::npos)
      << r.err;
  // The store it was to create is not there at all, nor a file of it (store/new_store.h).
  for (const auto& entry : fs::directory_iterator(path("")))
    EXPECT_FALSE(entry.path().filename().string().starts_with("named.db")) << entry.path();
}

TEST_F(BadInputCatalogue, InvalidUtf8) {
  // Invalid bytes (a lone 0xff, an overlong '/', a lone continuation byte, a truncated sequence)
  // in the function name, the file name and the guard text of one recompile; a clean one after.
  auto prefix = [](const std::string& id) {
    return "V0606 12:51:18.544000 1 torch/_dynamo/guards.py:2610] [" + id + "] [__recompiles] ";
  };
  const std::string log =
      prefix("0/1") + "Recompiling function fo\xff" + "rward in /w/mo\xc0\xaf" + "del.py:10\n" +
      prefix("0/1") + "    triggered by the following guard failure(s):\n" + prefix("0/1") +
      "    - 0/0: tensor 'x\x80' size mismatch at index 0. expected 2, actual 3 \xe2\x82\n" +
      prefix("1/1") + "Recompiling function good in /w/good.py:20\n" + prefix("1/1") +
      "    triggered by the following guard failure(s):\n" + prefix("1/1") +
      "    - 1/0: tensor 'y' size mismatch at index 0. expected 4, actual 5\n";
  write_file(path("bad\xfe"
                  "name.log"),
             log);
  RcfRun r = rcf({"ingest", "--db", "rcf.db", "--lane", "l\xff",
                  "bad\xfe"
                  "name.log"});
  expect_exit(r, 0);
  {
    auto db = open();
    EXPECT_EQ(scalar(*db, "SELECT count(*) FROM recompiles"), "2");
    EXPECT_EQ(scalar(*db, "SELECT detail FROM recompiles WHERE site LIKE '/w/good.py%'"),
              "tensor 'y' dim 0: 4 -> 5");
  }
  // Every machine-readable output is valid JSON (nlohmann::json::accept rejects invalid UTF-8),
  // and the HTML and Markdown are valid UTF-8 with the bad bytes replaced.
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"explain", "--json"},
        {"report", "--format", "json"},
        {"gate", "--json", "--max-recompiles-per-site", "0"}}) {
    r = rcf(args);
    EXPECT_EQ(r.signal, 0) << args[0];
    EXPECT_EQ(r.rc, args[0] == "gate" ? 1 : 0) << args[0] << ": " << r.err;
    EXPECT_TRUE(json::accept(r.out)) << args[0] << ": " << r.out.substr(0, 300);
    EXPECT_NE(r.out.find("\xEF\xBF\xBD"), std::string::npos) << args[0];  // U+FFFD
  }
  for (const char* format : {"html", "md"}) {
    r = rcf({"report", "--format", format});
    expect_exit(r, 0);
    EXPECT_TRUE(valid_utf8(r.out)) << format;
    EXPECT_NE(r.out.find("good"), std::string::npos) << format;
  }
  r = rcf({"explain"});
  expect_exit(r, 0);
  EXPECT_NE(r.out.find("/w/good.py:20"), std::string::npos) << r.out;
}

TEST_F(BadInputCatalogue, HundredMegabyteLine) {
  // One line of 100 MB between two records: longer than the 64 MiB line cap, so it is never held
  // whole: its first 64 MiB are kept to be counted, the rest is read and dropped.
  std::vector<std::string> lines = split_lines(read_file(kRank3));
  lines.insert(lines.begin() + 1380, "V" + std::string(100'000'000, 'x'));
  write_file(path(kRank3Name), join_lines(lines));
  lines.clear();
  RcfRun r = rcf({"ingest", "--db", "rcf.db", kRank3Name});
  expect_exit(r, 0);
  EXPECT_NE(r.out.find("1 rejected line(s), first: " + kRank3Name + ":1381: line_too_long"),
            std::string::npos)
      << r.out;
  auto db = open();
  EXPECT_EQ(notes(*db, kRank3Name),
            "fate,reason,count,first_line\nrejected,line_too_long,1,1381\n");
  EXPECT_EQ(scalar(*db, "SELECT lines || ' ' || bytes FROM ingest_stats"),
            "9258 " + std::to_string(1434274 + 100'000'002));
  expect_rank3_compiles(*db);
  // Holding the line whole would take at least its 100 MB plus the buffer it grew from.
  EXPECT_LT(r.max_rss_kb, 170 * 1024) << "peak memory for a 100 MB line";
}

TEST_F(BadInputCatalogue, TruncatedLastLine) {
  // A crashed run: the file ends in the middle of an envelope line, without a newline.
  std::string text = read_file(kRank3);
  const size_t last_metrics = text.rfind("\nV0721 16:11:56.2");
  ASSERT_NE(last_metrics, std::string::npos);
  std::vector<std::string> whole = split_lines(text.substr(0, last_metrics + 1));
  const int64_t cut_line = static_cast<int64_t>(whole.size()) + 1;
  write_file(path(kRank3Name), text.substr(0, last_metrics + 1 + 150));
  RcfRun r = rcf({"ingest", "--db", "rcf.db", kRank3Name});
  expect_exit(r, 0);
  auto db = open();
  const std::string line = std::to_string(cut_line);
  EXPECT_EQ(notes(*db, kRank3Name), "fate,reason,count,first_line\nrejected,bad_json,1," + line +
                                        "\nwarning,no_final_newline,1," + line + "\n");
  EXPECT_EQ(scalar(*db, "SELECT lines FROM ingest_stats"), line);
  EXPECT_EQ(scalar(*db, "SELECT count(*) FROM compiles"), "7");
}

TEST_F(BadInputCatalogue, BlockCutInTheMiddle) {
  // PT_XLA_DEBUG: the second Compilation Analysis block (line 30) loses everything after its
  // graph hash; the next block follows at once. The compile is kept, without its frames.
  std::vector<std::string> xla = split_lines(read_file(kXlaDebug));
  ASSERT_EQ(xla[29], "Compilation Analysis: " + std::string(80, '='));
  xla.erase(xla.begin() + 34, xla.begin() + 41);
  write_file(path("pt_xla_debug.log"), join_lines(xla));
  // Saved graphs: three graphs, the second cut inside its HLO module (no closing brace, hash or
  // END_GRAPH), the third intact.
  const std::string graph = read_file(kSavedGraph);
  std::string graphs;
  for (int k = 1; k <= 3; ++k) {
    std::string g = replace_all(graph, "5f0c1b2e3d4a69788796a5b4c3d2e1f0", fmt_hash(k));
    if (k == 2) {
      std::vector<std::string> lines = split_lines(g);
      g = join_lines(std::vector<std::string>(lines.begin(), lines.begin() + 12));
    }
    graphs += g;
  }
  write_file(path("save_tensors.hlo.0"), graphs);
  // An HLO dump directory: the second of three modules cut in half.
  const std::string dump = mkdir("xla_dump");
  std::vector<std::string> modules;
  for (const auto& e : fs::directory_iterator(kHloDump)) modules.push_back(e.path().string());
  std::sort(modules.begin(), modules.end());
  for (int k = 0; k < 3; ++k) {
    std::string text = read_file(modules[k]);
    std::vector<std::string> ml = split_lines(text);
    if (k == 1) text = join_lines(std::vector<std::string>(ml.begin(), ml.begin() + ml.size() / 2));
    write_file(dump + "/" + fs::path(modules[k]).filename().string(), text);
  }
  // TORCH_TRACE: the recompile_reasons payload of 0/1 (envelope line 1381) loses its last line.
  std::vector<std::string> trace = split_lines(read_file(kRank3));
  ASSERT_EQ(trace[1383], "\t]");
  trace.erase(trace.begin() + 1383);
  write_file(path(kRank3Name), join_lines(trace));

  RcfRun r = rcf({"ingest", "--db", "rcf.db", "--lane", "xla", "pt_xla_debug.log"});
  expect_exit(r, 0);
  r = rcf({"ingest", "--db", "rcf.db", "--lane", "graphs", "save_tensors.hlo.0"});
  expect_exit(r, 0);
  r = rcf({"ingest", "--db", "rcf.db", "--lane", "dump", "xla_dump"});
  expect_exit(r, 0);
  r = rcf({"ingest", "--db", "rcf.db", "--lane", "trace", kRank3Name});
  expect_exit(r, 0);
  auto db = open();

  EXPECT_EQ(notes(*db, "pt_xla_debug.log"),
            "fate,reason,count,first_line\nwarning,truncated_block,1,30\n");
  EXPECT_EQ(query_csv(*db,
                      "SELECT program_key, site FROM compiles WHERE lane='xla' ORDER BY "
                      "ordinal"),
            "program_key,site\n"
            "5f0c1b2e3d4a69788796a5b4c3d2e1f0,/work/train.py:88 (train_loop)\n"
            "1c2d3e4f5a6b7c8d9e0f1a2b3c4d5e6,<no python frames>\n"
            "9a8b7c6d5e4f30211203f4e5d6c7b8a9,/work/train.py:88 (train_loop)\n");

  EXPECT_EQ(notes(*db, "save_tensors.hlo.0"),
            "fate,reason,count,first_line\nwarning,truncated_block,1,27\n");
  EXPECT_EQ(
      query_csv(*db,
                "SELECT m.line, m.truncated, m.graph_hash FROM hlo_module m JOIN "
                "source s USING (source_id) WHERE s.path LIKE '%save_tensors.hlo.0' "
                "ORDER BY m.line"),
      "line,truncated,graph_hash\n9,0," + fmt_hash(1) + "\n35,1,\n47,0," + fmt_hash(3) + "\n");

  const std::string cut_module = fs::path(modules[1]).filename().string();
  EXPECT_EQ(notes(*db, cut_module), "fate,reason,count,first_line\nwarning,truncated_module,1,1\n");
  EXPECT_EQ(query_csv(*db,
                      "SELECT file_name, truncated FROM hlo_module WHERE file_name IS NOT "
                      "NULL ORDER BY file_name"),
            "file_name,truncated\n" + fs::path(modules[0]).filename().string() + ",0\n" +
                cut_module + ",1\n" + fs::path(modules[2]).filename().string() + ",0\n");

  EXPECT_EQ(notes(*db, kRank3Name),
            "fate,reason,count,first_line\nwarning,bad_payload_json,1,1381\n"
            "warning,payload_md5_mismatch,1,1381\n");
  expect_rank3_compiles(*db, "trace");
}

TEST_F(BadInputCatalogue, BadJson) {
  // The dynamo_start envelope of 0/1 (line 1385) loses a comma: that record is rejected, the
  // compile is still known from its other records.
  std::vector<std::string> lines = split_lines(read_file(kRank3));
  ASSERT_NE(lines[1384].find("\"dynamo_start\""), std::string::npos);
  lines[1384] = replace_all(lines[1384], "\"frame_id\": 0,", "\"frame_id\": 0");
  write_file(path(kRank3Name), join_lines(lines));
  RcfRun r = rcf({"ingest", "--db", "rcf.db", kRank3Name});
  expect_exit(r, 0);
  EXPECT_NE(
      r.out.find(kRank3Name + ": 1 rejected line(s), first: " + kRank3Name + ":1385: bad_json"),
      std::string::npos)
      << r.out;
  auto db = open();
  EXPECT_EQ(notes(*db, kRank3Name), "fate,reason,count,first_line\nrejected,bad_json,1,1385\n");
  expect_rank3_compiles(*db);
  // --strict turns it into an error that writes nothing.
  r = rcf({"ingest", "--db", "strict.db", "--strict", kRank3Name});
  expect_exit(r, 2);
  EXPECT_NE(r.err.find(kRank3Name + ":1385: bad_json"), std::string::npos) << r.err;
  if (fs::exists(path("strict.db"))) {
    auto strict = open("strict.db");
    EXPECT_EQ(scalar(*strict, "SELECT count(*) FROM ingest_stats"), "0");
  }
}

TEST_F(BadInputCatalogue, Md5Mismatch) {
  // The recompile_reasons payload of 0/1 (envelope line 1381) was edited after it was written:
  // the MD5 no longer matches. Warned with the envelope's line; the payload is still read.
  std::vector<std::string> lines = split_lines(read_file(kRank3));
  ASSERT_NE(lines[1382].find("expected 2, actual 3"), std::string::npos);
  lines[1382] = replace_all(lines[1382], "expected 2", "expected 9");
  write_file(path(kRank3Name), join_lines(lines));
  RcfRun r = rcf({"ingest", "--db", "rcf.db", kRank3Name});
  expect_exit(r, 0);
  auto db = open();
  EXPECT_EQ(notes(*db, kRank3Name),
            "fate,reason,count,first_line\nwarning,payload_md5_mismatch,1,1381\n");
  expect_rank3_compiles(*db);
  EXPECT_EQ(scalar(*db, "SELECT detail FROM recompiles WHERE program_key='0/1'"),
            "tensor 'x' dim 0: 9 -> 3");
}

TEST_F(BadInputCatalogue, CorruptGzip) {
  // Deflate data damaged in the middle (a disk or transfer error): what inflated before the damage
  // is ingested, and the read error is recorded with the file name.
  const std::string text = read_file(kRank3);
  std::string gz = testing::gzip_compress(text);
  for (size_t i = gz.size() / 2; i < gz.size() / 2 + 64; ++i) gz[i] = '\xff';
  write_file(path(kRank3Name), gz);
  RcfRun r = rcf({"ingest", "--db", "rcf.db", kRank3Name});
  expect_exit(r, 0);
  EXPECT_NE(r.out.find("read stopped: corrupt gzip data"), std::string::npos) << r.out;
  auto db = open();
  EXPECT_EQ(scalar(*db, "SELECT first_error FROM ingest_stats")
                .rfind(kRank3Name + ": corrupt gzip data: ", 0),
            0u);
  EXPECT_EQ(scalar(*db, "SELECT count(*) FROM line_note WHERE reason='read_error'"), "1");
  // The compiles that are there are the first ones of the file, in order.
  const int64_t compiles = std::stoll(scalar(*db, "SELECT count(*) FROM compiles"));
  EXPECT_GE(compiles, 2);
  EXPECT_LT(compiles, 7);
  EXPECT_EQ(scalar(*db,
                   "SELECT group_concat(program_key, ' ') FROM (SELECT program_key FROM "
                   "compiles ORDER BY ordinal LIMIT 2)"),
            "0/0 0/1");
  const int64_t bytes = std::stoll(scalar(*db, "SELECT bytes FROM ingest_stats"));
  EXPECT_GT(bytes, 0);
  EXPECT_LT(bytes, static_cast<int64_t>(text.size()));
}

TEST_F(BadInputCatalogue, TruncatedGzip) {
  // A gzip cut short (a crashed run, a partial copy): what was written before the cut is ingested,
  // the read error is recorded with the file name, and the ingest succeeds.
  const std::string text = read_file(kRank3);
  const std::string gz = testing::gzip_compress(text);
  write_file(path(kRank3Name + ".gz"), gz.substr(0, gz.size() / 2));
  RcfRun r = rcf({"ingest", "--db", "rcf.db", kRank3Name + ".gz"});
  expect_exit(r, 0);
  EXPECT_NE(r.out.find("read stopped: truncated gzip stream (unexpected end of file)"),
            std::string::npos)
      << r.out;
  auto db = open();
  EXPECT_EQ(scalar(*db, "SELECT first_error FROM ingest_stats"),
            kRank3Name + ".gz: truncated gzip stream (unexpected end of file)");
  EXPECT_EQ(scalar(*db, "SELECT count(*) FROM line_note WHERE reason='read_error'"), "1");
  const int64_t compiles = std::stoll(scalar(*db, "SELECT count(*) FROM compiles"));
  EXPECT_GE(compiles, 2);
  EXPECT_LT(compiles, 7);
  EXPECT_EQ(scalar(*db,
                   "SELECT group_concat(program_key, ' ') FROM (SELECT program_key FROM "
                   "compiles ORDER BY ordinal LIMIT 2)"),
            "0/0 0/1");
}

TEST_F(BadInputCatalogue, GzipBomb) {
  // A real log, then 4 GiB of zeros in about 4 MB (64 concatenated gzip members): reading stops
  // once the stream has inflated far more than any log compresses (past 256 MiB at over 500:1),
  // long before the 4 GiB, with the log before it ingested and memory bounded by the line cap.
  std::string bomb = testing::gzip_compress(read_file(kRank3), 9);
  const std::string zeros(64 << 20, '\0');
  const std::string zeros_gz = testing::gzip_compress(zeros, 9);
  for (int i = 0; i < 64; ++i) bomb += zeros_gz;  // concatenated members, as `cat` makes
  ASSERT_LT(bomb.size(), size_t{6} << 20);
  write_file(path(kRank3Name + ".gz"), bomb);
  RcfRun r = rcf({"ingest", "--db", "rcf.db", kRank3Name + ".gz"});
  expect_exit(r, 0);
  EXPECT_NE(r.out.find("times its compressed size"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("possible gzip bomb); stopped"), std::string::npos) << r.out;
  auto db = open();
  expect_rank3_compiles(*db);
  const int64_t bytes = std::stoll(scalar(*db, "SELECT bytes FROM ingest_stats"));
  EXPECT_GT(bytes, int64_t{256} << 20);
  EXPECT_LT(bytes, int64_t{400} << 20);
  // Bounded by the 64 MiB line cap, not by the 256 MiB inflated: the line buffer grows to the cap
  // by doubling, and the heap may keep the smaller buffers it grew from. 144 MB in six runs on the
  // project VM, once 193 MB in a full suite run (the bound was 170 MB, which that run failed).
  EXPECT_LT(r.max_rss_kb, 224 * 1024) << "peak memory while inflating the bomb";
  EXPECT_LT(r.wall_s, 30.0);
}

TEST_F(BadInputCatalogue, UnreadableFile) {
  if (!testing::can_test_permissions()) GTEST_SKIP() << "root without a `nobody` account";
  RcfOptions as_user;
  as_user.as_nobody = true;
  ASSERT_EQ(chmod(tmp_.path().c_str(), 0777), 0);
  const std::string dir = mkdir("logs");
  ASSERT_EQ(chmod(dir.c_str(), 0777), 0);
  fs::copy_file(kRank3, dir + "/" + kRank3Name);
  write_file(dir + "/secret.log", read_file(kXlaDebug));
  ASSERT_EQ(chmod((dir + "/secret.log").c_str(), 0), 0);
  ASSERT_EQ(chmod((dir + "/" + kRank3Name).c_str(), 0644), 0);

  // In a walked directory: skipped with a warning naming it, the rest ingested.
  RcfRun r = rcf({"ingest", "--db", "rcf.db", "logs"}, as_user);
  expect_exit(r, 0);
  EXPECT_NE(r.out.find("warning: skipped logs/secret.log: Permission denied"), std::string::npos)
      << r.out;
  auto db = open();
  expect_rank3_compiles(*db);
  EXPECT_EQ(scalar(*db,
                   "SELECT format || ' ' || lines FROM ingest_stats WHERE source LIKE "
                   "'%secret.log'"),
            "unreadable 0");

  // Named on the command line: exit 2 naming it, and the database is left as it was.
  const std::string before = testing::dump_tables(*db);
  db.reset();
  r = rcf({"ingest", "--db", "rcf.db", "--lane", "other", kXlaDebug, "logs/secret.log"}, as_user);
  expect_exit(r, 2);
  EXPECT_NE(r.err.find("cannot read logs/secret.log: Permission denied"), std::string::npos)
      << r.err;
  db = open();
  EXPECT_EQ(testing::dump_tables(*db), before);
}

TEST_F(BadInputCatalogue, DirectoryWithSymlinkLoops) {
  // logs/a/up -> .. (back to the top), logs/b/a -> ../a (a second way into a), logs/self -> self
  // (a link to itself, ELOOP), logs/gone -> nowhere (dangling).
  const std::string dir = mkdir("logs");
  mkdir("logs/a");
  mkdir("logs/b");
  fs::copy_file(kRank3, dir + "/a/" + kRank3Name);
  fs::copy_file(kXlaDebug, dir + "/b/pt_xla_debug.log");
  fs::create_directory_symlink("..", dir + "/a/up");
  fs::create_directory_symlink("../a", dir + "/b/a");
  fs::create_symlink("self", dir + "/self");
  fs::create_symlink("nowhere", dir + "/gone");
  RcfRun r = rcf({"ingest", "--db", "rcf.db", "logs"});
  expect_exit(r, 0);
  EXPECT_EQ(r.out.rfind("ingested 2 files (pt_xla_debug 1, torch_trace 1)", 0), 0u) << r.out;
  EXPECT_NE(r.out.find("warning: skipped logs/self: Too many levels of symbolic links"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("warning: skipped logs/gone: No such file or directory"), std::string::npos)
      << r.out;
  auto db = open();
  // Each file once, reached by its first path in sorted order.
  EXPECT_EQ(query_csv(*db, "SELECT source FROM ingest_stats ORDER BY source"),
            "source\nlogs/a/" + kRank3Name + "\nlogs/b/pt_xla_debug.log\n");
  EXPECT_EQ(query_csv(*db, "SELECT kind, count(*) AS n FROM compiles GROUP BY kind ORDER BY 1"),
            "kind,n\ndynamo,7\nxla,3\n");
}

TEST_F(BadInputCatalogue, MixedFormatsInOneDirectory) {
  // One bundle directory holding every format rcf reads plus a file it does not: each file is
  // sniffed on its own; the unknown one is counted with a warning.
  const std::string dir = mkdir("bundle");
  fs::copy_file(kRank3, dir + "/" + kRank3Name);
  fs::copy_file(kFixtures + "/dynamo/recompiles_pytorch_issue128134_dtype.txt",
                dir + "/dynamo.txt");
  fs::copy_file(kXlaDebug, dir + "/pt_xla_debug.log");
  fs::copy_file(kFixtures + "/xla_bundle/metrics.txt", dir + "/metrics.txt");
  fs::copy_file(kSavedGraph, dir + "/save_tensors.hlo.0");
  fs::copy_file(kFixtures + "/xla/jax_log_compiles_issue25768.txt", dir + "/jax.log");
  fs::copy_file(kFixtures + "/xla_bundle/steps.csv", dir + "/steps.csv");
  mkdir("bundle/xla_dump");
  for (const auto& e : fs::directory_iterator(kHloDump)) {
    if (e.path().filename().string().rfind("module_0001.", 0) == 0)
      fs::copy_file(e.path(), dir + "/xla_dump/" + e.path().filename().string());
  }
  write_file(dir + "/notes.md", "# run notes\n\nnothing to see\n");
  RcfRun r = rcf({"ingest", "--db", "rcf.db", "bundle"});
  expect_exit(r, 0);
  EXPECT_EQ(r.out.rfind("ingested 9 files (dynamo_text 1, hlo_text 1, jax_log 1, pt_xla_debug 1, "
                        "step_timing 1, torch_trace 1, unrecognized 1, xla_metrics 1, "
                        "xla_saved_graph 1)",
                        0),
            0u)
      << r.out;
  EXPECT_NE(r.out.find("warning: bundle/notes.md: not a recognised log format"), std::string::npos)
      << r.out;
  auto db = open();
  // Every format's facts arrived.
  EXPECT_EQ(scalar(*db, "SELECT count(*) FROM compiles WHERE program_key LIKE 'rank3:0/%'"), "7");
  EXPECT_EQ(scalar(*db,
                   "SELECT count(*) > 0 FROM guard_failure g JOIN source s USING "
                   "(source_id) WHERE s.path LIKE '%dynamo.txt'"),
            "1");
  EXPECT_EQ(scalar(*db,
                   "SELECT count(*) FROM compiles WHERE program_key IN "
                   "('5f0c1b2e3d4a69788796a5b4c3d2e1f0', '1c2d3e4f5a6b7c8d9e0f1a2b3c4d5e6', "
                   "'9a8b7c6d5e4f30211203f4e5d6c7b8a9')"),
            "3");
  EXPECT_EQ(scalar(*db, "SELECT count(*) > 0 FROM metric_sample"), "1");
  EXPECT_EQ(scalar(*db, "SELECT count(*) FROM saved_graph"), "1");
  EXPECT_EQ(scalar(*db, "SELECT count(*) FROM hlo_module WHERE file_name IS NOT NULL"), "1");
  EXPECT_EQ(scalar(*db, "SELECT count(*) > 0 FROM jax_compile"), "1");
  EXPECT_EQ(scalar(*db, "SELECT count(*) > 0 FROM step_timing"), "1");
  EXPECT_EQ(scalar(*db, "SELECT format FROM ingest_stats WHERE source LIKE '%notes.md'"),
            "unrecognized");
}

TEST_F(BadInputCatalogue, CrlfLineEndings) {
  // The same logs written with CRLF line endings (a Windows editor or a copy through one) give
  // the same facts: the CR is not part of any line, payload MD5s still match.
  const std::string dynamo =
      kFixtures + "/dynamo/recompiles_pytorch_issue148179_shape_multi_entry.txt";
  mkdir("lf");
  mkdir("crlf");
  for (const std::string& source : {kRank3, dynamo}) {
    const std::string name = fs::path(source).filename().string();
    const std::string text = read_file(source);
    write_file(path("lf/" + name), text);
    write_file(path("crlf/" + name), replace_all(text, "\n", "\r\n"));
  }
  expect_exit(rcf({"ingest", "--db", "lf.db", "lf"}), 0);
  RcfRun r = rcf({"ingest", "--db", "crlf.db", "crlf"});
  expect_exit(r, 0);
  EXPECT_NE(r.out.find(" 0 rejected lines"), std::string::npos) << r.out;
  auto lf = open("lf.db");
  auto crlf = open("crlf.db");
  const std::string views =
      "SELECT ordinal, step, site, program_key, kind, cause_reported, compile_ms FROM compiles "
      "ORDER BY ordinal";
  EXPECT_EQ(query_csv(*crlf, views), query_csv(*lf, views));
  const std::string causes =
      "SELECT ordinal, program_key, prev_program_key, cause, detail, confidence, "
      "replace(evidence, 'crlf/', 'lf/') AS evidence FROM recompiles ORDER BY ordinal";
  EXPECT_EQ(query_csv(*crlf, causes), query_csv(*lf, causes));
  EXPECT_GE(std::stoll(scalar(*crlf, "SELECT count(*) FROM recompiles")), 8);
  const std::string notes_sql =
      "SELECT replace(s.path, 'crlf/', 'lf/') AS path, n.fate, n.reason, n.count, n.first_line "
      "FROM line_note n JOIN source s USING (source_id) ORDER BY 1, 2, 3";
  EXPECT_EQ(query_csv(*crlf, notes_sql), query_csv(*lf, notes_sql));
  EXPECT_EQ(scalar(*crlf, "SELECT count(*) FROM line_note WHERE reason LIKE '%md5%'"), "0");
}

TEST_F(BadInputCatalogue, InterleavedRanks) {
  // Three ranks of one torchrun job write to one stream: their recompile blocks interleave line
  // by line. Each rank's compiles stay apart (keys prefixed rankN:) with their own reasons.
  std::vector<std::vector<std::string>> per_rank(3);
  for (int rank = 0; rank < 3; ++rank) {
    for (int c = 1; c <= 4; ++c) {
      const std::string prefix = "[rank" + std::to_string(rank) + "]:V0616 10:01:38." +
                                 std::to_string(100000 + c) + " " + std::to_string(5000 + rank) +
                                 " torch/_dynamo/guards.py:3006] [0/" + std::to_string(c) +
                                 "] [__recompiles] ";
      const int size = 2 + c + 10 * rank;  // each rank its own batch sizes
      per_rank[rank].push_back(prefix + "Recompiling function forward in /w/model.py:10");
      per_rank[rank].push_back(prefix + "    triggered by the following guard failure(s):");
      per_rank[rank].push_back(prefix + "    - 0/" + std::to_string(c - 1) +
                               ": tensor 'x' size mismatch at index 0. expected " +
                               std::to_string(size - 1) + ", actual " + std::to_string(size));
    }
  }
  std::string log;
  for (size_t i = 0; i < per_rank[0].size(); ++i)
    for (int rank = 0; rank < 3; ++rank) log += per_rank[rank][i] + "\n";
  write_file(path("torchrun.log"), log);
  RcfRun r = rcf({"ingest", "--db", "rcf.db", "torchrun.log"});
  expect_exit(r, 0);
  auto db = open();
  EXPECT_EQ(query_csv(*db,
                      "SELECT program_key, prev_program_key, cause, detail FROM recompiles "
                      "WHERE program_key LIKE 'rank1:%' ORDER BY ordinal"),
            "program_key,prev_program_key,cause,detail\n"
            "rank1:0/1,rank1:0/0,shape,tensor 'x' dim 0: 12 -> 13\n"
            "rank1:0/2,rank1:0/1,shape,tensor 'x' dim 0: 13 -> 14\n"
            "rank1:0/3,rank1:0/2,shape,tensor 'x' dim 0: 14 -> 15\n"
            "rank1:0/4,rank1:0/3,shape,tensor 'x' dim 0: 15 -> 16\n");
  EXPECT_EQ(query_csv(*db,
                      "SELECT substr(program_key, 1, 5) AS rank, count(*) AS n FROM "
                      "recompiles GROUP BY 1 ORDER BY 1"),
            "rank,n\nrank0,4\nrank1,4\nrank2,4\n");
  // The only note: each rank's last block is still open at the end of the file, which may have
  // been cut there (warned, not rejected: the block is used).
  EXPECT_EQ(query_csv(*db, "SELECT fate, reason, count, first_line FROM line_note"),
            "fate,reason,count,first_line\nwarning,truncated_block,3,28\n");
}

TEST_F(BadInputCatalogue, DatabaseOfANewerSchemaVersion) {
  ASSERT_EQ(rcf({"ingest", "--db", "rcf.db", kRank3}).rc, 0);
  sqlite3* h = nullptr;
  ASSERT_EQ(sqlite3_open(path("rcf.db").c_str(), &h), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(h, "UPDATE schema_info SET value='99' WHERE key='schema_version'", nullptr,
                         nullptr, nullptr),
            SQLITE_OK);
  sqlite3_close(h);
  auto raw_dump = [&] {
    store::Database raw(path("rcf.db"), store::Database::Mode::kReadOnly);  // no version check
    return testing::dump_tables(raw, {});
  };
  const std::string before = raw_dump();
  // Every command refuses it with the same message, and nothing is written into it.
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"ingest", "--db", "rcf.db", kXlaDebug},
        {"explain", "--db", "rcf.db"},
        {"report", "--db", "rcf.db", "--format", "md"},
        {"gate", "--db", "rcf.db", "--max-programs", "100"}}) {
    RcfRun r = rcf(args);
    expect_exit(r, 2);
    EXPECT_NE(r.err.find("database rcf.db has schema version 99, this rcf reads version "),
              std::string::npos)
        << args[0] << ": " << r.err;
    EXPECT_NE(r.err.find("written by a newer rcf: upgrade rcf"), std::string::npos) << r.err;
    EXPECT_EQ(r.out, "") << args[0];
  }
  EXPECT_EQ(raw_dump(), before);
}

TEST_F(BadInputCatalogue, ReadOnlyDatabasePath) {
  if (!testing::can_test_permissions()) GTEST_SKIP() << "root without a `nobody` account";
  RcfOptions as_user;
  as_user.as_nobody = true;
  ASSERT_EQ(chmod(tmp_.path().c_str(), 0777), 0);
  // A database written earlier, then made read-only (an archived CI artifact).
  const std::string dir = mkdir("archive");
  ASSERT_EQ(chmod(dir.c_str(), 0777), 0);
  expect_exit(rcf({"ingest", "--db", "archive/rcf.db", kRank3}, as_user), 0);
  auto dump = [&] {
    store::Database raw(path("archive/rcf.db"), store::Database::Mode::kReadOnly);
    return testing::dump_tables(raw, {});
  };
  const std::string before = dump();
  ASSERT_EQ(chmod(path("archive/rcf.db").c_str(), 0444), 0);

  // Ingesting into it: exit 2 naming it, nothing changed.
  RcfRun r = rcf({"ingest", "--db", "archive/rcf.db", kXlaDebug}, as_user);
  expect_exit(r, 2);
  EXPECT_NE(r.err.find("database archive/rcf.db is not writable"), std::string::npos) << r.err;
  EXPECT_EQ(dump(), before);
  // Reading it still works, also once its directory is read-only too (a mounted artifact).
  r = rcf({"explain", "--db", "archive/rcf.db"}, as_user);
  expect_exit(r, 0);
  EXPECT_NE(r.out.find("7 compiles, 6 recompiles"), std::string::npos) << r.out;
  // Readers leave an empty -wal and the -shm behind; without them (an artifact copied alone) a
  // reader in a read-only directory cannot create the -shm it needs: it reads the file immutable.
  if (fs::exists(path("archive/rcf.db-wal"))) {
    ASSERT_EQ(fs::file_size(path("archive/rcf.db-wal")), 0u);
    fs::remove(path("archive/rcf.db-wal"));
  }
  fs::remove(path("archive/rcf.db-shm"));
  ASSERT_EQ(chmod(dir.c_str(), 0555), 0);
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"explain", "--db", "archive/rcf.db"},
        {"report", "--db", "archive/rcf.db", "--format", "json"}}) {
    r = rcf(args, as_user);
    expect_exit(r, 0);
    EXPECT_NE(r.out.find(args[0] == "explain" ? "7 compiles, 6 recompiles" : "\"compiles\": 7"),
              std::string::npos)
        << r.out.substr(0, 500);
  }
  EXPECT_FALSE(fs::exists(path("archive/rcf.db-shm")));
  r = rcf({"ingest", "--db", "archive/new.db", kXlaDebug}, as_user);
  expect_exit(r, 2);
  EXPECT_NE(r.err.find("archive/new.db"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(path("archive/new.db")));
  EXPECT_EQ(dump(), before);
  // A database path in a directory that does not exist.
  r = rcf({"ingest", "--db", "no/such/dir/rcf.db", kXlaDebug});
  expect_exit(r, 2);
  EXPECT_NE(r.err.find("no/such/dir/rcf.db"), std::string::npos) << r.err;
  ASSERT_EQ(chmod(dir.c_str(), 0755), 0);  // so that TempDir can remove it
}

}  // namespace bad_input_catalogue_test
}  // namespace rcf
