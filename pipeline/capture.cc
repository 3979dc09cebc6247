#include "pipeline/capture.h"

#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <optional>
#include <set>

#include "ingest/importer.h"
#include "pipeline/capture_bundle.h"
#include "pipeline/capture_process.h"
#include "pipeline/ingest_pipeline.h"
#include "report/explain.h"
#include "report/html_report.h"
#include "report/markdown_report.h"
#include "report/report_model.h"
#include "store/run_bundle.h"
#include "store/store.h"
#include "util/error.h"
#include "util/safe_text.h"

namespace rcf::pipeline {
namespace fs = std::filesystem;
namespace {

// Every status line goes out through the sanitiser: fields are field_text already, and this is
// the last line of defence for any text that was missed (docs/capture.md).
void say(std::FILE* out, std::string_view text) {
  const std::string safe = util::terminal_text(text);
  std::fwrite(safe.data(), 1, safe.size(), out);
}

constexpr size_t kSniffWindow = size_t{64} << 10;

std::string stem(const std::string& path) {
  std::string name = fs::path(path).filename().string();
  size_t dot = name.rfind('.');
  return dot == std::string::npos || dot == 0 ? name : name.substr(0, dot);
}

// Whether `name` can be run: a path that is an executable file, or a name found on PATH.
bool executable_exists(const std::string& name, const std::map<std::string, std::string>& env) {
  auto runnable = [](const std::string& p) {
    struct stat st {};
    return ::stat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(p.c_str(), X_OK) == 0;
  };
  if (name.find('/') != std::string::npos) return runnable(name);
  auto it = env.find("PATH");
  std::string path = it == env.end() ? "/usr/local/bin:/usr/bin:/bin" : it->second;
  size_t start = 0;
  for (;;) {
    size_t colon = path.find(':', start);
    std::string dir = path.substr(start, colon == std::string::npos ? colon : colon - start);
    if (runnable((dir.empty() ? "." : dir) + "/" + name)) return true;
    if (colon == std::string::npos) return false;
    start = colon + 1;
  }
}

bool run_exists(const std::string& db_path, const std::string& lane, const std::string& run) {
  if (!fs::exists(db_path)) return false;
  auto db = store::open_store(db_path, store::OpenMode::kRead);
  return store::find_run_id(*db, lane, run).has_value();
}

bool non_empty_dir(const std::string& dir) {
  std::error_code ec;
  return fs::exists(dir, ec) && !fs::is_empty(dir, ec);
}

bool has_files(const std::string& dir) {
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(dir, ec); !ec && it != fs::end(it);
       it.increment(ec))
    if (it->is_regular_file(ec)) return true;
  return false;
}

void write_text(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  out.close();
  if (!out) throw Error(fmt::format("cannot write {}", path));
}

std::string how_it_ended(const std::vector<std::string>& command, const CommandOutcome& r) {
  std::string ended = r.signal ? fmt::format("was killed by signal {} ({}); exit code {}", r.signal,
                                             strsignal(r.signal), r.exit_code)
                               : fmt::format("exited with code {}", r.exit_code);
  // A stopped command is said so: it is continued only by a signal rcf forwards (docs/capture.md).
  if (r.stopped_by)
    ended = fmt::format("was stopped by signal {} ({}) while it ran, then {}", r.stopped_by,
                        strsignal(r.stopped_by), ended);
  return util::field_text(command[0]) + " " + ended;
}

// The explanation, cut after `max_lines` lines.
std::string cut_lines(const std::string& text, size_t max_lines, const std::string& more) {
  size_t pos = 0;
  for (size_t n = 0; n < max_lines; ++n) {
    pos = text.find('\n', pos);
    if (pos == std::string::npos) return text;
    ++pos;
  }
  if (pos >= text.size()) return text;
  size_t rest = std::count(text.begin() + static_cast<std::ptrdiff_t>(pos), text.end(), '\n');
  return text.substr(0, pos) + fmt::format("   ... {} more lines: {}\n", rest, more);
}

struct Resolved {
  std::string lane, run;
  CaptureLayout layout;
};

Resolved resolve_names(const CaptureRequest& req) {
  Resolved r;
  r.lane = req.lane.empty() ? default_capture_lane(req.command) : req.lane;
  if (!req.run.empty()) {
    if (run_exists(req.db_path, r.lane, req.run))
      throw Error(fmt::format(
          "run '{}' of lane '{}' already exists in {}: a capture is one new run; pick another "
          "--run",
          req.run, r.lane, req.db_path));
    r.run = req.run;
  } else {
    for (int n = 1;; ++n) {
      r.run = fmt::format("run{}", n);
      bool on_disk = req.out_dir.empty() && fs::exists(fs::path("rcf-capture") / r.lane / r.run);
      if (!on_disk && !run_exists(req.db_path, r.lane, r.run)) break;
    }
  }
  std::string dir =
      req.out_dir.empty() ? (fs::path("rcf-capture") / r.lane / r.run).string() : req.out_dir;
  if (non_empty_dir(dir))
    throw Error(fmt::format(
        "{} is not empty: torch_xla appends to its logs, so old ones would mix into this run; "
        "give another --out or remove it",
        dir));
  std::error_code ec;
  fs::create_directories(fs::path(dir) / "logs", ec);
  if (ec) throw Error(fmt::format("cannot create {}/logs: {}", dir, ec.message()));
  r.layout.dir = fs::absolute(dir).lexically_normal().string();
  while (r.layout.dir.size() > 1 && r.layout.dir.back() == '/') r.layout.dir.pop_back();
  return r;
}

// What the ingest reads: the logs directory, the console logs that hold a known log, the files
// the user's own settings wrote during the run.
struct Inputs {
  std::vector<std::string> paths;
  std::map<std::string, std::string> format_of_path;
  std::vector<std::string> notes;
};

void add_file(const std::string& path, const std::string& what, bool step_pattern, Inputs* in) {
  std::error_code ec;
  if (!fs::is_regular_file(path, ec) || fs::file_size(path, ec) == 0) return;
  ConsoleFormat f = find_console_format(path);
  if (f.format.empty() && !step_pattern) {
    in->notes.push_back(fmt::format("{} ({}): no compile log lines, not ingested", path, what));
    return;
  }
  in->paths.push_back(path);
  if (f.offset > 0) in->format_of_path[path] = f.format;
}

Inputs capture_inputs(const CaptureLayout& layout, const CaptureEnv& plan,
                      fs::file_time_type started, bool step_pattern) {
  Inputs in;
  if (has_files(layout.logs())) in.paths.push_back(layout.logs());
  add_file(layout.stdout_log(), "console", step_pattern, &in);
  add_file(layout.stderr_log(), "console", step_pattern, &in);
  for (const auto& file : files_written_since(plan.external_outputs, started))
    add_file(file, "written through your own setting", step_pattern, &in);
  return in;
}

}  // namespace

std::string default_capture_lane(const std::vector<std::string>& command) {
  for (size_t i = 0; i + 1 < command.size(); ++i)
    if (command[i] == "-m") return command[i + 1];
  for (const std::string& a : command)
    if (a.ends_with(".py") || a.ends_with(".sh")) return stem(a);
  return command.empty() ? "capture" : fs::path(command[0]).filename().string();
}

ConsoleFormat find_console_format(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::string window, carry;
  int64_t offset = 0;
  bool progress_console = false;
  std::vector<char> buffer(kSniffWindow);
  while (in) {
    in.read(buffer.data(), static_cast<std::streamsize>(buffer.size()));
    size_t got = static_cast<size_t>(in.gcount());
    if (got == 0) break;
    window = carry;
    window.append(buffer.data(), got);
    // Whole lines only, except at the end of the file.
    size_t end = in ? window.rfind('\n') : window.size() - 1;
    if (end == std::string::npos) end = window.size() - 1;
    carry = window.substr(end + 1);
    window.resize(end + 1);
    if (const ingest::ImporterInfo* f = ingest::sniff_importer(window)) {
      // A console of progress lines is read whole, unless a compile log starts further on.
      if (f->name == "plain_text")
        progress_console = true;
      else if (offset == 0 || f->name != "step_timing")
        return {f->name, offset};
    }
    offset += static_cast<int64_t>(window.size());
    if (carry.size() > kSniffWindow) carry.clear();  // one endless line: skip it
  }
  if (progress_console) return {"plain_text", 0};
  return {};
}

std::vector<std::string> files_written_since(const std::vector<std::string>& outputs,
                                             fs::file_time_type since) {
  std::set<std::string> found;
  auto consider = [&](const fs::directory_entry& e) {
    std::error_code ec;
    if (e.is_regular_file(ec) && e.last_write_time(ec) >= since && !ec)
      found.insert(e.path().string());
  };
  for (const auto& out : outputs) {
    std::error_code ec;
    fs::path p(out);
    if (fs::is_directory(p, ec)) {
      for (auto it = fs::recursive_directory_iterator(
               p, fs::directory_options::skip_permission_denied, ec);
           !ec && it != fs::end(it); it.increment(ec))
        consider(*it);
      continue;
    }
    if (fs::exists(p, ec)) consider(fs::directory_entry(p, ec));
    fs::path parent = p.parent_path().empty() ? fs::path(".") : p.parent_path();
    std::string prefix = p.filename().string() + ".";
    for (auto it = fs::directory_iterator(parent, ec); !ec && it != fs::end(it); it.increment(ec)) {
      std::string name = it->path().filename().string();
      if (name.size() <= prefix.size() || !name.starts_with(prefix)) continue;
      std::string suffix = name.substr(prefix.size());
      if (std::all_of(suffix.begin(), suffix.end(), [](char c) { return c >= '0' && c <= '9'; }))
        consider(*it);
    }
  }
  return {found.begin(), found.end()};
}

namespace {

// The stack's versions and the capture's settings, in the run's bundle file.
nlohmann::json write_bundle(const CaptureRequest& req, const CaptureEnv& plan,
                            const std::map<std::string, std::string>& parent,
                            const CaptureLayout& layout) {
  std::string probe_error;
  std::string python = python_for(req.command, plan.env);
  nlohmann::json versions = probe_stack_versions(python, plan.env, req.probe_timeout, &probe_error);
  nlohmann::json bundle =
      capture_bundle(versions, probe_error, req.level, plan, parent, req.command, layout.dir);
  write_text(layout.bundle(),
             bundle.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n");
  return bundle;
}

// The lane, run, level and switches the command runs under, said before it starts.
void print_plan(const CaptureRequest& req, const Resolved& names, const CaptureEnv& plan,
                std::FILE* messages) {
  std::string switches;
  for (const auto& s : plan.settings)
    if (s.name != "PYTHONUNBUFFERED")
      switches += fmt::format(
          "{}{}{}", switches.empty() ? "" : ", ", s.name,
          s.action == EnvAction::kSet ? "" : fmt::format(" ({})", env_action_name(s.action)));
  say(messages, fmt::format("rcf capture: lane {}, run {}, level {}: logs to {}\n",
                            util::field_text(names.lane), util::field_text(names.run),
                            capture_level_name(req.level), util::field_text(names.layout.dir)));
  say(messages, fmt::format("rcf capture: set {}\n", switches));
  std::fflush(messages);
}

// Ingests the captured logs into the lane and run. False when no run was created or kept (the
// printed summary says why).
bool ingest_captured(const CaptureRequest& req, const Resolved& names, const Inputs& in,
                     const nlohmann::json& bundle, std::FILE* messages) {
  IngestRequest ingest;
  ingest.db_path = req.db_path;
  ingest.lane = names.lane;
  ingest.run = names.run;
  ingest.paths = in.paths;
  ingest.format_of_path = in.format_of_path;
  ingest.step_pattern = req.step_pattern;
  ingest.host = req.host;
  ingest.bundle = bundle;
  IngestSummary summary = run_ingest(ingest);
  say(messages, fmt::format("rcf capture: {}", render_ingest_summary(summary)));
  return summary.run_created_or_kept;
}

// The run's explanation (printed, cut to req.explain_lines) and the lane's reports, in the
// capture directory.
void write_reports(const CaptureRequest& req, const Resolved& names, std::FILE* messages) {
  const std::string& dir = names.layout.dir;
  auto db = store::open_store(req.db_path, store::OpenMode::kRead);
  report::ExplainModel model = report::build_explain(*db, names.lane, report::ExplainListing{});
  std::erase_if(model.runs, [&](const report::RunSummary& r) { return r.run != names.run; });
  std::string explain = report::render_explain_text(model);
  write_text(dir + "/explain.txt", explain);
  say(messages, fmt::format("\n{}", cut_lines(explain, req.explain_lines,
                                              fmt::format("{}/explain.txt or rcf explain --lane {}",
                                                          util::field_text(dir),
                                                          util::field_text(names.lane)))));
  report::ReportModel full = report::build_report(*db, names.lane);
  write_text(dir + "/report.html", report::render_report_html(full));
  write_text(dir + "/report.md", report::render_report_markdown(full));
  say(messages,
      fmt::format("\nrcf capture: database {} (lane {}, run {}); reports {}/report.html and "
                  "{}/report.md; explanation {}/explain.txt\n",
                  util::field_text(req.db_path), util::field_text(names.lane),
                  util::field_text(names.run), util::field_text(dir), util::field_text(dir),
                  util::field_text(dir)));
}

}  // namespace

int run_capture(const CaptureRequest& req, std::FILE* messages) {
  if (req.command.empty())
    throw Error("no command to capture: rcf capture [options] -- CMD ARGS...");
  const std::map<std::string, std::string> parent = current_environment();
  if (!executable_exists(req.command[0], parent)) {
    say(messages, fmt::format("rcf capture: error: cannot run '{}': no such executable{}\n",
                              util::field_text(req.command[0]),
                              req.command[0].find('/') == std::string::npos ? " in PATH" : ""));
    return kCommandNotFound;
  }
  Resolved names = resolve_names(req);
  const CaptureLayout& layout = names.layout;
  CaptureEnv plan = plan_capture_env(parent, layout, req.level);
  nlohmann::json bundle = write_bundle(req, plan, parent, layout);
  print_plan(req, names, plan, messages);

  // Files the user's own settings write count from now (less a margin: file times are coarse).
  auto started = fs::file_time_type::clock::now() - std::chrono::seconds(2);
  std::optional<CaptureWatch> watch;
  if (req.on_watch_round)
    watch.emplace(layout, names.lane, names.run, req.step_pattern, req.on_watch_round, messages);
  CommandOutcome ran = run_teed(req.command, environment_strings(plan.env), layout.stdout_log(),
                                layout.stderr_log());
  watch.reset();  // its last round reads what the command left
  if (!ran.started) {
    say(messages, fmt::format("rcf capture: error: cannot run '{}': {}\n",
                              util::field_text(req.command[0]), std::strerror(ran.spawn_error)));
    return ran.exit_code;
  }
  say(messages, fmt::format("\nrcf capture: {}\n", how_it_ended(req.command, ran)));
  if (ran.output_held_open)
    say(messages,
        fmt::format("rcf capture: processes it started still hold its output open; their later "
                    "output is not captured\n"));

  try {
    Inputs in = capture_inputs(layout, plan, started, !req.step_pattern.empty());
    for (const auto& note : in.notes)
      say(messages, fmt::format("rcf capture: {}\n", util::field_text(note)));
    if (in.paths.empty()) {
      say(messages,
          fmt::format(
              "rcf capture: nothing to ingest: the command wrote no compile log rcf reads (was "
              "it a torch.compile, torch_xla or JAX program?); its output is in {}\n",
              util::field_text(layout.dir)));
      return ran.exit_code;
    }
    if (ingest_captured(req, names, in, bundle, messages)) write_reports(req, names, messages);
  } catch (const Error& e) {
    say(messages,
        fmt::format("rcf capture: error after the command ended: {} (its logs are in {})\n",
                    util::field_text(e.what()), util::field_text(layout.dir)));
  }
  return ran.exit_code;
}

}  // namespace rcf::pipeline
