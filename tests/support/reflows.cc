#include "tests/support/reflows.h"

#include <algorithm>

namespace rcf::testing {

Reflow hard_wrap(size_t width) {
  return [width](const LogLines& lines) {
    LogLines out;
    for (const auto& l : lines) {
      size_t at = 0;
      for (; l.size() - at > width; at += width) out.push_back(l.substr(at, width));
      out.push_back(l.substr(at));
    }
    return out;
  };
}

Reflow word_wrap(size_t width) {
  return [width](const LogLines& lines) {
    LogLines out;
    for (std::string l : lines) {
      size_t lead = l.find_first_not_of(' ');
      while (l.size() > width) {
        size_t cut = l.rfind(' ', width - 1);
        if (cut == std::string::npos || cut <= lead) break;
        out.push_back(l.substr(0, cut));
        l = "  " + l.substr(cut + 1);
        lead = 2;
      }
      out.push_back(l);
    }
    return out;
  };
}

LogLines double_spaced(const LogLines& lines) {
  LogLines out;
  for (const auto& l : lines) out.insert(out.end(), {l, ""});
  return out;
}

LogLines dedented(const LogLines& lines) {
  LogLines out;
  for (const auto& l : lines) out.push_back(l.substr(std::min(l.find_first_not_of(' '), l.size())));
  return out;
}

}  // namespace rcf::testing
