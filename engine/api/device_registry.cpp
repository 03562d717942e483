// The process-wide map Device -> DeviceServer, and the free functions of the public API that
// act on a whole device (Sync, Seed, ReleaseDevice).
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <future>
#include <map>
#include <mutex>

#include <ember/tensor.h>

#include "engine/api/device_server.h"
#include "engine/api/device_setup.h"
#include "engine/core/config.h"
#include "engine/core/elapsed.h"

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

// The registry is never destroyed, so the plan writers are flushed (and their write-ahead logs
// checkpointed into the database files) at exit explicitly.
void FlushPlanDatabasesAtExit();

SearchSettings SettingsFromConfig() {
  const Config& config = GlobalConfig();
  return SearchSettings{config.max_blocks, config.max_explorations, config.fusion_enabled,
                        config.search_sync_tail};
}

void FlushPlanDatabasesAtExit() {
  std::vector<std::shared_ptr<DeviceServer>> servers;
  {
    Registry& r = GetRegistry();
    std::lock_guard lock(r.mu);
    for (auto& [key, server] : r.servers) servers.push_back(server);
  }
  for (const auto& server : servers) server->ClosePlans();
}

}  // namespace

Device Device::Cuda(int ordinal) {
  if (ordinal < 0) {
    throw Error("ember: Device::Cuda(" + std::to_string(ordinal) + "): the ordinal must be >= 0",
                ErrorKind::kInvalidArgument);
  }
  const std::string why = CudaUnavailableReason(ordinal);
  if (!why.empty()) {
    throw Error("ember: Device::Cuda(" + std::to_string(ordinal) +
                "): CUDA is unavailable: " + why + "; use Device::Cpu()");
  }
  return Device(Kind::kCuda, ordinal);
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
    const auto start = std::chrono::steady_clock::now();
    StartBreakdown started;
    FuserFactory fusers = r.test_fusers ? r.test_fusers : BackendFusers(device);
    // A GPU's backend (the driver and the context: 100-200 ms, most of a warm start) is made
    // on a thread of its own while the plan database opens here; neither needs the other
    // (Note [One context per device], engine/runtime/cuda/cuda_device.cpp). The CPU's is made
    // here, after the database, as it takes no time.
    const auto policy =
        device.kind() == Device::Kind::kCuda ? std::launch::async : std::launch::deferred;
    std::future<std::unique_ptr<Backend>> made = std::async(policy, [device, &started] {
      const auto begun = std::chrono::steady_clock::now();
      std::unique_ptr<Backend> backend = MakeBackend(device);
      started.context_ms = MsSince(begun);
      return backend;
    });
    // Test fusers build optimizations the plan database cannot store.
    std::unique_ptr<PlanBacking> backing;
    if (!r.test_fusers) {
      const auto begun = std::chrono::steady_clock::now();
      backing = OpenPlanDatabase(device);
      if (backing != nullptr) started.plan_db_open_ms = MsSince(begun);
    }
    if (backing != nullptr) {
      static std::once_flag registered;
      std::call_once(registered, [] { std::atexit(FlushPlanDatabasesAtExit); });
    }
    std::unique_ptr<Backend> backend = made.get();
    // Kernels compiled on this device are kept with its plans (Note [Stored kernels]).
    if (backing != nullptr && backend->compiles_kernels()) {
      backend->UseKernelStore(backing->AttachKernels());
    }
    if (backing != nullptr) {
      backend->UseFactStore(backing->AttachFacts());
      backend->UseRecipeStore(backing->AttachRecipes());
    }
    started.engine_ms = MsSince(start);
    slot = std::make_shared<DeviceServer>(device, std::move(backend), std::move(fusers),
                                          SettingsFromConfig(), std::move(backing), started);
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

std::vector<std::string> RecentMisses(Device device) {
  std::shared_ptr<DeviceServer> server;
  {
    Registry& r = GetRegistry();
    std::lock_guard lock(r.mu);
    auto it = r.servers.find(KeyOf(device));
    if (it == r.servers.end()) return {};
    server = it->second;
  }
  return server->RecentMisses();
}

void Sync(Device device) { ServerFor(device)->Drain(CurrentStreamId()); }

void FlushPlans(Device device) {
  const std::shared_ptr<DeviceServer> server = ServerFor(device);
  server->Drain(CurrentStreamId());
  server->FlushPlans();
}

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
