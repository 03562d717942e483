// TensorNode: what an ember::Tensor refers to (burn's FusionTensor; its clone count is the
// shared_ptr's use count). Internal.
//
// Liveness (docs/API.md). An op takes its operands by value and hands each to IntoIr, which
// says ReadWrite (the op gets the last use) when the operand holds the only reference and
// ReadOnly otherwise. The operands stay alive until the op is queued (Emit); only then are
// the ReadWrite ones marked `consumed`, so that releasing them queues nothing. A node released
// without having been consumed queues a Drop on its home stream (from another thread: a
// foreign drop, which never touches the home queue's pending segment). Holding the operands
// until the op is queued matters: a ReadOnly operand whose other references go away meanwhile
// (on another thread) must be dropped after the op that reads it, never before. burn's rules are
// the same: FusionTensor::into_ir and its Drop, in burn-fusion's tensor.rs.
#pragma once

#include <atomic>
#include <memory>
#include <span>

#include <ember/tensor.h>

#include "engine/api/device_server.h"
#include "engine/ir/tensor_ir.h"

namespace ember::detail {

struct TensorNode {
  TensorNode(TensorId id, Dims shape, DType dtype, ember::Device device, StreamId stream,
             std::weak_ptr<DeviceServer> server)
      : id(id),
        shape(std::move(shape)),
        dtype(dtype),
        device(device),
        stream(stream),
        server(std::move(server)) {}
  ~TensorNode();
  TensorNode(const TensorNode&) = delete;
  TensorNode& operator=(const TensorNode&) = delete;

  const TensorId id;
  const Dims shape;
  const DType dtype;
  const ember::Device device;
  const StreamId stream;  // home stream: the thread that created it
  const std::weak_ptr<DeviceServer> server;
  std::atomic<bool> consumed{false};
};

// The live server of `t`, or throws ember::Error naming `op` (empty tensor, released device).
std::shared_ptr<DeviceServer> LiveServer(const Tensor& t, const char* op);

// A new tensor on the calling thread's stream that aliases `t`'s buffer under a fresh id
// (burn's shared_view), for a tensor whose home is another thread.
Tensor SharedView(const Tensor& t);

// The operand `t` as the op about to be queued sees it: a tensor from another thread is first
// replaced by a shared view; then ReadWrite when `t` holds the only reference, else ReadOnly.
// Marks nothing consumed (Emit does, once the op is queued).
TensorIr IntoIr(Tensor& t);

// A fresh output TensorIr (NotInit) with a new process-wide id.
TensorIr NewOutputIr(Dims shape, DType dtype);

// Queues `op` on the calling thread's stream of `server`; then marks as consumed each operand
// whose use in `op.inputs` is ReadWrite, and returns the tensor of `op.outputs[0]`.
// REQUIRES: operands[i] is the tensor of op.inputs[i].
Tensor Emit(const std::shared_ptr<DeviceServer>& server, OperationIr op,
            std::span<Tensor* const> operands);
inline Tensor Emit(const std::shared_ptr<DeviceServer>& server, OperationIr op,
                   std::initializer_list<Tensor*> operands) {
  return Emit(server, std::move(op), std::span<Tensor* const>(operands.begin(), operands.size()));
}

// The tensor of `out`, an output that was just queued on the calling thread's stream.
Tensor Publish(const std::shared_ptr<DeviceServer>& server, const TensorIr& out);

// Makes sure the calling thread's stream on `server` is drained when the thread exits, so the
// ops an exited thread left queued (and the memory they hold) do not wait forever.
void DrainOnThreadExit(const std::shared_ptr<DeviceServer>& server);

}  // namespace ember::detail
