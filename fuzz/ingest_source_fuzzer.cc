// libFuzzer target: the whole ingest driver on a file: gzip magic sniffing and streaming inflate
// (concatenated members, corrupt and truncated streams), format sniffing over every importer, and
// the --step-pattern tap (first byte = reading plan; the rest is the file). The file is a memfd,
// rewritten per input, so the real open/read path is used without touching the disk.
#include <sys/mman.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "fuzz/fuzz_target.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  static const int fd = memfd_create("rcf_fuzz_input", MFD_CLOEXEC);
  static const std::string path = "/proc/self/fd/" + std::to_string(fd);
  if (fd < 0) abort();
  std::string_view text(reinterpret_cast<const char*>(data) + 1, size - 1);
  if (ftruncate(fd, 0) != 0 ||
      pwrite(fd, text.data(), text.size(), 0) != static_cast<ssize_t>(text.size())) {
    perror("memfd");
    abort();
  }
  rcf::fuzz::check(rcf::fuzz::run_ingest_source(path, text, rcf::fuzz::decode_plan(data[0])));
  return 0;
}
