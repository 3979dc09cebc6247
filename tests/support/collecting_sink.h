// Test helper: an EventSink that keeps everything, plus a way to run an importer over text.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "ingest/events.h"
#include "ingest/importer.h"
#include "ingest/source_stats.h"

namespace rcf::testing {

struct Note {
  int64_t line;
  ingest::LineFate fate;
  std::string reason;
  std::string excerpt;
};

class CollectingSink : public ingest::EventSink {
 public:
  void emit(ingest::Event&& event) override { events.push_back(std::move(event)); }
  void note(int64_t line, ingest::LineFate fate, std::string_view reason,
            std::string_view excerpt) override {
    notes.push_back({line, fate, std::string(reason), std::string(excerpt.substr(0, 200))});
  }

  // All events of type T, in emission order.
  template <typename T>
  std::vector<T> all() const {
    std::vector<T> out;
    for (const auto& e : events)
      if (const T* t = std::get_if<T>(&e)) out.push_back(*t);
    return out;
  }
  // Count of notes per "fate:reason".
  std::map<std::string, int> note_counts() const;

  std::vector<ingest::Event> events;
  std::vector<Note> notes;
};

// Splits `text` into lines exactly as the ingest driver does (on '\n', dropping one trailing
// '\r') and feeds them to a new importer of `format`, then calls finish().
CollectingSink run_importer(std::string_view format, std::string_view text);

// Physical lines of `text` as the ingest driver counts them (a last line without '\n' counts).
int64_t line_count(std::string_view text);
// first, first+1, ..., last: expected line-number lists in tests.
std::vector<int64_t> range(int64_t first, int64_t last);

// Lines with no kSkipped/kRejected note, i.e. the lines that belong to events. Also checks (as
// gtest expectations) that no line got two such notes and that every note names a real line.
std::vector<int64_t> parsed_lines(const CollectingSink& sink, int64_t count);

// Lines that got a kWarning note (records used despite a problem), in note order.
std::vector<int64_t> warning_lines(const CollectingSink& sink);

// The line an event came from (`line` or `first_line`, whichever its type has), else -1.
int64_t event_line(const ingest::Event& event);
// One text per event: its type and the line it came from (every event type has one of `line` /
// `first_line`), enough to tell any reordering or loss apart.
std::vector<std::string> event_keys(const CollectingSink& sink);
// What a source's stats say (path, format, content hash, counts, first error, note tallies), as
// one text to compare.
std::string stats_key(const ingest::SourceStats& s);

// Reads a whole fixture file (path relative to fixtures/). Aborts the test binary if missing.
std::string read_fixture(const std::string& relative_path);

}  // namespace rcf::testing
