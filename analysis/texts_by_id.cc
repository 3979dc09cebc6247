#include "analysis/texts_by_id.h"

#include <algorithm>

namespace rcf::analysis {

void TextsById::use_dense_ids(int64_t limit) {
  dense_.assign(static_cast<size_t>(std::max<int64_t>(limit, 0)), std::string_view());
}

std::string_view TextsById::add(int64_t sid, std::string_view text) {
  std::string_view copied = arena_.copy(text);
  if (sid >= 0 && sid < static_cast<int64_t>(dense_.size()))
    dense_[static_cast<size_t>(sid)] = copied;
  else
    sparse_.emplace(sid, copied);
  ++count_;
  return copied;
}

TextsById TextsById::fork() const {
  TextsById copy;
  copy.base_ = this;
  copy.count_ = count_;
  return copy;
}

}  // namespace rcf::analysis
