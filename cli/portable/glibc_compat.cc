// Two functions of a newer glibc, defined here for rcf_portable only (CMakeLists.txt,
// docs/python.md, "The self-contained binary"), so the wheel's binary runs on glibc 2.34:
//
// - arc4random (glibc 2.36): the static libstdc++ of Debian 12 calls it for std::random_device.
//   Here it reads the kernel's random source through getrandom (glibc 2.25), as glibc's does.
// - _dl_find_object (glibc 2.35): the static unwinder of Debian 12's libgcc (libgcc_eh) calls it
//   to find the unwind table of the object a return address lies in, for every frame an
//   exception passes. Here it walks the loaded objects with dl_iterate_phdr (glibc 2.2.5), which
//   is how the unwinder found them before glibc had _dl_find_object: the object whose PT_LOAD
//   segments hold the address, and its PT_GNU_EH_FRAME segment (.eh_frame_hdr).
//
// The executable's own definitions bind its references at link time, so these run on every
// glibc, newer ones included (the tests in tests/python run them); they are not exported, so no
// shared library resolves to them.
#include <dlfcn.h>
#include <link.h>
#include <sys/random.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>

extern "C" uint32_t arc4random(void) noexcept {
  uint32_t value = 0;
  auto* bytes = reinterpret_cast<unsigned char*>(&value);
  size_t got = 0;
  while (got < sizeof value) {
    const ssize_t n = getrandom(bytes + got, sizeof value - got, 0);
    if (n > 0) {
      got += static_cast<size_t>(n);
    } else if (n < 0 && errno != EINTR) {
      // No kernel random source (Linux before 3.17): glibc's arc4random aborts too.
      static const char kMessage[] = "rcf: fatal: getrandom() failed; no random source\n";
      (void)!write(2, kMessage, sizeof kMessage - 1);
      _exit(3);
    }
  }
  return value;
}

namespace {

struct ObjectSearch {
  uintptr_t address;
  dl_find_object* result;
  bool found;
};

int find_object(dl_phdr_info* info, size_t, void* data) {
  auto* search = static_cast<ObjectSearch*>(data);
  uintptr_t start = UINTPTR_MAX;
  uintptr_t end = 0;
  void* eh_frame = nullptr;
  bool holds = false;
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const auto& segment = info->dlpi_phdr[i];
    const uintptr_t begin = info->dlpi_addr + segment.p_vaddr;
    if (segment.p_type == PT_LOAD) {
      start = begin < start ? begin : start;
      end = begin + segment.p_memsz > end ? begin + segment.p_memsz : end;
      holds = holds || (search->address >= begin && search->address < begin + segment.p_memsz);
    } else if (segment.p_type == PT_GNU_EH_FRAME) {
      eh_frame = reinterpret_cast<void*>(begin);
    }
  }
  if (!holds) return 0;
  *search->result = dl_find_object{};
  search->result->dlfo_map_start = reinterpret_cast<void*>(start);
  search->result->dlfo_map_end = reinterpret_cast<void*>(end);
  search->result->dlfo_eh_frame = eh_frame;
  search->found = true;
  return 1;
}

}  // namespace

extern "C" int _dl_find_object(void* address, dl_find_object* result) noexcept {
  ObjectSearch search{reinterpret_cast<uintptr_t>(address), result, false};
  dl_iterate_phdr(find_object, &search);
  return search.found ? 0 : -1;
}
