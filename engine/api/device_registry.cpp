// The process-wide map Device -> DeviceServer, and the free functions of the public API that
// act on a whole device (Sync, Seed, ReleaseDevice).
#include <limits>
#include <map>
#include <mutex>

#include <ember/tensor.h>

#include "engine/api/device_server.h"
#include "engine/core/config.h"
#include "engine/fuse/elementwise_fuser.h"
#include "engine/fuse/matmul_fuser.h"
#include "engine/fuse/reduce_broadcasted_fuser.h"
#include "engine/fuse/reduce_fuser.h"
#include "engine/runtime/cpu/cpu_backend.h"

namespace ember {
namespace {

struct Registry {
  std::mutex mu;
  std::map<std::pair<int, int>, std::shared_ptr<DeviceServer>> servers;
  FuserFactory test_fusers;
};

Registry& GetRegistry() {
  static Registry* registry = new Registry();  // never destroyed: tensors may outlive main
  return *registry;
}

std::pair<int, int> KeyOf(Device d) { return {static_cast<int>(d.kind()), d.ordinal()}; }

std::unique_ptr<Backend> MakeBackend(Device device) {
  switch (device.kind()) {
    case Device::Kind::kCpu: return cpu::MakeCpuBackend();
    case Device::Kind::kCuda: break;
  }
  throw Error("ember: " + device.ToString() +
              ": this build of ember has no CUDA backend; use Device::Cpu()");
}

// The fusers a backend offers, in tie-break order. None exist yet: every block runs its ops
// unfused (the fusers come with the fusion issue).
// The built-in fusers in registration order (the order breaks score ties, DESIGN.md §4).
FuserFactory BackendFusers(Device) {
  // The CPU backend has no binding limit (burn's CPU runtime: u32::MAX).
  static constexpr uint32_t kMaxBindings = std::numeric_limits<uint32_t>::max();
  return [] {
    std::vector<std::unique_ptr<OperationFuser>> fusers;
    fusers.push_back(std::make_unique<ElementWiseFuser>(kMaxBindings));
    fusers.push_back(std::make_unique<MatmulFuser>(kMaxBindings));
    fusers.push_back(std::make_unique<ReduceFuser>(kMaxBindings));
    fusers.push_back(std::make_unique<ReduceBroadcastedFuser>(kMaxBindings));
    return fusers;
  };
}

SearchSettings SettingsFromConfig() {
  const Config& config = GlobalConfig();
  return SearchSettings{config.max_blocks, config.max_explorations, config.fusion_enabled};
}

}  // namespace

Device Device::Cuda(int ordinal) {
  if (ordinal < 0) {
    throw Error("ember: Device::Cuda(" + std::to_string(ordinal) +
                "): the ordinal must be >= 0");
  }
  throw Error("ember: Device::Cuda(" + std::to_string(ordinal) +
              "): CUDA is unavailable: this build of ember has no CUDA backend; use "
              "Device::Cpu()");
}

std::string Device::ToString() const {
  switch (kind_) {
    case Kind::kCpu: return "cpu";
    case Kind::kCuda: return "cuda:" + std::to_string(ordinal_);
  }
  return "?";
}

std::shared_ptr<DeviceServer> ServerFor(Device device) {
  Registry& r = GetRegistry();
  std::lock_guard lock(r.mu);
  std::shared_ptr<DeviceServer>& slot = r.servers[KeyOf(device)];
  if (!slot) {
    FuserFactory fusers = r.test_fusers ? r.test_fusers : BackendFusers(device);
    slot = std::make_shared<DeviceServer>(device, MakeBackend(device), std::move(fusers),
                                          SettingsFromConfig());
  }
  return slot;
}

void internal::SetFuserFactoryForTesting(FuserFactory factory) {
  Registry& r = GetRegistry();
  std::lock_guard lock(r.mu);
  r.test_fusers = std::move(factory);
}

Stats GetStats(Device device) {
  std::shared_ptr<DeviceServer> server;
  {
    Registry& r = GetRegistry();
    std::lock_guard lock(r.mu);
    auto it = r.servers.find(KeyOf(device));
    if (it == r.servers.end()) return Stats{};
    server = it->second;
  }
  return server->GetStats();
}

void Sync(Device device) { ServerFor(device)->Drain(CurrentStreamId()); }

void Seed(Device device, uint64_t seed) { ServerFor(device)->Seed(CurrentStreamId(), seed); }

void ReleaseDevice(Device device) {
  std::shared_ptr<DeviceServer> server;
  {
    Registry& r = GetRegistry();
    std::lock_guard lock(r.mu);
    auto it = r.servers.find(KeyOf(device));
    if (it == r.servers.end()) return;
    server = std::move(it->second);
    r.servers.erase(it);
  }
  // Queued work is discarded with the server: no tensor of it can be read any more. A thread
  // still inside an op keeps the server alive until that op returns.
}

}  // namespace ember
