// How `rcf watch` and `rcf capture --watch` print a watch's rounds (docs/watch.md): each alert as
// a line of text or JSON, each warning once, and on a terminal a status line kept under them.
#pragma once

#include <cstdio>
#include <set>
#include <string>

#include "analysis/watch_alerts.h"
#include "pipeline/watch_session.h"

namespace rcf::cli {

class WatchPrinter {
 public:
  // `out`: where alerts go; `status_line`: redraw a status line in place after each round (a
  // terminal only). Alerts of the kinds in `fail_on` are remembered (matched()).
  WatchPrinter(bool json, std::set<analysis::AlertKind> fail_on, std::FILE* out, bool status_line);

  void round(const pipeline::WatchRound& round, const analysis::RunStatus& status, bool final);
  // An alert of a --fail-on kind was printed.
  bool matched() const { return matched_; }

 private:
  bool json_;
  std::set<analysis::AlertKind> fail_on_;
  std::FILE* out_;
  bool status_line_;
  bool status_shown_ = false;
  bool matched_ = false;
  std::set<std::string> warned_;
};

}  // namespace rcf::cli
