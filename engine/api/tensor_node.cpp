#include "engine/api/tensor_node.h"

#include <cstdio>
#include <vector>

#include "engine/api/checks.h"
#include "engine/core/check.h"
#include "engine/ir/builders.h"

namespace ember::detail {

TensorNode::~TensorNode() {
  if (consumed.load(std::memory_order_acquire)) return;
  std::shared_ptr<DeviceServer> s = server.lock();
  if (!s) return;  // the device was released: nothing left to free
  TensorIr ir{id, ToShape(shape), TensorStatus::kReadWrite, dtype};
  try {
    if (CurrentStreamId() == stream) {
      s->Register(stream, ir::Drop(std::move(ir)));
    } else {
      s->ForeignDrop(stream, std::move(ir));
    }
  } catch (const std::exception& e) {
    // A destructor must not throw; losing a free is better than terminating the program.
    std::fprintf(stderr, "ember: dropping t%llu failed: %s\n", static_cast<unsigned long long>(id),
                 e.what());
  }
}

std::shared_ptr<DeviceServer> LiveServer(const Tensor& t, const char* op) {
  if (!t.defined()) {
    throw Error(
        std::string("ember: ") + op + ": the tensor is empty (default-constructed or moved from)",
        ErrorKind::kInvalidArgument);
  }
  std::shared_ptr<DeviceServer> s = t.node()->server.lock();
  if (!s) {
    throw Error(std::string("ember: ") + op + ": tensor t" + std::to_string(t.node()->id) + " " +
                checks::Describe(t) + " lives on device " + t.node()->device.ToString() +
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

TensorIr IntoIr(Tensor& t) {
  if (t.node()->stream != CurrentStreamId()) t = SharedView(t);
  const TensorNode& n = *t.node();
  const TensorStatus status =
      t.node().use_count() == 1 ? TensorStatus::kReadWrite : TensorStatus::kReadOnly;
  return TensorIr{n.id, ToShape(n.shape), status, n.dtype};
}

TensorIr NewOutputIr(Dims shape, DType dtype) {
  return TensorIr{DeviceServer::NewTensorId(), ToShape(shape), TensorStatus::kNotInit, dtype};
}

Tensor Publish(const std::shared_ptr<DeviceServer>& server, const TensorIr& out) {
  return Tensor(std::make_shared<TensorNode>(out.id, ToDims(out.shape), out.dtype, server->device(),
                                             CurrentStreamId(), server));
}

Tensor Emit(const std::shared_ptr<DeviceServer>& server, OperationIr op,
            std::span<Tensor* const> operands) {
  EMBER_CHECK(operands.size() == op.inputs.size(), "{}: {} operands for {} inputs", OpName(op),
              operands.size(), op.inputs.size());
  const TensorIr out = op.outputs.at(0);
  std::vector<bool> last_use(operands.size());
  for (size_t i = 0; i < operands.size(); ++i) {
    last_use[i] = op.inputs[i].status == TensorStatus::kReadWrite;
  }
  DrainOnThreadExit(server);
  server->Register(CurrentStreamId(), std::move(op));
  for (size_t i = 0; i < operands.size(); ++i) {
    if (last_use[i]) operands[i]->node()->consumed.store(true, std::memory_order_release);
  }
  return Publish(server, out);
}

namespace {

// The servers the calling thread has queued ops on; drains its stream on each at thread exit.
struct ThreadStreams {
  std::vector<std::weak_ptr<DeviceServer>> servers;

  ~ThreadStreams() {
    for (const std::weak_ptr<DeviceServer>& w : servers) {
      std::shared_ptr<DeviceServer> s = w.lock();
      if (!s) continue;
      try {
        s->CloseStream(CurrentStreamId());
      } catch (const std::exception& e) {
        std::fprintf(stderr, "ember: draining an exiting thread's stream failed: %s\n", e.what());
      }
    }
  }
};

}  // namespace

void DrainOnThreadExit(const std::shared_ptr<DeviceServer>& server) {
  // Mint the stream id before the thread_local below, so that it is still there when the
  // list is destroyed at thread exit (thread_locals go in reverse order of construction).
  (void)CurrentStreamId();
  thread_local ThreadStreams streams;
  // Runs for every queued op: the common case (already watched) returns after a short scan;
  // released servers are pruned only when a new one is added.
  for (const std::weak_ptr<DeviceServer>& w : streams.servers) {
    if (!w.owner_before(server) && !server.owner_before(w)) return;
  }
  std::erase_if(streams.servers, [](const std::weak_ptr<DeviceServer>& w) { return w.expired(); });
  streams.servers.push_back(server);
}

}  // namespace ember::detail
