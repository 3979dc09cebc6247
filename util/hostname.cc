#include "util/hostname.h"

#include <limits.h>
#include <unistd.h>

#include <cstring>

namespace rcf::util {

std::string this_host() {
#ifdef HOST_NAME_MAX
  char name[HOST_NAME_MAX + 1] = {};
#else
  char name[256] = {};
#endif
  if (::gethostname(name, sizeof name - 1) != 0) return "";
  return std::string(name, ::strnlen(name, sizeof name));
}

}  // namespace rcf::util
