// Texts by string id (strings.string_id), each held once, for the records of a run to view: a run
// repeats a few hundred thousand function names, files and reasons over millions of rows.
//
// Ids below the limit given to use_dense_ids() are found by indexing an array, the others in a
// hash map. The texts are copied into blocks that never move, so a view returned by add() or
// find() stays valid until the TextsById is destroyed or assigned (moving it keeps them valid).
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "util/text_arena.h"

namespace rcf::analysis {

class TextsById {
 public:
  // Indexes ids 0 .. `limit` - 1 in an array (16 bytes an id, reserved at once): for a store
  // whose ids are few next to the rows that name them. Call before the first add().
  void use_dense_ids(int64_t limit);

  // The text of `sid`, or nullopt when it was never added.
  std::optional<std::string_view> find(int64_t sid) const {
    if (sid >= 0 && sid < static_cast<int64_t>(dense_.size())) {
      std::string_view v = dense_[static_cast<size_t>(sid)];
      if (v.data() == nullptr) return std::nullopt;
      return v;
    }
    auto it = sparse_.find(sid);
    if (it != sparse_.end()) return it->second;
    return base_ ? base_->find(sid) : std::nullopt;
  }

  // Copies `text` in as the text of `sid` (which must not be added yet); returns the copy.
  std::string_view add(int64_t sid, std::string_view text);

  // How many texts were added.
  size_t size() const { return count_; }

  // A copy that finds this one's texts in it instead of copying them or their index (the texts
  // added to it go to its own map and blocks): for a trial analysis that adds to a copy of what a
  // watch keeps (analysis/dynamo_record_cache.h). This must outlive the fork and not change
  // meanwhile.
  TextsById fork() const;

 private:
  std::vector<std::string_view> dense_;  // by id; a null data() marks an id never added
  std::unordered_map<int64_t, std::string_view> sparse_;
  util::TextArena arena_;  // the copies
  size_t count_ = 0;
  const TextsById* base_ = nullptr;  // a fork's: the texts it was forked from
};

}  // namespace rcf::analysis
