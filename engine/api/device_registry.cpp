// The process-wide map Device -> DeviceServer, and the free functions of the public API that
// act on a whole device (Sync, Seed, ReleaseDevice).
#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>

#include <ember/tensor.h>

#include "engine/api/device_server.h"
#include "engine/core/config.h"
#include "engine/fuse/builtin_fusers.h"
#include "engine/fuse/elementwise_fuser.h"
#include "engine/fuse/matmul_fuser.h"
#include "engine/fuse/reduce_broadcasted_fuser.h"
#include "engine/fuse/reduce_fuser.h"
#include "engine/runtime/cpu/cpu_backend.h"
#include "store/persistent_plans.h"
#include "store/plan_codec.h"

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

// The built-in fusers in registration order (the order breaks score ties, DESIGN.md §4).
// Their versions go into the plan database's environment: bump one when a fuser's decisions
// or traces change, so plans it made before stop being used.
// The plan database re-derives every loaded plan with the same fusers and limit (Note
// [Optimization proof], store/plan_proof.h).
FuserFactory BackendFusers(Device) {
  return [] { return BuiltinFusers(kCpuMaxBindings); };
}

std::vector<FuserVersion> BackendFuserVersions(Device) {
  return {{std::string(ElementWiseFuser::kName), 1},
          {std::string(MatmulFuser::kName), 1},
          {std::string(ReduceFuser::kName), 1},
          {std::string(ReduceBroadcastedFuser::kName), 1}};
}

// Note [Environment fingerprint] (store/environment_fingerprint.h): what a plan depends on.
// The CPU's model is left out on purpose: CPU plans hold no machine code and no
// model-specific choice, so a database warmed on one host serves every x86 host.
EnvironmentFingerprint FingerprintOf(Device device, const Config& config) {
  return EnvironmentFingerprint{.engine_version = EMBER_VERSION,
                                .schema_version = kPlanSchemaVersion,
                                .backend = device.kind() == Device::Kind::kCpu ? "cpu" : "cuda",
                                .device_model = "any",
                                .compute_capability = "",
                                .fusers = BackendFuserVersions(device),
                                .max_blocks = config.max_blocks};
}

// The plan database for `device`, or null when it is off or unusable (said once on stderr:
// the program runs on with in-memory plans).
std::unique_ptr<PlanBacking> OpenPlanDatabase(Device device) {
  const Config& config = GlobalConfig();
  if (!config.fusion_enabled || config.plan_db == "off") return nullptr;
  PersistentPlansOptions options{
      .path = PlanDbPath(config),
      .environment = FingerprintOf(device, config),
      .workload = config.workload.empty() ? ExecutableName() : config.workload,
      .max_explorations = config.max_explorations,
      .allow_shared_writable = config.allow_shared_writable,
      .shm = config.shm,
      .shm_bytes = config.shm_bytes,
      .shm_wait_ms = config.shm_wait_ms};
  std::unique_ptr<PersistentPlans> plans;
  if (Status s = PersistentPlans::Open(options, &plans); !s.ok()) {
    static std::once_flag said;
    std::call_once(said, [&] {
      std::fprintf(stderr, "ember: plan database %s: %s; plans stay in memory\n",
                   options.path.c_str(), s.ToString().c_str());
    });
    return nullptr;
  }
  return plans;
}

// The registry is never destroyed, so the plan writers are flushed (and their write-ahead logs
// checkpointed into the database files) at exit explicitly.
void FlushPlanDatabasesAtExit();

SearchSettings SettingsFromConfig() {
  const Config& config = GlobalConfig();
  return SearchSettings{config.max_blocks, config.max_explorations, config.fusion_enabled};
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
    throw Error("ember: Device::Cuda(" + std::to_string(ordinal) + "): the ordinal must be >= 0");
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
    // Test fusers build optimizations the plan database cannot store.
    std::unique_ptr<PlanBacking> backing = r.test_fusers ? nullptr : OpenPlanDatabase(device);
    if (backing != nullptr) {
      static std::once_flag registered;
      std::call_once(registered, [] { std::atexit(FlushPlanDatabasesAtExit); });
    }
    slot = std::make_shared<DeviceServer>(device, MakeBackend(device), std::move(fusers),
                                          SettingsFromConfig(), std::move(backing));
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
