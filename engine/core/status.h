// Status: the result of an operation at an I/O boundary (SQLite, shared memory, NVRTC, files,
// decoding). Modelled on leveldb's Status: cheap when OK, carries a code and a message
// otherwise. Callers fall back (explore, run unfused, skip a tier) on a non-OK status.
#pragma once

#include <string>
#include <string_view>
#include <utility>

namespace ember {

class Status {
 public:
  enum class Code {
    kOk,
    kNotFound,
    kCorruption,
    kInvalidArgument,
    kIoError,
    kUnavailable,
    kResourceExhausted
  };

  Status() = default;
  static Status Ok() { return Status(); }
  static Status NotFound(std::string msg) { return Status(Code::kNotFound, std::move(msg)); }
  static Status Corruption(std::string msg) { return Status(Code::kCorruption, std::move(msg)); }
  static Status InvalidArgument(std::string msg) {
    return Status(Code::kInvalidArgument, std::move(msg));
  }
  static Status IoError(std::string msg) { return Status(Code::kIoError, std::move(msg)); }
  static Status Unavailable(std::string msg) { return Status(Code::kUnavailable, std::move(msg)); }
  static Status ResourceExhausted(std::string msg) {
    return Status(Code::kResourceExhausted, std::move(msg));
  }

  bool ok() const { return code_ == Code::kOk; }
  Code code() const { return code_; }
  const std::string& message() const { return message_; }
  // "OK" or "<code>: <message>".
  std::string ToString() const;

 private:
  Status(Code code, std::string msg) : code_(code), message_(std::move(msg)) {}
  Code code_ = Code::kOk;
  std::string message_;
};

}  // namespace ember
