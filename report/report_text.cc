#include "report/report_text.h"

#include <fmt/format.h>

#include <algorithm>
#include <utility>
#include <vector>

#include "util/safe_text.h"

namespace rcf::report {

std::string safe(const std::string& text) {
  return util::field_text(text);
}

std::string plural(int64_t n, std::string_view word) {
  return fmt::format("{} {}{}", n, word, n == 1 ? "" : "s");
}

std::string causes_text(const std::map<std::string, int64_t>& causes,
                        const std::function<std::string(const std::string&)>& render) {
  std::vector<std::pair<std::string, int64_t>> v(causes.begin(), causes.end());
  std::stable_sort(v.begin(), v.end(), [](auto& a, auto& b) { return a.second > b.second; });
  std::string out;
  for (const auto& [cause, n] : v)
    out += fmt::format("{}{} {}", out.empty() ? "" : ", ", render ? render(cause) : cause, n);
  return out;
}

std::vector<std::string> evidence_lines(const std::string& evidence) {
  std::vector<std::string> lines;
  size_t start = 0;
  while (start <= evidence.size()) {
    size_t nl = evidence.find('\n', start);
    std::string line = evidence.substr(start, nl == std::string::npos ? nl : nl - start);
    if (!line.empty()) lines.push_back(std::move(line));
    if (nl == std::string::npos) break;
    start = nl + 1;
  }
  return lines;
}

}  // namespace rcf::report
