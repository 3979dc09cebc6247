#include "pipeline/change_signal.h"

#include <poll.h>
#include <sys/inotify.h>
#include <unistd.h>

#include <filesystem>
#include <set>
#include <thread>

namespace rcf::pipeline {
namespace {

constexpr uint32_t kEvents =
    IN_MODIFY | IN_CLOSE_WRITE | IN_CREATE | IN_MOVED_TO | IN_MOVED_FROM | IN_DELETE | IN_ATTRIB;

// The directory to watch for `path`: itself when it is one, else its parent.
std::string directory_of(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) return path;
  std::filesystem::path parent = std::filesystem::path(path).parent_path();
  return parent.empty() ? "." : parent.string();
}

}  // namespace

ChangeSignal::ChangeSignal() : fd_(inotify_init1(IN_NONBLOCK | IN_CLOEXEC)) {}

ChangeSignal::~ChangeSignal() {
  if (fd_ >= 0) ::close(fd_);
}

void ChangeSignal::follow(const std::vector<std::string>& roots,
                          const std::vector<std::string>& files) {
  if (fd_ < 0) return;
  std::set<std::string> dirs;
  for (const auto& p : roots) dirs.insert(directory_of(p));
  for (const auto& p : files) dirs.insert(directory_of(p));
  for (const auto& d : dirs) inotify_add_watch(fd_, d.c_str(), kEvents);
}

bool ChangeSignal::wait(std::chrono::milliseconds timeout) {
  if (fd_ < 0) {
    std::this_thread::sleep_for(timeout);
    return true;
  }
  pollfd p{fd_, POLLIN, 0};
  if (::poll(&p, 1, static_cast<int>(timeout.count())) <= 0) return false;
  alignas(inotify_event) char buf[16384];
  while (::read(fd_, buf, sizeof buf) > 0) {
  }
  return true;
}

}  // namespace rcf::pipeline
