// ember::ExportMemory: a tensor's computed buffer, handed out without a copy (ember/memory.h).
#include <ember/memory.h>

#include "engine/api/checks.h"
#include "engine/api/tensor_node.h"
#include "engine/core/check.h"
#include "engine/runtime/cpu/cpu_buffer.h"
#ifdef EMBER_WITH_CUDA
#include "engine/runtime/cuda/cuda_buffer.h"
#endif

namespace ember {

namespace {

// The owner behind TensorMemory::owner. Holding the buffer's shared_ptr is what keeps ember
// from reusing it in place (the kernels reuse a last-use input only when use_count is 1). A
// device buffer is released under the server's lock while the server lives (DropExported): it
// goes back to an allocator that one caller at a time may use. A CPU buffer needs no lock (the
// BufferCache has its own; a borrowed buffer's owner may be released anywhere, Note [Borrowed
// host memory] in engine/runtime/cpu/cpu_buffer.h), and must not take it: this owner may itself
// be the owner of memory ImportMemory borrowed, released by ember under that same lock.
struct ExportedBuffer {
  std::weak_ptr<DeviceServer> server;
  std::shared_ptr<Buffer> buffer;

  ~ExportedBuffer() {
    if (buffer->backend() == "cpu") return;
    if (std::shared_ptr<DeviceServer> s = server.lock()) s->DropExported(std::move(buffer));
  }
};

void* ElementAddress(const TensorHandle& handle) {
  if (handle.buffer->backend() == "cpu") return cpu::ElementData(handle);
#ifdef EMBER_WITH_CUDA
  auto* buffer = static_cast<cuda::CudaBuffer*>(handle.buffer.get());
  return reinterpret_cast<void*>(buffer->data() +
                                 static_cast<CUdeviceptr>(handle.offset * DTypeSize(handle.dtype)));
#else
  EMBER_CHECK(false, "a {} buffer in a build without CUDA", handle.buffer->backend());
  return nullptr;
#endif
}

}  // namespace

TensorMemory ExportMemory(const Tensor& t) {
  std::shared_ptr<DeviceServer> s = detail::LiveServer(t, "ExportMemory");
  Tensor ref = t;  // a second reference (or a shared view here): IntoIr sees no last use
  TensorIr ir = detail::IntoIr(ref);
  ir.status =
      TensorStatus::kReadOnly;  // a shared view's only reference is `ref`, still no last use
  const TensorHandle handle = s->Export(CurrentStreamId(), ir);
  TensorMemory memory;
  memory.data = ElementAddress(handle);
  memory.shape = t.Shape();
  memory.strides.assign(handle.strides.begin(), handle.strides.end());
  memory.dtype = handle.dtype;
  memory.device = t.device();
  auto owner = std::make_shared<ExportedBuffer>();
  owner->server = s;
  owner->buffer = handle.buffer;
  memory.owner = std::move(owner);
  return memory;
}

}  // namespace ember
