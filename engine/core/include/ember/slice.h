// Slice: the range of one dim taken by Tensor::Slice (burn's Slice). Part of the public API
// and of the IR, where slice ranges become placeholders in the relative form.
#pragma once

#include <cstdint>
#include <optional>

namespace ember {

// Elements start, start+step, ... before end. Negative start/end count from the end of the dim
// (-1 is the last element); end = nullopt means "to the end"; out-of-range bounds are clamped.
// A negative step walks the same [start, end) range backwards, from its last element.
struct Slice {
  int64_t start = 0;
  std::optional<int64_t> end;
  int64_t step = 1;

  bool operator==(const Slice&) const = default;
};

}  // namespace ember
