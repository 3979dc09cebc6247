#include "ingest/input_walker.h"

#include <dirent.h>
#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <set>
#include <utility>

namespace rcf::ingest {
namespace {

void walk(const std::string& dir, std::set<std::pair<dev_t, ino_t>>& seen,
          std::vector<InputFile>& out, std::vector<WalkProblem>* problems) {
  DIR* d = opendir(dir.c_str());
  if (!d) {
    problems->push_back({dir, strerror(errno)});
    return;
  }
  std::vector<std::string> names;
  while (dirent* e = readdir(d)) {
    std::string name = e->d_name;
    if (name == "." || name == "..") continue;
    names.push_back(std::move(name));
  }
  closedir(d);
  std::sort(names.begin(), names.end());
  for (const auto& name : names) {
    std::string path = dir + (dir.empty() || dir.back() == '/' ? "" : "/") + name;
    struct stat st;
    if (::stat(path.c_str(), &st) != 0) {
      problems->push_back({path, strerror(errno)});  // dangling symlink, vanished file, ...
      continue;
    }
    if (S_ISDIR(st.st_mode)) {
      if (seen.insert({st.st_dev, st.st_ino}).second) walk(path, seen, out, problems);
    } else if (S_ISREG(st.st_mode)) {
      out.push_back({path, true});
    }
  }
}

}  // namespace

std::vector<InputFile> expand_inputs(const std::vector<std::string>& paths,
                                     std::vector<WalkProblem>* problems) {
  std::vector<InputFile> out;
  std::set<std::pair<dev_t, ino_t>> seen;
  for (const auto& path : paths) {
    if (path == "-") {
      out.push_back({path, false});
      continue;
    }
    struct stat st;
    if (::stat(path.c_str(), &st) != 0) {
      problems->push_back({path, strerror(errno)});
      continue;
    }
    if (S_ISDIR(st.st_mode)) {
      if (seen.insert({st.st_dev, st.st_ino}).second) walk(path, seen, out, problems);
    } else if (::access(path.c_str(), R_OK) != 0) {
      problems->push_back({path, strerror(errno)});
    } else {
      out.push_back({path, false});
    }
  }
  return out;
}

}  // namespace rcf::ingest
