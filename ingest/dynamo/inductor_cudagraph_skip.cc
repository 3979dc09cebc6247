#include "ingest/dynamo/inductor_cudagraph_skip.h"

#include <string>
#include <vector>

#include "ingest/dynamo/dynamo_graph_break.h"
#include "ingest/reading/text_util.h"

namespace rcf::ingest {
namespace {

constexpr std::string_view kSkipping = "skipping cudagraphs due to ";
constexpr std::string_view kSkippingOne = "skipping cudagraph due to ";  // CUDA graph trees
constexpr std::string_view kDisabling = "disabling cudagraphs due to ";  // nested in a skip
constexpr std::string_view kPartition = "cudagraph partition due to ";
constexpr std::string_view kPartitionSummary = "cudagraph partition into ";
constexpr std::string_view kRerecord = "exceeding max re-recording limit";
constexpr std::string_view kFoundFrom = "Found from";

// Drops the lead-ins that wrap a reason once more (`skipping cudagraphs due to skipping
// cudagraphs due to cpu device (x)`, `... due to disabling cudagraphs due to incompatible op`).
std::string_view drop_nested_leads(std::string_view reason) {
  for (bool again = true; again;) {
    again = false;
    for (std::string_view lead : {kSkipping, kSkippingOne, kDisabling}) {
      if (reason.starts_with(lead)) {
        reason.remove_prefix(lead.size());
        again = true;
      }
    }
  }
  return reason;
}

// `['mutated inputs', 'non-cuda device in graph']` (2023) -> `mutated inputs; non-cuda device in
// graph`; any other text unchanged.
std::string list_reason(std::string_view reason) {
  if (reason.size() < 2 || reason.front() != '[' || reason.back() != ']')
    return std::string(reason);
  std::string out;
  std::string_view rest = reason.substr(1, reason.size() - 2);
  while (!rest.empty()) {
    rest = ltrim(rest);
    if (rest.empty() || (rest[0] != '\'' && rest[0] != '"')) return std::string(reason);
    size_t close = rest.find(rest[0], 1);
    if (close == std::string_view::npos) return std::string(reason);
    if (!out.empty()) out += "; ";
    out += rest.substr(1, close - 1);
    rest = ltrim(rest.substr(close + 1));
    if (!rest.empty() && rest[0] == ',') rest.remove_prefix(1);
  }
  return out.empty() ? std::string(reason) : out;
}

// Frames of `Found from :` stack lines (`File "f", line n, in fn` and the code line after each).
// Returns how many of `lines` it used.
size_t read_stack(const std::vector<std::string_view>& lines, std::vector<StackFrame>* stack) {
  size_t used = 0;
  for (std::string_view line : lines) {
    if (auto frame = parse_traceback_frame(line)) {
      stack->push_back(std::move(*frame));
      ++used;
    } else if (!stack->empty() && stack->back().code.empty() && !is_blank(line)) {
      stack->back().code = std::string(trim(line));
      ++used;
    }
  }
  return used;
}

}  // namespace

bool is_cudagraph_skip_header(std::string_view message) {
  if (message.empty() || (message[0] != 's' && message[0] != 'c')) return false;
  return message.starts_with(kSkipping) || message.starts_with(kSkippingOne) ||
         message.starts_with(kPartition) || message.starts_with(kPartitionSummary);
}

bool is_whole_cudagraph_skip(std::string_view message) {
  return is_cudagraph_skip_header(message) && message.find(kFoundFrom) == std::string_view::npos;
}

bool continues_cudagraph_skip(std::string_view line) {
  return !line.empty() && (line[0] == ' ' || line[0] == '\t') && !is_blank(line);
}

std::optional<CudagraphSkip> parse_cudagraph_skip_text(std::string_view text) {
  text = ltrim(text);
  CudagraphSkip skip;
  if (text.starts_with(kSkipping)) {
    skip.kind = "skipped";
    text.remove_prefix(kSkipping.size());
  } else if (text.starts_with(kSkippingOne)) {
    skip.kind = "skipped";
    text.remove_prefix(kSkippingOne.size());
  } else if (text.starts_with(kPartition)) {
    skip.kind = "partitioned";
    text.remove_prefix(kPartition.size());
  } else {
    return std::nullopt;
  }
  text = drop_nested_leads(text);
  if (text.find(kRerecord) != std::string_view::npos) skip.kind = "rerecord_limit";
  // The reason ends at `. Found from :` (a stack follows) or at the end of its first line.
  std::string_view stack_text;
  size_t found = text.find(kFoundFrom);
  size_t end = std::min(found, text.find('\n'));
  if (found != std::string_view::npos) {
    size_t after = text.find('\n', found);
    if (after != std::string_view::npos) stack_text = text.substr(after + 1);
  }
  std::string_view reason = rtrim(text.substr(0, end));
  while (!reason.empty() && (reason.back() == '.' || reason.back() == ' ')) reason.remove_suffix(1);
  if (reason.empty()) return std::nullopt;
  skip.reason = list_reason(reason);
  std::vector<std::string_view> lines;
  while (!stack_text.empty()) {
    size_t nl = stack_text.find('\n');
    lines.push_back(stack_text.substr(0, nl));
    stack_text = nl == std::string_view::npos ? std::string_view() : stack_text.substr(nl + 1);
  }
  read_stack(lines, &skip.user_stack);
  return skip;
}

void parse_cudagraph_skip_block(const DynamoBlock& block, BlockOutput& out) {
  std::string_view header = block.lines[0].text;
  if (ltrim(header).starts_with(kPartitionSummary)) {
    for (size_t i = 0; i < block.lines.size(); ++i) out.note(i, reason::kCudagraphPartitionSummary);
    return;
  }
  std::optional<CudagraphSkip> skip = parse_cudagraph_skip_text(header);
  if (!skip) {
    out.note(0, reason::kBadCudagraphSkip);
    return;
  }
  std::vector<std::string_view> rest;
  for (size_t i = 1; i < block.lines.size(); ++i) {
    if (is_blank(block.lines[i].text))
      out.note(i, reason::kBlank);
    else
      rest.push_back(block.lines[i].text);
  }
  read_stack(rest, &skip->user_stack);
  skip->line = block.lines[0].line_no;
  skip->ref = block.ref;
  skip->origin = "text_perf_hints";
  out.emit(std::move(*skip));
}

}  // namespace rcf::ingest
