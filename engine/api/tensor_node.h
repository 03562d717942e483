// TensorNode: what an ember::Tensor refers to (burn's FusionTensor minus the clone count,
// which is the shared_ptr's use count). Internal.
//
// Liveness (burn §1.1): IntoIr() hands a tensor to an op. When the op's Tensor argument holds
// the only reference, the use is the tensor's last (ReadWrite) and the node is marked
// `consumed` so that its destruction queues nothing; otherwise the use is ReadOnly. A node
// destroyed without having been consumed queues a Drop on its home stream (or, from another
// thread, a foreign drop that never touches the home queue's pending segment).
#pragma once

#include <atomic>
#include <memory>

#include <ember/tensor.h>

#include "engine/api/device_server.h"
#include "engine/ir/tensor_ir.h"

namespace ember::detail {

struct TensorNode {
  TensorNode(TensorId id, Shape shape, DType dtype, ember::Device device, StreamId stream,
             std::weak_ptr<DeviceServer> server)
      : id(id), shape(std::move(shape)), dtype(dtype), device(device), stream(stream),
        server(std::move(server)) {}
  ~TensorNode();
  TensorNode(const TensorNode&) = delete;
  TensorNode& operator=(const TensorNode&) = delete;

  const TensorId id;
  const Shape shape;
  const DType dtype;
  const ember::Device device;
  const StreamId stream;  // home stream: the thread that created it
  const std::weak_ptr<DeviceServer> server;
  std::atomic<bool> consumed{false};
};

// The live server of `t`, or throws ember::Error naming `op` when the device was released.
std::shared_ptr<DeviceServer> LiveServer(const Tensor& t, const char* op);

// A new tensor on the calling thread's stream that aliases `t`'s buffer under a fresh id
// (burn's shared_view), for a tensor whose home is another thread.
Tensor SharedView(const Tensor& t);

// Hands `t` to an op: ReadWrite when `t` holds the only reference (and marks it consumed),
// else ReadOnly. A tensor from another thread is first turned into a shared view.
TensorIr IntoIr(Tensor t);

// A new output tensor (NotInit in the op that produces it) on the calling thread's stream.
Tensor NewOutput(const std::shared_ptr<DeviceServer>& server, Shape shape, DType dtype);
TensorIr OutIr(const Tensor& out);

}  // namespace ember::detail
