#include "analysis/dynamo_attribution.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <deque>
#include <functional>
#include <future>
#include <iterator>
#include <map>
#include <set>
#include <span>
#include <tuple>
#include <unordered_map>
#include <utility>

#include "analysis/attached_reasons.h"
#include "analysis/dynamo_key_index.h"
#include "analysis/graph_break_index.h"
#include "analysis/guard_reason.h"
#include "analysis/merged_compile.h"
#include "ingest/compile_id.h"
#include "util/sort_tail.h"

namespace rcf::analysis {

bool explains_compile(std::string_view origin) {
  return origin.starts_with("trace_") || origin == "text_recompiles" ||
         origin == "text_recompiles_verbose" || origin == "text_tuple_2023" ||
         origin == "text_guards_diff" || origin == "text_guard_fail_hook";
}

namespace {

// Site text of the compiles that no Dynamo frame made (see is_frameless_compile).
constexpr std::string_view kFramelessSite = "(no Dynamo frame: AOT / export compile)";

int kind_rank(std::string_view kind) {
  if (kind == "forward") return 0;
  if (kind == "recompile_block") return 1;
  return 2;  // referenced
}

std::string_view origin_phrase(std::string_view origin) {
  if (origin == "trace_recompile_reasons") return "TORCH_TRACE recompile_reasons artifact";
  if (origin == "trace_recompile_reason") return "TORCH_TRACE compilation_metrics.recompile_reason";
  if (origin == "text_recompiles") return "TORCH_LOGS=recompiles block";
  if (origin == "text_recompiles_verbose") return "TORCH_LOGS=recompiles_verbose block";
  if (origin == "text_tuple_2023") return "TORCH_LOGS=recompiles (2023 tuple form)";
  if (origin == "text_guards_diff") return "TORCH_LOGS=guards dumps of consecutive compiles";
  if (origin == "text_guard_fail_hook") return "GuardFail repr printed by a guard_fail_fn hook";
  return origin;
}

std::string_view first_line_view(std::string_view text) {
  return text.substr(0, text.find('\n'));
}

// Orders numeric texts numerically, others lexically after them.
bool value_less(const std::string& a, const std::string& b) {
  int64_t x = 0, y = 0;
  auto [pa, ea] = std::from_chars(a.data(), a.data() + a.size(), x);
  auto [pb, eb] = std::from_chars(b.data(), b.data() + b.size(), y);
  bool na = ea == std::errc() && pa == a.data() + a.size();
  bool nb = eb == std::errc() && pb == b.data() + b.size();
  if (na && nb) return x < y;
  if (na != nb) return na;
  return a < b;
}

std::optional<int64_t> as_int(const std::string& s) {
  int64_t v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size()) return std::nullopt;
  return v;
}

// "2..16" for runs of three or more consecutive integers, at most 12 items, then "...".
std::string format_value_list(const std::vector<std::string>& sorted) {
  std::string out;
  size_t items = 0;
  for (size_t i = 0; i < sorted.size(); ++i) {
    if (items == 12) {
      out += ", ...";
      break;
    }
    size_t j = i;
    if (auto first = as_int(sorted[i])) {
      while (j + 1 < sorted.size() && as_int(sorted[j + 1]) == *first + int64_t(j + 1 - i)) ++j;
    }
    out += (items++ ? ", " : "");
    if (j >= i + 2) {
      out += sorted[i] + ".." + sorted[j];
      i = j;
    } else {
      out += sorted[i];
    }
  }
  return out;
}

// Whether merged compile `m` is a frameless compile (Merged::frameless): a compilation_metrics
// record with no compile id and no code object. (A Dynamo compile always names its code object,
// also in the text-log eras that printed no compile id.)
bool is_frameless_compile(const Merged& m, const CompileTables& tables) {
  const CodeObject& code = tables.code(m);
  return m.key.frame_id < 0 && m.key.ca_id < 0 && tables.kind(m) == "forward" &&
         code.co_name.empty() && code.co_filename.empty() && !code.co_firstlineno;
}

// The sites of a run, numbered 1, 2, ... in the order first seen, each text formatted once. A
// site is the compiled function's file, first line and name; its texts are views into the
// RunInputs, where each text is held once, so a site is found by where its texts are (the same
// text at two addresses, e.g. an empty view and "", merely gets two numbers).
class SiteNumbers {
 public:
  // Numbers the site of each merged compile, in key order. A site is a code object (the tables
  // tell code objects apart by where their texts are, as sites are), or the frameless site.
  // A site's text is made when first asked for: a watched run's batch numbers every compile's
  // site but attributes only the compiles after the kept ones (formatting 50 000 site texts was
  // a tenth of such a batch).
  // Numbers the site of `m`, the compiles given in key order.
  void number(Merged& m) {
    if (m.frameless) {
      if (frameless_number_ == 0) frameless_number_ = add(kFramelessCode);
      m.site_number = frameless_number_;
      return;
    }
    if (m.code >= by_code_.size()) by_code_.resize(m.code + 1, 0);
    uint32_t& number = by_code_[m.code];
    if (number == 0) number = add(m.code);
    m.site_number = number;
  }
  // `tables`: those given to number(). The reference is valid until the next number().
  const std::string& text(uint32_t number, const CompileTables& tables) const {
    if (number > texts_.size()) texts_.resize(number);
    std::string& text = texts_[number - 1];
    if (text.empty()) text = text_of(codes_[number - 1], tables);
    return text;
  }

 private:
  static constexpr uint32_t kFramelessCode = UINT32_MAX;
  static std::string text_of(uint32_t code, const CompileTables& tables) {
    if (code == kFramelessCode) return std::string(kFramelessSite);
    const CodeObject& object = tables.code_at(code);
    std::string_view where = object.co_filename.empty() ? "<unknown file>" : object.co_filename;
    std::string_view name = object.co_name.empty() ? "?" : object.co_name;
    return object.co_firstlineno ? fmt::format("{}:{} ({})", where, *object.co_firstlineno, name)
                                 : fmt::format("{} ({})", where, name);
  }
  uint32_t add(uint32_t code) {
    codes_.push_back(code);
    return static_cast<uint32_t>(codes_.size());
  }

  std::vector<uint32_t> by_code_;  // the number of each code object's site, 0: not seen yet
  uint32_t frameless_number_ = 0;
  std::vector<uint32_t> codes_;  // by number - 1: the site's code object, or kFramelessCode
  // By number - 1, once asked for (a text is never ""); grown as texts are asked for (a deque: a
  // text handed out stays where it is).
  mutable std::deque<std::string> texts_;
};

}  // namespace

struct MergedCompiles::Impl {
  util::LargeVector<Merged> merged;  // one per compile, by key
  // The positions in `merged` in the order the merger first saw each compile (row order, which is
  // mostly the attribution order): attribution_order starts from it. Empty: key order.
  util::LargeVector<uint32_t> seen_order;
  CompileTables tables;  // what the compiles index
  SiteNumbers sites;
  AttachedReasons reasons;  // MergedCompiles::add_reason's, then RunInputs::reasons

  // Whether the compiles come from more than one process (source and rank): program keys then
  // get a rank (or file) prefix.
  bool several_processes = false;

  // Once `merged` is sorted by key: which compiles no frame made, the sites' numbers, and whether
  // several processes made them, in one walk of the compiles (at 200 000 compiles of 104 bytes,
  // each walk was a few percent of a watched batch).
  void number_sites() {
    for (Merged& m : merged) number_site(m);
  }
  // The same for one compile, the compiles given in key order (the snapshot's copy numbers each
  // as it is copied).
  void number_site(Merged& m) {
    m.frameless = is_frameless_compile(m, tables);
    sites.number(m);
    const store::DynamoKey& first = merged.front().key;
    several_processes =
        several_processes || m.key.source_id != first.source_id || m.key.rank != first.rank;
  }
};

void MergedCompiles::add_reason(const ReasonRecord& reason) {
  impl_->reasons.add(reason, impl_->merged, nullptr);
}

MergedCompiles::MergedCompiles() = default;
MergedCompiles::~MergedCompiles() = default;
MergedCompiles::MergedCompiles(MergedCompiles&&) noexcept = default;
MergedCompiles& MergedCompiles::operator=(MergedCompiles&&) noexcept = default;

namespace {

// Folds record `r` into `reported`, in input order.
void note_reported(const CompileRecord& r, ReportedByRecords& reported) {
  if (!r.recompile_reason.empty()) reported.recompile_reason = r.recompile_reason;
  if (!r.fail_type.empty()) reported.fail_type = r.fail_type;
  if (!r.fail_type.empty() && r.has_guarded_code.value_or(0) == 0) reported.failed = true;
}

// Moves merged[order[i]] to position i for every i, in place (following each cycle of the
// permutation once): a sorted copy would hold the compiles twice. `order` is left as 0, 1, 2, ...
void permute(util::LargeVector<Merged>& merged, util::LargeVector<uint32_t>& order) {
  for (uint32_t i = 0; i < order.size(); ++i) {
    if (order[i] == i) continue;
    Merged held = merged[i];
    uint32_t to = i;
    while (order[to] != i) {
      const uint32_t from = order[to];
      merged[to] = merged[from];
      order[to] = to;
      to = from;
    }
    merged[to] = held;
    order[to] = to;
  }
}

// Sorts the merged compiles (in first-seen order) by key. Sorted as (key, position) pairs, then
// moved into place: comparing through the positions would fetch a compile from memory at every
// comparison.
// Sorts `merged` by key; returns the old position of each new one (empty when it was sorted).
util::LargeVector<uint32_t> sort_by_key(util::LargeVector<Merged>& merged) {
  auto key_less = [](const Merged& a, const Merged& b) { return a.key < b.key; };
  util::LargeVector<uint32_t> order;
  if (std::is_sorted(merged.begin(), merged.end(), key_less)) return order;
  {
    util::LargeVector<std::pair<DynamoKey, uint32_t>> keyed;
    keyed.reserve(merged.size());
    for (uint32_t i = 0; i < merged.size(); ++i) keyed.emplace_back(merged[i].key, i);
    std::sort(keyed.begin(), keyed.end());
    order.reserve(keyed.size());
    for (const auto& [key, i] : keyed) order.push_back(i);
  }
  permute(merged, order);
  return order;
}

// The positions of a run's compiles in the order they were first seen, from the first-seen index
// of each position (`key_order`, a permutation).
util::LargeVector<uint32_t> seen_order_of(const util::LargeVector<uint32_t>& key_order) {
  util::LargeVector<uint32_t> seen(key_order.size());
  for (uint32_t position = 0; position < key_order.size(); ++position)
    seen[key_order[position]] = position;
  return seen;
}

}  // namespace

struct DynamoCompileMerger::State {
  explicit State(size_t expected) : index(expected) {
    merged.reserve(expected);  // at most one per record; untouched pages cost nothing
  }
  // A fork's: a copy whose tables look code objects up in `other`'s (CompileTables::fork).
  State(const State& other, CompileTables forked_tables)
      : merged(other.merged),
        tables(std::move(forked_tables)),
        index(other.index),
        last(other.last),
        key_order(other.key_order),
        attached(other.attached),
        reasons_offered(other.reasons_offered),
        unplaced(other.unplaced) {}
  // The compile of `key`, added from `r` when new; `added` tells which.
  Merged& compile_of(const CompileRecord& r, bool& added) {
    auto key_at = [this](uint32_t i) -> const DynamoKey& { return merged[i].key; };
    // A compile's records mostly follow one another.
    if (last < merged.size() && merged[last].key == r.key) {
      added = false;
    } else if (std::optional<uint32_t> at = index.find(r.key, key_at)) {
      last = *at;
      added = false;
    } else {
      merged.emplace_back(r.key);
      last = static_cast<uint32_t>(merged.size() - 1);
      index.add(r.key, last, key_at);
      added = true;
    }
    return merged[last];
  }

  util::LargeVector<Merged> merged;  // one per compile, in first-seen order until finish()
  CompileTables tables;
  DynamoKeyIndex index;        // positions in `merged` by key
  uint32_t last = UINT32_MAX;  // the position of the last record's compile
  // The positions of merged[0, key_order.size()) in key order, as the last snapshot left them.
  util::LargeVector<uint32_t> key_order;
  // The reasons the last snapshot attached, in row order, indexing its compiles (key order); how
  // many reasons were offered; those of them that explain a compile not there then (by index).
  std::optional<AttachedReasons> attached;
  size_t reasons_offered = 0;
  std::vector<size_t> unplaced;
};

DynamoCompileMerger::DynamoCompileMerger(size_t expected_records)
    : state_(std::make_unique<State>(expected_records)) {}
DynamoCompileMerger::~DynamoCompileMerger() = default;
DynamoCompileMerger::DynamoCompileMerger(DynamoCompileMerger&&) noexcept = default;
DynamoCompileMerger& DynamoCompileMerger::operator=(DynamoCompileMerger&&) noexcept = default;

void DynamoCompileMerger::add(const CompileRecord& r) {
  if (r.kind == "runtime" || r.kind == "backward") return;
  bool added = false;
  Merged& m = state_->compile_of(r, added);
  CompileTables& tables = state_->tables;
  if (added || kind_rank(r.kind) < kind_rank(tables.kind(m))) tables.set_best(m, r);
  tables.add_code(m, r, added);
  m.attempt = std::max(m.attempt, r.attempt);
  if (r.kind != "referenced") m.referenced_only = false;
  if (!r.recompile_reason.empty() || !r.fail_type.empty()) note_reported(r, tables.reported(m));
}

bool DynamoCompileMerger::contains(const DynamoKey& key) const {
  const util::LargeVector<Merged>& merged = state_->merged;
  return state_->index
      .find(key, [&merged](uint32_t i) -> const DynamoKey& { return merged[i].key; })
      .has_value();
}

bool DynamoCompileMerger::only_referenced(const DynamoKey& key) const {
  const util::LargeVector<Merged>& merged = state_->merged;
  std::optional<uint32_t> at =
      state_->index.find(key, [&merged](uint32_t i) -> const DynamoKey& { return merged[i].key; });
  return at && merged[*at].referenced_only;
}

DynamoCompileMerger DynamoCompileMerger::fork() const {
  DynamoCompileMerger copy;
  copy.state_ = std::make_unique<State>(*state_, state_->tables.fork());
  return copy;
}

MergedCompiles DynamoCompileMerger::snapshot(size_t reasons, const ReasonAt& reason_at) {
  State& state = *state_;
  const uint32_t compiles_before = static_cast<uint32_t>(state.key_order.size());
  // The compiles added since the last snapshot, sorted, merged into the key order kept.
  auto key_less = [&state](uint32_t a, uint32_t b) {
    return state.merged[a].key < state.merged[b].key;
  };
  const size_t kept = state.key_order.size();
  for (size_t i = kept; i < state.merged.size(); ++i)
    state.key_order.push_back(static_cast<uint32_t>(i));
  // New compiles mostly come after every kept one (a new frame, a frame's next compile): then
  // nothing is merged; otherwise the few are merged in without a buffer of the whole order.
  util::sort_tail(state.key_order.begin(), state.key_order.begin() + static_cast<ptrdiff_t>(kept),
                  state.key_order.end(), key_less);
  MergedCompiles out;
  out.impl_ = std::make_unique<MergedCompiles::Impl>();
  out.impl_->merged.reserve(state.merged.size());
  out.impl_->tables = state.tables.copy_to_read();
  for (uint32_t i : state.key_order)
    out.impl_->number_site(out.impl_->merged.emplace_back(state.merged[i]));
  out.impl_->seen_order = seen_order_of(state.key_order);
  attach_reasons(out, compiles_before, reasons, reason_at);
  return out;
}

void DynamoCompileMerger::attach_reasons(MergedCompiles& out, uint32_t compiles_before,
                                         size_t reasons, const ReasonAt& reason_at) {
  State& state = *state_;
  util::LargeVector<Merged>& merged = out.impl_->merged;
  bool go_on = state.attached && reasons >= state.reasons_offered && !state.attached->has_idless();
  for (size_t i : state.unplaced)
    if (go_on && find_merged(merged, reason_at(i).key)) go_on = false;
  if (go_on) {
    std::vector<uint32_t> added;  // the positions of the compiles new since the last snapshot
    for (uint32_t at = 0; at < state.key_order.size(); ++at)
      if (state.key_order[at] >= compiles_before) added.push_back(at);
    state.attached->compiles_inserted(added);
  } else {
    state.attached.emplace();
    state.reasons_offered = 0;
    state.unplaced.clear();
  }
  for (size_t i = state.reasons_offered; i < reasons; ++i) {
    const ReasonRecord& r = reason_at(i);
    const size_t before = state.attached->size();
    state.attached->add(r, merged, nullptr);
    if (state.attached->size() == before && explains_compile(r.origin)) state.unplaced.push_back(i);
  }
  state.reasons_offered = reasons;
  out.impl_->reasons = *state.attached;  // grouped by the analysis, this one kept in row order
}

MergedCompiles DynamoCompileMerger::finish() {
  MergedCompiles out;
  out.impl_ = std::make_unique<MergedCompiles::Impl>();
  std::unique_ptr<State> state = std::exchange(state_, std::make_unique<State>(0));
  state->index = DynamoKeyIndex();  // not needed to sort: freed first
  const util::LargeVector<uint32_t> key_order = sort_by_key(state->merged);
  out.impl_->seen_order = seen_order_of(key_order);
  out.impl_->merged = std::move(state->merged);
  out.impl_->tables = std::move(state->tables);
  out.impl_->number_sites();
  return out;
}

RunInputs RunInputs::fork() const {
  RunInputs copy;
  copy.compiles = compiles;
  copy.reasons = reasons;
  copy.breaks = breaks;
  copy.break_frames = break_frames;
  copy.caches = caches;
  copy.texts = texts.fork();
  copy.classified = classified.fork();
  copy.labels = labels;
  copy.source_names = source_names;
  copy.merged_sources = merged_sources;
  return copy;
}

MergedCompiles merge_dynamo_compiles(const RunInputs& in) {
  DynamoCompileMerger merger(in.compiles.size());
  for (const CompileRecord& r : in.compiles) merger.add(r);
  return merger.finish();
}

std::optional<ResumeName> parse_resume_name(std::string_view co_name) {
  constexpr std::string_view kPrefix = "torch_dynamo_resume_in_";
  if (co_name.rfind(kPrefix, 0) == 0) {
    std::string_view rest = co_name.substr(kPrefix.size());
    size_t at = rest.rfind("_at_");
    ResumeName out;
    if (at == std::string::npos) {
      out.function = std::string(rest);
      return out;
    }
    out.function = std::string(rest.substr(0, at));
    std::string_view digits = rest.substr(at + 4);
    int64_t line = -1;
    auto [p, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), line);
    if (ec == std::errc() && p == digits.data() + digits.size()) out.line = line;
    return out;
  }
  constexpr std::string_view kOld = "<resume in ";
  if (co_name.rfind(kOld, 0) == 0 && co_name.back() == '>') {
    return ResumeName{std::string(co_name.substr(kOld.size(), co_name.size() - kOld.size() - 1)),
                      -1};
  }
  return std::nullopt;
}

namespace {

// Reasons repeat a lot (each recompile re-lists the older entries). The loader classifies each
// text of the store once (RunInputs::classified); any other text is classified once while it
// stays in this bounded cache (dropped when full, so that memory does not grow with the number of
// distinct reasons; the older entries a recompile re-lists are recent). It is dropped only between
// two compiles (forget_if_full), so a returned view stays valid while one compile is attributed
// (unordered_map nodes never move). Keyed by where the text is, not by its bytes (no hash of a
// long text): a text read from the store is held once in RunInputs::texts, so its repeats share
// an address; the same text at two addresses is merely classified twice.
class ReasonClassifier {
 public:
  ReasonClassifier(const RunInputs& in, const AttachedReasons& reasons)
      : in_(in), reasons_(reasons) {}
  ReasonClass operator()(const AttachedReason& r) {
    if (std::optional<int64_t> sid = reasons_.sid(r))
      if (std::optional<ReasonClass> known = in_.classified.find(*sid)) return *known;
    std::string_view text = reasons_.text(r, in_);
    std::pair<const char*, size_t> where(text.data(), text.size());
    auto it = classified_.find(where);
    if (it == classified_.end()) it = classified_.emplace(where, classify_guard_reason(text)).first;
    return ReasonClass::of(it->second);
  }
  void forget_if_full() {
    if (classified_.size() >= kEntries) classified_.clear();
  }

 private:
  static constexpr size_t kEntries = 1 << 16;
  struct TextAddressHash {
    size_t operator()(std::pair<const char*, size_t> t) const {
      return std::hash<const char*>()(t.first) ^ (t.second * 0x9E3779B97F4A7C15ull);
    }
  };
  const RunInputs& in_;
  const AttachedReasons& reasons_;
  std::unordered_map<std::pair<const char*, size_t>, GuardReason, TextAddressHash> classified_;
};

// Sets Merged::effective_line: compiles known only as "referenced" sort just before the first
// compile that names them. A reason mostly names an older compile of the owner's own frame, which
// sits a few entries before the owner in key order (its compile number that much lower): looked
// for there first, then, when not there, in a compact sorted array of the referenced-only
// compiles' keys (a few MB, where a search of all compiles would miss the cache at every step).
void place_referenced_only(util::LargeVector<Merged>& merged, const AttachedReasons& reasons) {
  util::LargeVector<std::pair<DynamoKey, uint32_t>> referenced_only;
  for (uint32_t i = 0; i < merged.size(); ++i) {
    merged[i].effective_line = merged[i].line;
    if (merged[i].referenced_only) referenced_only.emplace_back(merged[i].key, i);
  }
  for (uint32_t o = 0; o < merged.size() && !referenced_only.empty(); ++o) {
    const Merged& owner = merged[o];
    for (const AttachedReason& r : reasons.of(owner)) {
      std::optional<ingest::CompileId> id = reasons.old_id(r);
      if (!id) continue;
      DynamoKey old = owner.key;
      old.frame_id = id->frame;
      old.frame_compile_id = id->compile;
      old.ca_id = id->compiled_autograd;
      Merged* named = nullptr;
      int64_t near = int64_t{o} - (int64_t{owner.key.frame_compile_id} - id->compile);
      if (near >= 0 && near < static_cast<int64_t>(merged.size()) && merged[near].key == old) {
        named = &merged[near];
      } else {
        auto it = std::lower_bound(referenced_only.begin(), referenced_only.end(), old,
                                   [](const auto& e, const DynamoKey& k) { return e.first < k; });
        if (it != referenced_only.end() && it->first == old) named = &merged[it->second];
      }
      if (named && named->referenced_only)
        named->effective_line = std::min(named->effective_line, owner.line);
    }
  }
}

// Sets Merged::cache_state: fx_graph preferred over aotautograd.
void attach_cache_states(const RunInputs& in, util::LargeVector<Merged>& merged,
                         CompileTables& tables) {
  for (const auto& c : in.caches) {
    Merged* m = find_merged(merged, c.key);
    if (m && (tables.cache_state(*m).empty() || c.cache == "fx_graph"))
      tables.set_cache_state(*m, c.state);
  }
}

// Breaks by the frame they were traced in. Without a user location (TORCH_TRACE restart reasons):
// by the process and the function of the frame they restarted, so that a resume function takes
// the closest earlier one. With one: by the process and the user line, so that of two breaks at
// one line (`norms.append(loss.item())` breaks at .item(), then its resume function breaks at
// list.append) a resume function takes the one of the closest earlier frame.
class UnlocatedBreaks {
 public:
  UnlocatedBreaks(const RunInputs& in, util::LargeVector<Merged>& merged,
                  const CompileTables& tables)
      : in_(in) {
    for (size_t i = 0; i < in.breaks.size(); ++i) {
      const BreakRecord& b = in.breaks[i];
      const DynamoKey& k = b.key;
      if (k.frame_id >= 0 && b.user_line >= 0)
        by_line_[{k.source_id, k.rank, k.epoch, k.ca_id, b.user_line}].emplace_back(k.frame_id, i);
      if (b.user_line >= 0 || !b.user_function.empty() || k.frame_id < 0) continue;
      const Merged* broken = find_merged(merged, k);
      if (!broken) continue;
      std::string_view broken_name = tables.code(*broken).co_name;
      auto broken_resume = parse_resume_name(broken_name);
      by_function_[{k.source_id, k.rank, k.epoch, k.ca_id,
                    broken_resume ? broken_resume->function : std::string(broken_name)}]
          .emplace_back(k.frame_id, i);
    }
    for (auto& [where, list] : by_function_) std::stable_sort(list.begin(), list.end());
    for (auto& [where, list] : by_line_) std::stable_sort(list.begin(), list.end());
  }

  // The first break at user line `line` of the closest frame before `m`'s in its process,
  // nullptr if none.
  const BreakRecord* closest_at_line(const Merged& m, int64_t line) const {
    auto it = by_line_.find({m.key.source_id, m.key.rank, m.key.epoch, m.key.ca_id, line});
    return it == by_line_.end() ? nullptr : closest_before(it->second, m.key.frame_id);
  }

  // The break that restarted the closest earlier frame of `function` in the process of `m` (the
  // frame the resume function `m` was split from), nullptr if none.
  const BreakRecord* find(const Merged& m, const std::string& function) const {
    auto it = by_function_.find({m.key.source_id, m.key.rank, m.key.epoch, m.key.ca_id, function});
    return it == by_function_.end() ? nullptr : closest_before(it->second, m.key.frame_id);
  }

 private:
  using Frames = std::vector<std::pair<int64_t, size_t>>;  // (frame_id, break), by frame, log
  // The first break of the closest frame before `frame_id`.
  const BreakRecord* closest_before(const Frames& list, int64_t frame_id) const {
    auto after =
        std::lower_bound(list.begin(), list.end(), std::pair<int64_t, size_t>(frame_id, 0));
    if (after == list.begin()) return nullptr;
    int64_t frame = (after - 1)->first;
    auto first = std::lower_bound(list.begin(), after, std::pair<int64_t, size_t>(frame, 0));
    return &in_.breaks[first->second];
  }

  using Key = std::tuple<int64_t, int64_t, int64_t, int64_t, std::string>;
  using LineKey = std::tuple<int64_t, int64_t, int64_t, int64_t, int64_t>;
  const RunInputs& in_;
  std::map<Key, Frames> by_function_;
  std::map<LineKey, Frames> by_line_;
};

// Phase 3: the attribution order. By start time when the log has it, else by position in the
// source; then frame and compile, then key order. Sorted as compact keys: comparing through the
// compiles would fetch two of them, and their best records, from memory at every comparison.
util::LargeVector<const Merged*> attribution_order(const util::LargeVector<Merged>& merged,
                                                   const util::LargeVector<uint32_t>& seen_order,
                                                   const CompileTables& tables) {
  struct OrderKey {
    bool no_start;
    int64_t start_us;
    int32_t source_id;
    int64_t effective_line;
    bool not_referenced_only;
    int32_t frame_id, frame_compile_id;
    uint32_t index;  // in `merged`: key order
    auto tied() const {
      return std::tie(no_start, start_us, source_id, effective_line, not_referenced_only, frame_id,
                      frame_compile_id, index);
    }
  };
  // In the order their records came, the compiles with a record of their own are mostly in
  // attribution order already, and so are those known only by reference, in the order of the
  // references (by key they are not: a frame's recompiles come long after later frames' first
  // compiles). Each kind is sorted as nearly sorted (the few out of order sorted and merged in,
  // else a sort of all), then the two merged: a watched run orders its compiles again at every
  // batch.
  util::LargeVector<OrderKey> keys;
  util::LargeVector<OrderKey> referenced;
  keys.reserve(merged.size());
  const bool seen = seen_order.size() == merged.size();
  for (uint32_t n = 0; n < merged.size(); ++n) {
    const uint32_t i = seen ? seen_order[n] : n;
    const Merged& m = merged[i];
    const std::optional<int64_t> start = tables.times(m).start_us;
    (m.referenced_only ? referenced : keys)
        .push_back({!start.has_value(), start.value_or(0), m.key.source_id, m.effective_line,
                    !m.referenced_only, m.key.frame_id, m.key.frame_compile_id, i});
  }
  auto before = [](const OrderKey& a, const OrderKey& b) { return a.tied() < b.tied(); };
  util::sort_nearly_sorted(keys.begin(), keys.end(), before);
  util::sort_nearly_sorted(referenced.begin(), referenced.end(), before);
  const auto own = static_cast<std::ptrdiff_t>(keys.size());
  keys.resize(merged.size());
  util::merge_in_from_back(keys.begin(), keys.begin() + own, keys.end(), referenced, before);
  util::LargeVector<const Merged*> order;
  order.reserve(merged.size());
  for (const OrderKey& k : keys) order.push_back(&merged[k.index]);
  return order;
}

// Phase 4: decides, for one merged compile at a time, its identity, its reported cause and why it
// happened. Holds the run-wide indexes the decisions read.
class CompileAttributor {
 public:
  // `several_processes`: program keys get a rank (or file) prefix.
  CompileAttributor(const RunInputs& in, const CompileTables& tables, const SiteNumbers& sites,
                    const AttachedReasons& reasons, const UnlocatedBreaks& unlocated,
                    const GraphBreakIndex& break_index, bool several_processes)
      : in_(in),
        tables_(tables),
        sites_(sites),
        reasons_(reasons),
        unlocated_(unlocated),
        break_index_(break_index),
        source_name_(in.source_names.begin(), in.source_names.end()),
        classify_(in, reasons),
        prefix_(several_processes) {}

  // Fills `a` (reset beforehand) for compile `m`, the `ordinal`-th in attribution order.
  void attribute(const Merged& m, int64_t ordinal, AttributedCompile& a) {
    bool failed = fill_identity(m, ordinal, a);
    fill_reported_cause(m, failed, a);
    classify_.forget_if_full();
    const AttachedReason* primary = primary_reason(m);
    const ReasonClass g = primary ? classify_(*primary) : ReasonClass();
    if (primary) fill_primary(m, *primary, g, a);

    auto resume = parse_resume_name(tables_.code(m).co_name);
    if (resume && primary && frame_compile_known(m) && m.key.frame_compile_id > 0) {
      // A recompile of a fragment has a guard failure of its own: that is its cause (the
      // fragment's existence was counted at its first compile); the detail still says which
      // break made the fragment.
      AttributedCompile fragment;
      attribute_resume_fragment(m, *resume, nullptr, fragment);
      attribute_guard_failure(m, g, a);
      fmt::format_to(std::back_inserter(a.detail), "; {}", fragment.detail);
      if (fragment.evidence.find("graph break at") != std::string::npos)
        fmt::format_to(std::back_inserter(a.evidence), "{}{}", a.evidence.empty() ? "" : "; ",
                       fragment.evidence);
    } else if (resume) {
      attribute_resume_fragment(m, *resume, primary ? &g : nullptr, a);
    } else if (frame_compile_known(m) && m.key.frame_compile_id == 0) {
      a.cause = "first_compile";
      a.confidence = "high";
      a.evidence = "first compile of this frame";
    } else if (m.frameless && !primary) {
      // Not a recompile: nothing was compiled before it for a frame (docs/aot_compiles.md).
      a.cause = "first_compile";
      a.confidence = "high";
      a.detail =
          "compile with no Dynamo frame (compile_id null: AOT Inductor, torch.export or "
          "aot_compile); it is compiled once and is never a recompile of a frame";
      fmt::format_to(std::back_inserter(a.evidence),
                     "compilation_metrics without a compile id at {}:{}",
                     source_name_[m.key.source_id], m.line);
    } else if (primary) {
      attribute_guard_failure(m, g, a);
    } else {
      attribute_without_reason(m, a);
    }
  }

 private:
  static ingest::CompileId compile_id_of(const Merged& m) {
    ingest::CompileId id;
    id.frame = static_cast<int32_t>(m.key.frame_id);
    id.compile = static_cast<int32_t>(m.key.frame_compile_id);
    id.compiled_autograd = static_cast<int32_t>(m.key.ca_id);
    return id;
  }
  static bool frame_compile_known(const Merged& m) { return compile_id_of(m).known(); }

  // After a torch._dynamo.reset() ids start again: `e1:0/0` names the second epoch's 0/0.
  std::string program_key(const DynamoKey& key, int64_t display_rank,
                          const std::string& compile_id) {
    std::string id_text = key.epoch > 0 ? fmt::format("e{}:{}", key.epoch, compile_id) : compile_id;
    if (!prefix_) return id_text;
    if (display_rank >= 0) return fmt::format("rank{}:{}", display_rank, id_text);
    return fmt::format("{}:{}", source_name_[key.source_id], id_text);
  }

  // Key, ordinal, site, program key, kind and cache; returns whether the compile failed.
  bool fill_identity(const Merged& m, int64_t ordinal, AttributedCompile& a) {
    const BestTimes& times = tables_.times(m);
    a.key = m.key;
    a.ordinal = ordinal;
    a.attempt = m.attempt;
    a.line = m.line;
    a.rank = m.display_rank;
    a.start_us = times.start_us;
    a.compile_ms = times.duration_ms;
    if (std::string_view kind = tables_.kind(m); kind == "forward")
      a.evidence_kind = "compilation_metrics";
    else
      a.evidence_kind = kind;
    a.site = sites_.text(m.site_number, tables_);
    a.site_number = m.site_number;
    ingest::CompileId id = compile_id_of(m);
    std::string_view unnamed = m.frameless ? "aot" : "?";
    std::string_view co_name = tables_.code(m).co_name;
    std::string id_text = id.known() ? id.text_without_attempt()
                                     : fmt::format("{}@{}:{}", co_name.empty() ? unnamed : co_name,
                                                   source_name_[m.key.source_id], m.line);
    a.program_key = program_key(m.key, m.display_rank, id_text);
    const bool failed = tables_.reported(m).failed;
    a.kind = failed ? "dynamo_failed" : "dynamo";
    a.cache = tables_.cache_state(m);
    return failed;
  }

  // The cause the log itself reported: a recompile_reason, else the first reason, else (failed)
  // the failure type.
  void fill_reported_cause(const Merged& m, bool failed, AttributedCompile& a) const {
    const auto rs = reasons_.of(m);
    const ReportedByRecords& reported = tables_.reported(m);
    a.cause_reported = reported.recompile_reason;
    if (a.cause_reported.empty() && !rs.empty()) {
      const AttachedReason& first = rs.front();
      std::string_view text = first_line_view(reasons_.text(first, in_));
      if (!reasons_.has_old_id(first))
        a.cause_reported = text;
      else
        fmt::format_to(std::back_inserter(a.cause_reported), "{}: {}", reasons_.old_id_text(first),
                       text);
    }
    if (failed && a.cause_reported.empty()) a.cause_reported = reported.fail_type;
  }

  // The newest rejected cache entry (highest old compile number), nullptr if no reason.
  const AttachedReason* primary_reason(const Merged& m) const {
    const AttachedReason* primary = nullptr;
    int64_t primary_c = -1;
    for (const AttachedReason& r : reasons_.of(m)) {
      std::optional<ingest::CompileId> old = reasons_.old_id(r);
      int64_t c = old ? old->compile : -1;
      if (!primary || c > primary_c) {
        primary = &r;
        primary_c = c;
      }
    }
    return primary;
  }

  void fill_primary(const Merged& m, const AttachedReason& primary, const ReasonClass& g,
                    AttributedCompile& a) {
    if (std::optional<int64_t> sid = reasons_.sid(primary))
      a.primary_reason_sid = *sid;  // written by id: no copy, no lookup
    else
      a.primary_reason = reasons_.text(primary, in_);
    a.other_reasons = static_cast<int>(reasons_.of(m).size()) - 1;
    a.prev_program_key = reasons_.has_old_id(primary)
                             ? program_key(m.key, m.display_rank, reasons_.old_id_text(primary))
                             : "";
    fmt::format_to(std::back_inserter(a.evidence), "{} at {}:{}",
                   origin_phrase(reasons_.origin(primary)), source_name_[primary.source_id],
                   primary.line);
    a.subject = g.subject;
  }

  // A fragment created by a graph break: finds the break that made it. The break that matches the
  // resume function's line or name best; the file (the resume function lives in the file of the
  // frame it was split from) and the process break ties. TORCH_TRACE restart reasons carry no user
  // location: the break is then the one that restarted the closest earlier frame of the same
  // function in the same process (the frame this resume function was split from).
  void attribute_resume_fragment(const Merged& m, const ResumeName& resume,
                                 const ReasonClass* primary, AttributedCompile& a) {
    const BreakRecord* brk = break_index_.find(resume.line, resume.function,
                                               tables_.code(m).co_filename, m.key.source_id);
    if (!brk && m.key.frame_id >= 0) brk = unlocated_.find(m, resume.function);
    // Two breaks at the resume line: the one traced in the closest earlier frame made it.
    if (brk && m.key.frame_id >= 0 && resume.line >= 0)
      if (const BreakRecord* closer = unlocated_.closest_at_line(m, resume.line);
          closer && closer->key.frame_id > brk->key.frame_id)
        brk = closer;
    a.cause = "sync_fragment";
    std::string where_break = resume.line >= 0
                                  ? fmt::format("{} at line {}", resume.function, resume.line)
                                  : resume.function;
    // Each text built in place: appending formatted parts to it would reallocate it each time.
    a.detail.reserve(256);
    if (brk) {
      if (brk->key.frame_id >= 0) a.split_from = brk->key;
      std::string_view why = !brk->gb_type.empty() ? brk->gb_type : first_line_view(brk->reason);
      fmt::format_to(std::back_inserter(a.detail),
                     "resume function {} exists because of a graph break in {}: {}",
                     tables_.code(m).co_name, where_break, why);
      if (!brk->user_file.empty() && brk->user_line >= 0)
        fmt::format_to(std::back_inserter(a.detail), " ({}:{})", brk->user_file, brk->user_line);
      a.confidence = brk->sync_signature ? "high" : "medium";
      fmt::format_to(std::back_inserter(a.evidence), "{}graph break at {}:{}",
                     a.evidence.empty() ? "" : "; ", source_name_[brk->key.source_id], brk->line);
      if (!brk->sync_signature)
        fmt::format_to(std::back_inserter(a.detail), "; {}", kBreakNotAHostSync);
    } else {
      fmt::format_to(std::back_inserter(a.detail),
                     "resume function {} exists because of a graph break in {}; the break itself "
                     "is not in the logs (enable TORCH_LOGS=graph_breaks to see its reason)",
                     tables_.code(m).co_name, where_break);
      a.confidence = "medium";
      if (a.evidence.empty()) a.evidence = "co_name of the compiled frame";
    }
    if (primary)
      fmt::format_to(std::back_inserter(a.detail), "; recompiled because {}", primary->detail);
  }

  // A recompile explained by its primary guard failure `g`.
  void attribute_guard_failure(const Merged& m, const ReasonClass& g, AttributedCompile& a) {
    a.cause = g.cause;
    a.confidence = g.confidence;
    // Built in place: appending to a copy of g.detail would reallocate it once per part.
    a.detail.reserve(g.detail.size() + g.user_code.size() + 96);
    a.detail = g.detail;
    if (!g.user_code.empty() && g.detail.find(g.user_code) == std::string_view::npos)
      fmt::format_to(std::back_inserter(a.detail), " [guard from: {}]", g.user_code);
    if (g.cause == "shape" && g.dim >= 0) append_dim_values(m, g, a);
    if (a.other_reasons > 0)
      fmt::format_to(std::back_inserter(a.detail), " (+{} older cache {} also rejected the inputs)",
                     a.other_reasons, a.other_reasons == 1 ? "entry" : "entries");
  }

  // Every value the failing dim has taken at this compile's frame: the entries' expectations plus
  // the new actual value (listed when more than two).
  void append_dim_values(const Merged& m, const ReasonClass& g, AttributedCompile& a) {
    std::set<std::string> values;
    for (const AttachedReason& r : reasons_.of(m)) {
      const ReasonClass other = classify_(r);
      if (other.cause == "shape" && other.subject == g.subject && other.dim == g.dim) {
        if (!other.expected.empty()) values.emplace(other.expected);
        if (!other.actual.empty()) values.emplace(other.actual);
      }
    }
    if (values.size() <= 2) return;
    std::vector<std::string> sorted(values.begin(), values.end());
    std::sort(sorted.begin(), sorted.end(), value_less);
    std::string list = format_value_list(sorted);
    a.detail += fmt::format("; dim {} of '{}' has taken {} values at this frame: {}", g.dim,
                            g.subject, sorted.size(), list);
  }

  // A recompile with no guard failure logged: what the other records tell.
  void attribute_without_reason(const Merged& m, AttributedCompile& a) {
    const BestTimes& best = tables_.times(m);
    if (m.referenced_only) {
      a.cause = "unknown";
      a.confidence = "low";
      a.detail =
          "this compile is known only because a later guard failure names it; its own recompile "
          "message is not in the logs (the log is a fragment: capture the whole run with "
          "TORCH_LOGS=recompiles or TORCH_TRACE)";
      a.evidence = "referenced by a later recompile";
    } else if (best.cache_size && *best.cache_size == 0 && best.accumulated_cache_size &&
               *best.accumulated_cache_size > 0) {
      a.cause = "object_identity";
      a.confidence = "medium";
      fmt::format_to(
          std::back_inserter(a.detail),
          "new cache entry without guard failures: cache_size=0 while the code object already has "
          "{} entries, i.e. the frame was called with different ID_MATCH'd objects (e.g. a new "
          "nn.Module instance)",
          *best.accumulated_cache_size);
      fmt::format_to(std::back_inserter(a.evidence), "compilation_metrics cache sizes at {}:{}",
                     source_name_[m.key.source_id], m.line);
    } else if (tables_.kind(m) == "recompile_block") {
      a.cause = "unknown";
      a.confidence = "low";
      a.detail =
          "its recompile block lists no guard failure (the log ends or was cut inside the block); "
          "capture the whole log with TORCH_LOGS=recompiles_verbose or TORCH_TRACE";
      fmt::format_to(std::back_inserter(a.evidence), "recompile block at {}:{}",
                     source_name_[m.key.source_id], m.line);
    } else {
      a.cause = "unknown";
      a.confidence = "low";
      a.detail =
          "no guard-failure reason was logged for this compile; enable TORCH_LOGS=recompiles "
          "(or TORCH_TRACE) to record why the cache missed";
      fmt::format_to(std::back_inserter(a.evidence), "{} at {}:{}", a.evidence_kind,
                     source_name_[m.key.source_id], m.line);
    }
  }

  const RunInputs& in_;
  const CompileTables& tables_;
  const SiteNumbers& sites_;
  const AttachedReasons& reasons_;
  const UnlocatedBreaks& unlocated_;
  const GraphBreakIndex& break_index_;
  std::map<int64_t, std::string> source_name_;  // source_id -> short name for evidence texts
  ReasonClassifier classify_;
  const bool prefix_;  // several processes: program keys get a rank (or file) prefix
};

// Whether the compiles come from more than one process (source, rank). The compiles are sorted by
// key, whose first fields are the source and the rank: a second process is a neighbour's.
}  // namespace

std::vector<AttributedCompile> attribute_dynamo_run(const RunInputs& in) {
  std::vector<AttributedCompile> out;
  attribute_dynamo_run(in, [&out](AttributedCompile&& a) { out.push_back(std::move(a)); });
  return out;
}

int64_t attribute_dynamo_run(const RunInputs& in,
                             const std::function<void(AttributedCompile&&)>& emit) {
  return attribute_dynamo_run(in, merge_dynamo_compiles(in), emit);
}

int64_t attribute_dynamo_run(const RunInputs& in, MergedCompiles merged_compiles,
                             const std::function<void(AttributedCompile&&)>& emit) {
  return DynamoAttributionRun(in, std::move(merged_compiles)).attribute(0, emit);
}

// The phases: 1. the compiles merged (merge_dynamo_compiles), 2. reasons, caches and unlocated
// breaks attached to them, 3. the compiles ordered (both at construction), 4. each compile
// attributed and emitted (attribute()).
struct DynamoAttributionRun::State {
  const RunInputs& in;
  MergedCompiles merged_compiles;
  std::future<GraphBreakIndex> break_index_built;
  std::optional<UnlocatedBreaks> unlocated;
  util::LargeVector<const Merged*> order;
  bool several_processes = false;
};

DynamoAttributionRun::DynamoAttributionRun(const RunInputs& in, MergedCompiles merged_compiles)
    : state_(new State{in, std::move(merged_compiles), {}, {}, {}, false}) {
  // The graph-break index needs only the breaks: it is built on a second thread while the
  // reasons are attached to the compiles and the compiles ordered. A run with few breaks builds
  // it when it is needed, on this thread: a thread would cost more than the index.
  constexpr size_t kBreaksForAThread = 4096;
  state_->break_index_built =
      std::async(in.breaks.size() >= kBreaksForAThread ? std::launch::async : std::launch::deferred,
                 [&in] { return GraphBreakIndex(in.breaks, in.break_frames); });
  MergedCompiles::Impl& impl = *state_->merged_compiles.impl_;
  util::LargeVector<Merged>& merged = impl.merged;
  if (merged.empty()) return;
  // The reasons the loader attached as it read them, then those of RunInputs::reasons.
  AttachedReasons& reasons = impl.reasons;
  for (const ReasonRecord& r : in.reasons) reasons.add(r, merged, &in.texts);
  reasons.group(merged);
  place_referenced_only(merged, reasons);
  attach_cache_states(in, merged, impl.tables);
  state_->unlocated.emplace(in, merged, impl.tables);
  state_->order = attribution_order(merged, impl.seen_order, impl.tables);
  state_->several_processes = impl.several_processes;
}

// A graph-break index still being built on its thread is waited for by its future's destructor
// (std::async's), while the inputs it reads still live.
DynamoAttributionRun::~DynamoAttributionRun() = default;

size_t DynamoAttributionRun::size() const {
  return state_->order.size();
}

const DynamoKey& DynamoAttributionRun::key_at(size_t index) const {
  return state_->order[index]->key;
}

bool DynamoAttributionRun::several_processes() const {
  return state_->several_processes;
}

int64_t DynamoAttributionRun::attribute(size_t from,
                                        const std::function<void(AttributedCompile&&)>& emit) {
  State& s = *state_;
  if (s.order.empty()) return 0;
  const GraphBreakIndex break_index = s.break_index_built.get();
  s.in.classified.wait();  // the loader's classifications, made on another thread meanwhile
  MergedCompiles::Impl& impl = *s.merged_compiles.impl_;
  CompileAttributor attributor(s.in, impl.tables, impl.sites, impl.reasons, *s.unlocated,
                               break_index, s.several_processes);
  int64_t emitted = 0;
  // One compile object, refilled for each compile: `emit` may leave in it what it likes (the
  // writer leaves an older compile, whose strings' buffers are then reused), so every text is
  // assigned or appended in place, never replaced by a new string.
  AttributedCompile a;
  for (size_t i = from; i < s.order.size(); ++i) {
    a.reset();
    attributor.attribute(*s.order[i], static_cast<int64_t>(i) + 1, a);
    emit(std::move(a));
    ++emitted;
  }
  return emitted;
}

}  // namespace rcf::analysis
