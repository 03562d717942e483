#include "engine/stream/validator.h"

namespace ember {

void OperationsValidator::Update(const OperationIr& added, size_t position,
                                 std::span<const OperationIr> expected) {
  if (state != State::kValidating) return;
  if (position >= expected.size() || !(expected[position] == added)) {
    state = State::kInvalidated;
    return;
  }
  if (position + 1 == expected.size()) {
    state = State::kFound;
    found_size = expected.size();
  }
}

}  // namespace ember
