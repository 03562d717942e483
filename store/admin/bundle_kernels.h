// The compiled kernels of a plan bundle (Note [Plan bundles], store/admin/plan_bundle.h): what
// export writes and how import judges them. Used by plan_bundle.cpp only.
//
// Note [Bundle kernels are code]: a kernel binary is machine code that the GPU runs; nothing
// ember can check tells a correct cubin from one that computes something else or writes out of
// bounds (its checksum catches damage, not intent). A plan is different: every byte of its
// optimization is re-derived from its ops by the proof (Note [Optimization proof],
// store/codec/plan_proof.h), so a forged plan can at most run unfused. A bundle comes from
// another machine or user, so its binaries are only as trustworthy as its sender; import
// therefore keeps the bundle's plans but leaves its kernels out unless the caller says it
// trusts them (`ember-plans import --trust-kernels`): the engine compiles the kernels of an
// imported plan again on first use, from source it generates itself. With trust, each kernel
// must pass its checksum, belong to an imported plan of its own environment, be stored under the
// key of its own text and be what one of those plans' fused traces generates (Note [Kernels are
// their plans'], bundle_kernel_check.h), and it is linked only to the plans that generate it; a
// kernel row of the target with the same key (source hash, arch, compiler version) wins, so a
// bundle never replaces a binary this machine compiled.
//
// REQUIRES for both functions: inside the caller's write transaction on the database written.
#pragma once

#include <cstdint>
#include <map>
#include <vector>

#include "engine/core/status.h"
#include "engine/stream/plan.h"
#include "store/admin/kernel_inventory.h"
#include "store/admin/plan_bundle.h"
#include "store/repository/plan_repository.h"
#include "store/sqlite/sqlite_database.h"

namespace ember {

// Writes into the bundle `db` the kernels of `kernels` (read with sources and binaries) that an
// exported plan of the kernel's own environment uses, with their text and one plan_kernels row
// per such plan; kernels.plan_id is the plan it was first compiled for when that one is
// exported, else the first exported plan that uses it. `env_ids` and `plan_ids` map the
// source's row ids to the bundle's. A kernel whose checksum fails is left out (a bundle never
// ships damage) and counted in *damaged; *written counts the others.
Status WriteBundleKernels(SqliteDatabase& db, const std::vector<KernelRecord>& kernels,
                          const std::map<EnvironmentRowId, EnvironmentRowId>& env_ids,
                          const std::map<PlanRowId, PlanRowId>& plan_ids, int64_t* written,
                          int64_t* damaged);

// Imports the bundle's `kernels` into `target` (Note [Bundle kernels are code]) through its row
// writes (PlanRepository::WriteKernelRow: a SQLite file or a server alike), linked
// to the target's rows of the bundle plans that use them. `env_ids` maps the bundle's accepted
// environments to the target's, `plan_ids` its imported plans (inserted or existing) to the
// target's rows, and `decoded` holds those imported plans decoded (by bundle row id). Without
// `trust`, nothing is written and every kernel is counted untrusted;
// with it, each lands in exactly one of kernels_added, kernels_existing or kernels_refused (the
// refused ones named in result->refusals).
Status ImportBundleKernels(PlanRepository& target, const std::vector<KernelRecord>& kernels,
                           const std::map<EnvironmentRowId, EnvironmentRowId>& env_ids,
                           const std::map<PlanRowId, PlanRowId>& plan_ids,
                           const std::map<PlanRowId, ExecutionPlan>& decoded, bool trust,
                           int64_t now, ImportResult* result);

}  // namespace ember
