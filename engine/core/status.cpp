#include "engine/core/status.h"

namespace ember {

std::string Status::ToString() const {
  const char* name = "OK";
  switch (code_) {
    case Code::kOk: return "OK";
    case Code::kNotFound: name = "NotFound"; break;
    case Code::kCorruption: name = "Corruption"; break;
    case Code::kInvalidArgument: name = "InvalidArgument"; break;
    case Code::kIoError: name = "IoError"; break;
    case Code::kUnavailable: name = "Unavailable"; break;
    case Code::kResourceExhausted: name = "ResourceExhausted"; break;
  }
  return std::string(name) + ": " + message_;
}

}  // namespace ember
