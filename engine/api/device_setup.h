// What each device is made of: its backend, its fusers and the persistent tiers of its plans.
// This is the engine's composition root, the one place that sees both the engine and the plan
// database (store/); the rest of engine/ knows the store only as a PlanBacking
// (engine/stream/plan_backing.h). docs/ARCHITECTURE.md, "The composition root".
#pragma once

#include <memory>
#include <string>

#include <ember/device.h>

#include "engine/core/config.h"
#include "engine/runtime/backend.h"
#include "engine/stream/multi_stream.h"
#include "engine/stream/plan_backing.h"
#include "store/codec/environment_fingerprint.h"

namespace ember {

// What `device`'s plans depend on under `config` (Note [Environment fingerprint]).
EnvironmentFingerprint FingerprintOf(Device device, const Config& config);

// The backend of `device`; throws ember::Error for a device this build cannot run.
std::unique_ptr<Backend> MakeBackend(Device device);

// Why cuda:<ordinal> cannot be used (no driver, no device, ordinal out of range, NVRTC
// missing, or no CUDA in this build), or "" when it can. Never throws.
std::string CudaUnavailableReason(int ordinal);

// The built-in fusers of `device`'s backend, in registration order.
FuserFactory BackendFusers(Device device);

// The plan database for `device`, or null when it is off or unusable (said once on stderr: the
// program runs on with in-memory plans).
std::unique_ptr<PlanBacking> OpenPlanDatabase(Device device);

}  // namespace ember
