#include "ingest/ingest_driver.h"

#include <fmt/format.h>
#include <sys/stat.h>

#include <algorithm>
#include <charconv>
#include <optional>
#include <string>
#include <utility>
#include <variant>

#include "ingest/importer.h"
#include "ingest/line_reasons.h"
#include "ingest/reading/line_frame.h"
#include "ingest/reading/line_reader.h"
#include "ingest/reading/line_reflow.h"
#include "ingest/reading/text_util.h"
#include "ingest/reading/wall_time.h"
#include "ingest/steps/step_pattern_tap.h"

namespace rcf::ingest {
namespace {

constexpr size_t kSniffBytes = 64 * 1024;

// The events of a source whose head no format claimed, read as plain text (progress lines,
// compile-caused lines), held until its first record of a format shows it is a log (they are
// then passed on, in order, and so is every event after) or its end shows it is none (dropped:
// an unrecognised source adds nothing to the run). Notes pass at once.
class HeldEvents : public EventSink {
 public:
  explicit HeldEvents(EventSink& inner) : inner_(inner) {}
  void emit(Event&& event) override {
    if (holding_)
      held_.push_back(std::move(event));
    else
      inner_.emit(std::move(event));
  }
  void emit_batch(std::vector<Event>&& batch) override {
    for (Event& event : batch) emit(std::move(event));
  }
  void note(int64_t line, LineFate fate, std::string_view reason,
            std::string_view excerpt) override {
    inner_.note(line, fate, reason, excerpt);
  }
  using EventSink::note;
  // Passes on what was held, and from now on every event at once.
  void release() {
    holding_ = false;
    for (Event& event : held_) inner_.emit(std::move(event));
    held_ = {};
  }

 private:
  EventSink& inner_;
  bool holding_ = true;
  std::vector<Event> held_;
};

// Forwards events to the real sink and tallies notes into the stats.
class TallySink : public EventSink {
 public:
  TallySink(EventSink& inner, SourceStats& stats) : inner_(inner), stats_(stats) {}
  void emit(Event&& event) override {
    ++stats_.events;
    inner_.emit(std::move(event));
  }
  void note(int64_t line, LineFate fate, std::string_view reason,
            std::string_view excerpt) override {
    stats_.add_note(line, fate, reason, excerpt);
  }
  using EventSink::note;

 private:
  EventSink& inner_;
  SourceStats& stats_;
};

// Gives a progress line's step marker the time of the app-logger timestamp the line framing
// removed from that line (the importer sees the line without it); lifetime: one source.
class StampSink : public EventSink {
 public:
  explicit StampSink(EventSink& inner) : inner_(inner) {}
  void set_line(int64_t line, std::string_view stamp) {
    line_ = line;
    stamp_ = stamp;
  }
  int64_t line() const { return line_; }
  std::string_view stamp() const { return stamp_; }
  void emit(Event&& event) override {
    if (!stamp_.empty())
      if (auto* m = std::get_if<StepMarker>(&event);
          m && m->line == line_ && m->origin == "step_line" && !m->time_s)
        if (auto t = leading_wall_time(stamp_)) {
          m->time_s = t->epoch_s;
          m->time_zoned = t->zoned;
        }
    inner_.emit(std::move(event));
  }
  void note(int64_t line, LineFate fate, std::string_view reason,
            std::string_view excerpt) override {
    inner_.note(line, fate, reason, excerpt);
  }

 private:
  EventSink& inner_;
  int64_t line_ = 0;
  std::string_view stamp_;  // into the current line
};

// Whole lines of `head` only, so a sniffer never sees a cut line (unless the first is huge).
std::string_view whole_lines(std::string_view head, bool at_eof) {
  if (at_eof) return head;
  size_t nl = head.rfind('\n');
  return nl == std::string_view::npos ? head : head.substr(0, nl + 1);
}

// Counts the lines framing changed, under the wrapper's name (of the `wrapper_*` family) or
// `glued_text`.
void note_framing(std::string_view wrapper_reason, const FramedLine& framed, std::string_view raw,
                  int64_t line_no, EventSink& sink) {
  if (framed.unwrapped) sink.note(line_no, reason::kWrapperFamily.fate, wrapper_reason, raw);
  if (framed.unglued) sink.note(line_no, reason::kGluedText, raw);
}

// Tells the importer when the launcher identity of the lines changes; owns the pid's bytes. A
// copy's origin views its own bytes.
class OriginTracker {
 public:
  OriginTracker() = default;
  OriginTracker(const OriginTracker& other)
      : pid_(other.pid_), current_{other.current_.rank, pid_} {}
  OriginTracker& operator=(const OriginTracker& other) {
    pid_ = other.pid_;
    current_ = LineOrigin{other.current_.rank, pid_};
    return *this;
  }

  void follow(const LineOrigin& origin, Importer& importer) {
    if (origin.rank == current_.rank && origin.pid == pid_) return;
    pid_.assign(origin.pid);
    current_ = LineOrigin{origin.rank, pid_};
    importer.set_line_origin(current_);
  }
  // Tells `importer` the current origin again (its view of the pid is then into these bytes).
  void tell(Importer& importer) const { importer.set_line_origin(current_); }

 private:
  std::string pid_;
  LineOrigin current_;
};

// Holds the logical line being re-flowed (ingest/reading/line_reflow.h) until the next physical
// line shows whether it goes on; owns every byte it hands on.
class ReflowBuffer {
 public:
  struct Line {
    std::string text;
    int64_t line_no = 0;
    int32_t rank = -1;
    std::string pid, stamp;
    LineOrigin origin() const { return LineOrigin{rank, pid}; }
  };

  explicit ReflowBuffer(const LineReflow& reflow) : reflow_(reflow) {}

  // Reads one framed physical line. Returns the logical line that it completes, if any.
  std::optional<Line> push(const FramedLine& framed, std::string_view raw, int64_t line_no,
                           EventSink& sink) {
    if (is_blank(framed.text)) {
      ++blank_run_;
      if (reflow_.is_spacer(blank_run_)) {
        sink.note(line_no, reason::kBlank, raw);
        return std::nullopt;
      }
    } else {
      blank_run_ = 0;
    }
    std::string joined;
    const LineReason* joined_by = nullptr;
    if (pending_ && (joined_by = reflow_.join_reason(pending_->text, last_raw_, single_,
                                                     framed.text, &joined))) {
      sink.note(line_no, *joined_by, raw);
      pending_->text = std::move(joined);
      last_raw_.assign(raw);
      single_ = false;
      return std::nullopt;
    }
    std::optional<Line> done = std::move(pending_);
    pending_ = Line{std::string(framed.text), line_no, framed.origin.rank,
                    std::string(framed.origin.pid), std::string(framed.stamp)};
    last_raw_.assign(raw);
    single_ = true;
    return done;
  }
  std::optional<Line> finish() { return std::exchange(pending_, std::nullopt); }

 private:
  const LineReflow& reflow_;
  std::optional<Line> pending_;
  std::string last_raw_;  // the last physical line of pending_, as read
  bool single_ = true;    // pending_ is one physical line
  int blank_run_ = 0;     // blank lines since the last non-blank one
};

// A named input that is not a regular file (a device, a FIFO): it may never end. Stdin ("-")
// ends with its writer.
bool may_be_endless(const std::string& path) {
  struct stat st;
  return path != "-" && ::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode);
}

}  // namespace

std::optional<int64_t> rank_from_file_name(const std::string& path) {
  size_t slash = path.find_last_of('/');
  std::string_view name = std::string_view(path).substr(slash == std::string::npos ? 0 : slash + 1);
  constexpr std::string_view kPrefix = "dedicated_log_torch_trace_rank_";
  if (name.substr(0, kPrefix.size()) != kPrefix) return std::nullopt;
  name.remove_prefix(kPrefix.size());
  int64_t rank = 0;
  auto [p, ec] = std::from_chars(name.data(), name.data() + name.size(), rank);
  if (ec != std::errc() || p == name.data()) return std::nullopt;
  return rank;
}

namespace {

// The importer for a source: the forced format, else the sniffers' choice on the head as framing
// and re-flow leave it; a --step-pattern reads any other text as plain text.
const ImporterInfo* choose_importer(std::string_view head, bool whole_file,
                                    const LineFramer& framer, const LineReflow& reflow,
                                    const DriverOptions& options, bool has_tap) {
  const ImporterInfo* info = nullptr;
  if (!options.forced_format.empty()) {
    info = find_importer(options.forced_format);
  } else {
    std::string framed_head_storage;
    std::string_view framed =
        framer.frame_head(whole_lines(head, whole_file), &framed_head_storage);
    std::string rejoined;
    if (reflow.active()) framed = rejoined = reflow.rejoin_head(framed);
    info = sniff_importer(framed);
  }
  if (!info && has_tap) info = find_importer("plain_text");
  return info;
}

// A device or a pipe (/dev/zero, /dev/urandom) may never end, not even its first line, and its
// format is already unknown: it is not read past the sniffing window (docs/bad_input.md).
SourceOutcome refuse_endless(const std::string& path, std::string_view head, SourceStats* stats) {
  stats->blank_only = is_blank(head);
  stats->format = "unrecognized";
  stats->bytes = static_cast<int64_t>(head.size());
  stats->lines = static_cast<int64_t>(std::count(head.begin(), head.end(), '\n'));
  stats->content_hash = "unrecognized:" + path;
  stats->read_error =
      fmt::format("not a regular file, and no format matched its first {} KiB: not read further",
                  head.size() / 1024);
  stats->first_error = path + ": " + stats->read_error;
  return SourceOutcome::kUnrecognized;
}

// What an unrecognised source read to its end by `reader` says: only its counts, hashes and read
// error (`stats` holds nothing else of it yet).
SourceOutcome end_as_unrecognized(const std::string& path, const LineReader& reader,
                                  bool blank_only, SourceStats* stats) {
  stats->blank_only = blank_only;
  stats->format = "unrecognized";
  stats->bytes = reader.bytes_consumed();
  stats->lines = reader.line_number();
  stats->content_hash = reader.content_hash();
  stats->prefix_hash = reader.prefix_hash();
  stats->prefix_checkpoints = reader.prefix_checkpoints();
  stats->read_error = reader.error();
  if (!stats->read_error.empty()) stats->first_error = path + ": " + stats->read_error;
  return SourceOutcome::kUnrecognized;
}

// A source no format matched is still read to the end, so that its content hash and byte
// counts are known.
SourceOutcome read_unrecognized(const std::string& path, LineReader& reader, SourceStats* stats) {
  std::string_view line;
  bool blank_only = true;
  while (reader.next(&line)) blank_only = blank_only && is_blank(line);
  return end_as_unrecognized(path, reader, blank_only, stats);
}

// The end of a source: a read error, or a last line without its newline.
void note_source_end(const std::string& path, const LineReader& reader, TallySink& tally,
                     SourceStats* stats) {
  if (!reader.error().empty()) {
    stats->read_error = reader.error();
    tally.note(reader.line_number() + 1, reason::kReadError, reader.error());
    if (stats->first_error.empty()) stats->first_error = path + ": " + reader.error();
  } else if (reader.last_line_had_no_newline()) {
    tally.note(reader.line_number(), reason::kNoFinalNewline, "");
  }
}

// Forwards to the sink of the current piece: a growing source outlives the store transaction (and
// its sink) of each piece it is read in.
class ForwardSink : public EventSink {
 public:
  void set_target(EventSink& target) { target_ = &target; }
  void emit(Event&& event) override { target_->emit(std::move(event)); }
  void emit_batch(std::vector<Event>&& batch) override { target_->emit_batch(std::move(batch)); }
  void note(int64_t line, LineFate fate, std::string_view reason,
            std::string_view excerpt) override {
    target_->note(line, fate, reason, excerpt);
  }
  using EventSink::note;

 private:
  EventSink* target_ = nullptr;
};

}  // namespace

// Everything reading one source needs, from its open to its end. Heap-held and never moved:
// the sinks and the re-flow buffer refer to members.
struct GrowingSource::State {
  State(const std::string& p, const DriverOptions& o) : path(p), options(o) {}

  std::string path;
  DriverOptions options;
  SourceStats stats;
  SourceOutcome outcome = SourceOutcome::kIngested;
  bool resumable = false;
  bool finished = false;
  std::unique_ptr<ByteSource> source;
  std::unique_ptr<LineReader> reader;
  std::optional<LineFramer> framer;
  std::optional<LineReflow> reflow;
  std::unique_ptr<StepPatternTap> tap;  // null without --step-pattern
  ForwardSink forward;
  std::optional<TallySink> tally;
  std::optional<StampSink> stamped;
  std::unique_ptr<Importer> importer;
  OriginTracker origins;
  std::optional<ReflowBuffer> buffer;
  std::string wrapper_reason;
  int64_t next_progress = 0;
  // A console sniffed as plain text (not --format plain_text), or a source whose head no format
  // claimed, until a line of it is another format's record (hand_over_if_record).
  bool console_may_hand_over = false;
  // The head matched no format: the source is unrecognised unless a record comes; read as plain
  // text meanwhile, its events held (HeldEvents).
  bool no_format_yet = false;
  std::optional<HeldEvents> held;
  bool blank_only = true;  // every line so far was blank (for an unrecognised source)
  // The head matched no format (so the source is not read on by a later ingest: an unrecognised
  // source keeps no read end).
  bool head_had_no_format = false;
  SourceStats unrecognized_view;  // shown_stats()'s, until the next call

  // One logical line (a physical line, or several that a re-flow broke) to the importer.
  void deliver(std::string_view text, int64_t line_no, const LineOrigin& origin,
               std::string_view stamp) {
    origins.follow(origin, *importer);
    if (tap) {
      // A match with a number out of range is rejected as a step-timing row is; the line still
      // goes to the importer, as a line the pattern does not match (docs/reasons.md).
      const LineReason* implausible = nullptr;
      if (auto timing = tap->match(text, line_no, &implausible))
        tally->emit(std::move(*timing));
      else if (implausible)
        tally->note(line_no, *implausible, text);
    }
    stamped->set_line(line_no, stamp);
    if (console_may_hand_over) hand_over_if_record(text);
    if (no_format_yet) blank_only = blank_only && is_blank(text);
    importer->on_line(text, line_no);
  }

  // A console read as plain text whose line `text` is a record of a format that reads consoles
  // (console_format_of): that format's importer reads the source from this line on, and the
  // source is of that format (docs/plain_text.md, "A console whose records come late"). The
  // plain_text importer keeps no state, so the lines before read as that importer would read them.
  void hand_over_if_record(std::string_view text) {
    const ImporterInfo* to = console_format_of(text);
    if (!to) return;
    importer = to->create(*stamped);
    importer->set_source_name(path);
    origins.tell(*importer);
    stats.format = to->name;
    console_may_hand_over = false;
    no_format_yet = false;
    if (held) held->release();
  }

  // What read_unrecognized keeps of a source with no record of any format: its counts, hashes
  // and read error (its lines are then counted once, under unrecognized_format).
  SourceStats as_unrecognized() const {
    SourceStats unrecognized;
    unrecognized.path = stats.path;
    unrecognized.file_rank = stats.file_rank;
    unrecognized.encoding = stats.encoding;
    end_as_unrecognized(path, *reader, blank_only, &unrecognized);
    return unrecognized;
  }

  // The source ended with no record of any format: it is unrecognised.
  void end_unrecognized() {
    stats = as_unrecognized();
    outcome = SourceOutcome::kUnrecognized;
  }

  // What the source is so far: until its first record, a source whose head no format claimed
  // is the unrecognised one its end would leave if no record came.
  const SourceStats& shown_stats() {
    if (!no_format_yet || finished) return stats;
    unrecognized_view = as_unrecognized();
    return unrecognized_view;
  }

  // Streams every line the reader has through framing and re-flow to the importer.
  void pump() {
    std::string_view line;
    while (reader->next(&line)) {
      int64_t line_no = reader->line_number();
      if (reader->line_was_cut()) {
        tally->note(line_no, reason::kLineTooLong, line.substr(0, 200));
        continue;
      }
      FramedLine framed = framer->frame(line, reader->line_is_plain());
      note_framing(wrapper_reason, framed, line, line_no, *tally);
      if (!reflow->active()) {
        deliver(framed.text, line_no, framed.origin, framed.stamp);
      } else if (auto done = buffer->push(framed, line, line_no, *tally)) {
        deliver(done->text, done->line_no, done->origin(), done->stamp);
      }
      if (options.progress && reader->bytes_consumed() >= next_progress) {
        options.progress(reader->raw_bytes_read(), source->raw_size());
        next_progress = reader->bytes_consumed() + (int64_t{16} << 20);
      }
    }
    take_counts();
  }

  // The counts so far: what was read is all of the source until more is read.
  void take_counts() {
    stats.bytes = reader->bytes_consumed();
    stats.lines = reader->line_number();
    stats.content_hash = reader->content_hash();
    stats.prefix_hash = reader->prefix_hash();
    stats.prefix_checkpoints = reader->prefix_checkpoints();
  }

  // Where a read that could go on stopped (DriverOptions::mark_read_end): said below the tally,
  // which counts the importer's events only. Not after a read error, nor after a last line
  // without its newline (the line may go on in the log).
  void mark_read_end() {
    if (!options.mark_read_end || !resumable || head_had_no_format || !reader->error().empty() ||
        reader->last_line_had_no_newline())
      return;
    forward.emit(
        SourceReadEnd{reader->line_number(), reader->bytes_consumed(), options.step_pattern});
  }

  // Ends the source: the re-flow's last line, a read error or missing final newline, the
  // importer's open record.
  void end() {
    mark_read_end();
    if (auto done = buffer->finish())
      deliver(done->text, done->line_no, done->origin(), done->stamp);
    note_source_end(path, *reader, *tally, &stats);
    importer->finish();
    if (no_format_yet) end_unrecognized();
    take_counts();
    if (options.progress) options.progress(reader->raw_bytes_read(), source->raw_size());
    finished = true;
  }

  // What end() would write and count now, done on copies of the importer and of what end()
  // changes, which are then put back: the source reads on as if it had not been ended. nullopt
  // when the importer cannot be copied.
  std::optional<SourceStats> end_on_copies(const std::function<EventSink&()>& sink) {
    // No record yet, nothing to write: its end is the unrecognised source (a record that a
    // re-flow still holds in its last line is read by the next batch or the real end; its held
    // events could not be taken back).
    if (no_format_yet) return as_unrecognized();
    std::unique_ptr<Importer> copy = importer->clone();
    if (!copy) return std::nullopt;
    forward.set_target(sink());
    std::unique_ptr<Importer> original = std::exchange(importer, std::move(copy));
    const SourceStats kept_stats = stats;
    const ReflowBuffer kept_buffer = *buffer;
    const OriginTracker kept_origins = origins;
    const int64_t kept_line = stamped->line();
    const std::string_view kept_stamp = stamped->stamp();
    const bool kept_hand_over = console_may_hand_over;
    SourceStats ended;
    auto put_back = [&] {
      ended = std::exchange(stats, kept_stats);
      console_may_hand_over = kept_hand_over;
      buffer.emplace(kept_buffer);
      origins = kept_origins;
      stamped->set_line(kept_line, kept_stamp);
      importer = std::move(original);
      origins.tell(*importer);  // its view of the pid may have been into the bytes just replaced
      finished = false;
    };
    try {
      end();
    } catch (...) {  // the sink failed (the store): the source still reads on
      put_back();
      throw;
    }
    put_back();
    return ended;
  }

  // Opens the source and reads it as far as it can be read now; false when it ended there (not
  // opened, not recognised, a device).
  bool start() {
    stats.path = path;
    stats.file_rank = rank_from_file_name(path);
    std::string error;
    source = open_byte_source(path, options.open, &error);
    if (!source) {
      stats.read_error = error;
      stats.first_error = path + ": " + error;
      outcome = SourceOutcome::kOpenFailed;
      return false;
    }
    stats.encoding = source->encoding();
    reader = std::make_unique<LineReader>(*source, options.buffer_size, options.max_line);
    if (options.hash_prefix_bytes >= 0) reader->hash_prefix(options.hash_prefix_bytes);

    std::string_view head = reader->head(kSniffBytes);
    const bool whole_file = head.size() < kSniffBytes;
    // The wrapper and the re-flow are learned once from the head; sniffers see the head as they
    // leave it.
    framer.emplace(LineFramer::learn(whole_lines(head, whole_file)));
    reflow.emplace(LineReflow::learn(whole_lines(head, whole_file)));
    if (!options.step_pattern.empty()) {
      std::string ignored;
      tap = StepPatternTap::create(options.step_pattern, &ignored);  // validated by the caller
    }
    const ImporterInfo* info =
        choose_importer(head, whole_file, *framer, *reflow, options, tap != nullptr);
    if (!info && may_be_endless(path)) {
      outcome = refuse_endless(path, head, &stats);
      return false;
    }
    // A binary file (a NUL in its head: a checkpoint, a protobuf) is no console, and is only
    // counted, at the speed of reading it.
    if (!info && (whole_file || head.find('\0') != std::string_view::npos)) {
      outcome = read_unrecognized(path, *reader, &stats);
      return false;
    }
    // A longer source whose head no format claimed is read on for a record that comes later
    // (docs/plain_text.md, "A console whose records come late"); at its end with none, it is
    // the unrecognised source it was.
    no_format_yet = head_had_no_format = info == nullptr;
    stats.format = info ? info->name : "unrecognized";
    console_may_hand_over =
        no_format_yet || (info->name == "plain_text" && options.forced_format.empty());
    // Reading on later chooses as a read of the whole file would only when the choice was made
    // on a whole sniffing window of plain text. A source of no format yet reads on as plain text
    // (a watch keeps it open: a text file that grows is not read again whole at every batch).
    resumable = !whole_file && stats.encoding == "plain";
    tally.emplace(forward, stats);
    if (no_format_yet) held.emplace(*tally);
    stamped.emplace(held ? static_cast<EventSink&>(*held) : *tally);
    importer = (info ? info : find_importer("plain_text"))->create(*stamped);
    importer->set_source_name(path);
    buffer.emplace(*reflow);
    wrapper_reason = framer->note_reason();
    pump();
    return true;
  }
};

GrowingSource::GrowingSource(std::unique_ptr<State> state) : state_(std::move(state)) {}
GrowingSource::~GrowingSource() = default;

std::unique_ptr<GrowingSource> GrowingSource::open(const std::string& path, EventSink& sink,
                                                   const DriverOptions& options) {
  auto state = std::make_unique<State>(path, options);
  state->forward.set_target(sink);
  if (state->start() && !state->resumable) state->end();
  if (!state->importer) state->finished = true;
  return std::unique_ptr<GrowingSource>(new GrowingSource(std::move(state)));
}

SourceOutcome GrowingSource::outcome() const {
  return state_->no_format_yet ? SourceOutcome::kUnrecognized : state_->outcome;
}

bool GrowingSource::can_read_on() const {
  return state_->resumable && !state_->finished;
}

void GrowingSource::read_to(int64_t raw_limit, EventSink& sink) {
  if (!can_read_on()) return;
  state_->forward.set_target(sink);
  if (!state_->source->set_raw_limit(raw_limit)) return;
  state_->reader->resume();
  state_->pump();
}

void GrowingSource::finish(EventSink& sink) {
  if (state_->finished) return;
  state_->forward.set_target(sink);
  state_->end();
}

std::optional<SourceStats> GrowingSource::preview_end(const std::function<EventSink&()>& sink) {
  if (!can_read_on()) return std::nullopt;
  return state_->end_on_copies(sink);
}

const SourceStats& GrowingSource::stats() const {
  return state_->shown_stats();
}

SourceStats GrowingSource::take_stats() && {
  return std::move(state_->stats);
}

SourceOutcome ingest_source(const std::string& path, EventSink& sink, const DriverOptions& options,
                            SourceStats* stats) {
  auto growing = GrowingSource::open(path, sink, options);
  growing->finish(sink);
  *stats = std::move(*growing).take_stats();
  return growing->outcome();
}

}  // namespace rcf::ingest
