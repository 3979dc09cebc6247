#include "pipeline/ingest_pipeline.h"

#include <fmt/format.h>

#include <filesystem>
#include <memory>
#include <mutex>
#include <optional>

#include "analysis/run_analysis.h"
#include "ingest/importer.h"
#include "ingest/ingest_driver.h"
#include "ingest/input_walker.h"
#include "ingest/line_reasons.h"
#include "ingest/steps/step_pattern_tap.h"
#include "pipeline/console_line_times.h"
#include "pipeline/empty_store_image.h"
#include "pipeline/grown_log_read_on.h"
#include "pipeline/line_time_stamper.h"
#include "pipeline/parse_ahead.h"
#include "pipeline/source_recording.h"
#include "pipeline/store_files.h"
#include "store/ingest_writer.h"
#include "store/new_store.h"
#include "store/run_bundle.h"
#include "store/store.h"
#include "util/error.h"
#include "util/hostname.h"
#include "util/safe_text.h"

namespace rcf::pipeline {
namespace {

// Paths, excerpts and read errors in the summary: one line each, control characters escaped.
std::string safe(const std::string& text) {
  return util::field_text(text);
}

// How long the switch of a new store to WAL mode waits for readers that came during its first
// load: a report reads for a second or two; failing that, the next ingest switches it.
constexpr int kWalSwitchWaitMs = 3000;

// Rejects a request that names an unknown format, no input, or a bad step pattern.
void check_request(const IngestRequest& request, bool bundle_only) {
  if (!request.format.empty() && !ingest::find_importer(request.format))
    throw Error(fmt::format("unknown --format '{}' (known:{})", request.format, known_formats()));
  if (request.paths.empty() && !bundle_only) throw Error("no input paths given");
  if (!request.step_pattern.empty()) {
    std::string error;
    if (!ingest::StepPatternTap::create(request.step_pattern, &error)) throw Error(error);
  }
}

// The files under the request's paths. A path named on the command line that cannot be read is
// an error; one found while walking a directory is skipped with a warning.
std::vector<ingest::InputFile> expand_request_inputs(const IngestRequest& request, bool bundle_only,
                                                     IngestSummary& summary) {
  std::vector<ingest::WalkProblem> problems;
  auto inputs = ingest::expand_inputs(request.paths, &problems);
  for (const auto& p : problems) {
    bool named =
        !request.named_paths_as_walked &&
        std::find(request.paths.begin(), request.paths.end(), p.path) != request.paths.end();
    if (named) throw Error(fmt::format("cannot read {}: {}", p.path, p.message));
    summary.warnings.push_back(fmt::format("skipped {}: {}", p.path, p.message));
  }
  // The store and its side files are never read as logs; said once (docs/bad_input.md).
  const std::vector<std::string> dropped = drop_sqlite_files(inputs, request.db_path);
  if (!dropped.empty())
    summary.warnings.push_back(fmt::format(
        "left out {} SQLite file{} (the store, its -wal, -shm or -journal file, or another "
        "database; not logs): {}{}",
        dropped.size(), dropped.size() == 1 ? "" : "s", dropped.front(),
        dropped.size() > 1 ? fmt::format(" and {} more", dropped.size() - 1) : ""));
  if (request.named_paths_as_walked)
    for (auto& input : inputs) input.from_walk = true;
  if (inputs.empty() && !bundle_only)
    throw Error(dropped.empty() ? "no input files found under the given paths"
                                : fmt::format("no log files under the given paths, only SQLite "
                                              "files (such as {})",
                                              dropped.front()));
  return inputs;
}

// Opens the store for ingest. A bundle alone is recorded for an existing run only, so that a
// mistyped lane does not silently become a new, empty one.
std::unique_ptr<store::Database> open_ingest_store(const IngestRequest& request, bool bundle_only) {
  if (bundle_only && !std::filesystem::exists(request.db_path))
    throw Error(fmt::format("{}: no such database (a bundle alone needs an ingested run)",
                            request.db_path));
  auto db = store::open_store(request.db_path, store::OpenMode::kIngest);
  // A store of an older rcf gets the indexes the writer's lookups need before it writes
  // (source_content keeps the duplicate-source lookup linear in the number of files).
  store::create_indexes(*db);
  if (bundle_only && !store::find_run_id(*db, request.lane, request.run))
    throw Error(fmt::format("no run '{}' in lane '{}' in {}: ingest its logs first (or give PATHs)",
                            request.run, request.lane, request.db_path));
  return db;
}

// Each input's options, fixed before parsing starts (the parse runs ahead on workers), the
// source ingested before under its path in this run, if any, and where to read it on from when
// it grew since and can be (pipeline/grown_log_read_on.h). Inputs read on are not parsed ahead.
struct ParsePlan {
  std::vector<ParseAhead::Input> inputs;
  std::vector<std::optional<store::IngestWriter::EarlierSource>> earlier_of;
  std::vector<std::optional<store::SourceResume>> read_on;
  // The inputs parsed ahead: those not read on, in order.
  std::vector<ParseAhead::Input> ahead() const {
    std::vector<ParseAhead::Input> out;
    for (size_t i = 0; i < inputs.size(); ++i)
      if (!read_on[i]) out.push_back(inputs[i]);
    return out;
  }
};

ParsePlan plan_parses(const IngestRequest& request, const std::vector<ingest::InputFile>& inputs,
                      const std::map<std::string, std::string>& sidecars,
                      store::IngestWriter& writer, int64_t run_id) {
  ParsePlan plan;
  auto progress_mu = std::make_shared<std::mutex>();  // progress is reported from the workers
  for (size_t i = 0; i < inputs.size(); ++i) {
    const auto& input = inputs[i];
    ParseAhead::Input parse{input.path, {}};
    ingest::DriverOptions& options = parse.options;
    options.buffer_size = request.buffer_size;
    options.step_pattern = request.step_pattern;
    if (request.progress)
      options.progress = [&request, progress_mu, i, n = inputs.size(), path = input.path](
                             int64_t done, int64_t total) {
        std::lock_guard lock(*progress_mu);
        request.progress(i, n, path, done, total);
      };
    auto forced = request.format_of_path.find(input.path);
    options.forced_format =
        forced != request.format_of_path.end() ? forced->second : request.format;
    if (auto limit = request.byte_limit_of_path.find(input.path);
        limit != request.byte_limit_of_path.end())
      options.open.max_raw_bytes = limit->second;
    // A log ingested before into this run under the same path may have grown since (a run still
    // writing): hash the old length's prefix to tell growth from any other change.
    std::optional<store::IngestWriter::EarlierSource> earlier;
    if (input.path != "-") earlier = writer.earlier_source(run_id, input.path);
    options.hash_prefix_bytes = earlier ? earlier->bytes : -1;
    options.mark_read_end = true;
    // A console timed by its sidecar is read whole: a line read before would keep no time.
    plan.read_on.push_back(
        sidecars.count(input.path)
            ? std::nullopt
            : read_on_point(writer, input.path,
                            earlier ? std::optional<int64_t>(earlier->source_id) : std::nullopt));
    plan.earlier_of.push_back(std::move(earlier));
    plan.inputs.push_back(std::move(parse));
  }
  return plan;
}

// The size of `input` as stat() says before reading, a .gz file's `gz_factor` times its size (what
// it inflates to, about); nullopt for standard input or a size that cannot be read.
std::optional<int64_t> input_bytes(const ingest::InputFile& input, int64_t gz_factor) {
  if (input.path == "-") return std::nullopt;
  std::error_code ec;
  const auto size = std::filesystem::file_size(input.path, ec);
  if (ec) return std::nullopt;
  return static_cast<int64_t>(size) * (input.path.ends_with(".gz") ? gz_factor : 1);
}

// Workers for parsing ahead: none below about 1 MiB of input, where starting threads costs more
// than they save (docs/performance.md, "Small logs"). The size is what stat() says before
// reading: a .gz file counts 4 times its size (gzip -1 of a log inflates about that much), any
// file at least 16 KiB (its open, sniff and source row), stdin and unreadable sizes as large.
int parse_workers(const std::vector<ingest::InputFile>& inputs) {
  constexpr int64_t kWorthThreads = int64_t{1} << 20;
  constexpr int64_t kFileFloor = int64_t{16} << 10;
  int64_t work = 0;
  for (const auto& input : inputs) {
    const std::optional<int64_t> bytes = input_bytes(input, 4);
    if (!bytes) return ParseAhead::default_workers(inputs.size());
    work += std::max(*bytes, kFileFloor);
    if (work >= kWorthThreads) return ParseAhead::default_workers(inputs.size());
  }
  return 0;
}

// Whether a new store for `inputs` is built in memory (store/new_store.h): up to 1 MiB of logs.
// Larger inputs were slower so (2.5 MB of TORCH_TRACE 28.4 ms on a file, 32.8 ms in memory:
// docs/performance.md, "Small logs"). A gzipped log counts twenty times its size; an input
// whose size is not known (standard input) is never small.
bool store_fits_in_memory(const std::vector<ingest::InputFile>& inputs) {
  constexpr int64_t kInMemoryInputBytes = int64_t{1} << 20;
  int64_t bytes = 0;
  for (const auto& input : inputs) {
    const std::optional<int64_t> size = input_bytes(input, 20);
    if (!size) return false;
    bytes += *size;
    if (bytes > kInMemoryInputBytes) return false;
  }
  return true;
}

// --strict: a rejected line fails the whole ingest.
void check_strict(const IngestRequest& request, const ingest::SourceStats& stats) {
  if (request.strict && stats.rejected > 0)
    throw Error(fmt::format("--strict: {} rejected line(s), first at {}", stats.rejected,
                            stats.first_error));
}

// Reads input `i` on from where its earlier source's read stopped, when the plan found that it
// grew and can be; true when it was (and counted in the summary), false when it is to be read
// whole.
bool read_on_as_planned(store::IngestWriter& writer, int64_t run_id, const IngestRequest& request,
                        const ParsePlan& plan, size_t i, IngestSummary& summary) {
  if (!plan.read_on[i]) return false;
  const ParseAhead::Input& input = plan.inputs[i];
  std::optional<IngestedSource> read =
      read_grown_log_on(writer, run_id, input.path, *plan.read_on[i], input.options);
  if (!read) return false;
  check_strict(request, read->stats);
  count_source(std::move(*read), summary);
  return true;
}

// Reads every input into `db` in order (parsed ahead on workers), records the sources, analyses
// the touched runs and commits. `new_store`: `db` is a NewStore's, which has every index.
void ingest_into(store::Database& db, const IngestRequest& request,
                 const std::vector<ingest::InputFile>& inputs,
                 const std::map<std::string, std::string>& sidecars, bool new_store,
                 IngestSummary& summary) {
  store::IngestWriter writer(db, request.host.empty() ? util::this_host() : request.host);
  int64_t run_id = writer.run_id(request.lane, request.run);
  if (request.bundle.is_object()) store::merge_declared_bundle(db, run_id, request.bundle);

  ParsePlan plan = plan_parses(request, inputs, sidecars, writer, run_id);
  ParseAhead ahead(plan.ahead(), parse_workers(inputs));
  size_t next_ahead = 0;
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (read_on_as_planned(writer, run_id, request, plan, i, summary)) continue;
    IngestedSource src;
    ingest::EventSink& sink = writer.begin_source(run_id);
    std::optional<ConsoleLineTimes> times = line_times_of(sidecars, inputs[i].path, summary);
    std::optional<LineTimeStamper> stamper;
    if (times) stamper.emplace(sink, *times);
    // An input planned to be read on and that could not be is read here, whole.
    const ingest::SourceOutcome outcome =
        plan.read_on[i] ? ingest::ingest_source(inputs[i].path, stamper ? *stamper : sink,
                                                plan.inputs[i].options, &src.stats)
                        : ahead.consume(next_ahead++, stamper ? *stamper : sink, &src.stats);
    settle_outcome(outcome, inputs[i], src, summary);
    if (stamper) src.lines_timed = stamper->stamped();
    check_strict(request, src.stats);
    record_source(writer, plan.earlier_of[i], std::move(src), summary);
  }
  if (writer.drop_run_if_empty(run_id)) {
    summary.run_created_or_kept = false;
    summary.warnings.push_back(not_created_warning(request.lane, request.run, summary));
  }
  writer.finish_sources();  // its memory goes to the analysis
  analysis::analyze_runs(db, writer.touched_runs());
  if (!new_store) store::create_indexes(db);
  writer.commit();
}

}  // namespace

// The phases: check the request, expand its paths, open the store and the run, parse the inputs
// ahead on workers while writing each in order, then analyse the touched runs and commit.
// A store that does not exist yet is written as a NewStore (store/new_store.h): no syncs but
// one, no journal file, and never a partial store under its name. It starts as the build's image
// of an empty store (pipeline/empty_store_image.h) instead of running the schema statements, in
// memory for up to 1 MiB of logs.
IngestSummary run_ingest(const IngestRequest& request) {
  const bool bundle_only = request.paths.empty() && request.bundle.is_object();
  check_request(request, bundle_only);
  IngestSummary summary;
  auto inputs = expand_request_inputs(request, bundle_only, summary);
  const std::map<std::string, std::string> sidecars = take_line_time_sidecars(inputs);
  if (!bundle_only) {
    if (auto fresh = store::NewStore::create(request.db_path, &kEmptyStoreImage,
                                             store_fits_in_memory(inputs))) {
      IngestSummary created = summary;
      ingest_into(fresh->db(), request, inputs, sidecars, /*new_store=*/true, created);
      if (fresh->publish()) return created;
      // Another process created the store meanwhile: this ingest goes into that one.
    }
  }
  auto db = open_ingest_store(request, bundle_only);
  ingest_into(*db, request, inputs, sidecars, /*new_store=*/false, summary);
  // A store created in place by open_store was loaded in rollback-journal mode (store.cc).
  store::switch_to_wal(*db, kWalSwitchWaitMs);
  return summary;
}

std::string render_ingest_summary(const IngestSummary& s) {
  std::string out;
  int64_t added = static_cast<int64_t>(s.sources.size()) - s.duplicates;
  std::string formats;
  for (const auto& [f, n] : s.formats)
    formats += fmt::format("{}{} {}", formats.empty() ? "" : ", ", f, n);
  out += fmt::format("ingested {} file{} ({}), {} lines, {:.1f} MB, {} events, {} rejected lines",
                     added, added == 1 ? "" : "s", formats.empty() ? "none" : formats, s.lines,
                     s.bytes / 1e6, s.events, s.rejected);
  if (s.duplicates) out += fmt::format(", {} already ingested (unchanged)", s.duplicates);
  out += "\n";
  for (const auto& src : s.sources) {
    if (!src.duplicate_of.empty()) {
      out += fmt::format("  {}: same content as {}, nothing added (already in lane {}, run {})\n",
                         safe(src.stats.path), safe(src.duplicate_of), safe(src.duplicate_lane),
                         safe(src.duplicate_run));
      continue;
    }
    if (src.lines_timed > 0)
      out +=
          fmt::format("  {}: {} progress line(s) timed by when they were printed ({})\n",
                      safe(src.stats.path), src.lines_timed, safe(line_times_path(src.stats.path)));
    if (src.grew_from_bytes >= 0 && src.read_on) {
      out += fmt::format(
          "  {}: grew from {} to {} bytes since it was ingested; read on from byte {}, its "
          "earlier rows kept\n",
          safe(src.stats.path), src.grew_from_bytes, src.stats.bytes, src.grew_from_bytes);
    } else if (src.grew_from_bytes >= 0) {
      out += fmt::format(
          "  {}: grew from {} to {} bytes since it was ingested; read again whole, replacing "
          "the earlier version\n",
          safe(src.stats.path), src.grew_from_bytes, src.stats.bytes);
    }
    if (src.stats.rejected > 0 || !src.stats.read_error.empty()) {
      out += fmt::format(
          "  {}: {} rejected line(s), first: {}{}\n", safe(src.stats.path), src.stats.rejected,
          safe(src.stats.first_error),
          src.stats.read_error.empty() ? "" : "; read stopped: " + safe(src.stats.read_error));
    }
  }
  for (const auto& w : s.warnings) out += "  warning: " + safe(w) + "\n";
  return out;
}

}  // namespace rcf::pipeline
