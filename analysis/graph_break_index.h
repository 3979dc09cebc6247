// Which graph break made a resume function. A resume function `torch_dynamo_resume_in_<f>_at_<L>`
// in file P was split from frame f of P at line L; the break that made it has that frame in its
// user stack (the outermost frame, or an inner one when Dynamo resumed inside a nested call), or,
// when the log printed no stack, at least its `in user code at P:L` location.
//
// A break's location (each frame of its stack, and its innermost location) matches the resume
// function when they agree on every attribute both know (line, function, file) and share the
// line or the function: a location that names another file or another line is another frame,
// however common its function name ("forward"). Among matches the best scores highest (8 line,
// 4 function, 2 file, 1 same process), then a host-sync break, then the first in log order.
// Built once per run; a lookup costs sixteen hash probes, whatever the number of breaks.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "analysis/dynamo_attribution.h"

namespace rcf::analysis {

class GraphBreakIndex {
 public:
  // `breaks` and `frames` (the breaks' stacks, see BreakRecord::frames_begin) must outlive the
  // index; returned pointers point into `breaks`.
  explicit GraphBreakIndex(std::span<const BreakRecord> breaks,
                           std::span<const BreakFrame> frames = {});

  // The best break for a resume function split at `line` (-1 if unknown) of `function` (""
  // if unknown), in `file` ("" if unknown), logged by `source_id`; nullptr when none matches.
  const BreakRecord* find(int64_t line, std::string_view function, std::string_view file,
                          int64_t source_id) const;

 private:
  struct Firsts {
    size_t first = 0;                             // first break of the key, in log order
    size_t first_sync = static_cast<size_t>(-1);  // first host-sync break, -1 if none
  };
  // The locations that agree on the attributes of `compared` (8 line, 4 function, 2 file,
  // 1 process) and know exactly the attributes `unknown_to_probe` besides them: a probe looks up
  // only the `unknown_to_probe` sets made of attributes it does not know, so that a location
  // knowing something the probe knows and not listed in `compared` (a disagreement) is never
  // found. Attributes outside `compared` are zero or empty. The views point into the breaks (in
  // the index) or into the caller's arguments (a probe): no text is copied. The hashes of
  // function and file are computed once per location or probe, not per key.
  struct Key {
    int compared = 0;
    int unknown_to_probe = 0;
    int64_t line = 0;
    std::string_view function, file;
    int64_t source_id = 0;
    size_t function_hash = 0, file_hash = 0;  // of the views above
    bool operator==(const Key& o) const {
      return compared == o.compared && unknown_to_probe == o.unknown_to_probe && line == o.line &&
             source_id == o.source_id && function == o.function && file == o.file;
    }
  };
  struct KeyHash {
    size_t operator()(const Key& k) const;
  };
  struct Location {  // a break's or a probe's line, function and file, with the texts' hashes
    int64_t line;
    std::string_view function, file;
    size_t function_hash, file_hash;
    Location(int64_t at_line, std::string_view in_function, std::string_view in_file);
    int known() const;  // the attributes it knows (8 line, 4 function, 2 file)
  };
  static Key key(int compared, int unknown_to_probe, const Location& at, int64_t source_id);
  void add(size_t break_index, const Location& at, int64_t source_id, bool sync);

  std::span<const BreakRecord> breaks_;
  std::unordered_map<Key, Firsts, KeyHash> by_key_;
};

}  // namespace rcf::analysis
