// Files the commands write: report/ renders documents as text and cli/ puts them on disk.
#pragma once

#include <string>

namespace rcf::cli {

// Writes (or, with `append`, appends) `text` to `path`; throws rcf::Error naming the path and the
// operating system's reason (cli/main.cc sanitises the message).
void write_output_file(const std::string& path, const std::string& text, bool append = false);

}  // namespace rcf::cli
