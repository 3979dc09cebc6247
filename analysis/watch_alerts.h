// The alerts of `rcf watch` (docs/watch.md): what is new in a run since the last look, decided
// from the rows the store holds after each batch. Pure: no clock, no files, no SQL.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <tuple>
#include <unordered_set>
#include <vector>

#include "store/watch_queries.h"
#include "util/text_table.h"

namespace rcf::analysis {

enum class AlertKind { kRecompile, kLimitHit, kStorm, kNewProgramAfterSettle, kGraphBreak };

// recompile, limit_hit, storm, new_program_after_settle, graph_break.
std::string_view alert_kind_name(AlertKind kind);
// The kind named `name`, nullopt for another word.
std::optional<AlertKind> alert_kind_named(std::string_view name);
// Every kind name, comma separated (for messages).
std::string alert_kind_names();

struct Alert {
  AlertKind kind = AlertKind::kRecompile;
  std::optional<int64_t> step;
  std::string site;    // code location, "" when the alert is about the whole run
  std::string cause;   // recompiles and site storms: the cause; else ""
  std::string detail;  // one sentence of evidence
  std::string source;  // the log and line that raised it ("" and 0 for a run-wide alert)
  int64_t line = 0;
};

// When a storm is raised: a site recompiling `site_recompiles` times within `site_steps` steps,
// or compiling for more than `compile_share` of the wall time of the last `share_steps` steps.
struct StormBudgets {
  int64_t site_recompiles = 3;
  int64_t site_steps = 10;
  double compile_share = 0.5;
  int64_t share_steps = 10;
};

// The state of a run as the live status line shows it.
struct RunStatus {
  int64_t programs = 0;
  int64_t recompiles = 0;
  std::optional<double> recent_compile_share;  // over the last share_steps steps with wall time
  std::string last_cause;
  std::optional<int64_t> last_step;
};

// What a look at a run's rows may take as complete: the last record read from a log may still be
// being written (a block cut at a line end reads as a shorter record).
enum class LogEnds {
  kMayGrow,    // a batch: what the last record of each log holds waits for a later look
  kPreviewed,  // the logs were ended as if complete (a preview): their last records are taken,
               // except a compile whose cause they leave unknown and a graph break (the lines
               // that decide them may still come: a block cut before its guard failures or its
               // reason)
  kEnded,      // the watch ends, or the logs stayed quiet: everything is taken
};

// What names a compile across the looks of an AlertTracker (watch_alerts.cc, identity_of): its
// compile id (a frame id of -1 where it has none) and its texts (program key where it has no
// compile id, site, cause), compared numbers first. A view, for looking up; OwnedCompileIdentity
// holds its texts.
struct CompileIdentity {
  int64_t frame_id = -1, frame_compile_id = 0, rank = 0, epoch = 0, ca_id = 0;
  std::string_view texts;  // the texts, separated by '\n'
  auto tied() const { return std::tie(frame_id, frame_compile_id, rank, epoch, ca_id, texts); }
};
struct OwnedCompileIdentity {
  explicit OwnedCompileIdentity(const CompileIdentity& id)
      : frame_id(id.frame_id),
        frame_compile_id(id.frame_compile_id),
        rank(id.rank),
        epoch(id.epoch),
        ca_id(id.ca_id),
        texts(id.texts) {}
  CompileIdentity view() const { return {frame_id, frame_compile_id, rank, epoch, ca_id, texts}; }
  int64_t frame_id, frame_compile_id, rank, epoch, ca_id;
  std::string texts;
};
inline bool operator<(const CompileIdentity& a, const CompileIdentity& b) {
  return a.tied() < b.tied();
}
inline bool operator<(const OwnedCompileIdentity& a, const OwnedCompileIdentity& b) {
  return a.view() < b.view();
}
inline bool operator<(const OwnedCompileIdentity& a, const CompileIdentity& b) {
  return a.view() < b;
}
inline bool operator<(const CompileIdentity& a, const OwnedCompileIdentity& b) {
  return a < b.view();
}

// Remembers what was already alerted; each call to advance() returns what is new since.
class AlertTracker {
 public:
  explicit AlertTracker(StormBudgets budgets = {}) : budgets_(budgets) {}

  // The alerts for what `rows` holds that no earlier call saw, in the order the run did them:
  // graph breaks, compiles (a recompile, and a new program after the curve had settled), limit
  // hits, then the storms they make. A compile is known by its compile id or program, site and
  // cause, not by its record: a second log of the same process can become its most informative
  // record later, and until the two logs are known to be one process each holds a copy of it.
  // What was read from the last record of a log waits for a later call as `ends` says.
  std::vector<Alert> advance(const store::WatchRunRows& rows, LogEnds ends);
  // Something was held back by the last call.
  bool holds_back() const { return holds_back_; }
  const RunStatus& status() const { return status_; }
  // Every look goes over every row (tests compare the looks that go on from the first changed
  // row with these).
  void look_at_every_row() { look_whole_ = true; }

 private:
  // What a look remembers of each compile row, by its index, to go on from the first row that
  // changed or was held back instead of looking at every compile of the run again.
  using IdentityMap = std::map<OwnedCompileIdentity, int64_t, std::less<>>;
  struct SeenRow {
    uint64_t mark = 0;     // its version, or a digest of the fields a look reads (mark_of)
    uint32_t source = 0;   // number in source_numbers_
    uint32_t site = 0;     // number in site_numbers_ when `in_site`
    bool in_site = false;  // a said recompile with a step, in site_rows_[site]
    bool has_nth = false;  // counted in nth_of_program_ (a compile without an id)
    IdentityMap::iterator nth = {};  // that entry
  };

  // Whether the row at (`source`, `line`) may be alerted on now (see advance()). `cut_short`: its
  // record may still read otherwise when its last lines come (a compile of unknown cause, a graph
  // break), so as a log's last record it waits in a preview too.
  bool settled(uint32_t source, int64_t line, bool cut_short = false);
  uint32_t source_number(const std::string& source);
  // The first row of `rows` a look must go over again; the rows before it were said at the last
  // look and are unchanged.
  size_t first_to_look_at(const store::WatchRunRows& rows) const;
  // Forgets what the last look counted for the rows from `first` on.
  void rewind_to(size_t first);
  void see_last_lines(const store::WatchRunRows& rows, size_t first);
  void see_breaks(const store::WatchRunRows& rows, std::vector<Alert>& out);
  void see_compiles(const store::WatchRunRows& rows, size_t first, std::vector<Alert>& out);
  void see_limit_hits(const store::WatchRunRows& rows, std::vector<Alert>& out);
  void see_site_storms(const store::WatchRunRows& rows, std::vector<Alert>& out);
  void see_share_storm(const store::WatchRunRows& rows, std::vector<Alert>& out);

  StormBudgets budgets_;
  RunStatus status_;
  // Alerted, by identity (watch_alerts.cc, identity_of): how many compiles of it were said.
  // Entries are never erased, so iterators to them stay valid.
  IdentityMap compiles_of_program_;
  // The compiles without an id counted by identity over the rows before the first a look goes
  // over (the nth compile of a program is its nth row); entries are never erased.
  IdentityMap nth_of_program_;
  std::vector<SeenRow> seen_;   // by row index, as the last look left them
  size_t held_from_ = 0;        // the first row the last look held back (seen_.size(): none)
  bool look_whole_ = false;     // go over every row at every look (the reference, for tests)
  std::string identity_texts_;  // identity_of's buffer
  util::TextTable programs_;    // the program keys alerted (a set of strings: 100 bytes each)
  // The records said as recompiles, with their sites and causes (watch_alerts.cc, record_key). A
  // record is said once however its compile is named: the run's later reading can name a
  // compile otherwise (an epoch or a process prefix that a log's end decides) while its record,
  // site and cause stay; a record whose site or cause changed is said again, with the new one.
  std::unordered_set<uint64_t> said_records_;
  std::set<std::pair<std::string, int64_t>> limit_hits_;  // source, line
  std::set<std::string> break_kinds_;                     // type, location and reason
  bool share_storming_ = false;
  bool settled_ = false;  // the curve had settled at the last look
  bool holds_back_ = false;
  // Logs numbered; per log, the line of its last record read: among the compile rows, as the
  // rows (by index) where the highest line so far rose, so that a look drops those from the
  // first row it goes over; among the breaks and limit hits, read again at every look.
  util::TextTable source_numbers_;
  std::vector<std::vector<std::pair<size_t, int64_t>>> compile_line_highs_;
  std::vector<int64_t> other_last_line_;
  // The said recompiles with a step, by site number (their row indices, ascending); storms count
  // only these, so that a storm never comes before the recompiles that make it. A look checks
  // again only the sites whose lists it changed (`touched_sites_`).
  util::TextTable site_numbers_{true};
  std::vector<std::vector<uint32_t>> site_rows_;
  std::vector<bool> storming_;  // by site number: over budget at the last look
  std::vector<uint32_t> touched_sites_;
  LogEnds ends_ = LogEnds::kMayGrow;  // of the current call
};

}  // namespace rcf::analysis
