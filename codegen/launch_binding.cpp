#include "codegen/launch_binding.h"

#include <algorithm>
#include <bit>

namespace ember::codegen {

void LaunchBinding::AddTensor(DType dtype, std::span<const int64_t> shape,
                              std::span<const int64_t> strides, uint64_t address) {
  words_.push_back(static_cast<int64_t>(dtype));
  words_.push_back(static_cast<int64_t>(shape.size()));
  words_.insert(words_.end(), shape.begin(), shape.end());
  words_.push_back(static_cast<int64_t>(strides.size()));
  words_.insert(words_.end(), strides.begin(), strides.end());
  words_.push_back(std::min(std::countr_zero(address), 8));
  int64_t alias = -1;
  for (size_t t = 0; t < addresses_.size() && alias < 0; ++t) {
    if (addresses_[t] == address) alias = static_cast<int64_t>(t);
  }
  words_.push_back(alias);
  addresses_.push_back(address);
}

void LaunchBinding::AddBlockShape(std::span<const int64_t> shape) {
  // A negative rank marks a block shape, so it never reads as a tensor's words.
  words_.push_back(-1 - static_cast<int64_t>(shape.size()));
  words_.insert(words_.end(), shape.begin(), shape.end());
}

void LaunchBinding::SetScalars(size_t count) { scalars_ = count; }

uint64_t LaunchBinding::Hash() const {
  uint64_t h = 0x243f6a8885a308d3ull ^ scalars_;
  for (int64_t w : words_) {
    h ^= static_cast<uint64_t>(w) + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
    h *= 0xff51afd7ed558ccdull;
  }
  return h ^ (h >> 33);
}

bool LaunchBinding::operator==(const LaunchBinding& o) const {
  return scalars_ == o.scalars_ &&
         std::equal(words_.begin(), words_.end(), o.words_.begin(), o.words_.end());
}

void LaunchBinding::Clear() {
  words_.clear();
  addresses_.clear();
  scalars_ = 0;
}

}  // namespace ember::codegen
