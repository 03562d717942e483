// Memory export of the Python module without copies where the memory allows it:
//  - to_dlpack: a DLPack capsule over ember::ExportMemory (CPU and CUDA), for
//    np.from_dlpack / torch.from_dlpack (Tensor.__dlpack__);
//  - to_numpy: a read-only NumPy array over the same memory (Tensor.__array__), or a copy for
//    what NumPy cannot view (bf16, device memory).
// The import, ember.from_dlpack, is import_bindings.cpp.
#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <memory>
#include <stdexcept>

#include "engine/python/bindings.h"
#include "engine/python/dlpack_dtype.h"

namespace ember::python {

namespace {

// What a capsule's DLManagedTensor owns: its shape and strides, and the export's owner.
struct ExportContext {
  DLManagedTensor managed{};
  std::vector<int64_t> shape;
  std::vector<int64_t> strides;
  std::shared_ptr<const void> owner;
};

void DeleteExport(DLManagedTensor* self) { delete static_cast<ExportContext*>(self->manager_ctx); }

py::dtype NumpyDtype(DType dtype) {
  switch (dtype) {
    case DType::kF32: return py::dtype("float32");
    case DType::kF16: return py::dtype("float16");
    case DType::kBF16: return py::dtype("float32");  // NumPy has no bfloat16: widened exactly
    case DType::kI32: return py::dtype("int32");
    case DType::kI64: return py::dtype("int64");
    case DType::kBool: return py::dtype("bool");
  }
  throw py::type_error("ember: unknown dtype");
}

// A copy through ToVector (bf16, or memory NumPy cannot address: a GPU's).
py::array CopyToNumpy(const Tensor& t) {
  const DType dtype = t.Dtype();
  py::array out(NumpyDtype(dtype), t.Shape());
  auto fill = [&](auto values) {
    py::gil_scoped_acquire locked;
    using T = typename decltype(values)::value_type;
    T* dst = static_cast<T*>(out.mutable_data());
    for (size_t i = 0; i < values.size(); ++i) dst[i] = values[i];
  };
  py::gil_scoped_release unlocked;
  switch (dtype) {
    case DType::kF32:
    case DType::kBF16: fill(t.ToVector<float>()); break;
    case DType::kF16: {
      // f16 widens exactly to f32; NumPy narrows back exactly.
      std::vector<float> wide = t.ToVector<float>();
      py::gil_scoped_acquire locked;
      out = py::array(py::array_t<float>(t.Shape(), wide.data())).attr("astype")("float16");
      break;
    }
    case DType::kI32: fill(t.ToVector<int32_t>()); break;
    case DType::kI64: fill(t.ToVector<int64_t>()); break;
    case DType::kBool: fill(t.ToVector<bool>()); break;
  }
  return out;
}

}  // namespace

void BindExchange(py::module_& m) {
  m.def("to_dlpack", [](const Tensor& t) {
    const DLDataType dl_dtype = ToDLDataType(t.Dtype());
    TensorMemory memory;
    {
      py::gil_scoped_release unlocked;
      memory = ExportMemory(t);
      // A reversed view (ember.flip, t[::-1]) has negative strides, which DLPack allows but
      // consumers do not all take (PyTorch 1.13 aborts the process): such a tensor goes out as
      // a compact copy, made by an op that keeps every value (a fill through an all-false
      // mask) on the tensor's own device. Everything else goes out zero-copy.
      const bool reversed = std::any_of(memory.strides.begin(), memory.strides.end(),
                                        [](int64_t s) { return s < 0; });
      if (reversed) {
        const Tensor mask = Tensor::Zeros(t.Shape(), DType::kBool, t.device());
        memory = ExportMemory(t.MaskFill(mask, 0.0));
        if (std::any_of(memory.strides.begin(), memory.strides.end(),
                        [](int64_t s) { return s < 0; })) {
          throw std::runtime_error(
              "ember: __dlpack__: the compact copy of a reversed tensor still has "
              "negative strides");
        }
      }
    }
    auto ctx = std::make_unique<ExportContext>();
    ctx->shape = memory.shape;
    ctx->strides = memory.strides;
    ctx->owner = std::move(memory.owner);
    DLTensor& dl = ctx->managed.dl_tensor;
    dl.data = memory.data;
    dl.device = memory.device.kind() == Device::Kind::kCpu
                    ? DLDevice{kDLCPU, 0}
                    : DLDevice{kDLCUDA, static_cast<int32_t>(memory.device.ordinal())};
    dl.ndim = static_cast<int32_t>(ctx->shape.size());
    dl.dtype = dl_dtype;
    dl.shape = ctx->shape.data();
    dl.strides = ctx->strides.data();
    dl.byte_offset = 0;
    ctx->managed.manager_ctx = ctx.get();
    ctx->managed.deleter = DeleteExport;
    // The protocol: a consumer renames the capsule "used_dltensor" and calls the deleter when
    // it is done; an unconsumed capsule deletes its tensor itself.
    PyObject* capsule = PyCapsule_New(&ctx->managed, "dltensor", [](PyObject* self) {
      if (!PyCapsule_IsValid(self, "dltensor")) return;
      auto* managed = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(self, "dltensor"));
      if (managed != nullptr && managed->deleter != nullptr) managed->deleter(managed);
    });
    if (capsule == nullptr) throw py::error_already_set();
    ctx.release();
    return py::reinterpret_steal<py::capsule>(capsule);
  });

  m.def("to_numpy", [](const Tensor& t) -> py::array {
    if (t.device() != Device::Cpu() || t.Dtype() == DType::kBF16) return CopyToNumpy(t);
    TensorMemory memory;
    {
      py::gil_scoped_release unlocked;
      memory = ExportMemory(t);
    }
    const int64_t elem = DTypeSize(memory.dtype);
    std::vector<int64_t> byte_strides;
    for (int64_t s : memory.strides) byte_strides.push_back(s * elem);
    // The capsule holds the owner: the array's memory lives as long as the array.
    auto* owner = new std::shared_ptr<const void>(std::move(memory.owner));
    py::capsule base(owner, [](void* p) { delete static_cast<std::shared_ptr<const void>*>(p); });
    py::array out(NumpyDtype(memory.dtype), memory.shape, byte_strides, memory.data, base);
    // ember's tensors are values: a write through the view would change a tensor that later
    // ops (and other views) read.
    py::detail::array_proxy(out.ptr())->flags &= ~py::detail::npy_api::NPY_ARRAY_WRITEABLE_;
    return out;
  });
}

}  // namespace ember::python
