// LaunchBinding: the key of a launch record (engine/runtime/cuda/backend/launch_records.h):
// everything PlanTrace (plan_trace.h) decides from besides the trace itself, as a few words.
//
// PlanTrace reads, per kernel tensor: its dtype, shape and strides (access, vector width,
// 64-bit indexing, broadcasting), the alignment of its address (vector loads: the widest vector
// is 16 elements of 8 bytes, so alignment matters up to 128 bytes and is kept up to 256, what
// the allocator guarantees), and which tensors share an address (__restrict__ and the in-place
// choice); the reference shape of every block; and how many scalars there are (their values
// are arguments). Two launches of one trace with equal bindings get equal plans, so a record
// built for one serves the other after its addresses and scalar values are patched in.
#pragma once

#include <cstdint>
#include <span>

#include <boost/container/small_vector.hpp>

#include <ember/dtype.h>

namespace ember::codegen {

class LaunchBinding {
 public:
  // Kernel tensors in TraceLaunch's order: inputs, views, outputs, then the matmul result.
  void AddTensor(DType dtype, std::span<const int64_t> shape, std::span<const int64_t> strides,
                 uint64_t address);
  void AddBlockShape(std::span<const int64_t> shape);
  void SetScalars(size_t count);

  uint64_t Hash() const;
  std::span<const int64_t> words() const { return {words_.data(), words_.size()}; }
  // The tensors' addresses, in AddTensor's order (not part of the key: only their alignment
  // and which are equal are).
  std::span<const uint64_t> addresses() const { return {addresses_.data(), addresses_.size()}; }
  bool operator==(const LaunchBinding& o) const;

  void Clear();

 private:
  // Each tensor: dtype, rank, shape, strides, alignment class (trailing zero bits of the address,
  // at most 8), and the first earlier tensor at the same address (-1: none).
  boost::container::small_vector<int64_t, 96> words_;
  boost::container::small_vector<uint64_t, 12> addresses_;
  size_t scalars_ = 0;
};

}  // namespace ember::codegen
