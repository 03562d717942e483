// Import of host and device memory for ember.from_dlpack, borrowed without a copy where ember
// can read it as it is (ember::ImportMemory; docs/API.md, "Python"):
//  - from_dlpack: a DLPack capsule's memory (PyTorch tensors and CuPy arrays, host or CUDA,
//    any other producer); the capsule is consumed, and its deleter runs when ember no longer
//    reads the memory (for device memory: once the kernels that read it have finished, Note
//    [Borrowed device memory] in engine/runtime/cuda/borrowed_owners.h). The Python half asks
//    the producer for the capsule with the importing thread's stream (native_stream), so the
//    producer's writes are ordered before ember's reads;
//  - from_numpy: a NumPy array's memory, through the array itself (NumPy 1.24 exports neither
//    read-only nor bool arrays through DLPack), which ember keeps a reference to.
// Either way the release is deferred to a thread that holds the GIL (Note [Deferred releases]).
// `copy`: None borrows where it can and copies otherwise, True copies, False raises BufferError
// where a borrow is impossible (the Array API standard's from_dlpack).
#include <dlpack/dlpack.h>
#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <cstring>
#include <optional>
#include <string>

#include "engine/python/bindings.h"
#include "engine/python/deferred_release.h"
#include "engine/python/dlpack_dtype.h"

namespace ember::python {

namespace {

void CallDeleter(void* p) {
  auto* managed = static_cast<DLManagedTensor*>(p);
  if (managed->deleter != nullptr) managed->deleter(managed);
}

void DecRef(void* p) { Py_DECREF(static_cast<PyObject*>(p)); }

ImportMemoryOptions Options(const std::string& device, std::optional<bool> copy) {
  return {.device = ParseDevice(device), .copy = copy.value_or(false)};
}

// BufferError when copy=False and ember would have to copy: before anything is consumed.
void RequireBorrowable(const TensorMemory& memory, const ImportMemoryOptions& options,
                       std::optional<bool> copy) {
  if (copy != false) return;
  const std::string reason = ImportCopyReason(memory, options);
  if (!reason.empty()) {
    throw py::buffer_error(
        "ember: from_dlpack(copy=False): the memory cannot be used without a "
        "copy: " +
        reason + "; pass copy=None to let ember copy it");
  }
}

// ImportMemory without the GIL, then the releases it (or anything before it) queued.
// REQUIRES: memory.owner is a DeferredOwner.
Tensor Import(TensorMemory memory, const ImportMemoryOptions& options) {
  Tensor out;
  try {
    py::gil_scoped_release unlocked;
    out = ImportMemory(std::move(memory), options);
  } catch (...) {
    RunDeferredReleases();
    throw;
  }
  RunDeferredReleases();
  return out;
}

// The capsule's DLManagedTensor, checked: a DLPack 0.6 capsule not yet consumed.
DLManagedTensor* Unwrap(const py::capsule& capsule) {
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
  if (managed == nullptr) throw py::error_already_set();
  return managed;
}

// The device of a DLPack device: host memory (pinned host memory too, which the CPU reads as
// any other), a CUDA device's memory, or TypeError for the rest (managed memory, other GPUs).
Device DeviceOf(DLDevice device) {
  switch (device.device_type) {
    case kDLCPU:
    case kDLCUDAHost: return Device::Cpu();
    case kDLCUDA: return ParseDevice("cuda:" + std::to_string(device.device_id));
    default: break;
  }
  throw py::type_error("ember: from_dlpack: memory on DLPack device type " +
                       std::to_string(device.device_type) +
                       " is not importable; ember imports host memory (kDLCPU, kDLCUDAHost) and "
                       "CUDA device memory (kDLCUDA)");
}

// The memory a DLTensor describes (no owner yet).
TensorMemory DescribeDLTensor(const DLTensor& dl) {
  TensorMemory memory;
  memory.device = DeviceOf(dl.device);
  memory.dtype = FromDLDataType(dl.dtype);
  memory.shape.assign(dl.shape, dl.shape + dl.ndim);
  if (dl.strides != nullptr) memory.strides.assign(dl.strides, dl.strides + dl.ndim);
  for (int64_t d : memory.shape) {
    if (d == 0) throw py::value_error("ember: from_dlpack: ember has no empty tensors");
  }
  memory.data = static_cast<std::byte*>(dl.data) + dl.byte_offset;
  return memory;
}

}  // namespace

void BindImport(py::module_& m) {
  m.def("from_dlpack",
        [](const py::capsule& capsule, const std::string& device, std::optional<bool> copy) {
          DLManagedTensor* managed = Unwrap(capsule);
          TensorMemory memory = DescribeDLTensor(managed->dl_tensor);
          const ImportMemoryOptions options = Options(device, copy);
          RequireBorrowable(memory, options, copy);
          // Consumed: the capsule no longer deletes the tensor; the owner calls its deleter when
          // ember no longer reads the memory (at once, after a copy), as the protocol says.
          if (PyCapsule_SetName(capsule.ptr(), "used_dltensor") != 0) throw py::error_already_set();
          memory.owner = DeferredOwner(CallDeleter, managed);
          return Import(std::move(memory), options);
        });

  m.def(
      "from_numpy",
      [](const py::array& a, int code, const std::string& device, std::optional<bool> copy) {
        const DType dtype = DTypeFromCode(code);
        if (a.itemsize() != DTypeSize(dtype)) {
          throw py::type_error("ember: from_dlpack: " + std::to_string(a.itemsize()) +
                               "-byte NumPy elements as " + std::string(DTypeName(dtype)));
        }
        TensorMemory memory;
        memory.data = const_cast<void*>(a.data());  // ember never writes it (ImportMemory)
        memory.dtype = dtype;
        for (py::ssize_t i = 0; i < a.ndim(); ++i) {
          if (a.strides(i) % a.itemsize() != 0) {
            throw py::value_error("ember: from_dlpack: a NumPy stride of " +
                                  std::to_string(a.strides(i)) + " bytes is no whole element");
          }
          memory.shape.push_back(a.shape(i));
          memory.strides.push_back(a.strides(i) / a.itemsize());
        }
        const ImportMemoryOptions options = Options(device, copy);
        RequireBorrowable(memory, options, copy);
        memory.owner = DeferredOwner(DecRef, a.inc_ref().ptr());
        return Import(std::move(memory), options);
      },
      py::arg("a").noconvert(), py::arg("code"), py::arg("device"), py::arg("copy"));
}

}  // namespace ember::python
