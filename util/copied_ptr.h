// A unique_ptr whose copy holds a copy of the object: a class that keeps objects on the heap (so
// that pointers to them stay put while others come and go) stays copyable member by member.
#pragma once

#include <memory>
#include <utility>

namespace rcf::util {

template <class T>
class CopiedPtr : public std::unique_ptr<T> {
 public:
  CopiedPtr() = default;
  CopiedPtr(std::unique_ptr<T>&& owned) noexcept : std::unique_ptr<T>(std::move(owned)) {}
  CopiedPtr(const CopiedPtr& other)
      : std::unique_ptr<T>(other ? std::make_unique<T>(*other) : nullptr) {}
  CopiedPtr(CopiedPtr&&) noexcept = default;
  CopiedPtr& operator=(const CopiedPtr& other) {
    if (this != &other) this->reset(other ? new T(*other) : nullptr);
    return *this;
  }
  CopiedPtr& operator=(CopiedPtr&&) noexcept = default;
};

}  // namespace rcf::util
