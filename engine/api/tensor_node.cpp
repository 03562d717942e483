#include "engine/api/tensor_node.h"

#include <cstdio>

#include "engine/ir/builders.h"

namespace ember::detail {

TensorNode::~TensorNode() {
  if (consumed.load(std::memory_order_acquire)) return;
  std::shared_ptr<DeviceServer> s = server.lock();
  if (!s) return;  // the device was released: nothing left to free
  TensorIr ir{id, shape, TensorStatus::kReadWrite, dtype};
  try {
    if (CurrentStreamId() == stream) {
      s->Register(stream, ir::Drop(std::move(ir)));
    } else {
      s->ForeignDrop(stream, std::move(ir));
    }
  } catch (const std::exception& e) {
    // A destructor must not throw; losing a free is better than terminating the program.
    std::fprintf(stderr, "ember: dropping t%llu failed: %s\n",
                 static_cast<unsigned long long>(id), e.what());
  }
}

std::shared_ptr<DeviceServer> LiveServer(const Tensor& t, const char* op) {
  if (!t.defined()) {
    throw Error(std::string("ember: ") + op +
                ": the tensor is empty (default-constructed or moved from)");
  }
  std::shared_ptr<DeviceServer> s = t.node()->server.lock();
  if (!s) {
    throw Error(std::string("ember: ") + op + ": tensor t" + std::to_string(t.node()->id) +
                " lives on device " + t.node()->device.ToString() +
                ", which has been released (ReleaseDevice)");
  }
  return s;
}

Tensor SharedView(const Tensor& t) {
  std::shared_ptr<DeviceServer> s = LiveServer(t, "share");
  const TensorId dst = DeviceServer::NewTensorId();
  s->TagSharedView(t.node()->stream, t.node()->id, dst);
  return Tensor(std::make_shared<TensorNode>(dst, t.node()->shape, t.node()->dtype,
                                             t.node()->device, CurrentStreamId(), s));
}

TensorIr IntoIr(Tensor t) {
  if (t.node()->stream != CurrentStreamId()) t = SharedView(t);
  const TensorNode& n = *t.node();
  TensorStatus status = TensorStatus::kReadOnly;
  if (t.node().use_count() == 1) {
    status = TensorStatus::kReadWrite;
    t.node()->consumed.store(true, std::memory_order_release);
  }
  return TensorIr{n.id, n.shape, status, n.dtype};
}

Tensor NewOutput(const std::shared_ptr<DeviceServer>& server, Shape shape, DType dtype) {
  return Tensor(std::make_shared<TensorNode>(DeviceServer::NewTensorId(), std::move(shape),
                                             dtype, server->device(), CurrentStreamId(),
                                             server));
}

TensorIr OutIr(const Tensor& out) {
  const TensorNode& n = *out.node();
  return TensorIr{n.id, n.shape, TensorStatus::kNotInit, n.dtype};
}

}  // namespace ember::detail
