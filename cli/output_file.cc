#include "cli/output_file.h"

#include <fmt/format.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "util/error.h"

namespace rcf::cli {

void write_output_file(const std::string& path, const std::string& text, bool append) {
  std::FILE* f = std::fopen(path.c_str(), append ? "ab" : "wb");
  if (!f) throw Error(fmt::format("cannot write {}: {}", path, std::strerror(errno)));
  size_t written = std::fwrite(text.data(), 1, text.size(), f);
  bool ok = written == text.size();
  ok = (std::fclose(f) == 0) && ok;
  if (!ok) throw Error(fmt::format("cannot write {}: {}", path, std::strerror(errno)));
}

}  // namespace rcf::cli
