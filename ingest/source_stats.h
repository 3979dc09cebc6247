// What the ingest of one source measured: the line accounting that ends up in `source`,
// `line_note` and `rejected_line`.
#pragma once

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ingest/events.h"

namespace rcf::ingest {

struct ReasonTally {
  int64_t count = 0;
  int64_t first_line = 0;
  std::string first_excerpt;
};

// Orders (fate, reason) keys as std::pair<std::string, std::string> does, and lets them be looked
// up as string views: a note is recorded per noted line (every line of user output in a training
// log), and building two strings to look its tally up cost 6 % of such an ingest.
struct ReasonKeyLess {
  using is_transparent = void;
  template <typename A, typename B>
  bool operator()(const A& a, const B& b) const {
    std::string_view a1 = a.first, b1 = b.first;
    if (int c = a1.compare(b1); c != 0) return c < 0;
    return std::string_view(a.second) < std::string_view(b.second);
  }
};

struct RejectedLine {
  int64_t line = 0;
  std::string reason;
  std::string excerpt;
};

struct SourceStats {
  std::string path;
  std::string format;
  std::string encoding;
  std::string content_hash;
  // Content hash of the first DriverOptions::hash_prefix_bytes bytes (empty when not asked or
  // the input was shorter): equal to an earlier version's content_hash when the log only grew.
  std::string prefix_hash;
  // The hashes of the first bytes at fixed offsets (ingest/reading/prefix_checkpoints.h).
  std::string prefix_checkpoints;
  int64_t bytes = 0;  // decompressed
  int64_t lines = 0;
  int64_t events = 0;
  int64_t skipped = 0;
  int64_t rejected = 0;
  int64_t warnings = 0;
  // Unrecognised input only: every line was blank (spaces, tabs, CR), i.e. no text at all.
  bool blank_only = false;
  std::string first_error;  // "path:line: reason"
  std::string read_error;   // set when reading stopped early
  std::optional<int64_t> file_rank;
  // (fate, reason) -> tally. fate is "skipped", "rejected", "warning" or "framed".
  std::map<std::pair<std::string, std::string>, ReasonTally, ReasonKeyLess> reasons;
  std::vector<RejectedLine> rejected_lines;  // first kMaxKeptRejects

  static constexpr size_t kMaxKeptRejects = 1000;
  static constexpr size_t kMaxExcerpt = 200;

  // Records one note; keeps first_error and the first rejected lines.
  void add_note(int64_t line, LineFate fate, std::string_view reason, std::string_view excerpt);

 private:
  // The tallies of the last few distinct notes: the notes of a log mostly cycle through a few
  // reasons (a training log's user output: progress lines, other loggers' lines), and a search of
  // `reasons` compared strings four times a note. Map nodes stay put; a copied or assigned
  // SourceStats starts without them (they would point into the other map).
  struct RecentTallies {
    using Entry = std::pair<const std::pair<std::string, std::string>, ReasonTally>;
    static constexpr size_t kSize = 4;
    RecentTallies() = default;
    RecentTallies(const RecentTallies&) {}
    RecentTallies& operator=(const RecentTallies&) {
      std::fill(std::begin(entries), std::end(entries), nullptr);
      return *this;
    }
    LineFate fates[kSize] = {};
    Entry* entries[kSize] = {};
    size_t next = 0;  // the slot the next new entry replaces
  };
  ReasonTally& tally_of(LineFate fate, std::string_view reason);
  RecentTallies recent_;
};

// Cuts `text` to at most `max` bytes without splitting a UTF-8 sequence, and replaces bytes that
// are not valid UTF-8 by '?', so that excerpts are always valid text.
std::string safe_excerpt(std::string_view text, size_t max);

}  // namespace rcf::ingest
