#include "pipeline/console_line_times.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <set>

namespace rcf::pipeline {
namespace {

constexpr const char* kHeader = "# rcf console line times v1: lines\tunix_ms\n";

// "<lines>\t<unix_ms>", both unsigned decimal numbers and nothing else.
bool parse_row(const std::string& text, int64_t* lines, int64_t* ms) {
  auto number = [](const char* from, const char* to, int64_t* out) {
    if (from == to || *from < '0' || *from > '9') return from;  // no sign, no blank
    auto [end, error] = std::from_chars(from, to, *out);
    return error == std::errc() ? end : from;  // out of range: no number
  };
  const char* end = text.data() + text.size();
  const char* p = number(text.data(), end, lines);
  if (p == text.data() || p == end || *p != '\t') return false;
  const char* q = number(p + 1, end, ms);
  return q != p + 1 && q == end;
}

bool opens_with_header(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::string first;
  return in && std::getline(in, first) && first + "\n" == kHeader;
}

}  // namespace

std::map<std::string, std::string> take_line_time_sidecars(std::vector<ingest::InputFile>& inputs) {
  constexpr std::string_view kSuffix = ".times";
  std::map<std::string, std::string> sidecar_of;
  std::set<std::string> sidecars;
  for (const auto& in : inputs)
    if (in.from_walk && in.path.ends_with(kSuffix) && opens_with_header(in.path)) {
      sidecars.insert(in.path);
      sidecar_of[in.path.substr(0, in.path.size() - kSuffix.size())] = in.path;
    }
  std::erase_if(inputs, [&](const ingest::InputFile& in) { return sidecars.count(in.path) > 0; });
  for (const auto& in : inputs) {
    if (in.from_walk || in.path == "-" || sidecar_of.count(in.path)) continue;
    std::error_code ec;
    std::string beside = line_times_path(in.path);
    if (std::filesystem::is_regular_file(beside, ec)) sidecar_of[in.path] = beside;
  }
  // Only the logs being read keep an entry.
  std::set<std::string> logs;
  for (const auto& in : inputs) logs.insert(in.path);
  std::erase_if(sidecar_of, [&](const auto& entry) { return logs.count(entry.first) == 0; });
  return sidecar_of;
}

std::string line_times_path(const std::string& log_path) {
  return log_path + ".times";
}

int open_line_times(const std::string& path) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return -1;
  const std::string header = kHeader;
  if (::write(fd, header.data(), header.size()) != static_cast<ssize_t>(header.size())) {
    ::close(fd);
    return -1;
  }
  return fd;
}

int64_t wall_clock_ms() {
  using namespace std::chrono;
  return duration_cast<milliseconds>(system_clock::now().time_since_epoch()).count();
}

std::string format_line_time(int64_t lines, int64_t unix_ms) {
  return fmt::format("{}\t{}\n", lines, unix_ms);
}

std::optional<ConsoleLineTimes> ConsoleLineTimes::read(const std::string& path,
                                                       std::string* error) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    *error = fmt::format("{}: cannot be read", path);
    return std::nullopt;
  }
  std::string text;
  if (!std::getline(in, text) || text + "\n" != kHeader) {
    *error = fmt::format("{}: not an rcf line-time sidecar (first line)", path);
    return std::nullopt;
  }
  ConsoleLineTimes out;
  int64_t row = 1;
  while (std::getline(in, text)) {
    ++row;
    int64_t lines = 0, ms = 0;
    bool ok = parse_row(text, &lines, &ms);
    // A clock stepped back by NTP moves a little; more means the rows are not this file's.
    if (ok && !out.rows_.empty())
      ok = lines > out.rows_.back().first && ms + 1000 >= out.rows_.back().second;
    if (!ok) {
      *error = fmt::format("{}:{}: expected increasing `lines<TAB>unix_ms`", path, row);
      return std::nullopt;
    }
    out.rows_.emplace_back(lines, ms);
  }
  return out;
}

std::optional<double> ConsoleLineTimes::time_of(int64_t line) const {
  auto it = std::lower_bound(rows_.begin(), rows_.end(), line,
                             [](const auto& row, int64_t l) { return row.first < l; });
  if (it == rows_.end() || line < 1) return std::nullopt;
  return it->second / 1000.0;
}

}  // namespace rcf::pipeline
