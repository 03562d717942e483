// Read-only queries over the compiled kernels of a plan database, for the tools (`ember-plans
// ls`, `show`, `stats`, `verify`) and the store's maintenance code (gc, bundles). The engine's
// own kernel lookups stay in PlanRepository (GetKernel).
//
// Note [Kernel links]: a plan uses the kernels that plan_kernels links to it; two plans whose
// traces generate the same source share one kernels row, and kernels.plan_id is only the plan
// the kernel was first compiled for (migrations/0002_plan_kernels.sql). A file of schema 1
// (read-only: the tools never migrate what they only read) has no plan_kernels and no name,
// source or options columns; there a kernel's one link is kernels.plan_id and its text is empty
// — what migration 2 makes of the same rows.
//
// Every function reads without writing and returns a Status for every database problem.
// Threading: as the SqliteDatabase it is given — one thread at a time.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "engine/core/status.h"
#include "store/repository/plan_rows.h"
#include "store/repository/sql_session.h"
#include "store/sqlite/sqlite_database.h"

namespace ember {

// One plan_kernels row, with the environment of the plan it names (nullopt when no such plan
// exists: a dangling link, which foreign_key_check reports).
struct KernelLink {
  PlanRowId plan_id = 0;
  std::optional<EnvironmentRowId> plan_environment_id;
};

// One row of `kernels`, with its links.
struct KernelRecord {
  KernelRowId id = 0;
  EnvironmentRowId environment_id = 0;
  std::optional<PlanRowId> plan_id;  // the plan it was first compiled for
  KernelKey key;
  KernelText text;       // empty in a schema-1 file; source only with KernelFilter::sources
  int64_t checksum = 0;  // as stored
  int64_t bytes = 0;     // length(binary)
  int64_t created = 0;   // Unix ms
  Blob binary;           // only with KernelFilter::binaries
  std::vector<KernelLink> links;  // by plan id
};

struct KernelFilter {
  std::optional<PlanRowId> plan;  // only the kernels linked to this plan
  bool sources = false;           // read text.source (it can be long)
  bool binaries = false;          // read the binary (to check or copy it)
};

// Kernels by id. REQUIRES: inside a transaction of the caller's (it starts none), so that gc and
// import read what their write transaction sees.
// On either database (sql_session.h); the SqliteDatabase forms run the same queries on a file.
Status ReadKernels(SqlSession& sql, const KernelFilter& filter, std::vector<KernelRecord>* out);
Status ReadKernels(SqliteDatabase& db, const KernelFilter& filter, std::vector<KernelRecord>* out);
// ReadKernels in a read transaction of its own.
Status ListKernels(SqlSession& sql, const KernelFilter& filter, std::vector<KernelRecord>* out);
Status ListKernels(SqliteDatabase& db, const KernelFilter& filter, std::vector<KernelRecord>* out);

// How many kernels each plan uses (plans without kernels are absent), in a read transaction.
Status CountKernelsPerPlan(SqlSession& sql, std::map<PlanRowId, int64_t>* out);

// The kernels of one (architecture, compiler version).
struct KernelArchCount {
  std::string arch;
  std::string compiler_version;
  int64_t kernels = 0;
  int64_t bytes = 0;  // SUM(length(binary))
};

// Per (arch, compiler version), in that order. REQUIRES: inside a transaction of the caller's.
Status ReadKernelsByArch(SqlSession& sql, std::vector<KernelArchCount>* out);

// Why a kernel binary does not match its stored checksum column ("checksum mismatch (stored
// 0x…, computed 0x…)"), or nullopt when it does: the one check that verify, copy and bundle
// import make before trusting a binary.
std::optional<std::string> KernelChecksumProblem(std::span<const uint8_t> binary,
                                                 int64_t stored_checksum);

// "kernel 3 (ember_fused_0, sm_90)": how tools and reports name a kernel row.
std::string KernelLabel(const KernelRecord& kernel);

}  // namespace ember
