#include "pipeline/merge_pipeline.h"

#include <fmt/format.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <memory>
#include <vector>

#include "analysis/run_analysis.h"
#include "ingest/reading/file_prefix_hashes.h"
#include "store/store.h"
#include "store/write_transaction.h"
#include "util/error.h"
#include "util/safe_text.h"

namespace rcf::pipeline {
namespace {

// As rcf ingest: how long a new store's switch to WAL mode waits for readers of its first load.
constexpr int kMergeWalSwitchWaitMs = 3000;

bool same_inode(const std::string& a, const std::string& b) {
  struct stat sa, sb;
  return ::stat(a.c_str(), &sa) == 0 && ::stat(b.c_str(), &sb) == 0 && sa.st_dev == sb.st_dev &&
         sa.st_ino == sb.st_ino;
}

// A shard opened for reading: open_store names the file and what is wrong with it (missing, not
// an rcf store, the two schema versions).
std::unique_ptr<store::Database> open_shard(const std::string& path) {
  try {
    return store::open_store(path, store::OpenMode::kRead);
  } catch (const Error& e) {
    throw Error(fmt::format("cannot merge shard {}: {}", path, e.what()));
  }
}

// Every shard is checked before OUT is touched, then closed: a merge holds one shard open at a
// time (128 open stores held 110 MB of page caches and schemas).
void check_shards(const MergeRequest& request) {
  if (request.shard_paths.empty())
    throw Error("no shard stores given: rcf merge OUT.db SHARD.db...");
  for (const std::string& path : request.shard_paths) {
    if (same_inode(path, request.out_path))
      throw Error(fmt::format("{} is the output store, not a shard: name it once, first", path));
    open_shard(path);
  }
}

// The files of an OUT this merge created, for the signal handler: a merge stopped by SIGTERM,
// SIGINT or SIGHUP removes them too (unlink is async-signal-safe), then dies of that signal.
constexpr const char* kOutSuffixes[] = {"", "-wal", "-shm", "-journal"};
char g_out_files[4][4096];
volatile sig_atomic_t g_remove_on_signal = 0;
constexpr int kStopSignals[] = {SIGTERM, SIGINT, SIGHUP};

void remove_out_and_die(int sig) {
  if (g_remove_on_signal)
    for (const auto& file : g_out_files) ::unlink(file);
  ::signal(sig, SIG_DFL);
  ::raise(sig);
}

// An OUT this merge created is removed when the merge fails or is stopped by a signal: it did
// not exist, and must not.
class RemoveUnlessKept {
 public:
  RemoveUnlessKept(std::string path, bool armed) : path_(std::move(path)), armed_(armed) {
    if (!armed_ || path_.size() + 9 > sizeof g_out_files[0]) return;
    for (size_t i = 0; i < 4; ++i)
      std::snprintf(g_out_files[i], sizeof g_out_files[i], "%s%s", path_.c_str(), kOutSuffixes[i]);
    g_remove_on_signal = 1;
    struct sigaction action = {};
    action.sa_handler = remove_out_and_die;
    sigemptyset(&action.sa_mask);
    for (size_t i = 0; i < 3; ++i) ::sigaction(kStopSignals[i], &action, &previous_[i]);
    handlers_ = true;
  }
  ~RemoveUnlessKept() {
    disarm_signals();
    if (!armed_) return;
    for (const char* suffix : kOutSuffixes) std::remove((path_ + suffix).c_str());
  }
  void keep() {
    disarm_signals();
    armed_ = false;
  }

 private:
  void disarm_signals() {
    if (!handlers_) return;
    g_remove_on_signal = 0;
    for (size_t i = 0; i < 3; ++i) ::sigaction(kStopSignals[i], &previous_[i], nullptr);
    handlers_ = false;
  }
  std::string path_;
  bool armed_;
  bool handlers_ = false;
  struct sigaction previous_[3] = {};
};

// The merge proper, on an open OUT: copy every shard, analyse the touched runs, index, commit.
void fold_shards(store::Database& out, const MergeRequest& request, MergeSummary& summary) {
  store::WriteTransaction transaction(out);  // the merge's one transaction
  std::vector<int64_t> touched_runs;
  {
    store::StoreMerger merger(out, ingest::file_prefix_hashes);
    for (const std::string& path : request.shard_paths)
      summary.shards.push_back(merger.merge(*open_shard(path), path));
    touched_runs = merger.touched_runs();
  }  // the merger's interned-text cache and statements are freed before the analysis
  analysis::analyze_runs(out, touched_runs);
  summary.runs_analysed = touched_runs.size();
  store::create_indexes(out);
  transaction.commit();
}

}  // namespace

MergeSummary run_merge(const MergeRequest& request) {
  check_shards(request);
  MergeSummary summary;
  summary.out_created = !std::filesystem::exists(request.out_path);
  RemoveUnlessKept created(request.out_path, summary.out_created);
  {
    auto out = store::open_store(request.out_path, store::OpenMode::kIngest);
    store::create_indexes(*out);  // the duplicate lookup's index, for an OUT of an older rcf
    fold_shards(*out, request, summary);
    // A store created by this merge was loaded in rollback-journal mode (store.cc).
    store::switch_to_wal(*out, kMergeWalSwitchWaitMs);
  }
  created.keep();
  return summary;
}

namespace {

// One line per version of a grown log that the merge left out or replaced.
std::string render_grown(const std::string& shard_path, const store::GrownSource& g) {
  using util::field_text;
  const std::string what =
      g.shard_longer ? fmt::format(
                           "grew from {} bytes in the store to {}: the store's version "
                           "replaced",
                           g.shorter_bytes, g.longer_bytes)
                     : fmt::format(
                           "an earlier version ({} bytes) of the {} already in the store: "
                           "nothing added",
                           g.shorter_bytes, g.longer_bytes);
  const int64_t unchecked = g.shorter_bytes - g.compared_bytes;
  const std::string evidence =
      g.by_file ? fmt::format(
                      "all {} bytes of the shorter compared with the file at that "
                      "path on this machine",
                      g.compared_bytes)
      : unchecked == 0 ? fmt::format("all {} bytes of the shorter compared by their checkpoints",
                                     g.compared_bytes)
                       : fmt::format(
                             "its first {} bytes compared by their checkpoints, its last {} "
                             "could not be",
                             g.compared_bytes, unchecked);
  return fmt::format("  {}: {}: {} (lane {}, run {}; {})\n", field_text(shard_path),
                     field_text(g.path), what, field_text(g.lane), field_text(g.run), evidence);
}

}  // namespace

std::string render_merge_summary(const MergeSummary& summary) {
  int64_t added = 0, skipped = 0, rows = 0, grown = 0;
  for (const auto& shard : summary.shards) {
    added += shard.sources_added;
    skipped += static_cast<int64_t>(shard.skipped.size());
    rows += shard.rows_copied;
    grown += static_cast<int64_t>(shard.grown.size());
  }
  const std::string grown_part = grown == 0
                                     ? ""
                                     : fmt::format(", {} earlier version{} of a grown log left out",
                                                   grown, grown == 1 ? "" : "s");
  std::string out = fmt::format(
      "merged {} shard{}: {} source{} added ({} rows), {} already in the store (unchanged){}; {} "
      "run{} analysed\n",
      summary.shards.size(), summary.shards.size() == 1 ? "" : "s", added, added == 1 ? "" : "s",
      rows, skipped, grown_part, summary.runs_analysed, summary.runs_analysed == 1 ? "" : "s");
  for (const auto& shard : summary.shards) {
    for (const auto& s : shard.skipped)
      out += fmt::format(
          "  {}: {}: same content as {}, nothing added (already in lane {}, run {})\n",
          util::field_text(shard.shard_path), util::field_text(s.path),
          util::field_text(s.earlier_path), util::field_text(s.lane), util::field_text(s.run));
    for (const auto& g : shard.grown) out += render_grown(shard.shard_path, g);
    for (const auto& u : shard.undecided)
      out += fmt::format(
          "  {}: {}: kept beside the source of the same path in lane {}, run {}: unknown whether "
          "one is an earlier version of the other: {}\n",
          util::field_text(shard.shard_path), util::field_text(u.path), util::field_text(u.lane),
          util::field_text(u.run), u.why);
  }
  return out;
}

}  // namespace rcf::pipeline
