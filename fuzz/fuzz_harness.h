// Header-only fuzz harness, shared by the libFuzzer targets (fuzz/*_fuzzer.cc) and by the replay
// of kept crashing inputs (tests/fuzz_regression_test.cc), so that a regression input is replayed
// exactly as the fuzzer ran it.
//
// Input layout: the first byte is a reading plan (how the bytes are cut into reads and lines), the
// rest is the log. The plan varies the chunk sizes a source returns, the line reader's buffer and
// its line limit, so that bugs at chunk and buffer boundaries are reached, not only bugs in lines.
//
// Every run also checks invariants that must hold for any input: the line count equals the
// physical lines of the text, and every event and note names a line that exists.
#pragma once

#include <cstdint>
#include <cstring>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <type_traits>
#include <variant>
#include <vector>

#include "ingest/events.h"
#include "ingest/importer.h"
#include "ingest/ingest_driver.h"
#include "ingest/reading/byte_source.h"
#include "ingest/reading/line_reader.h"
#include "ingest/source_stats.h"
#include "ingest/torch_trace/json_skim.h"
#include "ingest/xla/hlo_text_parser.h"
#include "tests/support/memory_source.h"
#include "util/json_depth.h"

namespace rcf::fuzz {

// How one input is read, decoded from its first byte.
struct ReadPlan {
  size_t max_chunk = 0;  // a read returns 1..max_chunk bytes (pseudo-random); 0 = all it may
  uint32_t seed = 1;     // of the chunk-size generator
  size_t buffer_size = size_t{4} << 20;
  size_t max_line = size_t{64} << 20;
  bool dump_file_name = false;  // source named like an --xla_dump_to file (hlo_text uses it)
  bool step_pattern = false;    // ingest_source: also tap lines with a --step-pattern
  bool hash_prefix = false;     // ingest_source: also hash the first half (grown-log check)
};

inline ReadPlan decode_plan(uint8_t b) {
  static constexpr size_t kChunks[4] = {0, 1, 7, 4096};
  static constexpr size_t kBuffers[4] = {16, 100, 4096, size_t{4} << 20};
  ReadPlan plan;
  plan.max_chunk = kChunks[b & 3];
  plan.buffer_size = kBuffers[(b >> 2) & 3];
  plan.max_line = (b >> 4) & 1 ? 300 : size_t{64} << 20;
  plan.dump_file_name = (b >> 5) & 1;
  plan.step_pattern = (b >> 6) & 1;
  plan.hash_prefix = (b >> 7) & 1;
  plan.seed = b + 1u;
  return plan;
}

// Physical lines as the line reader counts them (a last line without '\n' counts).
inline int64_t physical_lines(std::string_view text) {
  int64_t n = 0;
  for (char c : text) n += c == '\n';
  if (!text.empty() && text.back() != '\n') ++n;
  return n;
}

// What one run saw; `violations` lists broken invariants (empty = fine).
struct Outcome {
  int64_t lines = 0;
  int64_t events = 0;
  int64_t notes = 0;
  ingest::SourceStats stats;
  std::vector<std::string> violations;
};

// Keeps nothing but the accounting (the real SourceStats, as the ingest driver tallies notes) and
// checks that events and notes name existing lines. Notes may name the line after the last
// (a read error or a block cut off by the end of the input is reported there).
class CheckingSink : public ingest::EventSink {
 public:
  explicit CheckingSink(Outcome& out) : out_(out) {}
  void emit(ingest::Event&& event) override {
    ++out_.events;
    std::visit(
        [this](const auto& e) {
          using T = std::decay_t<decltype(e)>;
          if constexpr (std::is_same_v<T, ingest::XlaExecutionGroup>) {
            lines_.push_back(e.block.line);
          } else if constexpr (std::is_same_v<T, ingest::XlaExecutions>) {
            lines_.push_back(e.first_line);
            lines_.push_back(e.last_line);
          } else {
            lines_.push_back(e.line);
          }
        },
        event);
  }
  void note(int64_t line, ingest::LineFate fate, std::string_view reason,
            std::string_view excerpt) override {
    ++out_.notes;
    out_.stats.add_note(line, fate, reason, excerpt);
    note_lines_.push_back(line);
  }
  using ingest::EventSink::note;
  // Checks the collected line numbers against the final line count.
  void check(int64_t lines) {
    for (int64_t l : lines_)
      if (l < 1 || l > lines)
        add("event names line " + std::to_string(l) + " of " + std::to_string(lines));
    for (int64_t l : note_lines_)
      if (l < 1 || l > lines + 1)
        add("note names line " + std::to_string(l) + " of " + std::to_string(lines));
  }

 private:
  void add(std::string v) {
    if (out_.violations.size() < 10) out_.violations.push_back(std::move(v));
  }
  Outcome& out_;
  std::vector<int64_t> lines_;
  std::vector<int64_t> note_lines_;
};

// The lines of a text as the line reader must return them, split here the simple way: catches
// bytes lost, repeated or moved at a chunk or buffer boundary.
class ExpectedLines {
 public:
  ExpectedLines(std::string_view text, size_t max_line) : text_(text), max_line_(max_line) {}
  // Checks the next line returned by the reader; false when it differs.
  bool matches(std::string_view line, bool cut) {
    size_t nl = text_.find('\n', pos_);
    std::string_view raw =
        text_.substr(pos_, nl == std::string_view::npos ? std::string_view::npos : nl - pos_);
    pos_ = nl == std::string_view::npos ? text_.size() : nl + 1;
    if (cut != (raw.size() > max_line_)) return false;
    std::string_view expected = raw.substr(0, max_line_);
    if (!expected.empty() && expected.back() == '\r') expected.remove_suffix(1);
    return line == expected;
  }

 private:
  std::string_view text_;
  size_t max_line_;
  size_t pos_ = 0;
};

// Whole lines of `head` only, as the ingest driver hands them to the sniffers.
inline std::string_view whole_lines(std::string_view head, bool at_eof) {
  if (at_eof) return head;
  size_t nl = head.rfind('\n');
  return nl == std::string_view::npos ? head : head.substr(0, nl + 1);
}

inline const char* source_name(const ReadPlan& plan) {
  return plan.dump_file_name ? "dump/module_0042.jit_fuzz.cluster_7.before_optimizations.txt"
                             : "fuzz_input.log";
}

// Runs importer `format` over `text` the way the ingest driver does (sniff the first 64 KiB with
// every sniffer, then line by line, cut lines counted as rejected, finish()).
inline Outcome run_importer(std::string_view format, std::string_view text, const ReadPlan& plan) {
  Outcome out;
  CheckingSink sink(out);
  rcf::testing::MemorySource source(rcf::testing::MemorySource::Borrow{}, text, plan.max_chunk,
                                    plan.seed);
  ingest::LineReader reader(source, plan.buffer_size, plan.max_line);
  constexpr size_t kSniffBytes = 64 * 1024;
  std::string_view head = reader.head(kSniffBytes);
  std::string_view sniffed = whole_lines(head, head.size() < kSniffBytes);
  for (const auto& info : ingest::importer_registry()) {
    int score = info.sniff(sniffed);
    if (score < 0 || score > info.max_score || info.max_score > 100)
      out.violations.push_back(info.name + " sniff score out of range");
  }
  const ingest::ImporterInfo* info = ingest::find_importer(format);
  auto importer = info->create(sink);
  importer->set_source_name(source_name(plan));
  ExpectedLines expected(text, plan.max_line);
  std::string_view line;
  while (reader.next(&line)) {
    if (!expected.matches(line, reader.line_was_cut()) && out.violations.size() < 10)
      out.violations.push_back("line " + std::to_string(reader.line_number()) +
                               " differs from the input");
    if (reader.line_was_cut()) {
      sink.note(reader.line_number(), ingest::reason::kLineTooLong, line.substr(0, 200));
      continue;
    }
    importer->on_line(line, reader.line_number());
  }
  importer->finish();
  out.lines = reader.line_number();
  if (out.lines != physical_lines(text))
    out.violations.push_back("read " + std::to_string(out.lines) + " lines of " +
                             std::to_string(physical_lines(text)));
  if (reader.bytes_consumed() != static_cast<int64_t>(text.size()))
    out.violations.push_back("consumed " + std::to_string(reader.bytes_consumed()) + " bytes of " +
                             std::to_string(text.size()));
  sink.check(out.lines);
  return out;
}

// Feeds the HLO text parser directly (the importers that embed it only see what they pass on).
// Modules are taken after every line when the plan's seed is odd, else only at the end.
inline Outcome run_hlo_parser(std::string_view text, const ReadPlan& plan) {
  Outcome out;
  CheckingSink sink(out);
  rcf::testing::MemorySource source(rcf::testing::MemorySource::Borrow{}, text, plan.max_chunk,
                                    plan.seed);
  ingest::LineReader reader(source, plan.buffer_size, plan.max_line);
  ingest::HloTextParser parser;
  std::string_view line;
  auto take = [&] {
    for (auto& module : parser.take_modules()) sink.emit(std::move(module));
  };
  while (reader.next(&line)) {
    if (!reader.line_was_cut()) parser.feed(line, reader.line_number());
    if (plan.seed & 1) take();
  }
  parser.finish();
  take();
  out.lines = reader.line_number();
  sink.check(out.lines);
  return out;
}

// The whole ingest driver on a file: gzip sniffing and streaming inflate, format sniffing, an
// optional --step-pattern tap. `text` is the file's content (checked when it is not gzip).
inline Outcome run_ingest_source(const std::string& path, std::string_view text,
                                 const ReadPlan& plan) {
  Outcome out;
  CheckingSink sink(out);
  ingest::DriverOptions options;
  options.buffer_size = plan.buffer_size;
  options.max_line = plan.max_line;
  options.open.max_inflated_bytes = int64_t{16} << 20;  // a fuzzed bomb stops early
  options.open.ratio_check_after = int64_t{1} << 20;    // and the ratio guard is reached
  if (plan.hash_prefix) options.hash_prefix_bytes = static_cast<int64_t>(text.size() / 2);
  if (plan.step_pattern) options.step_pattern = R"(step[ =:]*(?P<step>\d+).*?(?P<ms>[\d.]+) ?ms)";
  ingest::SourceOutcome result = ingest::ingest_source(path, sink, options, &out.stats);
  out.lines = out.stats.lines;
  if (result == ingest::SourceOutcome::kOpenFailed) {
    out.violations.push_back("open failed: " + out.stats.read_error);
    return out;
  }
  bool gzip = text.size() >= 2 && static_cast<uint8_t>(text[0]) == 0x1f &&
              static_cast<uint8_t>(text[1]) == 0x8b;
  if (!gzip && out.lines != physical_lines(text))
    out.violations.push_back("read " + std::to_string(out.lines) + " lines of " +
                             std::to_string(physical_lines(text)));
  sink.check(out.lines);
  return out;
}

// The JSON nesting limit (util/json_depth.h) that guards every nlohmann parse: it points at an
// opening bracket, agrees with the skimmer's own limit, and what it lets through nlohmann parses
// and dumps into text within the limit again (dump recurses once per level: the stack overflow
// the limit exists for). `skim_valid`: json_skim::is_valid(text).
template <typename Fail>
void check_json_nesting(std::string_view text, bool skim_valid, Fail&& fail) {
  size_t deep_at = util::json_too_deep_at(text);
  bool too_deep = deep_at != std::string_view::npos;
  if (too_deep && (deep_at >= text.size() || (text[deep_at] != '[' && text[deep_at] != '{')))
    fail("json_too_deep_at points at no opening bracket");
  if (too_deep && skim_valid) fail("the skimmer accepted a text nested past the limit");
  nlohmann::json j = util::parse_json_bounded(text);
  if (j.is_discarded()) return;
  if (too_deep) fail("parse_json_bounded accepted a text nested past the limit");
  // nlohmann skips a leading UTF-8 BOM and stops at a NUL byte ("null\0junk" is null), where the
  // skimmer (RFC 8259) refuses both.
  if (!skim_valid && !text.starts_with("\xEF\xBB\xBF") && text.find('\0') == text.npos)
    fail("nlohmann accepted a text the skimmer refuses");
  std::string dumped = j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  if (util::json_too_deep_at(dumped) != std::string_view::npos)
    fail("a value within the limit dumped past it");
  if (util::parse_json_bounded(dumped).is_discarded()) fail("a dumped value does not parse back");
}

// JSON skimmer: validation, member and element walks, and value conversions must agree; and the
// nesting limit (check_json_nesting).
inline Outcome run_json_skim(std::string_view text) {
  namespace js = ingest::json_skim;
  Outcome out;
  auto fail = [&](std::string v) {
    if (out.violations.size() < 10) out.violations.push_back(std::move(v));
  };
  bool valid = js::is_valid(text);
  size_t start = js::skip_whitespace(text, 0);
  size_t end = js::skip_value(text, start);
  if (end != js::kInvalid && end > text.size()) fail("skip_value past the end");
  if (valid != (end != js::kInvalid && js::skip_whitespace(text, end) == text.size()))
    fail("is_valid disagrees with skip_value");
  auto visit_value = [&](std::string_view raw) {
    ++out.events;
    if (!js::is_valid(raw)) fail("a member value is not valid JSON on its own");
    (void)js::to_string(raw);
    (void)js::to_int(raw);
    (void)js::to_double(raw);
    (void)js::to_bool(raw);
  };
  bool object = js::for_each_member(text, [&](std::string_view key, std::string_view value) {
    (void)js::to_string("\"" + std::string(key) + "\"");
    visit_value(value);
    js::for_each_member(value, [&](std::string_view, std::string_view v) { visit_value(v); });
    js::for_each_element(value, visit_value);
  });
  bool array = js::for_each_element(text, visit_value);
  bool first_brace = start < text.size() && text[start] == '{';
  bool first_bracket = start < text.size() && text[start] == '[';
  if (object != (valid && first_brace)) fail("for_each_member disagrees with is_valid");
  if (array != (valid && first_bracket)) fail("for_each_element disagrees with is_valid");
  check_json_nesting(text, valid, fail);
  return out;
}

}  // namespace rcf::fuzz
