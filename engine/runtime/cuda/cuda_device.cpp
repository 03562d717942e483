#include "engine/runtime/cuda/cuda_device.h"

#include <map>
#include <mutex>

#include <fmt/format.h>

#include "ember/error.h"
#include "engine/runtime/cuda/driver_api.h"

namespace ember::cuda {
namespace {

// cuInit, with the failures a user meets said plainly. cuInit may be called any number of
// times; after the first success it returns at once.
void InitDriver() {
  const DriverApi& api = Driver();
  const CUresult result = api.cuInit(0);
  if (result == CUDA_SUCCESS) return;
  if (result == CUDA_ERROR_NO_DEVICE) {
    throw Error(fmt::format("no CUDA device on this machine (cuInit: {})", CuResultText(result)));
  }
  throw Error(fmt::format("the CUDA driver at {} failed to initialize (cuInit: {})",
                          api.library_path, CuResultText(result)));
}

std::string DeviceRange(int count) {
  if (count == 1) return "1 CUDA device (cuda:0)";
  return fmt::format("{} CUDA devices (cuda:0 to cuda:{})", count, count - 1);
}

// The device handle for `ordinal`, after checking it exists.
CUdevice GetDevice(int ordinal) {
  const int count = CudaDevice::Count();
  if (count == 0) throw Error("no CUDA device on this machine (cuDeviceGetCount returned 0)");
  if (ordinal < 0 || ordinal >= count) {
    throw Error(
        fmt::format("cuda:{} requested but this machine has {}", ordinal, DeviceRange(count)));
  }
  CUdevice device = 0;
  EMBER_CU(cuDeviceGet, &device, ordinal);
  return device;
}

int Attribute(CUdevice device, CUdevice_attribute attribute) {
  int value = 0;
  EMBER_CU(cuDeviceGetAttribute, &value, attribute, device);
  return value;
}

}  // namespace

int CudaDevice::Count() {
  InitDriver();
  int count = 0;
  EMBER_CU(cuDeviceGetCount, &count);
  return count;
}

// Note [One context per device]
// Retaining a primary context that nobody holds creates it (90-120 ms on an H100), and
// releasing the last reference destroys it (50-60 ms), so two Opens in a row that do not
// overlap pay twice: the plan database's fingerprint and the backend each opened the device,
// one after the other. Open hands out the device that is already open while anyone holds it,
// so every user in the process shares one CudaDevice and one retain.
std::shared_ptr<CudaDevice> CudaDevice::Open(int ordinal) {
  static std::mutex mutex;
  static std::map<int, std::weak_ptr<CudaDevice>> open;
  std::lock_guard lock(mutex);
  std::weak_ptr<CudaDevice>& slot = open[ordinal];
  if (std::shared_ptr<CudaDevice> held = slot.lock()) return held;
  std::shared_ptr<CudaDevice> opened = OpenNew(ordinal);
  slot = opened;
  return opened;
}

CudaDevice::Identity CudaDevice::Identify(int ordinal) { return IdentityOf(GetDevice(ordinal)); }

CudaDevice::Identity CudaDevice::IdentityOf(CUdevice device) {
  char name[256] = {};
  EMBER_CU(cuDeviceGetName, name, static_cast<int>(sizeof(name)), device);
  return {.name = name,
          .capability = {.major = Attribute(device, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR),
                         .minor = Attribute(device, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR)}};
}

std::shared_ptr<CudaDevice> CudaDevice::OpenNew(int ordinal) {
  const CUdevice device = GetDevice(ordinal);
  Identity identity = IdentityOf(device);
  std::shared_ptr<CudaDevice> opened(new CudaDevice());
  opened->ordinal_ = ordinal;
  opened->device_ = device;
  opened->name_ = std::move(identity.name);
  opened->capability_ = identity.capability;
  opened->multiprocessors_ = Attribute(device, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
  opened->registers_per_sm_ =
      Attribute(device, CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR);
  opened->threads_per_sm_ = Attribute(device, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR);
  opened->blocks_per_sm_ = Attribute(device, CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR);
  opened->shared_per_block_ =
      static_cast<size_t>(Attribute(device, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK));
  opened->shared_per_block_optin_ =
      static_cast<size_t>(Attribute(device, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN));
  EMBER_CU(cuDeviceTotalMem, &opened->total_memory_, device);

  // Last, so that a failure above leaves nothing to release; the destructor releases it.
  EMBER_CU(cuDevicePrimaryCtxRetain, &opened->context_, device);
  return opened;
}

std::string CudaDevice::Probe(int ordinal) {
  try {
    GetDevice(ordinal);
    return "";
  } catch (const Error& error) {
    return error.what();
  }
}

CudaDevice::~CudaDevice() {
  if (context_ != nullptr) EMBER_CU_WARN(cuDevicePrimaryCtxRelease, device_);
}

std::string CudaDevice::arch() const {
  return fmt::format("sm_{}{}", capability_.major, capability_.minor);
}

std::string CudaDevice::Describe() const {
  return fmt::format("cuda:{} ({}, {}, {} SMs, {:.1f} GiB)", ordinal_, name_, arch(),
                     multiprocessors_, static_cast<double>(total_memory_) / (1 << 30));
}

void CudaDevice::MakeCurrent() const { EMBER_CU(cuCtxSetCurrent, context_); }

ScopedContext::ScopedContext(const CudaDevice& device) {
  EMBER_CU(cuCtxGetCurrent, &previous_);
  if (previous_ == device.context()) return;
  device.MakeCurrent();
  switched_ = true;
}

ScopedContext::~ScopedContext() {
  if (switched_) EMBER_CU_WARN(cuCtxSetCurrent, previous_);
}

}  // namespace ember::cuda
