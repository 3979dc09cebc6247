#include "analysis/watch_alerts.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>

namespace rcf::analysis {
namespace {

constexpr std::array<std::pair<AlertKind, std::string_view>, 5> kKindNames = {{
    {AlertKind::kRecompile, "recompile"},
    {AlertKind::kLimitHit, "limit_hit"},
    {AlertKind::kStorm, "storm"},
    {AlertKind::kNewProgramAfterSettle, "new_program_after_settle"},
    {AlertKind::kGraphBreak, "graph_break"},
}};

// A code location as compile sites are written: "file:line (function)", parts left out when the
// log did not give them.
std::string location_text(const std::string& file, std::optional<int64_t> line,
                          const std::string& function) {
  std::string text = file;
  if (line) text += fmt::format(":{}", *line);
  if (!function.empty()) text += (text.empty() ? "" : " ") + fmt::format("({})", function);
  return text;
}

Alert recompile_alert(const store::WatchCompileRow& c) {
  Alert a;
  a.kind = AlertKind::kRecompile;
  a.step = c.step;
  a.site = c.site;
  a.cause = c.cause;
  a.detail = c.detail.empty() ? fmt::format("program {}", c.program_key) : c.detail;
  a.source = c.source;
  a.line = c.line;
  return a;
}

// What names a compile across batches. Not its record nor its program key: until two logs of
// one process are known to be one (docs/torch_trace.md, "From records to compiles"), each holds a
// copy of the compile under a key of its own file. A Dynamo compile is its compile id (an unknown
// rank read as rank 0, as a single process's logs are) with its site and cause; any other compile
// its program key. Its texts are written into `texts` (a buffer reused over the run's compiles:
// a look goes over all of them), which it views.
CompileIdentity identity_of(const store::WatchCompileRow& c, std::string& texts) {
  texts.clear();
  CompileIdentity id;
  if (c.frame_id < 0) {
    (texts += c.program_key) += '\n';
  } else {
    id = {c.frame_id, c.frame_compile_id, std::max<int64_t>(c.rank, 0), c.epoch, c.ca_id, {}};
  }
  ((texts += c.site) += '\n') += c.cause;
  id.texts = texts;
  return id;
}

bool is_recompile(const store::WatchCompileRow& c) {
  return !c.cause.empty() && c.cause != "first_compile";
}

uint64_t mixed(uint64_t h, uint64_t v) {
  h = (h ^ v) * 0xff51afd7ed558ccdull;
  return h ^ (h >> 33);
}

uint64_t mixed(uint64_t h, const std::string& text) {
  return mixed(mixed(h, std::hash<std::string_view>()(text)), text.size());
}

// A digest of a compile row's record, site and cause: what one recompile alert says (63 bits: a
// collision would leave one recompile unsaid).
uint64_t record_key(uint32_t source, const store::WatchCompileRow& c) {
  return mixed(mixed(mixed(mixed(0, source), static_cast<uint64_t>(c.line)), c.site), c.cause);
}

// A digest of what a look reads of a compile row to decide whether and how it is said: its
// identity, step and record. A row whose digest is the last look's is taken as unchanged (63
// bits: a collision would keep the last look's verdict on one row). Its detail and times are
// read when an alert is written, from the row as it is then.
uint64_t fingerprint_of(const store::WatchCompileRow& c) {
  uint64_t h = 0x2545F4914F6CDD1Dull;
  for (int64_t v : {c.frame_id, c.frame_compile_id, c.rank, c.epoch, c.ca_id, c.line,
                    c.step.value_or(-1), int64_t{c.step.has_value()}})
    h = mixed(h, static_cast<uint64_t>(v));
  for (const std::string* text : {&c.program_key, &c.site, &c.cause, &c.source})
    h = mixed(h, *text);
  return h;
}

// What tells a row from the one a look saw at its index: the version of a row read from the store
// (a new read, a new version; store/watch_queries.h), else its digest. Digesting 100 000 rows
// chasing their texts was a twelfth of a watched run's CPU.
constexpr uint64_t kVersioned = uint64_t{1} << 63;
uint64_t mark_of(const store::WatchCompileRow& c) {
  return c.version != 0 ? (c.version | kVersioned) : (fingerprint_of(c) & ~kVersioned);
}

// The causes of `window`, in order of first appearance: "shape, dtype".
std::string causes_text(const std::vector<const store::WatchCompileRow*>& window) {
  std::vector<std::string> causes;
  for (const auto* c : window)
    if (std::find(causes.begin(), causes.end(), c->cause) == causes.end())
      causes.push_back(c->cause);
  std::string text;
  for (const auto& cause : causes) text += (text.empty() ? "" : ", ") + cause;
  return text;
}

// Compile time over wall time of the last `steps` steps that have a wall time, when any has.
std::optional<double> recent_share(const std::vector<store::WatchStepRow>& rows, int64_t steps,
                                   int64_t* first_step, int64_t* last_step) {
  double compile_ms = 0, wall_ms = 0;
  int64_t taken = 0;
  for (auto it = rows.rbegin(); it != rows.rend() && taken < steps; ++it) {
    if (!it->wall_ms || *it->wall_ms <= 0) continue;
    wall_ms += *it->wall_ms;
    compile_ms += it->compile_ms.value_or(0);
    if (taken++ == 0) *last_step = it->step;
    *first_step = it->step;
  }
  if (taken == 0) return std::nullopt;
  return std::min(1.0, compile_ms / wall_ms);
}

}  // namespace

std::string_view alert_kind_name(AlertKind kind) {
  for (const auto& [k, name] : kKindNames)
    if (k == kind) return name;
  return "recompile";
}

std::optional<AlertKind> alert_kind_named(std::string_view name) {
  for (const auto& [k, n] : kKindNames)
    if (n == name) return k;
  return std::nullopt;
}

std::string alert_kind_names() {
  std::string names;
  for (const auto& [k, name] : kKindNames)
    names += fmt::format("{}{}", names.empty() ? "" : ", ", name);
  return names;
}

std::vector<Alert> AlertTracker::advance(const store::WatchRunRows& rows, LogEnds ends) {
  ends_ = ends;
  holds_back_ = false;
  const size_t first = first_to_look_at(rows);
  rewind_to(first);
  see_last_lines(rows, first);
  std::vector<Alert> out;
  see_breaks(rows, out);
  see_compiles(rows, first, out);
  see_limit_hits(rows, out);
  see_site_storms(rows, out);
  see_share_storm(rows, out);
  settled_ = rows.convergence_state == "settled";
  return out;
}

// A batch changes the rows of the compiles it read and those after (a run's compiles are in
// order), and the rows held back wait for a later look: the rows before both were said, and a
// row said stays said while its identity and record are the same. Those the rows say are
// unchanged since this looked (WatchRunRows::unchanged_before) are not compared.
size_t AlertTracker::first_to_look_at(const store::WatchRunRows& rows) const {
  if (look_whole_) return 0;
  const size_t end = std::min({held_from_, seen_.size(), rows.compiles.size()});
  for (size_t index = std::min(rows.unchanged_before, end); index < end; ++index)
    if (mark_of(rows.compiles[index]) != seen_[index].mark) return index;
  return end;
}

void AlertTracker::rewind_to(size_t first) {
  for (size_t index = seen_.size(); index-- > first;) {
    const SeenRow& row = seen_[index];
    if (row.has_nth) --row.nth->second;
    if (row.in_site) {
      site_rows_[row.site].pop_back();  // its last: rows are added and dropped in index order
      touched_sites_.push_back(row.site);
    }
    auto& highs = compile_line_highs_[row.source];
    while (!highs.empty() && highs.back().first >= first) highs.pop_back();
  }
  seen_.resize(first);
}

uint32_t AlertTracker::source_number(const std::string& source) {
  const uint32_t number = source_numbers_.ordinal(source);
  if (number >= compile_line_highs_.size()) {
    compile_line_highs_.resize(number + 1);
    other_last_line_.resize(number + 1, 0);
  }
  return number;
}

// The line of each log's last record read, from the compile rows from `first` on (the highs of
// those before were kept) and from every break and limit hit.
void AlertTracker::see_last_lines(const store::WatchRunRows& rows, size_t first) {
  // An eighth more when it grows, not the double a resize gives: a batch adds a few rows.
  if (rows.compiles.size() > seen_.capacity())
    seen_.reserve(rows.compiles.size() + rows.compiles.size() / 8);
  seen_.resize(rows.compiles.size());
  for (size_t index = first; index < rows.compiles.size(); ++index) {
    const store::WatchCompileRow& c = rows.compiles[index];
    SeenRow& row = seen_[index];
    row.mark = mark_of(c);
    row.source = source_number(c.source);
    auto& highs = compile_line_highs_[row.source];
    if (highs.empty() || c.line > highs.back().second) highs.emplace_back(index, c.line);
  }
  std::fill(other_last_line_.begin(), other_last_line_.end(), 0);
  auto see = [&](const std::string& source, int64_t line) {
    int64_t& last = other_last_line_[source_number(source)];
    last = std::max(last, line);
  };
  for (const auto& b : rows.breaks) see(b.source, b.line);
  for (const auto& h : rows.limit_hits) see(h.source, h.line);
}

bool AlertTracker::settled(uint32_t source, int64_t line, bool cut_short) {
  if (ends_ == LogEnds::kEnded) return true;
  int64_t last = other_last_line_[source];
  if (const auto& highs = compile_line_highs_[source]; !highs.empty())
    last = std::max(last, highs.back().second);
  if (line < last) return true;
  if (ends_ == LogEnds::kPreviewed && !cut_short) return true;
  holds_back_ = true;
  return false;
}

// The first time each distinct break (its type, location and reason) is seen. A break that is
// its log's last record waits in a preview too, as a compile of unknown cause does: a record cut
// at a line end reads as a break with its type, reason or function cut short, another break.
void AlertTracker::see_breaks(const store::WatchRunRows& rows, std::vector<Alert>& out) {
  for (const auto& b : rows.breaks) {
    std::string where = location_text(b.user_file, b.user_line, b.user_function);
    std::string key = b.gb_type + "\n" + where + "\n" + b.reason;
    if (break_kinds_.count(key) || !settled(source_number(b.source), b.line, true)) continue;
    break_kinds_.insert(key);
    Alert a;
    a.kind = AlertKind::kGraphBreak;
    a.site = where;
    a.detail = b.gb_type.empty()  ? b.reason
               : b.reason.empty() ? b.gb_type
                                  : b.gb_type + ": " + b.reason;
    a.source = b.source;
    a.line = b.line;
    out.push_back(std::move(a));
  }
}

// Each compile not seen before, from the row `first` on: a recompile alert when its cause is not
// first_compile, and a new-program alert when the curve had settled at the last look and this
// program is new.
void AlertTracker::see_compiles(const store::WatchRunRows& rows, size_t first,
                                std::vector<Alert>& out) {
  bool settled_before = settled_;
  std::set<std::string> held;  // programs with a compile held back: their later ones wait too
  held_from_ = rows.compiles.size();
  auto say = [&](size_t index, const store::WatchCompileRow& c) {
    if (!is_recompile(c) || !c.step) return;
    SeenRow& row = seen_[index];
    row.site = site_numbers_.ordinal(c.site);
    row.in_site = true;
    if (row.site >= site_rows_.size()) {
      site_rows_.resize(row.site + 1);
      storming_.resize(row.site + 1, false);
    }
    site_rows_[row.site].push_back(static_cast<uint32_t>(index));
    touched_sites_.push_back(row.site);
  };
  for (size_t index = first; index < rows.compiles.size(); ++index) {
    const store::WatchCompileRow& c = rows.compiles[index];
    SeenRow& row = seen_[index];
    const CompileIdentity identity = identity_of(c, identity_texts_);
    // A compile id names one compile of a process: two rows with it are copies of that compile
    // (two logs not yet known to be one process). A program key can be compiled again.
    int64_t nth = 1;
    if (c.frame_id < 0) {
      auto it = nth_of_program_.find(identity);
      if (it == nth_of_program_.end())
        it = nth_of_program_.emplace(OwnedCompileIdentity(identity), 0).first;
      nth = ++it->second;
      row.nth = it;
      row.has_nth = true;
    }
    auto known = compiles_of_program_.find(identity);
    if (known == compiles_of_program_.end())
      known = compiles_of_program_.emplace(OwnedCompileIdentity(identity), 0).first;
    int64_t& alerted = known->second;
    if (nth <= alerted) {
      say(index, c);
      continue;
    }
    if (held.count(c.program_key) || !settled(row.source, c.line, c.cause == "unknown")) {
      held.insert(c.program_key);
      held_from_ = std::min(held_from_, index);
      continue;
    }
    alerted = nth;
    say(index, c);
    const uint32_t programs_before = programs_.size();
    const bool new_program = programs_.ordinal(c.program_key) > programs_before;
    if (is_recompile(c) && said_records_.insert(record_key(row.source, c)).second) {
      out.push_back(recompile_alert(c));
      ++status_.recompiles;
      status_.last_cause = c.cause;
    }
    if (settled_before && new_program) {
      Alert a = recompile_alert(c);
      a.kind = AlertKind::kNewProgramAfterSettle;
      a.detail = fmt::format("program {} compiled after the curve had settled{}", c.program_key,
                             c.cause.empty() ? "" : fmt::format(" (cause {})", c.cause));
      out.push_back(std::move(a));
      settled_before = false;  // once per settling
    }
    if (c.step) status_.last_step = std::max(status_.last_step.value_or(*c.step), *c.step);
  }
  status_.programs = static_cast<int64_t>(programs_.size());
}

void AlertTracker::see_limit_hits(const store::WatchRunRows& rows, std::vector<Alert>& out) {
  for (const auto& h : rows.limit_hits) {
    if (limit_hits_.count({h.source, h.line}) || !settled(source_number(h.source), h.line))
      continue;
    limit_hits_.insert({h.source, h.line});
    Alert a;
    a.kind = AlertKind::kLimitHit;
    a.site = location_text(h.file, h.firstlineno, h.function);
    std::string limit =
        h.limit_value ? fmt::format("{} ({})", h.limit_type, *h.limit_value) : h.limit_type;
    a.detail = fmt::format("{} hit: the frame {} from here on{}", limit,
                           h.hard_failure ? "raises" : "runs without compiling",
                           h.last_reason.empty() ? "" : "; last reason: " + h.last_reason);
    a.source = h.source;
    a.line = h.line;
    out.push_back(std::move(a));
  }
}

// A site whose recompiles within the last site_steps steps (up to its latest) reach the budget;
// raised when it goes over, again only after it fell back under. Only the sites whose said
// recompiles changed since the last look can change, in the order of their texts.
void AlertTracker::see_site_storms(const store::WatchRunRows& rows, std::vector<Alert>& out) {
  std::sort(touched_sites_.begin(), touched_sites_.end());
  touched_sites_.erase(std::unique(touched_sites_.begin(), touched_sites_.end()),
                       touched_sites_.end());
  std::vector<std::pair<std::string_view, uint32_t>> sites;
  for (uint32_t site : touched_sites_) sites.emplace_back(site_numbers_.text(site), site);
  touched_sites_.clear();
  std::sort(sites.begin(), sites.end());
  const auto at_least = static_cast<size_t>(std::max<int64_t>(budgets_.site_recompiles, 0));
  for (const auto& [site, number] : sites) {
    const auto& indices = site_rows_[number];
    std::vector<const store::WatchCompileRow*> window;
    if (indices.size() >= at_least && !indices.empty()) {
      std::vector<const store::WatchCompileRow*> list;
      for (uint32_t index : indices) list.push_back(&rows.compiles[index]);
      std::stable_sort(list.begin(), list.end(),
                       [](const auto* x, const auto* y) { return *x->step < *y->step; });
      const int64_t last = *list.back()->step;
      for (const auto* c : list)
        if (*c->step > last - budgets_.site_steps) window.push_back(c);
    }
    const bool over = !window.empty() && window.size() >= at_least;
    const bool was_over = storming_[number];
    storming_[number] = over;
    if (!over || was_over) continue;
    const auto& latest = *window.back();
    Alert a;
    a.kind = AlertKind::kStorm;
    a.step = latest.step;
    a.site = std::string(site);
    a.cause = causes_text(window);
    a.detail = fmt::format("{} recompiles within {} steps (steps {}-{}){}", window.size(),
                           budgets_.site_steps, *window.front()->step, *window.back()->step,
                           latest.detail.empty() ? "" : "; latest: " + latest.detail);
    a.source = latest.source;
    a.line = latest.line;
    out.push_back(std::move(a));
  }
}

// Compile time over the share budget in the last share_steps timed steps.
void AlertTracker::see_share_storm(const store::WatchRunRows& rows, std::vector<Alert>& out) {
  int64_t first = 0, last = 0;
  status_.recent_compile_share = recent_share(rows.steps, budgets_.share_steps, &first, &last);
  bool over =
      status_.recent_compile_share && *status_.recent_compile_share > budgets_.compile_share;
  if (over && !share_storming_) {
    Alert a;
    a.kind = AlertKind::kStorm;
    a.step = last;
    a.detail = fmt::format(
        "{:.0f} % of the wall time of steps {}-{} was spent compiling (budget {:.0f} %)",
        *status_.recent_compile_share * 100, first, last, budgets_.compile_share * 100);
    out.push_back(std::move(a));
  }
  share_storming_ = over;
}

}  // namespace rcf::analysis
