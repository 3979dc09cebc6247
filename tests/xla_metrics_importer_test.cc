// torch_xla metrics importer: value parsers (every form of docs/xla_metrics.md, Values),
// exact samples and line fates for every fixtures/xla/metrics_* file, and synthetic cases (two
// sorted runs, repeated reports, cut blocks, CRLF, malformed values, sniffing).
//
// The fixture expectations below were produced by an independent Python/regex reading of the
// files (the time regex of docs/xla_metrics.md, Values; base-1024 bytes) and checked by hand
// against the text.
#include "ingest/xla/xla_metrics_importer.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "ingest/xla/xla_metric_value.h"
#include "tests/support/importer_test.h"

namespace rcf::ingest {
namespace xla_metrics_importer_test {

using namespace rcf::testing;  // tests/support/importer_test.h

CollectingSink run(std::string_view text) {
  return rcf::testing::run_importer("xla_metrics", text);
}

std::string fixture(const std::string& name) {
  return rcf::testing::read_fixture("xla/" + name);
}

// "r<report> s<step|-> L<line> <name> <kind> <field> <value> <unit>"; times in whole ns.
std::string render(const MetricSample& s) {
  char value[64];
  if (s.unit == "ns" || s.unit == "ns/s")
    std::snprintf(value, sizeof value, "%lld", static_cast<long long>(std::llround(s.value)));
  else
    std::snprintf(value, sizeof value, "%.9g", s.value);
  std::string out = "r" + std::to_string(s.report_index) + " s" +
                    (s.step ? std::to_string(*s.step) : "-") + " L" + std::to_string(s.line) + " " +
                    s.name + " " + s.kind + " " + s.field + " " + value;
  if (!s.unit.empty()) out += " " + s.unit;
  return out;
}

Strings rendered(const CollectingSink& sink) {
  Strings out;
  for (const auto& s : sink.all<MetricSample>()) out.push_back(render(s));
  return out;
}

// Checks that no line got two kSkipped/kRejected notes and that notes name real lines.
void expect_one_fate_per_line(const CollectingSink& sink) {
  std::set<int64_t> noted;
  for (const auto& n : sink.notes) {
    EXPECT_GE(n.line, 1);
    if (n.fate == LineFate::kWarning) continue;
    EXPECT_TRUE(noted.insert(n.line).second) << "line " << n.line << " noted twice";
  }
}

std::vector<std::optional<int64_t>> marker_steps(const CollectingSink& sink) {
  std::vector<std::optional<int64_t>> out;
  for (const auto& m : sink.all<StepMarker>()) {
    EXPECT_EQ(m.origin, "metrics_file");
    out.push_back(m.step);
  }
  return out;
}

// ---- Value parsers ----------------------------------------------------------------------------

TEST(XlaMetricsValue, TimeForms) {
  EXPECT_DOUBLE_EQ(*parse_metric_time_ns("013.884us"), 13884);
  EXPECT_DOUBLE_EQ(*parse_metric_time_ns("000.000us"), 0);
  EXPECT_DOUBLE_EQ(*parse_metric_time_ns("095ms182.874us"), 95182874);
  EXPECT_DOUBLE_EQ(*parse_metric_time_ns("08s849ms784.283us"), 8849784283);
  EXPECT_NEAR(*parse_metric_time_ns("06m15s551ms654.655us"), 375551654655.0, 0.5);
  EXPECT_NEAR(*parse_metric_time_ns("01h00m00s000ms000.001us"), 3600e9 + 1, 0.5);
  EXPECT_NEAR(*parse_metric_time_ns("1d02h03m04s005ms006.007us"),
              86400e9 + 2 * 3600e9 + 3 * 60e9 + 4e9 + 5e6 + 6007, 0.5);
  // Forms the regex allows though MetricFnTime never prints them.
  EXPECT_DOUBLE_EQ(*parse_metric_time_ns("5s"), 5e9);
  EXPECT_DOUBLE_EQ(*parse_metric_time_ns("2m"), 120e9);
  EXPECT_DOUBLE_EQ(*parse_metric_time_ns("3ms"), 3e6);
  EXPECT_DOUBLE_EQ(*parse_metric_time_ns("100d"), 100 * 86400e9);
  EXPECT_DOUBLE_EQ(*parse_metric_time_ns("7us"), 7000);
}

TEST(XlaMetricsValue, TimeRejectsMalformed) {
  for (const char* bad : {"",       "us",    "12",   "12.5", "1.5s",  "1.5ms", "5x",   "015ms03s",
                          "1s1s",   "1ms2m", "-1us", "1 us", "1us ",  " 1us",  "1.us", ".5us",
                          "1..5us", "12us3", "1sms", "1S",   "nanus", "infus", "1e3us"})
    EXPECT_FALSE(parse_metric_time_ns(bad).has_value()) << bad;
}

TEST(XlaMetricsValue, Bytes) {
  EXPECT_DOUBLE_EQ(*parse_metric_bytes("0.00B"), 0);
  EXPECT_DOUBLE_EQ(*parse_metric_bytes("512.00B"), 512);
  EXPECT_DOUBLE_EQ(*parse_metric_bytes("1.50KB"), 1536);
  EXPECT_DOUBLE_EQ(*parse_metric_bytes("2.00MB"), 2.0 * 1024 * 1024);
  EXPECT_DOUBLE_EQ(*parse_metric_bytes("3.25GB"), 3.25 * 1024 * 1024 * 1024);
  EXPECT_DOUBLE_EQ(*parse_metric_bytes("1.00TB"), std::pow(1024.0, 4));
  EXPECT_DOUBLE_EQ(*parse_metric_bytes("2048.00PB"), 2048 * std::pow(1024.0, 5));
  for (const char* bad :
       {"", "B", "KB", "1.5", "1.50kB", "1.50 KB", "1.50XB", "-1.00KB", "1.50KBB", "1.50EB", ".5B"})
    EXPECT_FALSE(parse_metric_bytes(bad).has_value()) << bad;
}

TEST(XlaMetricsValue, PlainAndFloat) {
  EXPECT_DOUBLE_EQ(*parse_metric_plain("792.00"), 792);
  EXPECT_DOUBLE_EQ(*parse_metric_plain("5.00"), 5);
  EXPECT_DOUBLE_EQ(*parse_metric_plain("-1.25"), -1.25);
  EXPECT_DOUBLE_EQ(*parse_metric_plain("0"), 0);
  for (const char* bad : {"", "-", "1.", ".5", "1e3", "nan", "inf", "1.2.3", "1,5", "+1", " 1"})
    EXPECT_FALSE(parse_metric_plain(bad).has_value()) << bad;
  EXPECT_DOUBLE_EQ(*parse_metric_float("0.211497"), 0.211497);
  EXPECT_DOUBLE_EQ(*parse_metric_float("466.654"), 466.654);
  EXPECT_DOUBLE_EQ(*parse_metric_float("0.00798109"), 0.00798109);
  EXPECT_DOUBLE_EQ(*parse_metric_float("1.5e-05"), 1.5e-05);
  EXPECT_DOUBLE_EQ(*parse_metric_float("123457"), 123457);
  for (const char* bad : {"", "inf", "nan", "-inf", ".5", "1.5e", "0x10", "1 ", "abc"})
    EXPECT_FALSE(parse_metric_float(bad).has_value()) << bad;
}

TEST(XlaMetricsValue, KindBySuffix) {
  auto time = parse_metric_value("013.884us");
  ASSERT_TRUE(time);
  EXPECT_EQ(time->unit, "ns");
  auto bytes = parse_metric_value("1.50KB");
  ASSERT_TRUE(bytes);
  EXPECT_EQ(bytes->unit, "bytes");
  EXPECT_DOUBLE_EQ(bytes->value, 1536);
  auto plain = parse_metric_value("792.00");
  ASSERT_TRUE(plain);
  EXPECT_EQ(plain->unit, "");
  for (const char* bad : {"", "1.5XB", "12zz", "abc", "1.5.us"})
    EXPECT_FALSE(parse_metric_value(bad).has_value()) << bad;
}

// ---- Fixtures ---------------------------------------------------------------------------------

TEST(XlaMetricsFixtures, MetricsFileIssue2511) {
  auto sink = run(fixture("metrics_file_issue2511.txt"));
  EXPECT_EQ(rendered(sink), (Strings{
                                "r0 s4 L3 CompileTime metric TotalSamples 4",
                                "r0 s4 L4 CompileTime metric Accumulator 8849784283 ns",
                                "r0 s4 L5 CompileTime metric ValueRate 415999549 ns/s",
                                "r0 s4 L6 CompileTime metric Rate 0.211497 1/s",
                                "r0 s4 L7 CompileTime metric P1 16372081 ns",
                                "r0 s4 L7 CompileTime metric P5 16372081 ns",
                                "r0 s4 L7 CompileTime metric P10 16372081 ns",
                                "r0 s4 L7 CompileTime metric P20 16372081 ns",
                                "r0 s4 L7 CompileTime metric P50 4588508900 ns",
                                "r0 s4 L7 CompileTime metric P80 4670368276 ns",
                                "r0 s4 L7 CompileTime metric P90 4670368276 ns",
                                "r0 s4 L7 CompileTime metric P95 4670368276 ns",
                                "r0 s4 L7 CompileTime metric P99 4670368276 ns",
                                "r0 s4 L9 ExecuteTime metric TotalSamples 6",
                                "r0 s4 L10 ExecuteTime metric Accumulator 141248232 ns",
                                "r0 s4 L11 ExecuteTime metric ValueRate 7473520 ns/s",
                                "r0 s4 L12 ExecuteTime metric Rate 0.317463 1/s",
                                "r0 s4 L13 ExecuteTime metric P1 15431172 ns",
                                "r0 s4 L13 ExecuteTime metric P5 15431172 ns",
                                "r0 s4 L13 ExecuteTime metric P10 15431172 ns",
                                "r0 s4 L13 ExecuteTime metric P20 18932291 ns",
                                "r0 s4 L13 ExecuteTime metric P50 22528131 ns",
                                "r0 s4 L13 ExecuteTime metric P80 32561932 ns",
                                "r0 s4 L13 ExecuteTime metric P90 34668513 ns",
                                "r0 s4 L13 ExecuteTime metric P95 34668513 ns",
                                "r0 s4 L13 ExecuteTime metric P99 34668513 ns",
                                "r0 s4 L15 CachedCompile counter Value 2",
                                "r1 s5 L19 CompileTime metric TotalSamples 500",
                            }));
  EXPECT_EQ(marker_steps(sink), (std::vector<std::optional<int64_t>>{4, 5}));
  EXPECT_EQ(sink.all<StepMarker>()[0].line, 1);
  EXPECT_EQ(sink.all<StepMarker>()[1].line, 17);
  // The second block is cut after TotalSamples.
  EXPECT_EQ(sink.note_counts(), (Notes{{"skipped:blank", 1}, {"warning:truncated_block", 1}}));
  EXPECT_EQ(sink.notes.back().line, 18);
  expect_one_fate_per_line(sink);
  // Recompiles per step: CompileTime TotalSamples 4 at step 4, 500 at step 5.
  std::map<int64_t, double> compiles;
  for (const auto& s : sink.all<MetricSample>())
    if (s.name == "CompileTime" && s.field == "TotalSamples") compiles[*s.step] = s.value;
  EXPECT_EQ(compiles, (std::map<int64_t, double>{{4, 4}, {5, 500}}));
}

TEST(XlaMetricsFixtures, MetricsReportIssue2296StartsMidReport) {
  auto sink = run(fixture("metrics_report_issue2296.txt"));
  EXPECT_EQ(rendered(sink),
            (Strings{
                "r0 s- L2 TransferToServerTransformTime metric TotalSamples 269",
                "r0 s- L3 TransferToServerTransformTime metric Accumulator 133717338 ns",
                "r0 s- L4 TransferToServerTransformTime metric ValueRate 230234633 ns/s",
                "r0 s- L5 TransferToServerTransformTime metric Rate 466.654 1/s",
                "r0 s- L6 TransferToServerTransformTime metric P1 23548 ns",
                "r0 s- L6 TransferToServerTransformTime metric P5 35217 ns",
                "r0 s- L6 TransferToServerTransformTime metric P10 66350 ns",
                "r0 s- L6 TransferToServerTransformTime metric P20 96251 ns",
                "r0 s- L6 TransferToServerTransformTime metric P50 175798 ns",
                "r0 s- L6 TransferToServerTransformTime metric P80 218951 ns",
                "r0 s- L6 TransferToServerTransformTime metric P90 440023 ns",
                "r0 s- L6 TransferToServerTransformTime metric P95 987172 ns",
                "r0 s- L6 TransferToServerTransformTime metric P99 12865774 ns",
                "r0 s- L8 CreateCompileHandles counter Value 10",
                "r0 s- L10 CreateDataHandles counter Value 279",
                "r0 s- L12 CreateXlaTensor counter Value 4454",
                "r0 s- L14 DestroyDataHandles counter Value 9",
                "r0 s- L16 DestroyXlaTensor counter Value 3918",
                "r0 s- L18 ReleaseDataHandles counter Value 9",
                "r0 s- L20 UncachedCompile counter Value 10",
                "r0 s- L22 XRTAllocateFromTensor_Empty counter Value 30",
                "r0 s- L24 XrtCompile_Empty counter Value 16",
                "r0 s- L26 XrtExecuteChained_Empty counter Value 16",
                "r0 s- L28 XrtExecute_Empty counter Value 16",
                "r0 s- L30 XrtMemoryInfo_Empty counter Value 16",
                "r0 s- L32 XrtRead_Empty counter Value 16",
                "r0 s- L34 XrtReleaseAllocationHandle_Empty counter Value 16",
                "r0 s- L36 XrtReleaseCompileHandle_Empty counter Value 16",
                "r0 s- L38 XrtSessionCount counter Value 2",
                "r0 s- L40 XrtSubTuple_Empty counter Value 16",
            }));
  EXPECT_TRUE(sink.all<StepMarker>().empty());
  EXPECT_EQ(sink.note_counts(), Notes{});
}

TEST(XlaMetricsFixtures, MetricsReportIssue2757CutBeforePercentiles) {
  auto sink = run(fixture("metrics_report_issue2757.txt"));
  EXPECT_EQ(rendered(sink), (Strings{
                                "r0 s- L2 CompileTime metric TotalSamples 2",
                                "r0 s- L3 CompileTime metric Accumulator 95182874 ns",
                                "r0 s- L4 CompileTime metric ValueRate 6859261 ns/s",
                                "r0 s- L5 CompileTime metric Rate 0.123116 1/s",
                                "r0 s- L6 CompileTime metric P1 34096803 ns",
                                "r0 s- L6 CompileTime metric P5 34096803 ns",
                                "r0 s- L6 CompileTime metric P10 34096803 ns",
                                "r0 s- L6 CompileTime metric P20 34096803 ns",
                                "r0 s- L6 CompileTime metric P50 61086071 ns",
                                "r0 s- L6 CompileTime metric P80 61086071 ns",
                                "r0 s- L6 CompileTime metric P90 61086071 ns",
                                "r0 s- L6 CompileTime metric P95 61086071 ns",
                                "r0 s- L6 CompileTime metric P99 61086071 ns",
                                "r0 s- L8 DeviceLockWait metric TotalSamples 2",
                                "r0 s- L9 DeviceLockWait metric Accumulator 13884 ns",
                                "r0 s- L10 DeviceLockWait metric ValueRate 843 ns/s",
                                "r0 s- L11 DeviceLockWait metric Rate 0.121458 1/s",
                                "r0 s- L12 DeviceLockWait metric P1 6416 ns",
                                "r0 s- L12 DeviceLockWait metric P5 6416 ns",
                                "r0 s- L12 DeviceLockWait metric P10 6416 ns",
                                "r0 s- L12 DeviceLockWait metric P20 6416 ns",
                                "r0 s- L12 DeviceLockWait metric P50 7468 ns",
                                "r0 s- L12 DeviceLockWait metric P80 7468 ns",
                                "r0 s- L12 DeviceLockWait metric P90 7468 ns",
                                "r0 s- L12 DeviceLockWait metric P95 7468 ns",
                                "r0 s- L12 DeviceLockWait metric P99 7468 ns",
                                "r0 s- L14 ExecuteTime metric TotalSamples 2",
                                "r0 s- L15 ExecuteTime metric Accumulator 54544227 ns",
                                "r0 s- L16 ExecuteTime metric ValueRate 3295349 ns/s",
                                "r0 s- L17 ExecuteTime metric Rate 0.123089 1/s",
                                "r0 s- L18 ExecuteTime metric P1 20618221 ns",
                                "r0 s- L18 ExecuteTime metric P5 20618221 ns",
                                "r0 s- L18 ExecuteTime metric P10 20618221 ns",
                                "r0 s- L18 ExecuteTime metric P20 20618221 ns",
                                "r0 s- L18 ExecuteTime metric P50 34926006 ns",
                                "r0 s- L18 ExecuteTime metric P80 34926006 ns",
                                "r0 s- L18 ExecuteTime metric P90 34926006 ns",
                                "r0 s- L18 ExecuteTime metric P95 34926006 ns",
                                "r0 s- L18 ExecuteTime metric P99 34926006 ns",
                                "r0 s- L20 InputOutputAliasCount metric TotalSamples 2",
                                "r0 s- L21 InputOutputAliasCount metric Accumulator 792",
                                "r0 s- L22 InputOutputAliasCount metric ValueRate 48.58 1/s",
                                "r0 s- L23 InputOutputAliasCount metric Rate 0.122688 1/s",
                                "r0 s- L24 InputOutputAliasCount metric P1 5",
                                "r0 s- L24 InputOutputAliasCount metric P5 5",
                                "r0 s- L24 InputOutputAliasCount metric P10 5",
                                "r0 s- L24 InputOutputAliasCount metric P20 5",
                                "r0 s- L24 InputOutputAliasCount metric P50 787",
                                "r0 s- L24 InputOutputAliasCount metric P80 787",
                                "r0 s- L24 InputOutputAliasCount metric P90 787",
                                "r0 s- L24 InputOutputAliasCount metric P95 787",
                                "r0 s- L24 InputOutputAliasCount metric P99 787",
                                "r0 s- L26 IrValueTensorToXlaData metric TotalSamples 1046",
                                "r0 s- L27 IrValueTensorToXlaData metric Accumulator 9190378578 ns",
                                "r0 s- L28 IrValueTensorToXlaData metric ValueRate 142861854 ns/s",
                                "r0 s- L29 IrValueTensorToXlaData metric Rate 16.0037 1/s",
                            }));
  EXPECT_EQ(sink.note_counts(), (Notes{{"warning:truncated_block", 1}}));
  EXPECT_EQ(sink.notes[0].line, 25);  // Metric: IrValueTensorToXlaData
  EXPECT_EQ(sink.notes[0].excerpt, "IrValueTensorToXlaData");
}

TEST(XlaMetricsFixtures, MetricsReportIssue6614SlowCompile) {
  auto sink = run(fixture("metrics_report_issue6614.txt"));
  EXPECT_EQ(rendered(sink), (Strings{
                                "r0 s- L2 CompileTime metric TotalSamples 3",
                                "r0 s- L3 CompileTime metric Accumulator 375595691023 ns",
                                "r0 s- L4 CompileTime metric ValueRate 997558600 ns/s",
                                "r0 s- L5 CompileTime metric Rate 0.00798109 1/s",
                                "r0 s- L6 CompileTime metric P1 21656289 ns",
                                "r0 s- L6 CompileTime metric P5 21656289 ns",
                                "r0 s- L6 CompileTime metric P10 21656289 ns",
                                "r0 s- L6 CompileTime metric P20 21656289 ns",
                                "r0 s- L6 CompileTime metric P50 23380079 ns",
                                "r0 s- L6 CompileTime metric P80 375551654655 ns",
                                "r0 s- L6 CompileTime metric P90 375551654655 ns",
                                "r0 s- L6 CompileTime metric P95 375551654655 ns",
                                "r0 s- L6 CompileTime metric P99 375551654655 ns",
                                "r0 s- L8 ExecuteTime metric TotalSamples 2",
                                "r0 s- L9 ExecuteTime metric Accumulator 2691109 ns",
                                "r0 s- L10 ExecuteTime metric ValueRate 65481359 ns/s",
                                "r0 s- L11 ExecuteTime metric Rate 77.4419 1/s",
                                "r0 s- L12 ExecuteTime metric P1 712389 ns",
                                "r0 s- L12 ExecuteTime metric P5 712389 ns",
                                "r0 s- L12 ExecuteTime metric P10 712389 ns",
                                "r0 s- L12 ExecuteTime metric P20 712389 ns",
                                "r0 s- L12 ExecuteTime metric P50 978720 ns",
                                "r0 s- L12 ExecuteTime metric P80 978720 ns",
                                "r0 s- L12 ExecuteTime metric P90 978720 ns",
                                "r0 s- L12 ExecuteTime metric P95 978720 ns",
                                "r0 s- L12 ExecuteTime metric P99 978720 ns",
                                "r0 s- L14 TransferFromServerTime metric TotalSamples 2",
                                "r0 s- L15 TransferFromServerTime metric Accumulator 1451580 ns",
                                "r0 s- L16 TransferFromServerTime metric ValueRate 56378522 ns/s",
                                "r0 s- L17 TransferFromServerTime metric Rate 77.6788 1/s",
                            }));
  EXPECT_EQ(sink.note_counts(), (Notes{{"warning:truncated_block", 1}}));
  EXPECT_EQ(sink.notes[0].line, 13);  // Metric: TransferFromServerTime
  // The slow sample, exactly as printed: 06m15s551ms654.655us.
  auto samples = sink.all<MetricSample>();
  ASSERT_GT(samples.size(), 9u);
  EXPECT_EQ(samples[9].field, "P80");
  EXPECT_NEAR(samples[9].value, 375551654655.0, 0.5);
}

TEST(XlaMetricsFixtures, ProfilerFixtureIsNotSniffed) {
  EXPECT_EQ(xla_metrics_importer_info().sniff(fixture("pt_xla_profiler_pr5000.txt")), 0);
  for (const char* name : {"metrics_file_issue2511.txt", "metrics_report_issue2296.txt",
                           "metrics_report_issue2757.txt", "metrics_report_issue6614.txt"})
    EXPECT_EQ(xla_metrics_importer_info().sniff(fixture(name)), 85) << name;
}

// ---- Synthetic reports ------------------------------------------------------------------------

// Lazy metrics, lazy counters, then the runtime run: `Metric: CompileTime` after counters.
constexpr std::string_view kTwoRuns =
    "Metric: DeviceLockWait\n"
    "  TotalSamples: 1\n"
    "  Accumulator: 000.000us\n"
    "  Percentiles: 1%=000.000us; 50%=000.000us\n"
    "Counter: CachedCompile\n"
    "  Value: 7\n"
    "Metric: CompileTime\n"
    "  TotalSamples: 3\n"
    "  Accumulator: 01s000ms000.000us\n"
    "  ValueRate: 500ms000.000us / second\n"
    "  Rate: 1.5 / second\n"
    "  Percentiles: 50%=300ms000.000us; 99.9%=500ms000.000us\n"
    "Metric: InboundData\n"
    "  TotalSamples: 2\n"
    "  Accumulator: 1.50KB\n"
    "  ValueRate: 0.00B / second\n"
    "  Rate: 2 / second\n"
    "  Percentiles: 50%=512.00B; 99%=1.00KB\n"
    "Counter: MarkStep\n"
    "  Value: 3\n"
    "Counter: aten::_local_scalar_dense\n"
    "  Value: 12\n";

TEST(XlaMetricsSynthetic, TwoSortedRunsAreOneReport) {
  auto sink = run(kTwoRuns);
  EXPECT_EQ(rendered(sink), (Strings{
                                "r0 s- L2 DeviceLockWait metric TotalSamples 1",
                                "r0 s- L3 DeviceLockWait metric Accumulator 0 ns",
                                "r0 s- L4 DeviceLockWait metric P1 0 ns",
                                "r0 s- L4 DeviceLockWait metric P50 0 ns",
                                "r0 s- L6 CachedCompile counter Value 7",
                                "r0 s- L8 CompileTime metric TotalSamples 3",
                                "r0 s- L9 CompileTime metric Accumulator 1000000000 ns",
                                "r0 s- L10 CompileTime metric ValueRate 500000000 ns/s",
                                "r0 s- L11 CompileTime metric Rate 1.5 1/s",
                                "r0 s- L12 CompileTime metric P50 300000000 ns",
                                "r0 s- L12 CompileTime metric P99.9 500000000 ns",
                                "r0 s- L14 InboundData metric TotalSamples 2",
                                "r0 s- L15 InboundData metric Accumulator 1536 bytes",
                                "r0 s- L16 InboundData metric ValueRate 0 bytes/s",
                                "r0 s- L17 InboundData metric Rate 2 1/s",
                                "r0 s- L18 InboundData metric P50 512 bytes",
                                "r0 s- L18 InboundData metric P99 1024 bytes",
                                "r0 s- L20 MarkStep counter Value 3",
                                "r0 s- L22 aten::_local_scalar_dense counter Value 12",
                            }));
  EXPECT_EQ(sink.note_counts(), Notes{});
}

TEST(XlaMetricsSynthetic, RepeatedReportWithoutHeaderGetsNewIndex) {
  std::string text = std::string(kTwoRuns) + "some user print\n" + std::string(kTwoRuns);
  auto sink = run(text);
  auto samples = sink.all<MetricSample>();
  ASSERT_EQ(samples.size(), 38u);
  for (size_t i = 0; i < samples.size(); ++i) {
    EXPECT_EQ(samples[i].report_index, i < 19 ? 0 : 1) << i;
    EXPECT_FALSE(samples[i].step.has_value());
  }
  EXPECT_EQ(samples[19].line, 25);  // TotalSamples of the second DeviceLockWait
  EXPECT_EQ(sink.note_counts(), (Notes{{"skipped:other_output", 1}}));
}

TEST(XlaMetricsSynthetic, StepBlocksAndHeaderlessPrefix) {
  auto sink =
      run("Counter: MarkStep\n"
          "  Value: 1\n"
          "[MetricsData; step=0]\n"
          "Counter: MarkStep\n"
          "  Value: 2\n"
          "\n"
          "[MetricsData; step=1]\n"
          "Counter: MarkStep\n"
          "  Value: 3\n"
          "Counter: MarkStep\n"
          "  Value: 4\n");
  EXPECT_EQ(rendered(sink), (Strings{
                                "r0 s- L2 MarkStep counter Value 1",
                                "r1 s0 L5 MarkStep counter Value 2",
                                "r2 s1 L9 MarkStep counter Value 3",
                                // Same name again inside one step block: a header-less report.
                                "r3 s- L11 MarkStep counter Value 4",
                            }));
  EXPECT_EQ(marker_steps(sink), (std::vector<std::optional<int64_t>>{0, 1}));
  EXPECT_EQ(sink.note_counts(), (Notes{{"skipped:blank", 1}}));
}

TEST(XlaMetricsSynthetic, CutMidBlockThenNextReport) {
  auto sink =
      run("[MetricsData; step=7]\n"
          "Metric: CompileTime\n"
          "  TotalSamples: 4\n"
          "  Accumulator: 013.884us\n"
          "[MetricsData; step=8]\n"
          "Metric: CompileTime\n"
          "  TotalSamples: 6\n"
          "  Accumulator: 020.000us\n"
          "  Percentiles: \n"
          "Counter: CachedCompile\n");
  EXPECT_EQ(rendered(sink), (Strings{
                                "r0 s7 L3 CompileTime metric TotalSamples 4",
                                "r0 s7 L4 CompileTime metric Accumulator 13884 ns",
                                "r1 s8 L7 CompileTime metric TotalSamples 6",
                                "r1 s8 L8 CompileTime metric Accumulator 20000 ns",
                            }));
  EXPECT_EQ(sink.note_counts(), (Notes{{"warning:truncated_block", 2}}));
  EXPECT_EQ(sink.notes[0].line, 2);
  EXPECT_EQ(sink.notes[1].line, 10);  // the counter cut before its Value line
}

TEST(XlaMetricsSynthetic, StartsWithContinuationLines) {
  auto sink =
      run("  Rate: 0.5 / second\n"
          "  Percentiles: 1%=013.884us\n"
          "Counter: CachedCompile\n"
          "  Value: 2\n");
  EXPECT_EQ(rendered(sink), (Strings{"r0 s- L4 CachedCompile counter Value 2"}));
  EXPECT_EQ(sink.note_counts(), (Notes{{"skipped:orphan_field", 2}}));
}

TEST(XlaMetricsSynthetic, CrlfMatchesLf) {
  std::string crlf;
  for (char c : kTwoRuns) {
    if (c == '\n') crlf += '\r';
    crlf += c;
  }
  EXPECT_EQ(rendered(run(crlf)), rendered(run(kTwoRuns)));
  EXPECT_EQ(run(crlf).note_counts(), Notes{});
  // A stray '\r' left inside a line (e.g. "\r\r\n") does not break the values either.
  auto sink = run("Counter: MarkStep\r\r\n  Value: 5\r\r\n");
  EXPECT_EQ(rendered(sink), (Strings{"r0 s- L2 MarkStep counter Value 5"}));
}

TEST(XlaMetricsSynthetic, LegacyMeanAndStdDev) {
  auto sink =
      run("Metric: XrtCompile\n"
          "  TotalSamples: 2\n"
          "  Accumulator: 02s000ms000.000us\n"
          "  Mean: 01s000ms000.000us\n"
          "  StdDev: 500ms000.000us\n"
          "  Percentiles: 50%=01s000ms000.000us\n");
  EXPECT_EQ(rendered(sink), (Strings{
                                "r0 s- L2 XrtCompile metric TotalSamples 2",
                                "r0 s- L3 XrtCompile metric Accumulator 2000000000 ns",
                                "r0 s- L4 XrtCompile metric Mean 1000000000 ns",
                                "r0 s- L5 XrtCompile metric StdDev 500000000 ns",
                                "r0 s- L6 XrtCompile metric P50 1000000000 ns",
                            }));
  EXPECT_EQ(sink.note_counts(), Notes{});
}

TEST(XlaMetricsSynthetic, MalformedLinesAreRejectedOnce) {
  auto sink =
      run("[MetricsData; step=x]\n"                            // 1 bad_step_header
          "Metric: CompileTime\n"                              // 2
          "  TotalSamples: four\n"                             // 3 bad_metric_value
          "  Accumulator: 1.5s\n"                              // 4 bad_metric_value
          "  ValueRate: 013.884us\n"                           // 5 bad_metric_value (no / second)
          "  Rate: nan / second\n"                             // 6 bad_metric_value
          "  Percentiles: 1%=013.884us; 5%=01x; 10%=1.00us\n"  // 7 bad_metric_value, whole line
          "  Value: 3\n"                                       // 8 field_of_other_kind
          "  Frobnicate: 3\n"                                  // 9 unknown_field
          "Metric:\n"                                          // 10 bad_block_name
          "  TotalSamples: 1\n"                                // 11 orphan_field
          "Counter: A B\n"                                     // 12 bad_block_name
          "Counter: Good\n"                                    // 13
          "  Value: 1.5\n"                                     // 14 bad_metric_value
          "  Value: 9\n"                                       // 15
          "hello world\n");                                    // 16 other_output
  EXPECT_EQ(rendered(sink), (Strings{"r0 s- L15 Good counter Value 9"}));
  EXPECT_EQ(sink.note_counts(), (Notes{{"rejected:bad_block_name", 2},
                                       {"rejected:bad_metric_value", 6},
                                       {"rejected:bad_step_header", 1},
                                       {"rejected:field_of_other_kind", 1},
                                       {"rejected:unknown_field", 1},
                                       {"skipped:orphan_field", 1},
                                       {"skipped:other_output", 1},
                                       {"warning:truncated_block", 1}}));
  expect_one_fate_per_line(sink);
  EXPECT_TRUE(sink.all<StepMarker>().empty());
}

// Numbers out of range are no evidence (util/plausible.h): counts past 2^53 or negative, times
// longer than a year, negative sizes and rates are rejected lines with a named reason; a plain
// value may be negative.
TEST(XlaMetricsSynthetic, ValuesOutOfRangeAreRejectedByName) {
  auto sink =
      run("Metric: CompileTime\n  TotalSamples: -3\n  Accumulator: 400d00h00m00s000ms000.000us\n"
          "  ValueRate: 001ms052.220us / second\n  Rate: -0.5 / second\n"
          "  Percentiles: 1%=001ms; 50%=500d\n"
          "Metric: InboundData\n  TotalSamples: 2\n  Accumulator: -12.00B\n  Mean: -1.50\n"
          "Counter: CachedCompile\n  Value: 9007199254740993\n"
          "[MetricsData; step=9007199254740993]\n");
  EXPECT_EQ(rendered(sink), (Strings{"r0 s- L4 CompileTime metric ValueRate 1052220 ns/s",
                                     "r0 s- L8 InboundData metric TotalSamples 2",
                                     "r0 s- L10 InboundData metric Mean -1.5"}));
  // TotalSamples -3, Rate -0.5 and Value 2^53 + 1; 400 and 500 days; the step past 2^53. A
  // negative size is no size at all (bad_metric_value). No block got its last line.
  EXPECT_EQ(sink.note_counts(), (Notes{{"rejected:implausible_count", 3},
                                       {"rejected:implausible_duration", 2},
                                       {"rejected:bad_metric_value", 1},
                                       {"rejected:bad_step_header", 1},
                                       {"warning:truncated_block", 3}}));
}

TEST(XlaMetricsSynthetic, NeverThrowsOnJunk) {
  std::string junk;
  uint32_t state = 12345;
  const std::string alphabet = "Metric: Counter:[MetricsData; step=]%=;0123456789.usmhdKB\n\r\t ";
  for (int i = 0; i < 200000; ++i) {
    state = state * 1103515245 + 12345;
    junk += alphabet[(state >> 16) % alphabet.size()];
  }
  junk += std::string(1 << 20, '9') + "us\n";
  junk += std::string("\0\xff\x80", 3);
  EXPECT_NO_THROW(run(junk));
  EXPECT_NO_THROW(run(""));
  EXPECT_NO_THROW(run("Metric: X\n  Percentiles: ;;;%=%=\n  Rate: / second\n"));
}

TEST(XlaMetricsSniff, Scores) {
  auto sniff = xla_metrics_importer_info().sniff;
  EXPECT_EQ(sniff("Metric: CompileTime\n  TotalSamples: 1\n"), 85);
  EXPECT_EQ(sniff("user text\nCounter: CachedCompile\n  Value: 1\n"), 85);
  EXPECT_EQ(sniff("[MetricsData; step=3]\n"), 85);
  EXPECT_EQ(sniff(""), 0);
  EXPECT_EQ(sniff("pt-xla-profiler: CompileTime too frequent: 23 counts during 12 steps\n"), 0);
  EXPECT_EQ(sniff("the Metric: CompileTime is high\n"), 0);
  EXPECT_EQ(sniff("Compilation Analysis: ======\nMetric: CompileTime\n"), 40);
  EXPECT_EQ(sniff("Metric: CompileTime\nExecution Analysis: ======\n"), 40);
  EXPECT_EQ(xla_metrics_importer_info().name, "xla_metrics");
}

}  // namespace xla_metrics_importer_test
}  // namespace rcf::ingest
