// Reads of exported memory in the GPU suite (export_memory_gpu_test.cpp,
// import_memory_gpu_test.cpp): device memory through the driver's own copy in the pointer's
// context, not through ember, so a test sees what the memory holds rather than what ember
// says it holds; host memory (the suite run on the CPU, EMBER_GPU_SUITE_ON_CPU=1) by memcpy.
#pragma once

#include <dlfcn.h>

#include <cstddef>
#include <cstring>
#include <vector>

#include <gtest/gtest.h>

#include <ember/memory.h>

namespace ember::gpu {

// The few driver entry points the reads need, declared with plain types (the suite builds
// without the CUDA headers too), looked up in the driver ember has already loaded.
struct Driver {
  using PointerAttribute = int (*)(void*, int, unsigned long long);
  using CtxPush = int (*)(void*);
  using CtxPop = int (*)(void**);
  using CopyDtoH = int (*)(void*, unsigned long long, size_t);
  PointerAttribute pointer_attribute = nullptr;
  CtxPush push = nullptr;
  CtxPop pop = nullptr;
  CopyDtoH copy = nullptr;

  static const Driver& Get() {
    static const Driver driver = [] {
      Driver d;
      void* lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
      if (lib == nullptr) return d;
      d.pointer_attribute = reinterpret_cast<PointerAttribute>(dlsym(lib, "cuPointerGetAttribute"));
      d.push = reinterpret_cast<CtxPush>(dlsym(lib, "cuCtxPushCurrent_v2"));
      d.pop = reinterpret_cast<CtxPop>(dlsym(lib, "cuCtxPopCurrent_v2"));
      d.copy = reinterpret_cast<CopyDtoH>(dlsym(lib, "cuMemcpyDtoH_v2"));
      return d;
    }();
    return driver;
  }
};

constexpr int kPointerAttributeContext = 1;     // CU_POINTER_ATTRIBUTE_CONTEXT
constexpr int kPointerAttributeMemoryType = 2;  // CU_POINTER_ATTRIBUTE_MEMORY_TYPE
constexpr unsigned kMemoryTypeDevice = 2;       // CU_MEMORYTYPE_DEVICE

// `bytes` bytes from `data`: device memory through the driver, host memory (the suite run on
// the CPU, EMBER_GPU_SUITE_ON_CPU=1) by memcpy.
inline std::vector<std::byte> DeviceBytes(const TensorMemory& m, const void* data, size_t bytes) {
  std::vector<std::byte> out(bytes);
  if (m.device == Device::Cpu()) {
    std::memcpy(out.data(), data, bytes);
    return out;
  }
  const Driver& d = Driver::Get();
  EXPECT_NE(d.copy, nullptr) << "the CUDA driver is not loaded";
  if (d.copy == nullptr) return out;
  const auto address = reinterpret_cast<unsigned long long>(data);
  unsigned memory_type = 0;
  EXPECT_EQ(d.pointer_attribute(&memory_type, kPointerAttributeMemoryType, address), 0);
  EXPECT_EQ(memory_type, kMemoryTypeDevice) << "the exported pointer is not device memory";
  void* context = nullptr;
  EXPECT_EQ(d.pointer_attribute(&context, kPointerAttributeContext, address), 0);
  EXPECT_EQ(d.push(context), 0);
  EXPECT_EQ(d.copy(out.data(), address, bytes), 0);
  void* popped = nullptr;
  EXPECT_EQ(d.pop(&popped), 0);
  return out;
}

inline std::vector<float> Floats(const TensorMemory& m, size_t n) {
  const std::vector<std::byte> bytes = DeviceBytes(m, m.data, n * sizeof(float));
  std::vector<float> out(n);
  std::memcpy(out.data(), bytes.data(), bytes.size());
  return out;
}

}  // namespace ember::gpu
