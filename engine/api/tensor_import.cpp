// ember::ImportMemory: a tensor over host or device memory, borrowed without a copy where ember
// can read it as it is, copied otherwise (ember/memory.h; Note [Borrowed host memory] in
// engine/runtime/cpu/cpu_buffer.h, Note [Borrowed device memory] in
// engine/runtime/cuda/borrowed_owners.h).
#include <cstdint>
#include <cstring>

#include <ember/memory.h>
#include <fmt/format.h>

#include "engine/api/checks.h"
#include "engine/api/tensor_node.h"
#include "engine/ir/builders.h"

namespace ember {

namespace {

constexpr const char* kOp = "ImportMemory";

// The element offsets, from element [0, …, 0], of the lowest and the highest element.
struct Reach {
  int64_t lowest = 0;
  int64_t highest = 0;
};

std::vector<int64_t> StridesOf(const TensorMemory& m) {
  if (!m.strides.empty() || m.shape.empty()) return m.strides;
  std::vector<int64_t> strides(m.shape.size());
  int64_t n = 1;
  for (size_t i = m.shape.size(); i-- > 0;) {
    strides[i] = n;
    n *= m.shape[i];
  }
  return strides;
}

// Throws ember::Error when the elements' extent does not fit an int64 byte count.
Reach ReachOf(const std::vector<int64_t>& shape, const std::vector<int64_t>& strides,
              int64_t elem) {
  Reach r;
  bool overflow = false;
  for (size_t i = 0; i < shape.size(); ++i) {
    int64_t step = 0;
    overflow |= __builtin_mul_overflow(shape[i] - 1, strides[i], &step);
    int64_t& side = step < 0 ? r.lowest : r.highest;
    overflow |= __builtin_add_overflow(side, step, &side);
  }
  int64_t count = 0;
  overflow |= __builtin_sub_overflow(r.highest, r.lowest, &count);
  overflow |= __builtin_add_overflow(count, 1, &count);
  overflow |= __builtin_mul_overflow(count, elem, &count);
  if (overflow) {
    checks::Fail(kOp, fmt::format("strides {} of shape {} reach beyond any address; expected "
                                  "strides (in elements) of memory that exists",
                                  checks::DescribeShape(strides), checks::DescribeShape(shape)));
  }
  return r;
}

void CheckMemory(const TensorMemory& m) {
  checks::RequireKnownDtype(kOp, m.dtype);
  if (m.data == nullptr) checks::Fail(kOp, "a null data pointer; expected host or device memory");
  checks::RequireValidShape(kOp, m.shape);
  if (!m.strides.empty() && m.strides.size() != m.shape.size()) {
    checks::Fail(kOp, fmt::format("{} strides for shape {}; expected one per dim (or none: "
                                  "row-major)",
                                  m.strides.size(), checks::DescribeShape(m.shape)));
  }
  // Device memory is only ever read in place (a copy reads it through a borrowed tensor too),
  // and the kernels read whole elements.
  const auto address = reinterpret_cast<uintptr_t>(m.data);
  if (m.device.kind() != Device::Kind::kCpu &&
      address % static_cast<uintptr_t>(DTypeSize(m.dtype)) != 0) {
    checks::Fail(kOp, fmt::format("device memory at {:#x} is not aligned to its {}-byte {} "
                                  "elements; expected element-aligned device memory",
                                  address, DTypeSize(m.dtype), DTypeName(m.dtype)));
  }
}

// Calls fn(offset) with the element offset of every element, in row-major order.
template <typename Fn>
void ForEachElement(const std::vector<int64_t>& shape, const std::vector<int64_t>& strides, Fn fn) {
  std::vector<int64_t> index(shape.size(), 0);
  int64_t offset = 0;
  for (int64_t n = ember::NumElements(ToShape(shape)); n > 0; --n) {
    fn(offset);
    for (size_t d = shape.size(); d-- > 0;) {
      if (++index[d] < shape[d]) {
        offset += strides[d];
        break;
      }
      offset -= (shape[d] - 1) * strides[d];
      index[d] = 0;
    }
  }
}

// A tensor on m.device reading `m` in place, kept alive by m.owner.
Tensor Borrow(TensorMemory m, std::vector<int64_t> strides) {
  const int64_t elem = DTypeSize(m.dtype);
  const Reach reach = ReachOf(m.shape, strides, elem);
  auto* data = static_cast<std::byte*>(m.data);
  if (m.dtype == DType::kBool && m.device.kind() == Device::Kind::kCpu) {
    // The kernels read a bool byte as 0 or 1, as Tensor::FromBytes checks (device memory
    // cannot be looked at from here: a producer's bool tensor holds 0 or 1 by its own rule).
    ForEachElement(m.shape, strides, [&](int64_t offset) {
      if (data[offset] != std::byte{0} && data[offset] != std::byte{1}) {
        checks::Fail(kOp, "a bool byte is neither 0 nor 1; expected 0 or 1");
      }
    });
  }
  // A size-1 dim's stride moves nothing: the row-major one keeps IsContiguous's view simple.
  int64_t row_major = 1;
  for (size_t i = m.shape.size(); i-- > 0;) {
    if (m.shape[i] == 1) strides[i] = row_major;
    row_major *= m.shape[i];
  }
  std::shared_ptr<DeviceServer> s = ServerFor(m.device);
  TensorHandle view;
  view.shape = ToShape(m.shape);
  view.strides = ToShape(strides);
  view.offset = -reach.lowest;
  view.dtype = m.dtype;
  const TensorIr out = detail::NewOutputIr(m.shape, m.dtype);
  detail::DrainOnThreadExit(s);
  s->RegisterBorrowed(CurrentStreamId(), ir::Init(out), data + reach.lowest * elem,
                      static_cast<size_t>((reach.highest - reach.lowest + 1) * elem),
                      std::move(m.owner), std::move(view));
  return detail::Publish(s, out);
}

// A copy on `device`: host memory is read here, in its strided order; device memory through a
// tensor that borrows it on its own device, read back to the host (a sync point of that
// device's stream, as ToVector), whose owner then waits for that read only.
Tensor Copy(TensorMemory m, std::vector<int64_t> strides, Device device) {
  const auto elem = static_cast<size_t>(DTypeSize(m.dtype));
  std::vector<std::byte> bytes(static_cast<size_t>(ember::NumElements(ToShape(m.shape))) * elem);
  if (m.device.kind() == Device::Kind::kCpu) {
    const auto* src = static_cast<const std::byte*>(m.data);
    std::byte* out = bytes.data();
    ForEachElement(m.shape, strides, [&](int64_t offset) {
      std::memcpy(out, src + offset * static_cast<int64_t>(elem), elem);
      out += elem;
    });
  } else {
    const std::vector<int64_t> shape = m.shape;
    const Device from = m.device;
    const DType dtype = m.dtype;
    {
      Tensor borrowed = Borrow(std::move(m), std::move(strides));
      Tensor ref = borrowed;  // a second reference: the read is no last use (ExportMemory's way)
      std::shared_ptr<DeviceServer> s = detail::LiveServer(borrowed, kOp);
      bytes = s->Read(CurrentStreamId(), detail::IntoIr(ref));
    }
    // The borrowed tensor's drop runs and the device is waited for, so the owner goes now.
    Sync(from);
    return Tensor::FromBytes(bytes, shape, dtype, device);
  }
  return Tensor::FromBytes(bytes, m.shape, m.dtype, device);
}

}  // namespace

std::string ImportCopyReason(const TensorMemory& memory, const ImportMemoryOptions& options) {
  if (options.copy) return "a copy was asked for";
  if (memory.device.kind() != Device::Kind::kCpu) {
    if (options.device == memory.device) return "";
    return fmt::format("the memory is on {} and the tensor goes to {}", memory.device.ToString(),
                       options.device.ToString());
  }
  if (options.device.kind() != Device::Kind::kCpu) {
    return fmt::format("the tensor goes to {}, and only the CPU reads host memory in place",
                       options.device.ToString());
  }
  const auto address = reinterpret_cast<uintptr_t>(memory.data);
  if (address % static_cast<uintptr_t>(DTypeSize(memory.dtype)) != 0) {
    return fmt::format("the data at {:#x} is not aligned to its {}-byte {} elements", address,
                       DTypeSize(memory.dtype), DTypeName(memory.dtype));
  }
  return "";
}

Tensor ImportMemory(TensorMemory memory, const ImportMemoryOptions& options) {
  CheckMemory(memory);
  std::vector<int64_t> strides = StridesOf(memory);
  ReachOf(memory.shape, strides, DTypeSize(memory.dtype));
  if (!ImportCopyReason(memory, options).empty()) {
    return Copy(std::move(memory), std::move(strides), options.device);
  }
  return Borrow(std::move(memory), std::move(strides));
}

uintptr_t NativeStream(Device device) {
  if (device.kind() == Device::Kind::kCpu) return 0;
  std::shared_ptr<DeviceServer> s = ServerFor(device);
  detail::DrainOnThreadExit(s);  // the thread's stream is forgotten when the thread ends
  return s->NativeStream(CurrentStreamId());
}

}  // namespace ember
