// Judging a kernel row that another database offers (a bundle on `import --trust-kernels`, the
// source of `copy`) before it is written into this one. Used by bundle_kernels.cpp and
// plan_copy.cpp only.
//
// Note [Kernels are their plans']: the engine finds a kernel by its key alone
// (PersistentKernels::Load), so a row whose key or source was made up would serve whatever plan
// generates that key, and `ember-plans show --source` would print text unrelated to the binary.
// A row offered from elsewhere is therefore written only when
//   * its key is recomputed from its own name, source, options, arch and compiler
//     (MakeKernelKey, engine/runtime/kernel_key.h) and is the key it is stored under, and
//   * its name and source are what a fused trace of a plan it is linked to generates
//     (codegen::GenerateKernel, for the kernel signature its source names); it is linked only to
//     those plans.
// Kernels no fused trace generates (the backend's per-op kernels) are never carried: the engine
// compiles them again on first use. Neither check says anything of the binary itself (Note
// [Bundle kernels are code], bundle_kernels.h): that is what --trust-kernels and the source
// file's trust are for.
//
// Pure functions; callable from any thread.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <vector>

#include "engine/stream/plan.h"
#include "store/admin/kernel_inventory.h"

namespace ember {

// Why `kernel`'s stored key is not the key of its text, or nullopt when it is.
std::optional<std::string> KernelKeyProblem(const KernelRecord& kernel);

// Whether `plan` has a fused trace that generates exactly `kernel`'s name and source.
bool PlanGeneratesKernel(const ExecutionPlan& plan, const KernelText& kernel);

// Which of `plans` (the plans `kernel` is linked to, decoded) may be linked to it: those that
// generate it. Empty, with the reason in *why, when the key fails or none generates it.
std::vector<size_t> PlansOfKernel(const KernelRecord& kernel,
                                  std::span<const ExecutionPlan* const> plans, std::string* why);

}  // namespace ember
