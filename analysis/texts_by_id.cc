#include "analysis/texts_by_id.h"

#include <algorithm>
#include <cstring>

namespace rcf::analysis {

void TextsById::use_dense_ids(int64_t limit) {
  dense_.assign(static_cast<size_t>(std::max<int64_t>(limit, 0)), std::string_view());
}

std::string_view TextsById::add(int64_t sid, std::string_view text) {
  std::string_view copied = copy(text);
  if (sid >= 0 && sid < static_cast<int64_t>(dense_.size()))
    dense_[static_cast<size_t>(sid)] = copied;
  else
    sparse_.emplace(sid, copied);
  ++count_;
  return copied;
}

std::string_view TextsById::copy(std::string_view text) {
  // An empty text still needs a non-null address: a null one means "never added".
  static constexpr char kEmpty[] = "";
  if (text.empty()) return std::string_view(kEmpty, 0);
  if (text.size() > kBlockBytes / 4) {
    // A long text gets a block of its own, placed before the current one so that the current
    // block's free space is still used.
    auto own = std::make_unique<char[]>(text.size());
    std::memcpy(own.get(), text.data(), text.size());
    std::string_view copied(own.get(), text.size());
    blocks_.insert(blocks_.empty() ? blocks_.end() : blocks_.end() - 1, std::move(own));
    return copied;
  }
  if (kBlockBytes - block_used_ < text.size()) {
    blocks_.push_back(std::make_unique_for_overwrite<char[]>(kBlockBytes));
    block_used_ = 0;
  }
  char* at = blocks_.back().get() + block_used_;
  std::memcpy(at, text.data(), text.size());
  block_used_ += text.size();
  return std::string_view(at, text.size());
}

}  // namespace rcf::analysis
