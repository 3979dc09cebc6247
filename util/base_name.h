// The last component of a '/'-separated path, as reports and evidence strings name log files.
#pragma once

#include <string>
#include <string_view>

namespace rcf {

inline std::string base_name(std::string_view path) {
  size_t slash = path.find_last_of('/');
  return std::string(slash == std::string_view::npos ? path : path.substr(slash + 1));
}

}  // namespace rcf
