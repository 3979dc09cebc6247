#include "analysis/training_steps.h"

#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <set>

namespace rcf::analysis {
namespace {

constexpr const char* kWhatDecides =
    "to decide it, print a `step N` line in the same log, pass --step-pattern, or ingest a "
    "step-timing file (CSV or JSONL)";

int64_t count_before(const std::vector<int64_t>& sorted, int64_t line) {
  return std::lower_bound(sorted.begin(), sorted.end(), line) - sorted.begin();
}

// Calls fn(line, step) for every progress line the rows (sorted by line) stand for, in order.
template <typename Fn>
void for_each_line(const std::vector<const StepLineRow*>& rows, Fn&& fn) {
  for (const StepLineRow* r : rows)
    for (int64_t i = 0, line = r->line, step = r->step; i < r->repeats;
         ++i, line += r->line_stride, step += r->step_stride)
      fn(line, step);
}

int64_t line_count(const std::vector<const StepLineRow*>& rows) {
  int64_t n = 0;
  for (const StepLineRow* r : rows) n += r->repeats;
  return n;
}

// The most common positive difference between consecutive numbers (1 when every step is logged).
int64_t typical_gap(const std::vector<const StepLineRow*>& rows) {
  std::map<int64_t, int64_t> gaps;
  std::optional<int64_t> previous;
  for_each_line(rows, [&](int64_t, int64_t step) {
    if (previous && step > *previous) ++gaps[step - *previous];
    previous = step;
  });
  int64_t best = 0, seen = 0;
  for (const auto& [gap, n] : gaps)
    if (n > seen) best = gap, seen = n;
  return best;
}

}  // namespace

// Builds a TrainingSteps in named phases: series from progress lines, else syncs matched with
// timed steps, else timestamps; then the axis and its detail.
class StepDecision {
 public:
  explicit StepDecision(const StepEvidence& ev) : ev_(ev) {}

  TrainingSteps run() {
    collect_sync_lines();
    if (build_series()) return std::move(out_);
    if (!ev_.timed.empty() && match_timed_syncs()) return std::move(out_);
    if (match_timestamps()) return std::move(out_);
    if (match_trace_clock()) return std::move(out_);
    undecided();
    return std::move(out_);
  }

 private:
  // Arrays here hold one entry per sync (771,000 in a 1 GB PT_XLA_DEBUG log): each is sized
  // before it is filled, so that no doubling slack adds to the peak.
  void collect_sync_lines() {
    std::map<int64_t, size_t> per_source;
    for (const SyncRow& s : ev_.syncs) ++per_source[s.source_id];
    for (const auto& [source, n] : per_source) out_.sync_lines_[source].reserve(n);
    for (const SyncRow& s : ev_.syncs) out_.sync_lines_[s.source_id].push_back(s.line);
    for (auto& [source, lines] : out_.sync_lines_) std::sort(lines.begin(), lines.end());
  }

  // Phase 1: one series per compile source, the --step-pattern one first, else the shape with
  // the most lines whose numbers go up.
  bool build_series() {
    std::map<std::pair<int64_t, int64_t>, std::vector<const StepLineRow*>> by_shape;
    for (const StepLineRow& r : ev_.lines)
      if (ev_.first_compile.count(r.source_id)) by_shape[{r.source_id, r.shape}].push_back(&r);
    std::map<int64_t, std::pair<int64_t, size_t>> chosen;  // source -> (shape, lines)
    for (auto& [key, rows] : by_shape) {
      std::sort(rows.begin(), rows.end(), [](auto* a, auto* b) { return a->line < b->line; });
      auto series = unroll(rows);
      if (!series) continue;
      auto& best = chosen[key.first];
      bool better = best.second == 0 || key.second == 0 ||
                    (best.first != 0 && series->points.size() > best.second);
      if (!better) continue;
      best = {key.second, series->points.size()};
      finish_series(key.first, *series);
      out_.series_[key.first] = std::move(*series);
    }
    if (chosen.empty()) return false;
    describe_series(chosen);
    return true;
  }

  // The numbers of one shape, unrolled where they drop (a new epoch numbers its steps again).
  // Too many drops: not a progress series.
  static std::optional<TrainingSteps::Series> unroll(const std::vector<const StepLineRow*>& rows) {
    const int64_t lines = line_count(rows);
    if (lines < 2) return std::nullopt;
    int64_t gap = typical_gap(rows);
    if (gap == 0) return std::nullopt;
    TrainingSteps::Series s;
    StepSeries& points = s.points;
    int64_t offset = 0, drops = 0, last = 0;
    for_each_line(rows, [&](int64_t line, int64_t printed) {
      int64_t step = printed + offset;
      if (!points.empty() && step == last) return;  // printed twice
      if (!points.empty() && step < last) {
        ++drops;
        offset = last + gap - printed;
        step = last + gap;
      }
      points.push(line, step);
      last = step;
    });
    if (points.size() < 2 || drops * 3 > static_cast<int64_t>(points.size())) return std::nullopt;
    return s;
  }

  // A run's first step always compiles: a progress line before the run's first compile was
  // printed when its step began, else when it ended. A log that does not show the run's first
  // compile (Dynamo's recompile log) cannot tell: lines are then taken as printed at the end of
  // their step, as training loops print a step's loss once it is known.
  void finish_series(int64_t source, TrainingSteps::Series& s) const {
    auto shown = ev_.run_first_compile.find(source);
    s.printed_at_end = shown == ev_.run_first_compile.end() || shown->second < s.points.line(0);
  }

  void describe_series(const std::map<int64_t, std::pair<int64_t, size_t>>& chosen) {
    bool pattern = false;
    std::set<std::string> shapes;
    int64_t first = INT64_MAX, last = INT64_MIN;
    for (const auto& [source, pick] : chosen) {
      pattern = pattern || pick.first == 0;
      auto name = ev_.shape_names.find(pick.first);
      shapes.insert(pick.first == 0                 ? "--step-pattern"
                    : name != ev_.shape_names.end() ? name->second
                                                    : "?");
      const auto& s = out_.series_.at(source);
      first = std::min(first, s.points.step(0));
      last = std::max(last, s.points.last_step());
    }
    out_.axis_ = {"step", pattern ? "step_pattern" : "step_lines", ""};
    const auto& any = out_.series_.begin()->second;
    out_.axis_.detail = fmt::format(
        "progress lines `{}` in the compiles' own log, steps {}..{}, printed {} the step's "
        "compiles",
        fmt::join(shapes, "`, `"), first, last, any.printed_at_end ? "after" : "before");
  }

  // Phase 2: the timed steps' count against each compile source's syncs.
  bool match_timed_syncs() {
    const StepRuns::Distinct steps = ev_.timed.steps.distinct();
    const int64_t timed = steps.count;
    const int64_t base = steps.first;
    std::map<int64_t, std::vector<const SyncRow*>> by_source;
    for (const SyncRow& s : ev_.syncs)
      if (ev_.first_compile.count(s.source_id)) by_source[s.source_id].push_back(&s);
    std::string how;
    for (auto& [source, syncs] : by_source) {
      std::sort(syncs.begin(), syncs.end(), [](auto* a, auto* b) { return a->line < b->line; });
      if (auto sites = place_by_site(syncs, timed, base, &how)) {
        out_.by_syncs_[source] = std::move(*sites);
      } else if (auto even = place_by_count(syncs, timed, base, &how)) {
        out_.by_syncs_[source] = std::move(*even);
      }
    }
    if (out_.by_syncs_.empty()) return false;
    out_.axis_ = {"step", "step_timings", fmt::format("{} timed steps; {}", timed, how)};
    return true;
  }

  // The site that runs once per timed step (within one) ends the step; among several, the one
  // that comes last in the first step.
  std::optional<TrainingSteps::SyncSites> place_by_site(const std::vector<const SyncRow*>& syncs,
                                                        int64_t timed, int64_t base,
                                                        std::string* how) const {
    std::map<int64_t, int64_t> count, first_at;
    for (size_t i = 0; i < syncs.size(); ++i) {
      if (syncs[i]->site == 0) return std::nullopt;
      if (!count[syncs[i]->site]++) first_at[syncs[i]->site] = static_cast<int64_t>(i);
    }
    int64_t boundary = 0, best_at = -1;
    for (const auto& [site, n] : count)
      if (std::abs(n - timed) <= 1 && first_at[site] > best_at)
        boundary = site, best_at = first_at[site];
    if (boundary == 0) return std::nullopt;
    TrainingSteps::SyncSites out;
    out.step_of_sync.reserve(syncs.size() + 1);
    int64_t ends = 0;
    for (const SyncRow* s : syncs) {
      out.step_of_sync.push_back(base + ends);
      if (s->site == boundary) ++ends;
    }
    out.step_of_sync.push_back(base + ends);
    auto name = ev_.site_names.find(boundary);
    *how = fmt::format("the step-end sync at {} runs once per step ({} syncs in all, {} sites)",
                       name != ev_.site_names.end() ? name->second : "one site", syncs.size(),
                       count.size());
    return out;
  }

  // Without sites: a sync count that is an exact multiple of the timed steps.
  static std::optional<TrainingSteps::SyncSites> place_by_count(
      const std::vector<const SyncRow*>& syncs, int64_t timed, int64_t base, std::string* how) {
    int64_t n = static_cast<int64_t>(syncs.size());
    if (n == 0 || n % timed != 0) return std::nullopt;
    int64_t per_step = n / timed;
    TrainingSteps::SyncSites out;
    out.step_of_sync.reserve(n + 1);
    for (int64_t i = 0; i <= n; ++i)
      out.step_of_sync.push_back(base + std::min(i, n - 1) / per_step);
    *how = fmt::format("{} step-end syncs = {} per timed step (their sites are not logged)", n,
                       per_step);
    return out;
  }

  // Phase 3: compiles with start times against timed steps with timestamps (end of step).
  bool match_timestamps() {
    if (!ev_.compiles_have_start_times) return false;
    for (const TimedStepRow& t : ev_.timed.stamped)
      out_.timestamps_.emplace_back(t.timestamp_s, t.step);
    if (out_.timestamps_.size() < 2) {
      out_.timestamps_.clear();
      return false;
    }
    if (!std::is_sorted(out_.timestamps_.begin(), out_.timestamps_.end()))
      std::sort(out_.timestamps_.begin(), out_.timestamps_.end());
    std::string zone;
    if (ev_.step_times_offset_s) {
      int64_t off = *ev_.step_times_offset_s, a = off < 0 ? -off : off;
      zone = fmt::format(
          " (times printed without a zone, read as UTC{}{:02}:{:02}, the clock the TORCH_TRACE "
          "log shows)",
          off < 0 ? '-' : '+', a / 3600, a % 3600 / 60);
    }
    if (ev_.step_times_on_arrival)
      zone +=
          " (the times the progress lines reached rcf capture, from the console's line-time "
          "sidecar)";
    out_.axis_ = {"step", "step_timestamps",
                  fmt::format("{} timed steps with end times{}; each compile is placed in the "
                              "first step that ended after it started",
                              out_.timestamps_.size(), zone)};
    return true;
  }

  // Phase 4: the trace's clock against the order of a console with no times
  // (docs/training_steps.md, "The trace's clock").
  bool match_trace_clock() {
    if (!ev_.first_compile_start_us || ev_.console_lines.empty()) return false;
    std::vector<const StepLineRow*> rows;
    for (const StepLineRow& r : ev_.console_lines) rows.push_back(&r);
    std::sort(rows.begin(), rows.end(), [](auto* a, auto* b) { return a->line < b->line; });
    auto series = unroll(rows);
    if (!series) return false;
    const StepSeries& p = series->points;
    // A line a compile caused before the first progress line shows that the lines end their
    // step; the run's first compile named after the first line shows that they begin it.
    const ConsoleCompileLine* shown_before = nullptr;
    bool begins = false;
    for (const ConsoleCompileLine& c : ev_.console_compiles) {
      if (c.line < p.line(0) && !shown_before) shown_before = &c;
      begins = begins || (c.start_us == ev_.first_compile_start_us && c.line > p.line(0));
    }
    if (shown_before && begins) return false;
    out_.clock_.emplace_back(*ev_.first_compile_start_us, p.step(0));
    int64_t named = 0;
    for (const ConsoleCompileLine& c : ev_.console_compiles)
      if (c.start_us && c.start_us != ev_.first_compile_start_us)
        out_.clock_.emplace_back(*c.start_us, console_step(p, c.line, !begins)), ++named;
    std::sort(out_.clock_.begin(), out_.clock_.end());
    for (size_t i = 1; i < out_.clock_.size(); ++i)
      if (out_.clock_[i].second < out_.clock_[i - 1].second) {  // the order contradicts the clock
        out_.clock_.clear();
        return false;
      }
    out_.clock_last_step_ = p.last_step();
    describe_clock(p, rows.front()->shape, shown_before, named, !begins);
    return true;
  }

  // The step of a console line at `line` between the progress lines around it.
  static int64_t console_step(const StepSeries& p, int64_t line, bool printed_at_end) {
    const auto before = p.count_at_or_before(line);
    if (printed_at_end) return before == p.size() ? p.last_step() + 1 : p.step(before);
    return before == 0 ? p.step(0) : p.step(before - 1);
  }

  void describe_clock(const StepSeries& p, int64_t shape, const ConsoleCompileLine* shown_before,
                      int64_t named, bool printed_at_end) {
    auto name = ev_.shape_names.find(shape);
    std::string shown = shown_before
                            ? fmt::format(
                                  ", and the console shows a compile before its first progress "
                                  "line (`{}`, printed by a compile)",
                                  shown_before->text)
                            : "";
    std::string by_name =
        named == 0 ? ""
                   : fmt::format(
                         "; {} compile{} named by the console's Dynamo / Inductor records "
                         "placed between the progress lines around the record",
                         named, named == 1 ? "" : "s");
    out_.axis_ = {
        "step", "trace_clock",
        fmt::format(
            "{} progress lines `{}` in a console with no times that shares no stream with the "
            "compiles, steps {}..{}, printed {} the step's compiles: placed by the TORCH_TRACE "
            "clock where the console's order allows. The run's first compile by that clock is in "
            "the first step, {}: a run's first step always compiles{}{}; a compile between two "
            "placed compiles of one step takes that step",
            p.size(), name != ev_.shape_names.end() ? name->second : "?", p.step(0), p.last_step(),
            printed_at_end ? "after" : "before", p.step(0), shown, by_name)};
  }

  void undecided() {
    out_.axis_ = {"sync", "none", ""};
    int64_t syncs = static_cast<int64_t>(ev_.syncs.size());
    if (syncs == 0 && !ev_.timed.empty()) {
      out_.axis_.detail = steps_not_placed();
      return;
    }
    if (syncs == 0) {
      out_.axis_.detail = ev_.metrics_blocks
                              ? fmt::format(
                                    "the metrics file's `[MetricsData; step=N]` blocks count syncs "
                                    "(torch_xla.sync() writes one each), not training steps; {}",
                                    kWhatDecides)
                              : fmt::format("the logs show no training steps; {}", kWhatDecides);
      return;
    }
    std::string hint;
    for (const auto& [source, lines] : out_.sync_lines_)
      if (int64_t period = sync_site_period(first_sites(source, lines)))
        hint = fmt::format(" (their sites repeat every {} syncs: likely {} syncs per step)", period,
                           period);
    out_.axis_.detail = fmt::format(
        "{} step-end syncs and no step evidence{}: a training step may hold several syncs, so "
        "the axis counts syncs; {}",
        syncs, hint, kWhatDecides);
  }

  // The sites of the first syncs of `source` (at most the kSitePeriodWindow that
  // sync_site_period reads), in line order; `lines` are its sync lines, sorted. Only the syncs up
  // to the window's last line are copied: a 1 GB log holds 771,000 syncs.
  std::vector<int64_t> first_sites(int64_t source, const std::vector<int64_t>& lines) const {
    const size_t window = std::min(lines.size(), kSitePeriodWindow);
    if (window == 0) return {};
    const int64_t last_line = lines[window - 1];
    std::vector<std::pair<int64_t, int64_t>> early;  // (line, site)
    early.reserve(window);
    for (const SyncRow& s : ev_.syncs)
      if (s.source_id == source && s.line <= last_line) early.emplace_back(s.line, s.site);
    std::stable_sort(early.begin(), early.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    std::vector<int64_t> sites;
    sites.reserve(early.size());
    for (const auto& [line, site] : early) sites.push_back(site);
    return sites;
  }

  // Steps counted in a file of their own (step timings, a console of progress lines) that
  // nothing ties to the compiles: no shared stream, no syncs to match, no times on both sides.
  std::string steps_not_placed() const {
    const bool stamped = !ev_.timed.stamped.empty();
    std::string missing =
        ev_.compiles_have_start_times && ev_.step_times_without_zone
            ? "the steps' times name no time zone and no log of the run shows the writer's clock "
              "against UTC (a TORCH_TRACE log of the same machine does)"
        : ev_.compiles_have_start_times
            ? "the steps carry no times (a time that opens each progress line, or a step-timing "
              "file's timestamp column, would give them)"
        : stamped ? "the compiles carry no start times (TORCH_TRACE logs have them)"
                  : "neither the steps nor the compiles carry times";
    return fmt::format(
        "{} training steps are counted in a file of their own, but nothing places the compiles "
        "in them: they share no stream with the compiles and {}; print the progress lines to the "
        "compile log's stream, or give both times (TORCH_TRACE compile start times, and "
        "timestamped progress lines or a step-timing file with timestamps)",
        ev_.timed.steps.distinct().count, missing);
  }

  const StepEvidence& ev_;
  TrainingSteps out_;
};

TrainingSteps TrainingSteps::decide(const StepEvidence& evidence) {
  return StepDecision(evidence).run();
}

std::optional<int64_t> TrainingSteps::step_of(int64_t source_id, int64_t line,
                                              std::optional<int64_t> syncs_before,
                                              std::optional<int64_t> start_us) const {
  if (auto s = series_.find(source_id); s != series_.end()) {
    auto syncs = sync_lines_.find(source_id);
    const std::vector<int64_t>* sync_lines = syncs != sync_lines_.end() ? &syncs->second : nullptr;
    if (!syncs_before && sync_lines) syncs_before = count_before(*sync_lines, line);
    return from_series(s->second, sync_lines, line, syncs_before.value_or(0));
  }
  if (auto s = by_syncs_.find(source_id); s != by_syncs_.end()) {
    int64_t done = syncs_before ? *syncs_before : count_before(sync_lines_.at(source_id), line);
    done = std::clamp<int64_t>(done, 0, static_cast<int64_t>(s->second.step_of_sync.size()) - 1);
    return s->second.step_of_sync[done];
  }
  if (!clock_.empty()) return from_clock(start_us);
  if (!timestamps_.empty() && start_us) {
    double at = static_cast<double>(*start_us) / 1e6;
    auto it =
        std::lower_bound(timestamps_.begin(), timestamps_.end(), std::make_pair(at, INT64_MIN));
    return it == timestamps_.end() ? timestamps_.back().second : it->second;
  }
  return std::nullopt;
}

SeriesPlacement TrainingSteps::series_placement() const {
  SeriesPlacement placement;
  for (const auto& [source, s] : series_)
    if (!sync_lines_.contains(source))
      placement.series_.emplace(source, std::pair(s.points, s.printed_at_end));
  return placement;
}

// from_series reads the points around a compile's line (and, before the first, the first two):
// below then's last point those are the same in a series that begins with then's.
std::map<int64_t, int64_t> TrainingSteps::placed_as_before(const SeriesPlacement& then) const {
  std::map<int64_t, int64_t> lines;
  for (const auto& [source, was] : then.series_) {
    const auto& [points, printed_at_end] = was;
    auto now = series_.find(source);
    if (now == series_.end() || sync_lines_.contains(source) || points.size() < 2 ||
        now->second.printed_at_end != printed_at_end || !now->second.points.starts_with(points))
      continue;
    lines.emplace(source, points.line(points.size() - 1));
  }
  return lines;
}

std::vector<int64_t> TrainingSteps::line_sources() const {
  std::vector<int64_t> out;
  for (const auto& [source, s] : series_) out.push_back(source);
  return out;
}

std::optional<int64_t> TrainingSteps::last_step() const {
  std::optional<int64_t> last;
  auto see = [&last](int64_t step) { last = std::max(last.value_or(step), step); };
  for (const auto& [source, s] : series_) see(s.points.last_step());
  for (const auto& [source, s] : by_syncs_) see(s.step_of_sync.back());
  for (const auto& [at, step] : timestamps_) see(step);
  if (clock_last_step_) see(*clock_last_step_);
  return last;
}

// A placed compile's step; between two placed compiles of one step, that step; else none.
std::optional<int64_t> TrainingSteps::from_clock(std::optional<int64_t> start_us) const {
  if (!start_us) return std::nullopt;
  auto it = std::lower_bound(clock_.begin(), clock_.end(), std::make_pair(*start_us, INT64_MIN));
  if (it != clock_.end() && it->first == *start_us) return it->second;
  if (it == clock_.begin() || it == clock_.end() || std::prev(it)->second != it->second)
    return std::nullopt;
  return it->second;
}

// Between two progress lines `gap` steps apart, the syncs in between (when they divide evenly)
// say which of those steps a compile belongs to; else it takes the logged step.
std::optional<int64_t> TrainingSteps::from_series(const Series& s,
                                                  const std::vector<int64_t>* syncs, int64_t line,
                                                  int64_t syncs_before) const {
  const StepSeries& p = s.points;
  const auto n = static_cast<int64_t>(p.size());
  const auto next = static_cast<int64_t>(p.count_at_or_before(line));
  if (s.printed_at_end && next == n) return p.last_step() + 1;  // after the last logged step
  if (!s.printed_at_end && next == 0) return p.step(0);
  // Step-end syncs of the source before progress line i (0 when it has none).
  auto syncs_at = [&](int64_t i) {
    return syncs ? count_before(*syncs, p.line(static_cast<size_t>(i))) : 0;
  };
  // The lines around the compile: `a` before it (before the first line: one gap earlier), `b`.
  const int64_t a = next - 1, b = next;
  const int64_t step_a =
      a >= 0 ? p.step(static_cast<size_t>(a)) : p.step(0) - (p.step(1) - p.step(0));
  const int64_t syncs_a = a >= 0 ? syncs_at(a) : 0;
  if (b >= n) return step_a;
  const int64_t step_b = p.step(static_cast<size_t>(b));
  const int64_t gap = step_b - step_a;
  const int64_t logged = s.printed_at_end ? step_b : step_a;
  const int64_t syncs_between = syncs_at(b) - syncs_a;
  if (gap <= 1 || syncs_between <= 0 || syncs_between % gap != 0) return logged;
  const int64_t per_step = syncs_between / gap;
  const int64_t done = std::clamp<int64_t>(syncs_before - syncs_a, 0, syncs_between - 1);
  return step_a + done / per_step + (s.printed_at_end ? 1 : 0);
}

int64_t sync_site_period(const std::vector<int64_t>& sites) {
  const size_t n = std::min<size_t>(sites.size(), kSitePeriodWindow);
  for (size_t period = 2; period <= 8; ++period) {
    if (n < 3 * period) break;
    size_t same = 0;
    for (size_t i = period; i < n; ++i) same += sites[i] == sites[i - period];
    std::set<int64_t> distinct(sites.begin(), sites.begin() + static_cast<long>(period));
    if (distinct.size() > 1 && same * 100 >= (n - period) * 95) return static_cast<int64_t>(period);
  }
  return 0;
}

}  // namespace rcf::analysis
