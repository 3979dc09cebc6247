// Which graph break made a resume function: the break that matches the resume function's line,
// function, file and process best (a score of 8, 4, 2 and 1 for each; line or function must
// match), preferring a host-sync break among equal scores, then the first in log order. Built
// once per run; each lookup costs twelve hash probes, whatever the number of breaks.
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
  // `breaks` must outlive the index; returned pointers point into it.
  explicit GraphBreakIndex(std::span<const BreakRecord> breaks);

  // The best break for a resume function split at `line` (-1 if unknown) of `function`, in
  // `file`, logged by `source_id`; nullptr when no break matches its line or function.
  const BreakRecord* find(int64_t line, std::string_view function, std::string_view file,
                          int64_t source_id) const;

 private:
  struct Firsts {
    size_t first = 0;                             // first break of the key, in log order
    size_t first_sync = static_cast<size_t>(-1);  // first host-sync break, -1 if none
  };
  // The breaks that match on the attributes of `mask` (8 line, 4 function, 2 file, 1 process);
  // the attributes outside the mask are zero or empty. The views point into the breaks (in the
  // index) or into the caller's arguments (a probe): no text is copied.
  // The hashes of function and file are computed once per break or probe, not per mask.
  struct Key {
    int mask = 0;
    int64_t line = 0;
    std::string_view function, file;
    int64_t source_id = 0;
    size_t function_hash = 0, file_hash = 0;  // of the views above
    bool operator==(const Key& o) const {
      return mask == o.mask && line == o.line && source_id == o.source_id &&
             function == o.function && file == o.file;
    }
  };
  struct KeyHash {
    size_t operator()(const Key& k) const;
  };
  struct Texts {  // a break's or a probe's texts with their hashes
    std::string_view function, file;
    size_t function_hash, file_hash;
    Texts(std::string_view function, std::string_view file);
  };
  static Key key(int mask, int64_t line, const Texts& texts, int64_t source_id);

  std::span<const BreakRecord> breaks_;
  std::unordered_map<Key, Firsts, KeyHash> by_key_;
};

}  // namespace rcf::analysis
