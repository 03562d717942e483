// Device: where a tensor lives and its ops run. Part of the public API.
#pragma once

#include <cstdint>
#include <string>

namespace ember {

class Device {
 public:
  enum class Kind : uint8_t { kCpu = 0, kCuda = 1 };

  // The host CPU (always available).
  static Device Cpu() { return Device(Kind::kCpu, 0); }
  // The CUDA GPU `ordinal`. Throws ember::Error, saying why, when no such GPU is usable: ember
  // built without CUDA, no driver on this machine, or fewer GPUs than `ordinal + 1`.
  static Device Cuda(int ordinal = 0);

  Kind kind() const { return kind_; }
  int ordinal() const { return ordinal_; }
  // "cpu", "cuda:0".
  std::string ToString() const;

  bool operator==(const Device&) const = default;

 private:
  Device(Kind kind, int ordinal) : kind_(kind), ordinal_(ordinal) {}
  Kind kind_;
  int ordinal_;
};

}  // namespace ember
