// The one exception type of ember's public API. Part of the public API.
//
// Thrown for mistakes a user can act on: wrong shapes, dtypes or axes at the Tensor API, a
// device that is unavailable or has gone. The message names the operation, the operands and
// what was expected; kind() says which of those it is. Internal invariant violations abort
// instead (EMBER_CHECK).
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>

namespace ember {

// What an Error reports, for callers and bindings that treat the kinds apart (the Python module
// raises ValueError, TypeError and RuntimeError by it: docs/API.md, "Errors").
enum class ErrorKind : uint8_t {
  kInvalidArgument,  // a shape, dim, index, value or device the call cannot take
  kWrongDtype,       // a dtype the op does not take, or a scalar its dtype cannot hold exactly
  kRuntime,          // the engine cannot do it: a device that is unavailable or was released,
                     // a queued op that failed, a lost database server
};

class Error : public std::runtime_error {
 public:
  // Every check of the Tensor API's arguments names its kind; an Error that does not is the
  // engine's own (kRuntime).
  explicit Error(const std::string& message, ErrorKind kind = ErrorKind::kRuntime)
      : std::runtime_error(message), kind_(kind) {}

  ErrorKind kind() const noexcept { return kind_; }

 private:
  ErrorKind kind_;
};

}  // namespace ember
