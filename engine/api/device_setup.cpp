#include "engine/api/device_setup.h"

#include <cstdio>
#include <mutex>
#include <string>
#include <vector>

#include <fmt/format.h>

#include <ember/tensor.h>

#include "engine/core/config.h"
#include "engine/core/plan_db_location.h"
#include "engine/core/printable.h"
#include "engine/fuse/builtin_fusers.h"
#include "engine/runtime/cpu/cpu_backend.h"
#include "engine/runtime/cpu/vector_math.h"
#ifdef EMBER_WITH_CUDA
#include "engine/runtime/cuda/backend/cuda_backend.h"
#include "engine/runtime/cuda/cuda_device.h"
#include "engine/runtime/cuda/nvrtc_api.h"
#endif
#include "store/codec/plan_codec.h"
#include "store/persistent_plans.h"
#include "store/reconnecting_plans.h"

namespace ember {
namespace {

std::vector<FuserVersion> BackendFuserVersions(Device) {
  std::vector<FuserVersion> versions;
  for (const BuiltinFuserEntry& entry : BuiltinFuserTable()) {
    versions.push_back({std::string(entry.name), entry.version});
  }
  return versions;
}

}  // namespace

// Note [Environment fingerprint] (store/codec/environment_fingerprint.h): what a plan depends on.
// The CPU's model is left out on purpose: CPU plans hold no machine code and no
// model-specific choice, so a database warmed on one host serves every x86 host; its math
// accuracy is in (Note [CPU math accuracy], engine/runtime/cpu/vector_math.h). A CUDA plan
// records the GPU model, its compute capability and the kernel compiler (never the ordinal:
// two H200s of a host share their plans).
EnvironmentFingerprint FingerprintOf(Device device, const Config& config) {
  const bool cpu = device.kind() == Device::Kind::kCpu;
  EnvironmentFingerprint fp{
      .engine_version = EMBER_VERSION,
      .schema_version = kPlanSchemaVersion,
      .backend = cpu ? "cpu" : "cuda",
      .device_model = "any",
      .compute_capability = "",
      .fusers = BackendFuserVersions(device),
      .max_blocks = config.max_blocks,
      .sync_tail = config.search_sync_tail ? "search" : "burn",
      .cpu_math = std::string(CpuMathName(cpu ? config.cpu_math : CpuMath::kU10))};
#ifdef EMBER_WITH_CUDA
  if (device.kind() == Device::Kind::kCuda) {
    // No context: Note [One context per device] (engine/runtime/cuda/cuda_device.cpp).
    const cuda::CudaDevice::Identity gpu = cuda::CudaDevice::Identify(device.ordinal());
    fp.device_model = gpu.name;
    fp.compute_capability = fmt::format("{}.{}", gpu.capability.major, gpu.capability.minor);
    fp.compiler = cuda::NvrtcCompilerId();
  }
#endif
  return fp;
}

std::unique_ptr<Backend> MakeBackend(Device device) {
  switch (device.kind()) {
    case Device::Kind::kCpu:
      // The process's CPU math is its CPU device's, set before the device's first op and read
      // from the configuration that FingerprintOf records (Note [CPU math accuracy]).
      cpu::UseCpuMath(GlobalConfig().cpu_math);
      return cpu::MakeCpuBackend();
    case Device::Kind::kCuda:
#ifdef EMBER_WITH_CUDA
      return cuda::MakeCudaBackend(device.ordinal());
#else
      break;
#endif
  }
  throw Error("ember: " + device.ToString() +
              ": this build of ember has no CUDA backend; use Device::Cpu()");
}

std::string CudaUnavailableReason(int ordinal) {
#ifdef EMBER_WITH_CUDA
  std::string why = cuda::CudaDevice::Probe(ordinal);
  if (!why.empty()) return why;
  // Once per process, like the driver's own answer (Device::Cuda may be called per op).
  static const std::string nvrtc_missing = cuda::NvrtcMissing();
  return nvrtc_missing;
#else
  (void)ordinal;
  return "this build of ember has no CUDA backend";
#endif
}

// The built-in fusers in registration order (the order breaks score ties: docs/FUSERS.md).
// Their versions go into the plan database's environment: bump one when a fuser's decisions
// or traces change, so plans it made before stop being used.
// The plan database re-derives every loaded plan with the same fusers and limit (Note
// [Optimization proof], store/codec/plan_proof.h).
FuserFactory BackendFusers(Device) {
  return [] { return BuiltinFusers(kCpuMaxBindings); };
}

// The workload plans are counted under. A name the configuration did not check (set through
// the API, or the executable's own) is stored escaped when it is not UTF-8 text that can be
// shown, so that SQLite and PostgreSQL keep the same name and every printer can show it.
std::string WorkloadName(const Config& config) {
  const std::string name = config.workload.empty() ? ExecutableName() : config.workload;
  return IsShowableName(name) ? name : PrintableBounded(name, kMaxNameBytes);
}

// The plan database for `device`, or null when it is off or unusable (said once on stderr:
// the program runs on with in-memory plans).
std::unique_ptr<PlanBacking> OpenPlanDatabase(Device device) {
  const Config& config = GlobalConfig();
  if (!config.fusion_enabled || config.plan_db == "off") return nullptr;
  PersistentPlansOptions options{.path = PlanDbPath(config),
                                 .environment = FingerprintOf(device, config),
                                 .workload = WorkloadName(config),
                                 .max_explorations = config.max_explorations,
                                 .allow_shared_writable = config.allow_shared_writable,
                                 .shm = config.shm,
                                 .shm_bytes = config.shm_bytes,
                                 .shm_wait_ms = config.shm_wait_ms,
                                 // Read beside the context's creation (docs/ARCHITECTURE.md).
                                 .prefetch_kernels = device.kind() == Device::Kind::kCuda};
  std::unique_ptr<PersistentPlans> plans;
  if (Status s = PersistentPlans::Open(options, &plans); !s.ok()) {
    // A server out of reach at start is waited for in the background; anything else (a file
    // that cannot be used, a foreign database) leaves the process memory-only.
    if (IsPostgresUri(options.path) && s.code() == Status::Code::kUnavailable) {
      return std::make_unique<ReconnectingPlans>(options, s);
    }
    static std::once_flag said;
    std::call_once(said, [&] {
      std::fprintf(stderr, "ember: plan database %s: %s; plans stay in memory\n",
                   ShownLocation(options.path).c_str(), PrintableLines(s.ToString()).c_str());
    });
    return nullptr;
  }
  return plans;
}

}  // namespace ember
