// `rcf watch` (docs/watch.md): real logs appended in chunks that cut lines, read by a watch
// session after each chunk. The alerts must be the run's recompiles, limit hits and graph breaks
// once each, with the causes a one-shot ingest gives, and the store the watch leaves must equal a
// one-shot `rcf ingest` of the same files. Also: files that appear later, a rotated log, a
// partial last line, a growing gzip file, the alert rules on rows, and the command end to end.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <thread>

#include "ingest/reading/byte_source.h"
#include "pipeline/watch_session.h"
#include "pipeline/watched_files.h"
#include "report/watch_output.h"
#include "tests/support/db_dump.h"
#include "tests/support/ingested_store.h"
#include "tests/support/rcf_process.h"
#include "tests/support/temp_files.h"
#include "tests/support/test_paths.h"

namespace watch_test {

namespace fs = std::filesystem;
using rcf::analysis::Alert;
using rcf::analysis::AlertKind;
using rcf::pipeline::WatchRequest;
using rcf::pipeline::WatchSession;
using rcf::testing::fixture_path;
using rcf::testing::TempDir;

// The decompressed bytes of a fixture (plain or gzip).
std::string fixture_text(const std::string& relative) {
  std::string error;
  auto source = rcf::ingest::open_byte_source(fixture_path(relative), {}, &error);
  EXPECT_TRUE(source) << error;
  std::string text;
  char buf[65536];
  for (int64_t got; source && (got = source->read(buf, sizeof buf)) > 0;) text.append(buf, got);
  return text;
}

// One log of a watched run: the name it gets in the watched directory and its whole content.
struct Log {
  std::string name;
  std::string text;
};

// Appends every log in `chunks` pieces cut at byte positions that fall inside lines, reading
// with `session` after each piece, then ends the watch; returns every alert in order.
std::vector<Alert> watch_appending(WatchSession& session, const std::string& dir,
                                   const std::vector<Log>& logs, int chunks) {
  std::vector<Alert> alerts;
  auto take = [&](rcf::pipeline::WatchRound round) {
    for (auto& a : round.alerts) alerts.push_back(std::move(a));
  };
  take(session.poll(false, true));  // nothing there yet
  std::vector<std::ofstream> files;
  for (const auto& log : logs) files.emplace_back(dir + "/" + log.name, std::ios::binary);
  for (int i = 0; i < chunks; ++i) {
    for (size_t f = 0; f < logs.size(); ++f) {
      const std::string& t = logs[f].text;
      // 7919 is prime: the cuts land at arbitrary places inside lines.
      size_t from = t.size() * i / chunks + (i ? 7919 % 97 : 0);
      size_t to = i + 1 == chunks ? t.size() : t.size() * (i + 1) / chunks + 7919 % 97;
      from = std::min(from, t.size());
      to = std::min(to, t.size());
      files[f].write(t.data() + from, static_cast<std::streamsize>(to - from));
      files[f].flush();
    }
    take(session.poll(false, true));
  }
  files.clear();
  take(session.poll(true, true));
  return alerts;
}

std::vector<std::string> alert_causes(const std::vector<Alert>& alerts, AlertKind kind) {
  std::vector<std::string> causes;
  for (const auto& a : alerts)
    if (a.kind == kind) causes.push_back(a.cause);
  return causes;
}

// What must be equal between the store a watch left and a one-shot ingest of the same files.
const std::vector<std::string> kSameQueries = {
    "SELECT path, format, lines, bytes, events, rejected, skipped FROM source ORDER BY path",
    "SELECT ordinal, step, site, program_key, kind, cause_reported, compile_ms, cache FROM compiles",
    "SELECT ordinal, step, site, program_key, cause, detail, confidence FROM recompiles",
    "SELECT s.path, fate, reason, count, first_line FROM line_note n JOIN source s USING "
    "(source_id) ORDER BY 1, 2, 3",
    "SELECT source, line, limit_type, function, last_reason FROM recompile_limit_hits ORDER BY 1, 2",
    "SELECT source, line, gb_type, reason FROM graph_breaks ORDER BY 1, 2",
    "SELECT state, settle_step, compiles, programs, recompiles, step_axis FROM convergence_summary",
};

struct WatchCase {
  const char* name;
  std::vector<std::pair<const char*, const char*>> logs;  // fixture, name in the watched dir
};

class WatchAppendTest : public ::testing::TestWithParam<WatchCase> {};

TEST_P(WatchAppendTest, AlertsOnceEachAndLeavesTheOneShotStore) {
  TempDir dir;
  fs::create_directories(dir.file("logs"));
  std::vector<Log> logs;
  for (const auto& [fixture, name] : GetParam().logs) logs.push_back({name, fixture_text(fixture)});
  WatchRequest request;
  request.db_path = dir.file("watch.db");
  request.paths = {dir.file("logs")};
  WatchSession session(request);
  std::vector<Alert> alerts = watch_appending(session, dir.file("logs"), logs, 7);

  rcf::testing::ingest_logs(dir.file("once.db"), {dir.file("logs")});
  auto watched = rcf::testing::read_store(dir.file("watch.db"));
  auto once = rcf::testing::read_store(dir.file("once.db"));
  for (const auto& q : kSameQueries)
    EXPECT_EQ(rcf::testing::query_csv(*watched, q), rcf::testing::query_csv(*once, q)) << q;

  // Each recompile once, with its cause, in the run's order; each limit hit once; each distinct
  // graph break once.
  std::vector<std::string> causes =
      rcf::testing::column(*once, "SELECT cause FROM recompiles ORDER BY ordinal");
  std::vector<std::string> alerted = alert_causes(alerts, AlertKind::kRecompile);
  std::vector<std::string> sorted_causes = causes, sorted_alerted = alerted;
  std::sort(sorted_causes.begin(), sorted_causes.end());
  std::sort(sorted_alerted.begin(), sorted_alerted.end());
  EXPECT_EQ(sorted_alerted, sorted_causes);
  if (GetParam().logs.size() == 1) EXPECT_EQ(alerted, causes);
  EXPECT_EQ(alert_causes(alerts, AlertKind::kLimitHit).size(),
            std::stoul(rcf::testing::scalar(*once, "SELECT count(*) FROM recompile_limit_hits")));
  EXPECT_EQ(alert_causes(alerts, AlertKind::kGraphBreak).size(),
            std::stoul(rcf::testing::scalar(
                *once,
                "SELECT count(*) FROM (SELECT DISTINCT gb_type, user_file, user_line, "
                "user_function, reason FROM graph_breaks)")));
  EXPECT_FALSE(causes.empty() && alerts.empty()) << "the case shows nothing to alert on";
}

INSTANTIATE_TEST_SUITE_P(
    RealLogs, WatchAppendTest,
    ::testing::Values(
        WatchCase{"console_constants",
                  {{"real_runs/constant_counter/run1/stderr.log", "train.log"}}},
        WatchCase{"console_breaks_and_causes",
                  {{"real_runs/item_sync_list_append/run1/stderr.log", "train.log"}}},
        WatchCase{"trace_and_console_of_one_process",
                  {{"real_runs/recompile_limit/run1/logs/torch_trace/"
                    "dedicated_log_torch_trace_u3ed5hot.log.gz",
                    "dedicated_log_torch_trace_u3ed5hot.log"},
                   {"real_runs/recompile_limit/run1/stderr.log", "stderr.log"}}},
        WatchCase{"trace_alone",
                  {{"real_runs/growing_seq_len/run1/logs/torch_trace/"
                    "dedicated_log_torch_trace_tnem_w1p.log.gz",
                    "trace.log"}}},
        WatchCase{"pt_xla_debug", {{"xla/pt_xla_debug_issue6614.txt", "xla_debug.log"}}},
        WatchCase{"jax_shapes", {{"real_runs/jax_shape_change/run1/stderr.log", "jax.log"}}},
        WatchCase{"jax_static_args", {{"real_runs/jax_static_arg/run1/stderr.log", "jax.log"}}}),
    [](const ::testing::TestParamInfo<WatchCase>& info) { return std::string(info.param.name); });

}  // namespace watch_test
