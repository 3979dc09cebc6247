// In-process throughput of the ingest layers on real fixtures held in memory.
#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "analysis/attached_reasons.h"
#include "analysis/dynamo_attribution.h"
#include "analysis/watch_alerts.h"
#include "ingest/importer.h"
#include "ingest/reading/byte_source.h"
#include "ingest/reading/gzip_inflater.h"
#include "ingest/reading/line_reader.h"
#include "ingest/reading/md5.h"
#include "ingest/reading/md5_lanes.h"
#include "ingest/torch_trace/json_skim.h"
#include "store/compile_row_hasher.h"
#include "store/store.h"
#include "store/string_interner.h"
#include "tests/support/memory_source.h"
#include "tests/support/temp_files.h"
#include "util/large_array_allocator.h"

namespace {

std::string load(const char* relative, size_t min_bytes) {
  std::ifstream in(std::string(RCF_FIXTURES_DIR) + "/" + relative, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  std::string unit = ss.str(), out;
  while (!unit.empty() && out.size() < min_bytes) out += unit;
  return out;
}

class NullSink : public rcf::ingest::EventSink {
 public:
  void emit(rcf::ingest::Event&&) override { ++events; }
  void note(int64_t, rcf::ingest::LineFate, std::string_view, std::string_view) override {}
  int64_t events = 0;
};

const std::string& trace_data() {
  static const std::string data =
      load("torch_trace/multi_rank_logs/dedicated_log_torch_trace_rank_1.log", 64 << 20);
  return data;
}
const std::string& text_data() {
  static const std::string data =
      load("dynamo/recompiles_pytorch_issue161119_shape_rank0_vllm.txt", 32 << 20);
  return data;
}

void BM_LineReader(benchmark::State& state) {
  const std::string& data = trace_data();
  for (auto _ : state) {
    rcf::testing::MemorySource src(rcf::testing::MemorySource::Borrow{}, data);
    rcf::ingest::LineReader reader(src);
    std::string_view line;
    size_t n = 0;
    while (reader.next(&line)) n += line.size();
    benchmark::DoNotOptimize(n);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * data.size()));
}
BENCHMARK(BM_LineReader)->Unit(benchmark::kMillisecond);

void run_importer(benchmark::State& state, const char* format, const std::string& data) {
  for (auto _ : state) {
    rcf::testing::MemorySource src(rcf::testing::MemorySource::Borrow{}, data);
    rcf::ingest::LineReader reader(src);
    NullSink sink;
    auto importer = rcf::ingest::find_importer(format)->create(sink);
    std::string_view line;
    while (reader.next(&line)) importer->on_line(line, reader.line_number());
    importer->finish();
    benchmark::DoNotOptimize(sink.events);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * data.size()));
}

void BM_TorchTraceImporter(benchmark::State& state) {
  run_importer(state, "torch_trace", trace_data());
}
BENCHMARK(BM_TorchTraceImporter)->Unit(benchmark::kMillisecond);

void BM_DynamoTextImporter(benchmark::State& state) {
  run_importer(state, "dynamo_text", text_data());
}
BENCHMARK(BM_DynamoTextImporter)->Unit(benchmark::kMillisecond);

// Every importer's sniffer over a 64 KiB head (what the driver hands them), per format: an
// --xla_dump_to directory of thousands of small files is sniffed file by file, so each sniffer
// reads most of the dump. Arg 0: an HLO module, 1: a Dynamo text log.
std::string sniff_head(int which) {
  std::string data =
      which == 0 ? load("xla/hlo_before_opt_issue7053.txt", 64 << 10)
                 : load("dynamo/recompiles_pytorch_issue161119_shape_rank0_vllm.txt", 64 << 10);
  data.resize(64 << 10);
  data.resize(data.rfind('\n') + 1);  // whole lines, as the driver cuts the head
  return data;
}

void BM_Sniff(benchmark::State& state) {
  const std::string head = sniff_head(static_cast<int>(state.range(0)));
  const auto& info = rcf::ingest::importer_registry()[static_cast<size_t>(state.range(1))];
  state.SetLabel(info.name);
  for (auto _ : state) benchmark::DoNotOptimize(info.sniff(head));
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * head.size()));
}
BENCHMARK(BM_Sniff)->ArgsProduct({{0, 1}, benchmark::CreateDenseRange(0, 10, 1)});

// The whole choice on the same heads: sniff_importer runs only the sniffers that can still win
// (ImporterInfo::max_score), so an HLO module is decided by three of them.
void BM_SniffImporter(benchmark::State& state) {
  const std::string head = sniff_head(static_cast<int>(state.range(0)));
  for (auto _ : state) benchmark::DoNotOptimize(rcf::ingest::sniff_importer(head));
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * head.size()));
}
BENCHMARK(BM_SniffImporter)->Arg(0)->Arg(1);

// The JSON skimmer over the JSON of the TORCH_TRACE fixture: every envelope (from its first '{')
// and every payload line that is a JSON value. Cache-artifact payloads hold long strings full of
// escapes (code, with \n every few words); skip_string was 15 % of the importer's thread.
void BM_JsonSkim(benchmark::State& state) {
  static const std::vector<std::string> values = [] {
    std::vector<std::string> out;
    std::istringstream in(trace_data().substr(0, 8 << 20));
    for (std::string line; std::getline(in, line);) {
      size_t at = line.find_first_of(line.starts_with('\t') ? "{[" : "{");
      if (at != std::string::npos) out.push_back(line.substr(at));
    }
    return out;
  }();
  size_t bytes = 0;
  for (const std::string& v : values) bytes += v.size();
  for (auto _ : state)
    for (const std::string& v : values)
      benchmark::DoNotOptimize(rcf::ingest::json_skim::skip_value(v, 0));
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * bytes));
}
BENCHMARK(BM_JsonSkim)->Unit(benchmark::kMillisecond);

// MD5 of 64 MiB in 4 KiB pieces: every TORCH_TRACE payload byte is hashed on one thread, so this
// rate bounds the TORCH_TRACE importer's throughput (ingest/torch_trace/payload_checksums.h).
void BM_Md5(benchmark::State& state) {
  std::string data(size_t{64} << 20, 'x');
  for (size_t i = 0; i < data.size(); ++i) data[i] = static_cast<char>('a' + i * 7 % 26);
  for (auto _ : state) {
    rcf::ingest::Md5 md5;
    for (size_t at = 0; at < data.size(); at += 4096) md5.update(data.data() + at, 4096);
    benchmark::DoNotOptimize(md5.finish());
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * data.size()));
}
BENCHMARK(BM_Md5)->Unit(benchmark::kMillisecond);

// The payloads of the TORCH_TRACE fixture (each record's TAB lines), hashed as the checksum
// worker hashes them: many at once, one per SIMD lane (ingest/reading/md5_lanes.h). Arg: 0 best, 1
// scalar, 2 SSE2, 3 AVX2, 4 AVX-512 (skipped where the CPU lacks it).
void BM_Md5Many(benchmark::State& state) {
  static const std::vector<std::string> payloads = [] {
    std::vector<std::string> out;
    std::istringstream in(trace_data().substr(0, 16 << 20));
    bool open = false;
    for (std::string line; std::getline(in, line);) {
      if (!line.starts_with('\t')) {
        open = false;
        continue;
      }
      if (!open) out.emplace_back();
      open = true;
      out.back().append(line.substr(1)).push_back('\n');
    }
    return out;
  }();
  const auto lanes = static_cast<rcf::ingest::Md5Lanes>(state.range(0));
  if (!rcf::ingest::md5_lanes_available(lanes)) {
    state.SkipWithError("not available on this CPU");
    return;
  }
  std::vector<std::string_view> messages(payloads.begin(), payloads.end());
  size_t bytes = 0;
  for (std::string_view m : messages) bytes += m.size();
  std::vector<rcf::ingest::Md5Digest> digests;
  for (auto _ : state) {
    rcf::ingest::md5_many(messages, &digests, lanes);
    benchmark::DoNotOptimize(digests.data());
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * bytes));
}
BENCHMARK(BM_Md5Many)->DenseRange(0, 4)->Unit(benchmark::kMillisecond);

// Interner lookups that hit its cache, as an analysis writer makes them: 182 000 distinct sites
// (the 1 M-compile benchmark lane's count) looked up in a scattered order.
void BM_StringInternerHits(benchmark::State& state) {
  const std::string path = "/tmp/rcf_micro_bench_interner.db";
  std::remove(path.c_str());
  auto db = rcf::store::open_store(path, rcf::store::OpenMode::kCreateOrWrite);
  db->exec("BEGIN");
  rcf::store::StringInterner strings(*db);
  std::vector<std::string> sites;
  for (int i = 0; i < 182000; ++i)
    sites.push_back("/work/model/layers/block_" + std::to_string(i / 2) +
                    ".py:" + std::to_string(100 + i % 2 * 200) + " (forward)");
  for (const auto& s : sites) strings.id(s);
  size_t next = 0;
  for (auto _ : state) {
    next = (next + 7919) % sites.size();  // a prime stride: every site, scattered
    benchmark::DoNotOptimize(strings.id(sites[next]));
  }
  db->exec("ROLLBACK");
  db.reset();
  std::remove(path.c_str());
}
BENCHMARK(BM_StringInternerHits);

}  // namespace

// Inflating 64 MiB of the TORCH_TRACE fixture, gzipped at zlib's default level, in 1 MiB reads:
// the rate that bounds a gzipped log's ingest when inflation is the slower side
// (ingest/reading/gzip_inflater.h). Arg: 0 zlib, 1 ISA-L (skipped in a build without it). Bytes are
// the inflated bytes.
void BM_GzipInflate(benchmark::State& state) {
  static const std::string gz = rcf::testing::gzip_compress(trace_data(), 6);
  using rcf::ingest::GzipEngine;
  const GzipEngine engine = state.range(0) == 0 ? GzipEngine::kZlib : GzipEngine::kIsal;
  if (!rcf::ingest::gzip_engine_available(engine)) {
    state.SkipWithError("built without ISA-L");
    return;
  }
  std::vector<unsigned char> buf(size_t{1} << 20);
  size_t inflated = 0;
  for (auto _ : state) {
    auto inflater = rcf::ingest::make_gzip_inflater(engine);
    const unsigned char* in = reinterpret_cast<const unsigned char*>(gz.data());
    size_t avail_in = gz.size();
    inflated = 0;
    for (;;) {
      unsigned char* out = buf.data();
      size_t avail_out = buf.size();
      auto status = inflater->inflate(&in, &avail_in, &out, &avail_out);
      inflated += buf.size() - avail_out;
      if (status != rcf::ingest::GzipInflater::Status::kOk) break;
    }
    benchmark::DoNotOptimize(inflated);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * inflated));
}
BENCHMARK(BM_GzipInflate)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);

// The digest of a compile's two rows (store/compile_row_hasher.h), which a watched run's
// analysis takes of every compile after each batch: the values of a Dynamo recompile of a run
// `rcf watch` benches (docs/performance.md), per compile.
void BM_CompileRowDigest(benchmark::State& state) {
  const std::string program_key = "1000017/1", prev_key = "1000017/0", kind = "dynamo";
  const std::string detail = "tensor 'x' dim 0: 8 -> 9", evidence =
                                                             "TORCH_LOGS=recompiles block at "
                                                             "train.log:52";
  int64_t ordinal = 0;
  for (auto _ : state) {
    rcf::store::CompileRowHasher event, attribution;
    ++ordinal;
    event.val(int64_t{1}).val(ordinal).null().val(ordinal * 3).val_unowned(program_key);
    event.val_unowned(kind).null().val(12.5).null();
    for (int64_t v : {int64_t{0}, int64_t{0}, ordinal, int64_t{1}, int64_t{0}, int64_t{-1},
                      int64_t{1}, ordinal * 3})
      event.val(v);
    event.val_unowned("recompile_block").null().null().null();
    attribution.val_unowned("shape").val_unowned(prev_key).val_unowned(detail);
    attribution.val_unowned("high").val_unowned(evidence).val(ordinal).val(int64_t{7}).val(0);
    benchmark::DoNotOptimize(rcf::store::CompileRowHasher::combine(event, attribution));
  }
}
BENCHMARK(BM_CompileRowDigest);

// AlertTracker::advance over a watched run's rows once every compile was said: what each batch
// and preview of `rcf watch` pays for the alerts, per 100 000 compiles; with Arg 1 the compiles
// have steps (a run with progress lines: the storms' pass then looks at every recompile).
void BM_AlertTrackerAdvance(benchmark::State& state) {
  const bool steps = state.range(0) == 1;
  rcf::store::WatchRunRows rows;
  for (int64_t i = 0; i < 100000; ++i) {
    rcf::store::WatchCompileRow c;
    c.ordinal = i + 1;
    c.frame_id = 1000000 + i / 2;
    c.frame_compile_id = i % 2;
    c.epoch = 0;
    c.rank = -1;
    c.ca_id = -1;
    c.site = fmt::format("/m/model.py:{} (fn_{})", i / 2 + 10, i / 2);
    c.program_key = fmt::format("{}/{}", c.frame_id, c.frame_compile_id);
    c.kind = "dynamo";
    c.cause = i % 2 ? "shape" : "first_compile";
    c.detail = "tensor 'x' dim 0: 8 -> 9";
    c.source = "train.log";
    c.line = 3 * i + 1;
    if (steps) c.step = i / 4;
    c.version = static_cast<uint64_t>(i) + 1;  // as read from the store
    rows.compiles.push_back(std::move(c));
  }
  rcf::analysis::AlertTracker tracker;
  tracker.advance(rows, rcf::analysis::LogEnds::kEnded);
  for (auto _ : state)
    benchmark::DoNotOptimize(tracker.advance(rows, rcf::analysis::LogEnds::kMayGrow));
}
BENCHMARK(BM_AlertTrackerAdvance)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);

// AttachedReasons::group at a watched run's size: 200 000 compiles (100 000 frames, each compiled
// twice) and a guard failure for every recompile and half the first compiles, in the row order
// a log gives them (frames interleaved), grouped by compile as each batch's analysis does.
void BM_GroupReasons(benchmark::State& state) {
  rcf::util::keep_freed_large_arrays(size_t{128} << 20);  // as rcf watch keeps them
  rcf::util::LargeVector<rcf::analysis::Merged> merged;
  for (int32_t i = 0; i < 200000; ++i) {
    rcf::store::DynamoKey key;
    key.source_id = 1;
    key.frame_id = i / 2;
    key.frame_compile_id = i % 2;
    merged.emplace_back(key);
  }
  rcf::analysis::AttachedReasons attached;
  const std::string old_id = "[0/0]";
  for (int64_t row = 0; row < 300000; ++row) {
    rcf::analysis::ReasonRecord r;
    const int64_t compile = (row * 7919) % 200000;
    r.key = merged[static_cast<size_t>(compile)].key;
    r.line = 10 * row;
    r.entry_index = row % 3;
    r.old_compile_id = old_id;
    r.reason = "tensor 'x' size mismatch at index 0";
    r.origin = "trace_recompiles";
    attached.add(r, merged, nullptr);
  }
  for (auto _ : state) {
    state.PauseTiming();
    rcf::analysis::AttachedReasons copy = attached;
    state.ResumeTiming();
    copy.group(merged);
    benchmark::DoNotOptimize(copy.size());
  }
  rcf::util::keep_freed_large_arrays(0);
}
BENCHMARK(BM_GroupReasons)->Unit(benchmark::kMillisecond);

BENCHMARK_MAIN();
