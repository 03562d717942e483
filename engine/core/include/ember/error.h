// The one exception type of ember's public API. Part of the public API.
//
// Thrown for mistakes a user can act on: wrong shapes, dtypes or axes at the Tensor API, a
// device that is unavailable or has gone. The message names the operation, the operands and
// what was expected. Internal invariant violations abort instead (EMBER_CHECK).
#pragma once

#include <stdexcept>
#include <string>

namespace ember {

class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& message) : std::runtime_error(message) {}
};

}  // namespace ember
