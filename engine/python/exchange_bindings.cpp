// Memory exchange of the Python module without copies where the memory allows it:
//  - to_dlpack: a DLPack capsule over ember::ExportMemory (CPU and CUDA), for
//    np.from_dlpack / torch.from_dlpack (Tensor.__dlpack__);
//  - to_numpy: a read-only NumPy array over the same memory (Tensor.__array__), or a copy for
//    what NumPy cannot view (bf16, device memory);
//  - from_dlpack: a DLPack capsule's host memory as a new tensor, one copy. Zero-copy import
//    needs a CPU buffer that wraps foreign memory, which the CPU backend does not have yet
//    (engine/runtime/cpu/cpu_buffer.h owns and aligns its own): docs/API.md, "Python".
#include <dlpack/dlpack.h>
#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <stdexcept>

#include "engine/python/bindings.h"

namespace ember::python {

namespace {

// What a capsule's DLManagedTensor owns: its shape and strides, and the export's owner.
struct ExportContext {
  DLManagedTensor managed{};
  std::vector<int64_t> shape;
  std::vector<int64_t> strides;
  std::shared_ptr<const void> owner;
};

DLDataType ToDLDataType(DType dtype) {
  switch (dtype) {
    case DType::kF32: return {kDLFloat, 32, 1};
    case DType::kF16: return {kDLFloat, 16, 1};
    case DType::kBF16: return {kDLBfloat, 16, 1};
    case DType::kI32: return {kDLInt, 32, 1};
    case DType::kI64: return {kDLInt, 64, 1};
    case DType::kBool:
      // DLPack 0.6 (Debian's libdlpack-dev) has no bool code, and NumPy 1.24 and PyTorch 1.13
      // read none: a uint8 export would come back as numbers.
      throw py::type_error(
          "ember: __dlpack__: a bool tensor has no DLPack 0.6 dtype; use np.asarray(t) or "
          "t.astype(ember.int32)");
  }
  throw py::type_error("ember: __dlpack__: unknown dtype");
}

DType FromDLDataType(const DLDataType& t) {
  if (t.lanes == 1) {
    if (t.code == kDLFloat && t.bits == 32) return DType::kF32;
    if (t.code == kDLFloat && t.bits == 16) return DType::kF16;
    if (t.code == kDLBfloat && t.bits == 16) return DType::kBF16;
    if (t.code == kDLInt && t.bits == 32) return DType::kI32;
    if (t.code == kDLInt && t.bits == 64) return DType::kI64;
  }
  throw py::type_error("ember: from_dlpack: DLPack dtype (code " + std::to_string(t.code) + ", " +
                       std::to_string(t.bits) + " bits, " + std::to_string(t.lanes) +
                       " lanes) has no ember dtype; expected float32, float16, bfloat16, int32 "
                       "or int64 (cast it first)");
}

void DeleteExport(DLManagedTensor* self) { delete static_cast<ExportContext*>(self->manager_ctx); }

// Copies `rank` dims of strided elements (strides in elements) into `out`, row-major.
void GatherStrided(const std::byte* src, const int64_t* shape, const int64_t* strides, int rank,
                   size_t elem, std::byte*& out) {
  if (rank == 0) {
    std::memcpy(out, src, elem);
    out += elem;
    return;
  }
  for (int64_t i = 0; i < shape[0]; ++i) {
    GatherStrided(src + i * strides[0] * static_cast<int64_t>(elem), shape + 1, strides + 1,
                  rank - 1, elem, out);
  }
}

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

  m.def("from_dlpack", [](const py::capsule& capsule, const std::string& device) {
    // PyCapsule_GetName: the name may be null (pybind11's capsule.name() would hand that to
    // strcmp).
    const char* name = PyCapsule_GetName(capsule.ptr());
    if (name == nullptr && PyErr_Occurred() != nullptr) throw py::error_already_set();
    if (name != nullptr && std::strcmp(name, "used_dltensor") == 0) {
      throw py::value_error("ember: from_dlpack: the capsule was already consumed");
    }
    if (name == nullptr || std::strcmp(name, "dltensor") != 0) {
      throw py::type_error(std::string("ember: from_dlpack: __dlpack__ returned a capsule named ") +
                           (name == nullptr ? "NULL (no name)" : "\"" + std::string(name) + "\"") +
                           "; expected a DLPack 0.6 capsule named \"dltensor\"");
    }
    auto* managed = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(capsule.ptr(), "dltensor"));
    const DLTensor& dl = managed->dl_tensor;
    if (dl.device.device_type != kDLCPU) {
      throw py::type_error(
          "ember: from_dlpack: memory on DLPack device type " +
          std::to_string(dl.device.device_type) +
          " is not importable yet; ember imports host memory (move it to the CPU first)");
    }
    const DType dtype = FromDLDataType(dl.dtype);
    std::vector<int64_t> shape(dl.shape, dl.shape + dl.ndim);
    std::vector<int64_t> strides(dl.ndim);
    int64_t n = 1;
    for (int i = dl.ndim - 1; i >= 0; --i) {
      strides[i] = dl.strides != nullptr ? dl.strides[i] : n;
      n *= shape[i];
    }
    if (n == 0) throw py::value_error("ember: from_dlpack: ember has no empty tensors");
    const size_t elem = static_cast<size_t>(DTypeSize(dtype));
    const auto* src = static_cast<const std::byte*>(dl.data) + dl.byte_offset;
    Tensor out;
    {
      py::gil_scoped_release unlocked;
      std::vector<std::byte> bytes(static_cast<size_t>(n) * elem);
      std::byte* cursor = bytes.data();
      GatherStrided(src, shape.data(), strides.data(), dl.ndim, elem, cursor);
      out = Tensor::FromBytes(bytes, shape, dtype, ParseDevice(device));
    }
    // Consumed: the producer's memory is given back now, as the protocol says.
    PyCapsule_SetName(capsule.ptr(), "used_dltensor");
    if (managed->deleter != nullptr) managed->deleter(managed);
    return out;
  });
}

}  // namespace ember::python
