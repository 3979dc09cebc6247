// The one error type that may cross module boundaries; the CLI catches it and exits 2 with its
// message. Importers never throw: they count bad input as line notes.
#pragma once

#include <stdexcept>
#include <string>

namespace rcf {

class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& message) : std::runtime_error(message) {}
};

}  // namespace rcf
