// Every text rcf prints goes out through print_text: util::terminal_text makes it valid UTF-8 and
// shows any control character other than newline and tab escaped, so a log-derived field that a
// renderer did not pass through util::field_text can still not send a terminal escape sequence.
#pragma once

#include <cstdio>
#include <string_view>

#include "util/safe_text.h"

namespace rcf::cli {

inline void print_text(std::FILE* out, std::string_view text) {
  const std::string safe = util::terminal_text(text);
  std::fwrite(safe.data(), 1, safe.size(), out);
}

inline void print_text(std::string_view text) {
  print_text(stdout, text);
}

}  // namespace rcf::cli
