#include "cli/watch_printer.h"

#include "cli/print_text.h"
#include "report/watch_output.h"

namespace rcf::cli {

WatchPrinter::WatchPrinter(bool json, std::set<analysis::AlertKind> fail_on, std::FILE* out,
                           bool status_line)
    : json_(json), fail_on_(std::move(fail_on)), out_(out), status_line_(status_line) {}

void WatchPrinter::round(const pipeline::WatchRound& r, const analysis::RunStatus& status,
                         bool final) {
  if (status_shown_) print_text(out_, "\r\033[K");
  for (const auto& w : r.warnings)
    if (warned_.insert(w).second) print_text(stderr, "rcf watch: warning: " + w + "\n");
  for (const auto& a : r.alerts) {
    print_text(out_, json_ ? report::render_alert_json(a, r.lane, r.run)
                           : report::render_alert_text(a, r.lane, r.run));
    matched_ = matched_ || fail_on_.count(a.kind) > 0;
  }
  status_shown_ = status_line_ && !final;
  if (status_shown_) print_text(out_, report::render_watch_status(status, r.lane, r.run));
  std::fflush(out_);
}

}  // namespace rcf::cli
