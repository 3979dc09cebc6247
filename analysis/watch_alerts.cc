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

// The recompiles among `said` (compiles already alerted on) whose step is known, by site, for
// the sites with at least `at_least` of them (the others cannot storm: a run of 50 000 sites
// recompiled once or twice each built a list for every site at every look). The sites are
// counted by their number in `numbers`, into `counts`.
// `number_at` keeps the number each row (by its index from `first_row`) had at the last look: a
// row mostly names the same site, which is then checked by its text instead of hashed again.
std::map<std::string, std::vector<const store::WatchCompileRow*>> recompiles_by_site(
    const std::vector<const store::WatchCompileRow*>& said, int64_t at_least,
    util::TextTable& numbers, std::vector<int64_t>& counts, const store::WatchCompileRow* first_row,
    std::vector<uint32_t>& number_at) {
  std::vector<std::pair<const store::WatchCompileRow*, uint32_t>> counted;
  std::fill(counts.begin(), counts.end(), 0);
  for (const auto* c : said) {
    if (!is_recompile(*c) || !c->step) continue;
    const auto index = static_cast<size_t>(c - first_row);
    if (index >= number_at.size()) number_at.resize(index + 1, 0);
    uint32_t& site = number_at[index];
    if (site == 0 || site > numbers.size() || numbers.text(site) != c->site)
      site = numbers.ordinal(c->site);
    if (site >= counts.size()) counts.resize(site + 1, 0);
    ++counts[site];
    counted.emplace_back(c, site);
  }
  std::map<std::string, std::vector<const store::WatchCompileRow*>> by_site;
  for (const auto& [c, site] : counted)
    if (counts[site] >= at_least) by_site[c->site].push_back(c);
  for (auto& [site, list] : by_site)
    std::stable_sort(list.begin(), list.end(),
                     [](const auto* x, const auto* y) { return *x->step < *y->step; });
  return by_site;
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
  last_line_.clear();
  last_line_of_ = {nullptr, nullptr};
  // Rows come mostly a log at a time: the last log's entry is kept at hand.
  int64_t* last = nullptr;
  const std::string* last_source = nullptr;
  auto see_line = [&](const std::string& source, int64_t line) {
    if (!last_source || source != *last_source) {
      last = &last_line_[source];
      last_source = &source;
    }
    *last = std::max(*last, line);
  };
  for (const auto& c : rows.compiles) see_line(c.source, c.line);
  for (const auto& b : rows.breaks) see_line(b.source, b.line);
  for (const auto& h : rows.limit_hits) see_line(h.source, h.line);
  std::vector<Alert> out;
  see_breaks(rows, out);
  see_compiles(rows, out);
  see_limit_hits(rows, out);
  see_site_storms(out);
  see_share_storm(rows, out);
  settled_ = rows.convergence_state == "settled";
  return out;
}

bool AlertTracker::settled(const std::string& source, int64_t line, bool unknown_cause) {
  if (ends_ == LogEnds::kEnded) return true;
  auto& [known, last] = last_line_of_;
  if (!known || source != *known) {
    last = &last_line_[source];
    known = &source;
  }
  if (line < *last) return true;
  if (ends_ == LogEnds::kPreviewed && !unknown_cause) return true;
  holds_back_ = true;
  return false;
}

// The first time each distinct break (its type, location and reason) is seen.
void AlertTracker::see_breaks(const store::WatchRunRows& rows, std::vector<Alert>& out) {
  for (const auto& b : rows.breaks) {
    std::string where = location_text(b.user_file, b.user_line, b.user_function);
    std::string key = b.gb_type + "\n" + where + "\n" + b.reason;
    if (break_kinds_.count(key) || !settled(b.source, b.line)) continue;
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

// Each compile not seen before: a recompile alert when its cause is not first_compile, and a
// new-program alert when the curve had settled at the last look and this program is new.
void AlertTracker::see_compiles(const store::WatchRunRows& rows, std::vector<Alert>& out) {
  said_.clear();
  said_rows_ = rows.compiles.data();
  if (site_number_at_.size() > rows.compiles.size()) site_number_at_.resize(rows.compiles.size());
  bool settled_before = settled_;
  std::map<OwnedCompileIdentity, int64_t, std::less<>> nth_of_program;
  std::set<std::string> held;  // programs with a compile held back: their later ones wait too
  if (known_at_.size() > rows.compiles.size()) known_at_.resize(rows.compiles.size());
  for (size_t index = 0; index < rows.compiles.size(); ++index) {
    const store::WatchCompileRow& c = rows.compiles[index];
    const CompileIdentity identity = identity_of(c, identity_texts_);
    // A compile id names one compile of a process: two rows with it are copies of that compile
    // (two logs not yet known to be one process). A program key can be compiled again.
    int64_t nth = 1;
    if (c.frame_id < 0) {
      auto it = nth_of_program.find(identity);
      if (it == nth_of_program.end())
        it = nth_of_program.emplace(OwnedCompileIdentity(identity), 0).first;
      nth = ++it->second;
    }
    // The row at this index mostly names the compile it named at the last look: compared with
    // that entry first, instead of looked up among every compile of the run.
    if (index >= known_at_.size()) known_at_.push_back(compiles_of_program_.end());
    auto& known = known_at_[index];
    if (known == compiles_of_program_.end() || known->first.view() < identity ||
        identity < known->first.view())
      known = compiles_of_program_.find(identity);
    if (known == compiles_of_program_.end())
      known = compiles_of_program_.emplace(OwnedCompileIdentity(identity), 0).first;
    int64_t& alerted = known->second;
    if (nth <= alerted) {
      said_.push_back(&c);
      continue;
    }
    if (held.count(c.program_key) || !settled(c.source, c.line, c.cause == "unknown")) {
      held.insert(c.program_key);
      continue;
    }
    alerted = nth;
    said_.push_back(&c);
    bool new_program = programs_.insert(c.program_key).second;
    if (is_recompile(c)) {
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
    if (limit_hits_.count({h.source, h.line}) || !settled(h.source, h.line)) continue;
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
// raised when it goes over, again only after it fell back under.
void AlertTracker::see_site_storms(std::vector<Alert>& out) {
  std::set<std::string> storming;
  for (const auto& [site, list] : recompiles_by_site(said_, budgets_.site_recompiles, site_numbers_,
                                                     site_counts_, said_rows_, site_number_at_)) {
    int64_t last = *list.back()->step;
    std::vector<const store::WatchCompileRow*> window;
    for (const auto* c : list)
      if (*c->step > last - budgets_.site_steps) window.push_back(c);
    if (static_cast<int64_t>(window.size()) < budgets_.site_recompiles) continue;
    storming.insert(site);
    if (storming_sites_.count(site)) continue;
    const auto& latest = *window.back();
    Alert a;
    a.kind = AlertKind::kStorm;
    a.step = latest.step;
    a.site = site;
    a.cause = causes_text(window);
    a.detail = fmt::format("{} recompiles within {} steps (steps {}-{}){}", window.size(),
                           budgets_.site_steps, *window.front()->step, last,
                           latest.detail.empty() ? "" : "; latest: " + latest.detail);
    a.source = latest.source;
    a.line = latest.line;
    out.push_back(std::move(a));
  }
  storming_sites_ = std::move(storming);
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
